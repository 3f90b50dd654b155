"""Decide one conflict on a large store with many open items.

    .venv/bin/python bench/bench_decide.py                  # 10,000 memories, 1,000 conflicts
    .venv/bin/python bench/bench_decide.py --memories 2000 --conflicts 200

Builds (once, under bench/.stores/) a private store of N memories of which 2 x C
are in conflict (C open items), through one transaction, then in fresh processes
decides R conflicts one after another ("newer wins") and prints each decision's
wall time, the median, and the floor a user would compare with: one `git commit`
of one changed file in the same repository.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.record import Memory, Source
from core.store.store import Store
from core.store.transaction import transaction

TZ = timezone(timedelta(hours=8))
START = datetime(2026, 6, 1, 9, 0, tzinfo=TZ)
OWNER = "bench@example.com"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def _memory(i: int, *, value: str, status: str, when: datetime, attribute: str) -> Memory:
    return Memory(
        id=f"{attribute.replace('_', '-')}-{i:08x}",
        type="semantic",
        scope="private",
        status=status,
        subject=f"project:p{i % 97}",
        attribute=attribute,
        content=f"The {attribute.replace('_', ' ')} is {value}.",
        value=value,
        confidence=0.8,
        created_at=when,
        verified_at=when,
        source=Source(task=f"tr_{i:06d}", message_index=1, evidence=f"we use {value}"),
    )


def build(root: Path, memories: int, conflicts: int) -> Path:
    marker = root / ".built"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    clock = Clock()
    store = Store.init(root, owner=OWNER, actor=OWNER, clock=clock)
    with transaction(store, actor=OWNER, message="bench: build") as tx:
        for i in range(conflicts):
            for side, value in enumerate(("npm", "pnpm")):
                when = START + timedelta(days=side)
                tx.create(
                    _memory(
                        2 * i + side,
                        value=value,
                        status="conflict",
                        when=when,
                        attribute=f"tool_{i}",
                    ),
                    action="conflict",
                    reason="bench",
                )
        for i in range(2 * conflicts, memories):
            tx.create(
                _memory(i, value=f"v{i}", status="active", when=START, attribute=f"fact_{i}"),
                action="create",
                reason="bench",
            )
    marker.write_text("")
    return root


DECIDE = """
import sys, time
from core.review.decide import decide
from core.review.queue import build_queue
from core.store.workspace import open_workspace
root, count = sys.argv[1], int(sys.argv[2])
ids = [i.id for i in build_queue(open_workspace([root])) if i.kind == "conflict"][:count]
for item_id in ids:
    started = time.perf_counter()
    decide(open_workspace([root]), item_id, approve=True, option="newer", actor=sys.argv[3])
    print(f"{time.perf_counter() - started:.3f}", flush=True)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--conflicts", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    template = ROOT / "bench" / ".stores" / f"decide-{args.memories}-{args.conflicts}"
    started = time.perf_counter()
    build(template, args.memories, args.conflicts)
    print(
        f"# store: {args.memories:,} memories, {args.conflicts:,} open conflicts "
        f"({time.perf_counter() - started:.1f} s to build or reuse)"
    )
    work = template.with_name(template.name + "-work")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(template, work, symlinks=True)
    out = subprocess.run(
        [sys.executable, "-c", DECIDE, str(work), str(args.rounds), OWNER],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    times = [float(t) for t in out]
    (work / "floor.txt").write_text("x\n")
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(work), "add", "floor.txt"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(work),
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "commit",
            "-q",
            "-m",
            "floor",
        ],
        check=True,
    )
    floor = time.perf_counter() - started
    print("decide one conflict, seconds: " + ", ".join(f"{t:.2f}" for t in times))
    median = statistics.median(times)
    print(
        f"median {median:.2f} s; floor (git add + commit of one file here) {floor:.2f} s; "
        f"ratio {median / floor:.1f}x"
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
