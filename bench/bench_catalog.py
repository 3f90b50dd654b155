"""The catalog's build, the requests it indexes, its text search and active count.

    .venv/bin/python bench/bench_catalog.py                  # 10,000 memories, 3,000 requests
    .venv/bin/python bench/bench_catalog.py --runs 5 --src /tmp/old-checkout

Copies the 10,000 store (``bench/.stores/mg-10000``, :mod:`stores`) once to
``bench/.stores/work/catalog-10000`` and adds request files to the copy in one
commit (most of them decided, a tenth open, each naming a random memory). Then,
each in a fresh process importing ``core`` from ``--src`` (default: this
checkout; pass an older checkout to compare), and the median of ``--runs``:

- ``build``: the catalog deleted, then the first open (every file read and indexed)
  and the first ``text_holders`` (which builds the text search);
- ``requests``: a warm catalog, the process's first ``load_requests``, a second
  one, and the open requests of 100 memories;
- ``queue``: a warm catalog, the process's first ``build_queue`` of the requests'
  kinds (promotions and deletions: 300 open requests), then one of every kind;
- ``holders``: ``text_holders`` for 30 needles (content lines of random records,
  and strings no record holds), median per needle;
- ``count``: ``count_active`` besides 50 ids, median of 200 calls.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORES = ROOT / "bench" / ".stores"
SOURCE = STORES / "mg-10000"
WORK = STORES / "work" / "catalog-10000"
REQUESTS = 3_000


def prepare() -> Path:
    if (WORK / ".requests-added").exists():
        return WORK
    sys.path.insert(0, str(ROOT))
    from core.store.requests import REQUEST_DIR, Request
    from core.store.store import Store

    subprocess.run(["rm", "-rf", str(WORK)], check=True)
    WORK.parent.mkdir(parents=True, exist_ok=True)
    # the store itself, not the link to it (bench/.stores/mg-10000 may be a link to
    # a shared store, which is never written)
    subprocess.run(["cp", "-a", f"{SOURCE.resolve()}/.", str(WORK)], check=True)
    if WORK.is_symlink() or not (WORK / ".git").is_dir() or (WORK / ".git").is_symlink():
        raise SystemExit(f"{WORK} is not a copy of the store")
    ids = sorted(Store(WORK).records)
    rng = random.Random(7)
    folder = WORK / REQUEST_DIR
    folder.mkdir(exist_ok=True)
    for n in range(REQUESTS):
        kind = rng.choice(("promote", "delete"))
        status = "open" if n % 10 == 0 else rng.choice(("approved", "rejected"))
        request = Request(
            id=f"{kind}-20240101-{n:06x}",
            kind=kind,
            memory_id=rng.choice(ids),
            reason=f"bench request {n}: {'keep it shared' if kind == 'promote' else 'stale'}",
            requested_by="bench@example.com",
            requested_at="2024-01-01T00:00:00+00:00",
            status=status,
            decision=None if status == "open" else f"d-{n:06x}",
            decided_by=None if status == "open" else "bench@example.com",
            decision_reason=None if status == "open" else "benched",
        )
        (folder / f"{request.id}.yaml").write_text(request.to_yaml())
    git = ["git", "-C", str(WORK), "-c", "user.email=bench@example.com", "-c", "user.name=bench"]
    subprocess.run([*git, "add", REQUEST_DIR], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "bench: requests"], check=True)
    with (WORK / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("/.requests-added\n")
    (WORK / ".requests-added").write_text("")
    len(Store(WORK).records)  # the catalog brought up to date
    return WORK


CHILD = r"""
import json, os, random, statistics, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
mode, root = sys.argv[2], Path(sys.argv[3])
from core.store.store import Store
out = {}
if mode == "build":
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(root / ".git" / "memgov" / f"catalog.sqlite{suffix}")
        except FileNotFoundError:
            pass
    t = time.perf_counter()
    store = Store(root)
    store.records
    out["first open"] = time.perf_counter() - t
    out["first open cpu"] = time.process_time()
    t, c = time.perf_counter(), time.process_time()
    store.records.catalog.text_holders("no record holds this line")
    out["first text_holders (builds the search)"] = time.perf_counter() - t
    out["first text_holders cpu"] = time.process_time() - c
    out["catalog MB"] = os.path.getsize(root / ".git" / "memgov" / "catalog.sqlite") / 1e6
elif mode == "requests":
    from core.store import requests as rq
    store = Store(root)
    store.records
    t = time.perf_counter()
    found = rq.load_requests(store)
    out["load_requests first"] = time.perf_counter() - t
    t = time.perf_counter()
    rq.load_requests(store)
    out["load_requests again"] = time.perf_counter() - t
    ids = sorted({r.memory_id for r in found})[:100]
    t = time.perf_counter()
    for memory_id in ids:
        if hasattr(rq, "open_requests"):
            rq.open_requests(store, memory_id)
        else:
            [r for r in rq.load_requests(store) if r.memory_id == memory_id and r.status == "open"]
    out["open requests of 100 memories"] = time.perf_counter() - t
elif mode == "queue":
    from core.review.queue import build_queue
    from core.store.workspace import open_workspace
    workspace = open_workspace([root])
    workspace.stores[0].records
    t, c = time.perf_counter(), time.process_time()
    items = build_queue(workspace, kinds=["promotion", "deletion"])
    out["build_queue of the requests"] = time.perf_counter() - t
    out["build_queue of the requests cpu"] = time.process_time() - c
    out["items"] = len(items)
    t = time.perf_counter()
    build_queue(workspace)
    out["build_queue, every kind"] = time.perf_counter() - t
elif mode == "holders":
    store = Store(root)
    catalog = store.records.catalog
    rng = random.Random(3)
    memories = rng.sample(sorted(store.records), 25)
    needles = [store.records[i].content.splitlines()[0][:40] for i in memories]
    needles += ["no record holds this line", "zz-nothing-zz", "qqq", "xq"]
    needles += ["\u6ca1\u6709\u8fd9\u53e5\u8bdd"]
    catalog.text_holders(needles[0])
    times = []
    for needle in needles:
        t = time.perf_counter()
        catalog.text_holders(needle)
        times.append(time.perf_counter() - t)
    out["text_holders median"] = statistics.median(times)
    out["text_holders max"] = max(times)
elif mode == "count":
    store = Store(root)
    catalog = store.records.catalog
    besides = sorted(store.records)[:50]
    times = []
    for _ in range(200):
        t = time.perf_counter()
        catalog.count_active(besides=besides)
        times.append(time.perf_counter() - t)
    out["count_active median"] = statistics.median(times)
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(ROOT))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modes", default="build,requests,queue,holders,count")
    args = parser.parse_args()
    root = prepare()
    results: dict[str, dict[str, float]] = {}
    for mode in args.modes.split(","):
        runs: dict[str, list[float]] = {}
        for _ in range(args.runs):
            done = subprocess.run(
                [sys.executable, "-c", CHILD, args.src, mode, str(root)],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            )
            if done.returncode:
                raise SystemExit(done.stderr)
            for name, value in json.loads(done.stdout).items():
                runs.setdefault(name, []).append(value)
        results[mode] = {name: statistics.median(values) for name, values in runs.items()}
        for name, value in results[mode].items():
            print(f"{mode:9} {name:32} {value:10.4f}", flush=True)
    print(json.dumps({"src": args.src, "load": os.getloadavg(), "results": results}))


if __name__ == "__main__":
    main()
