"""Many candidates at once: ``remember`` one by one against one ``remember_many``.

    .venv/bin/python bench/bench_batch.py --size 2000 --candidates 200

Two copies of the bench store of ``--size`` memories (bench/stores.py) get the same
candidates (new keys, with every tenth a second source for an earlier one, so it
merges): one ``remember`` each on the first copy, one ``remember_many`` on the second.
Prints the wall time of each, the commits each made, and checks that the outcomes agree
(kinds; ids match too, the clock being pinned per copy).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from stores import fresh_copy

from core.domain.record import Source
from core.store import logs
from core.store.store import Store
from core.writing.pipeline import Candidate, remember, remember_many

ACTOR = "bench@example.com"
NOW = datetime(2030, 1, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))


def candidates(root: Path, count: int) -> list[Candidate]:
    found = []
    for i in range(count):
        key = i - i % 10 if i % 10 == 9 else i  # every tenth: a new source for an earlier
        task = f"tr_batch_{i}"
        text = f"batch fact {key}: the value is v{key}"
        rel, _ = logs.append_message(root, task=task, index=1, role="user", text=text, when=NOW)
        found.append(
            Candidate(
                content=f"Batch fact {key} holds v{key}.",
                type="semantic",
                scope="private",
                subject=f"project:batch{key}",
                attribute="fact",
                value=f"v{key}",
                source=Source(task=task, message_index=1, evidence=text, log=rel),
                s1=0.9,
                s2=0.9,
            )
        )
    return found


def commits(root: Path) -> int:
    out = subprocess.run(
        ["git", "-C", str(root), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    )
    return int(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--candidates", type=int, default=200)
    args = parser.parse_args()
    results = {}
    for mode in ("sequential", "batch"):
        root = fresh_copy(args.size, f"batch-{mode}")
        store = Store(root, clock=lambda: NOW)
        cands = candidates(root, args.candidates)
        store.memories  # noqa: B018  (opened before the clock starts, as a long process)
        before = commits(root)
        start = time.perf_counter()
        if mode == "sequential":
            outcomes = [remember(store, c, actor=ACTOR) for c in cands]
        else:
            outcomes = remember_many(store, cands, actor=ACTOR)
        took = time.perf_counter() - start
        results[mode] = [(o.kind, o.memory_ids) for o in outcomes]
        kinds = {k: sum(1 for o in outcomes if o.kind == k) for k in ("written", "merged")}
        print(
            f"{mode:10} {args.candidates} candidates into {args.size} memories: "
            f"{took:.2f} s ({took / args.candidates * 1000:.1f} ms each), "
            f"{commits(root) - before} commits, {kinds}",
            flush=True,
        )
    assert results["sequential"] == results["batch"], "the outcomes differ"
    print("outcomes: identical")


if __name__ == "__main__":
    main()
