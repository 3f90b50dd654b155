"""What health and the seed's measures cost: the goal is under 1 s warm on a
10,000-memory store with 100,000 log lines.

    .venv/bin/python bench/bench_health.py             # 10,000 memories
    .venv/bin/python bench/bench_health.py --size 100000

A copy of the bench store (bench/stores.py: as many commits as memories, about 40,000
log lines at 10,000) gets more daily logs until it holds ``--lines`` message lines:
user and assistant messages, one in 50 with a repeat marker ("again", "我说过"), one in
100 stating again what a message a few days before stated. Then, in one process:

1. ``health`` cold (first call: every log parsed) and warm (the desk's reload, the
   MCP server's: the logs' parse is kept while they are unchanged), with the measures;
2. the label samples (``workspace_label_items``: the repeat candidates, each diagnosed,
   and this month's and last month's samples), what ``l`` on the desk reads;
3. the floor: ``grep -c`` over the logs (reading them at all) and one pass of Python's
   ``re`` over every line with the markers (the scan the detector cannot avoid).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stores import fresh_copy
from core.domain.repeats import MARKERS
from core.reports.metrics import health
from core.review.labels import workspace_label_items
from core.store.store import Store
from core.store.workspace import Workspace

SAYINGS = [
    "use pnpm for installs in this repo",
    "deploys go through ArgoCD after the smoke test",
    "answer in Chinese unless I write in English",
    "the flaky test is test_sync, rerun it once",
    "never force push to main",
    "文档都用中文写，对比直接上表",
    "提交前先跑 ruff format",
]


def log_lines(root: Path) -> int:
    out = subprocess.run(
        ["bash", "-c", f"cat {root}/logs/*/*/*.md | grep -c '^- \\['"],
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip() or 0)


def grow_logs(root: Path, wanted: int) -> int:
    """Add daily logs (after the store's own) until there are ``wanted`` message lines."""
    have = log_lines(root)
    rng = random.Random(18)
    day = datetime(2025, 1, 1)
    task = 0
    while have < wanted:
        path = root / "logs" / f"{day:%Y}" / f"{day:%m}" / f"{day:%Y-%m-%d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"# {day:%Y-%m-%d}"] if not path.exists() else []
        for _ in range(40):
            task += 1
            lines += ["", f"## task tb_{task:06d}", ""]
            for index in range(10):
                role = "user" if index % 2 == 0 else "assistant"
                n = rng.randrange(100)
                if role == "user" and n < 2:
                    text = f"again: {rng.choice(SAYINGS)}"
                elif role == "user" and n < 3:
                    text = rng.choice(SAYINGS)
                else:
                    text = f"step {index} of task {task}: looked at module {rng.randrange(999)}"
                lines.append(
                    f"- [{index}] {9 + index // 6:02d}:{index * 5 % 60:02d} {role}: {text}"
                )
                have += 1
        with path.open("a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
        day += timedelta(days=1)
    return have


def timed(run: object) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()  # type: ignore[operator]
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    root = fresh_copy(args.size, "health")
    lines = grow_logs(root, args.lines)
    store = Store(root)
    store.load()
    cold, found = timed(lambda: health(store))
    warm = min(timed(lambda: health(store))[0] for _ in range(3))
    labels_time, items = timed(lambda: workspace_label_items(Workspace([store])))
    grep = timed(
        lambda: subprocess.run(
            ["bash", "-c", f"cat {root}/logs/*/*/*.md | grep -c 'again'"], capture_output=True
        )
    )[0]
    texts = [
        line
        for path in sorted((root / "logs").rglob("*.md"))
        for line in path.read_text("utf-8").splitlines()
    ]
    scan = timed(lambda: [m.pattern.search(t) for t in texts for m in MARKERS])[0]
    print(f"store: {args.size:,} memories, {lines:,} log message lines")
    print(f"health cold: {cold:.2f} s; warm: {warm:.2f} s (goal: under 1 s warm)")
    print(f"  warm / one re pass of the markers over every line ({scan:.2f} s): {warm / scan:.1f}x")
    print(f"  warm / grep over the logs ({grep:.2f} s): {warm / grep:.1f}x")
    measures = {m.name: m.shown for m in found.measures}  # type: ignore[attr-defined]
    for name, shown in measures.items():
        print(f"  {name}: {shown}")
    print(f"label samples: {len(items):,} items in {labels_time:.2f} s")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
