"""Open a large store cold and warm, against the floor of reading its bytes.

    .venv/bin/python bench/bench_store.py            # 1,000 and 10,000 memories
    .venv/bin/python bench/bench_store.py --sizes 50000

For each size it builds a store with realistic records and events (once, under
bench/.stores/, reused by later runs), then runs each measurement in a fresh
process: the floor (read every memory file's bytes), a cold open (no cache:
parse every file) and a warm open (the derived cache is valid). It prints
seconds, the ratio to the floor, and each process's peak memory.
Goals at 10,000: cold within 12x the floor, warm within 3x.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.record import TYPES, Memory, Source
from core.store import gitstore
from core.store.events import EVENTS_DIR, Event, append_to_log
from core.store.index import INDEX_FILE, render_index
from core.store.store import MEMORY_DIR, STATE_DIR, Store

WORDS = [
    "deploy",
    "build",
    "test",
    "review",
    "pnpm",
    "npm",
    "table",
    "docs",
    "chinese",
    "english",
    "staging",
    "production",
    "schema",
    "migration",
    "cache",
    "index",
    "token",
    "latency",
    "retry",
    "backoff",
    "queue",
    "worker",
    "release",
    "branch",
    "commit",
    "lint",
    "format",
    "type",
    "check",
    "feature",
    "flag",
    "rollout",
    "canary",
    "metric",
    "alert",
]
ATTRS = (
    "output_format",
    "package_manager",
    "deploy_command",
    "test_runner",
    "review_style",
    "language",
    "timezone",
    "editor",
    "ci_provider",
    "branch_policy",
    "doc_language",
)


def build(root: Path, count: int) -> None:
    rng = random.Random(count)
    store = Store.init(root, actor="bench@example.com")
    base = datetime(2027, 1, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))
    memories = []
    events = []
    for i in range(count):
        when = base + timedelta(minutes=37 * i)
        attr = f"{rng.choice(ATTRS)}_{i}"
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120))).capitalize()
        memory = Memory(
            id=f"{attr.replace('_', '-')}-{i:06x}",
            type=rng.choice(TYPES[1:]),
            scope="private",
            status="active",
            subject=f"user:u{i % 50}/project:p{i % 7}",
            attribute=attr,
            content=f"{body}.\n\n**Why:** {rng.choice(WORDS)}.\n",
            confidence=round(rng.uniform(0.5, 0.99), 2),
            created_at=when,
            verified_at=when,
            source=Source(
                task=f"tr_{i:06d}",
                message_index=rng.randint(0, 40),
                evidence=" ".join(rng.choice(WORDS) for _ in range(8)),
            ),
            path=f"{MEMORY_DIR}/{attr.replace('_', '-')}-{i:06x}.md",
        )
        memories.append(memory)
        events.append(
            Event(
                id=f"ev-{i:08d}",
                ts=when.isoformat(),
                actor="bench",
                action="create",
                memory_ids=(memory.id,),
                to_status="active",
                reason="bench",
            )
        )
    for memory in memories:
        (root / memory.path).write_text(memory.to_markdown(), encoding="utf-8")
    (root / INDEX_FILE).write_text(render_index(memories, store.config), encoding="utf-8")
    append_to_log(root, events)
    gitstore.commit(
        store.repo,
        [MEMORY_DIR, INDEX_FILE, EVENTS_DIR],
        actor="bench",
        message=f"bench: {count} memories",
    )


def measure(mode: str, root: Path) -> dict[str, float]:
    start = time.perf_counter()
    if mode == "floor":
        total = 0
        for dirpath, _dirs, files in os.walk(root / MEMORY_DIR):
            for name in files:
                with open(os.path.join(dirpath, name), "rb") as handle:
                    total += len(handle.read())
        count = total
    else:
        count = len(Store(root).load().memories)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "count": count, "peak_mb": peak}


def run(mode: str, root: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--measure", mode, str(root)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], Path(args.measure[1]))))
        return
    print(f"{'memories':>9} {'step':<6} {'seconds':>8} {'x floor':>8} {'peak MB':>8}")
    for size in args.sizes:
        root = ROOT / "bench" / ".stores" / f"store-{size}"
        if not (root / "memgov.yaml").exists():
            shutil.rmtree(root, ignore_errors=True)
            t0 = time.perf_counter()
            build(root, size)
            print(f"# built {size} memories in {time.perf_counter() - t0:.1f}s at {root}")
        cache = root / STATE_DIR / "cache.pickle"
        results = {}
        for mode in ("floor", "cold", "warm"):
            best = None
            for _ in range(args.repeat):
                if mode == "cold" and cache.exists():
                    cache.unlink()
                res = run(mode, root)
                if best is None or res["seconds"] < best["seconds"]:
                    best = res
            assert best is not None
            results[mode] = best
        floor = results["floor"]["seconds"]
        for mode in ("floor", "cold", "warm"):
            res = results[mode]
            print(
                f"{size:>9,} {mode:<6} {res['seconds']:>8.3f} "
                f"{res['seconds'] / floor:>8.1f} {res['peak_mb']:>8.0f}"
            )


if __name__ == "__main__":
    main()
