"""Importing a large Claude Code folder into a large store, as a user runs it.

    .venv/bin/python bench/bench_import.py                     # 1,000 files into 10,000 memories
    .venv/bin/python bench/bench_import.py --files 1000 --sizes 10000 100000

Writes a Claude Code memory folder of ``--files`` topic files (the four types in
turn, front matter as Claude Code writes it, unquoted ``: `` in a description
included, a three-line body) and its ``MEMORY.md`` (one index line each, under a
heading per type), copies the cached bench store (bench/stores.py), and times the
CLI as a person runs it (a new process, start-up included):

- ``memgov import claude-code FOLDER``: every file through the write pipeline, in
  one transaction and one commit per store;
- the same import again: nothing new, every entry ``already-imported``;
- ``memgov sync claude-code FOLDER`` on a fresh copy of the store: the first sync
  (every file imported, the state written, nothing written back);
- a sync after a session: the agent changed ``--edits`` files, and nothing else
  changed (what a hook at the end of every session runs);
- a sync with nothing changed on either side.

Prints both with its goal (a first import under 10 s) and the ratio; the
floor for comparison is ``cp -r`` of the folder (reading and writing its bytes),
run as a process in the same run, before each import, on a fresh target. Each
first import prints its files per second (the goal: 500) and its ratio to the
floor; ``--runs N`` repeats each import on a fresh copy and prints the median
(other benches may share the machine: the load is printed beside it, and the
import's CPU seconds, git's included, with the files per CPU second: steadier
than the wall time on a shared machine).
``--no-sync`` leaves the sync rows out.

    .venv/bin/python bench/bench_import.py --files 10000 --sizes 1000 10000 --runs 3 --no-sync
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from stores import OWNER, fresh_copy

GOAL = 10.0
#: files a second a first import is to reach
RATE_GOAL = 500
TYPES = ("user", "feedback", "project", "reference")


def write_folder(folder: Path, files: int) -> None:
    folder.mkdir(parents=True)
    index: dict[str, list[str]] = {kind: [] for kind in TYPES}
    for i in range(files):
        kind = TYPES[i % len(TYPES)]
        name = f"{kind}_topic_{i:05d}"
        (folder / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: Topic {i}: what was learnt in session {i}\n"
            f"type: {kind}\n---\n\n"
            f"Rule {i}: run the checks of module m{i} before pushing.\n"
            f"**Why:** module m{i} broke the build once.\n"
            f"**How to apply:** run `make check-m{i}` first.\n",
            encoding="utf-8",
        )
        index[kind].append(f"- [Topic {i}]({name}.md) — module m{i}")
    lines = ["# Memory", ""]
    for kind, entries in index.items():
        lines += [f"## {kind.capitalize()}", *entries, ""]
    (folder / "MEMORY.md").write_text("\n".join(lines), encoding="utf-8")


#: the CPU seconds (user and system, git's included) of the last memgov run: on a
#: machine other benches share, steadier than the wall time
LAST_CPU: list[float] = [0.0]


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def memgov(store: Path, *args: str) -> tuple[float, dict[str, object]]:
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "--store", str(store), "--as", OWNER, "--json", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    took = time.perf_counter() - start
    LAST_CPU[0] = _children_cpu() - cpu
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"memgov {' '.join(args)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return took, json.loads(done.stdout)


def floor_copy(folder: Path, target: Path) -> float:
    """``cp -r`` of the folder to a fresh target, as a process: the floor."""
    shutil.rmtree(target, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(["cp", "-r", str(folder), str(target)], check=True)
    return time.perf_counter() - start


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def imports(folder: Path, tmp: Path, size: int, runs: int) -> None:
    """The first import of the folder into a fresh copy of the store ``runs`` times
    (each after its floor), then the same import again on the last copy."""
    firsts: list[float] = []
    cpus: list[float] = []
    floors: list[float] = []
    report: dict[str, object] = {}
    store = folder
    for _ in range(runs):
        floors.append(floor_copy(folder, tmp / "floor"))
        store = fresh_copy(size, "import")
        took, report = memgov(store, "import", "claude-code", str(folder))
        firsts.append(took)
        cpus.append(LAST_CPU[0])
    again, second = memgov(store, "import", "claude-code", str(folder))
    first, floor = statistics.median(firsts), statistics.median(floors)
    cpu = statistics.median(cpus)
    outcomes = Counter(str(i["outcome"]) for i in report["items"])  # type: ignore[union-attr]
    repeats = Counter(str(i["outcome"]) for i in second["items"])  # type: ignore[union-attr]
    files = sum(outcomes.values())
    print(
        f"{size:>8,}  {first:>9.2f}  {first / GOAL:>6.2f}  {files / first:>8.0f}  "
        f"{files / first / RATE_GOAL:>5.2f}  {floor:>7.3f}  {first / floor:>6.1f}  {again:>8.2f}  "
        f"{cpu:>6.2f}  {files / cpu:>7.0f}  {dict(outcomes)}; again {dict(repeats)}; "
        f"runs {', '.join(f'{t:.2f}' for t in firsts)}; {load()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--edits", type=int, default=50, help="files the agent changes")
    parser.add_argument("--runs", type=int, default=1, help="first imports per size (median)")
    parser.add_argument("--no-sync", action="store_true", help="leave the sync rows out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shop" / ".claude" / "memory"
        write_folder(folder, args.files)
        print(f"# a Claude Code folder of {args.files:,} topic files; {load()}")
        head = f"{'store':>8}  {'import s':>9}  {'ratio':>6}  {'files/s':>8}  {'/500':>5}"
        head += f"  {'cp -r s':>7}  {'x cp':>6}  {'again s':>8}  {'cpu s':>6}  {'files/cpu s':>7}"
        print(f"{head}  outcomes")
        for size in args.sizes:
            imports(folder, Path(tmp), size, max(args.runs, 1))
        if args.no_sync:
            return
        head = f"{'store':>8}  {'sync s':>9}  {'ratio':>6}  {'session s':>9}  {'idle s':>7}"
        print(f"{head}  came in")
        for size in args.sizes:
            store = fresh_copy(size, "sync")
            synced = Path(tmp) / f"sync-{size}"
            shutil.copytree(folder, synced)
            first, _report = memgov(store, "sync", "claude-code", str(synced))
            for i in range(0, args.files, max(args.files // args.edits, 1))[: args.edits]:
                kind = TYPES[i % len(TYPES)]
                path = synced / f"{kind}_topic_{i:05d}.md"
                path.write_text(path.read_text().replace("before pushing", "before merging"))
            session, report = memgov(store, "sync", "claude-code", str(synced))
            idle, _idle = memgov(store, "sync", "claude-code", str(synced))
            came = {k: v for k, v in report["imported"]["counts"].items() if v}  # type: ignore[index]
            print(
                f"{size:>8,}  {first:>9.2f}  {first / GOAL:>6.2f}  {session:>9.2f}  "
                f"{idle:>7.2f}  {came}"
            )


if __name__ == "__main__":
    main()
