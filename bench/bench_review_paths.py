"""What ``memgov queue --json``, ``memgov doctor`` and ``memgov health`` cost against
their floors, each a whole process, in one run:

    .venv/bin/python bench/bench_review_paths.py                  # 1,000 and 10,000
    .venv/bin/python bench/bench_review_paths.py --sizes 100000 --runs 3

The stores come from bench/stores.py (built once under bench/.stores/). The floors:
``git ls-files`` for the queue (listing the store), reading every record's bytes
(``find memories -name '*.md' -exec cat {} +``) for doctor and health. Each command
and its floor run in turn, after one warm-up each (the catalog, git's and the page
cache warm: what a second command after a first pays); the table shows each one's
median wall and CPU time (its children's included) and the ratio of the medians, with
the load average beside each row (other work on the machine stretches the wall time,
much less the CPU time).

``--write``: a copy of the store (stores.fresh_copy) gets one write before every run
of a command, as an agent's session makes them: a message logged (``memgov log``) and
a record remembered from it (``memgov remember``), each a commit; so each run pays for
what changed since the last one, a new commit, an event appended to the last shard
and today's log grown, not only for a store nothing touched since.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import stores

COMMANDS = {
    "queue --json": (["queue", "--json"], "git ls-files"),
    "doctor": (["doctor"], "cat records"),
    "health": (["health"], "cat records"),
}


def run(command: list[str], cwd: Path) -> tuple[float, float]:
    """One run: (wall, CPU of the process and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


_WRITES = itertools.count()


def write_one(store: Path, tree: Path) -> None:
    """One message logged and one record remembered from it, through the CLI."""
    n = next(_WRITES)
    task, text = f"bench-write-{n}", f"bench writes use the tool number {n} from now on"
    base = [sys.executable, "-m", "tui.cli", "--store", str(store)]
    quiet = {"cwd": tree, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([*base, "log", "--task", task, "--index", "1", text], check=True, **quiet)
    candidate = {
        "content": f"Bench writes use tool {n}.",
        "type": "semantic",
        "scope": "private",
        "subject": "project:bench-writes",
        "attribute": f"tool_{n}",
        "source": {"task": task, "message_index": 1, "evidence": text},
        "s1": 0.9,
        "s2": 0.9,
    }
    subprocess.run(
        [*base, "remember", "-"], input=json.dumps(candidate).encode(), check=True, **quiet
    )


def floor(name: str, store: Path) -> list[str]:
    if name == "git ls-files":
        return ["git", "-C", str(store), "ls-files"]
    return ["find", str(store / "memories"), "-name", "*.md", "-exec", "cat", "{}", "+"]


def _median(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=list(COMMANDS), default=list(COMMANDS))
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout (e.g. a `git archive` of the last "
        "release): its command runs in turn too, in its own folder",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="a copy of each store, one write (a message logged, a record remembered) "
        "before every run",
    )
    args = parser.parse_args()
    os.environ["MEMGOV_ACTOR"] = stores.OWNER
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as an installed memgov runs
    trees = [ROOT] + ([args.before.resolve()] if args.before else [])
    print(
        "| command | size | tree | wall | CPU | floor | its wall | its CPU | ratio wall | "
        "ratio CPU | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        store = (
            stores.fresh_copy(size, "review-paths")
            if args.write
            else stores.ensure(size, verbose=False)
        )
        for name in args.only:
            argv, floor_name = COMMANDS[name]
            low = floor(floor_name, store)
            command = [sys.executable, "-m", "tui.cli", "--store", str(store), *argv]
            samples: list[list[tuple[float, float]]] = [[] for _ in trees]
            base: list[tuple[float, float]] = []
            for n in range(args.runs + 1):  # the first of each: a warm-up
                for tree, mine in zip(trees, samples, strict=True):
                    os.environ["PYTHONPATH"] = str(tree)
                    if args.write:
                        write_one(store, tree)
                    took = run(command, tree)  # its own folder first on the path
                    if n:
                        mine.append(took)
                took = run(low, ROOT)
                if n:
                    base.append(took)
            f_wall, f_cpu = _median(base)
            load = os.getloadavg()[0]
            for tree, mine in zip(trees, samples, strict=True):
                wall, cpu = _median(mine)
                label = ("this" if tree == ROOT else tree.name) + (" +write" if args.write else "")
                print(
                    f"| `memgov {name}` | {size:,} | {label} | {wall:.2f} s | {cpu:.2f} s "
                    f"| {floor_name} | {f_wall:.3f} s | {f_cpu:.3f} s | {wall / f_wall:.1f}x "
                    f"| {cpu / max(f_cpu, 0.001):.1f}x | {load:.1f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
