"""The first command after a clone or a copy, against reading the records' bytes.

    .venv/bin/python bench/bench_clone.py                    # 10,000 memories, 3 runs
    .venv/bin/python bench/bench_clone.py --sizes 10000 100000 --runs 3
    .venv/bin/python bench/bench_clone.py --src /path/to/store --code /old/checkout

For each size: ``git clone`` of the bench store (``bench/.stores/mg-N``, made by
:mod:`stores`; or ``--src``) into ``bench/.stores/work/clone-N`` (not timed), then, in
turn, each run in a fresh process:

- ``clone``: ``memgov list --subject nothing`` in a fresh clone (no catalog: every
  file read and indexed);
- ``copy``: the same command in ``cp -a`` of the clone once its catalog is built (the
  catalog came along, made for another folder);
- ``warm``: the same command again in the clone;
- ``floor``: ``find memories -name '*.md' -exec cat {} +`` in the clone, its output
  thrown away (reading the records' bytes).

Each figure is the median of ``--runs`` (wall seconds, and the CPU seconds the process
and its children used), with its ratio to the floor's median wall time, the load
(``/proc/loadavg``) before each, and the catalog's size against the records' bytes.
``--code`` runs the commands with another checkout's ``core`` and ``tui`` (an older
commit, to compare).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORES = ROOT / "bench" / ".stores"
WORK = STORES / "work"
COMMAND = ("list", "--subject", "nothing-holds-this")


def load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def records_bytes(store: Path) -> int:
    return sum(
        os.path.getsize(os.path.join(folder, name))
        for folder, _dirs, names in os.walk(store / "memories")
        for name in names
        if name.endswith(".md")
    )


def catalog_bytes(store: Path) -> int:
    state = store / ".git" / "memgov"
    return sum(p.stat().st_size for p in state.glob("catalog.sqlite*"))


def one_size(size: int, src: Path, code: Path, runs: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(code)}
    memgov = [sys.executable, "-m", "tui.cli"]
    clone, copy = WORK / f"clone-{size}", WORK / f"copy-{size}"
    floor_cmd = ["sh", "-c", "find memories -name '*.md' -exec cat {} + >/dev/null"]
    figures: dict[str, list[tuple[float, float, float]]] = {
        k: [] for k in ("floor", "clone", "copy", "warm")
    }
    for _run in range(runs):
        for path in (clone, copy):
            shutil.rmtree(path, ignore_errors=True)
        WORK.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(src), str(clone)], check=True)
        argv = [*memgov, *COMMAND, "--store", str(clone)]
        figures["floor"].append((load(), *timed(floor_cmd, clone, env)))
        figures["clone"].append((load(), *timed(argv, clone, env)))
        subprocess.run(["cp", "-a", str(clone), str(copy)], check=True)
        copied = [*memgov, *COMMAND, "--store", str(copy)]
        figures["copy"].append((load(), *timed(copied, copy, env)))
        figures["warm"].append((load(), *timed(argv, clone, env)))
    floor = statistics.median(w for _l, w, _c in figures["floor"])
    print(f"\n{size:,} memories ({src}), code {code}, median of {runs}")
    print(f"{'what':8} {'wall s':>8} {'cpu s':>8} {'x floor':>8} {'load':>6}")
    for name, rows in figures.items():
        wall = statistics.median(w for _l, w, _c in rows)
        cpu = statistics.median(c for _l, _w, c in rows)
        loads = statistics.median(lo for lo, _w, _c in rows)
        print(f"{name:8} {wall:8.2f} {cpu:8.2f} {wall / floor:8.1f} {loads:6.1f}")
    data, cat = records_bytes(clone), catalog_bytes(clone)
    print(f"records {data / 1e6:.1f} MB, catalog {cat / 1e6:.1f} MB: {cat / data:.2f}x")
    for path in (clone, copy):
        shutil.rmtree(path, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", type=Path, help="the store to clone (default: the bench's)")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to run")
    args = parser.parse_args()
    for size in args.sizes:
        src = args.src or STORES / f"mg-{size}"
        if not (src / ".git").is_dir():
            raise SystemExit(f"no store at {src}: run bench/stores.py {size} first")
        one_size(size, src.resolve(), args.code.resolve(), args.runs)


if __name__ == "__main__":
    main()
