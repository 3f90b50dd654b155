"""Run every bench row and print one table: operation, size, median, goal or floor.

    .venv/bin/python bench/run_all.py                      # 10,000 and 100,000 memories
    .venv/bin/python bench/run_all.py --sizes 10000
    .venv/bin/python bench/run_all.py --quick              # smoke run: 1,000 memories, few runs
    .venv/bin/python bench/run_all.py --only remember,desk --timeout 300

Each size's store comes from bench/stores.py (as many commits as memories, ~1,000
conflicts open; built once under bench/.stores/ and reused). Every row runs in
its own process (bench/measure.py), a bench that writes on a fresh ``cp -a`` copy
of the store (the copy is not timed), repeated; the table shows the median, min
and max, the goal or the floor (what a user would use instead) with the ratio,
and the growth from the smallest size to the largest. A row that takes longer
than ``--timeout`` prints "timeout > N s". Results also go to
bench/.stores/results-SIZES.json; ``--reprint A.json B.json`` prints several runs'
results as one table (e.g. a 10,000 run and a 100,000 run, with the growth).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import stores

MEASURE = ROOT / "bench" / "measure.py"
HEAVY = {"batch", "erase_cli", "erase_purge", "import100", "import1000", "import"}


@dataclass
class Row:
    key: str  # a row's id in --only
    title: str
    op: str  # bench/measure.py's operation
    writes: bool = False
    runs: int = 5
    quick_runs: int = 3
    args: tuple[str, ...] = ()
    #: seconds the median should stay under: one value, or per size
    goal: float | dict[int, float] | None = None
    #: the median within this many times the floor
    floor_goal: float | None = None
    #: which samples of the result are the row's (the desk's result holds several)
    sample: str = "samples"
    once: bool = False  # size-independent: run at the first size only
    size_label: str | None = None
    #: the tables the row is in (--table): "scale" (the store at 1,000 to 100,000
    #: against its floors), "warm" (the warm paths' goals)
    tables: tuple[str, ...] = ("warm",)
    #: the growth from the smallest size to the largest should stay within this
    growth_goal: float | None = None
    #: per-size goals for the ratio to the floor (overrides floor_goal at that size)
    floor_goals: dict[int, float] | None = None
    unit: str = "s"  # or "bytes"
    files: int | None = None  # --files for the row's operation (quick: a tenth)


BOTH = ("scale", "warm")


def scale_rows(quick: bool) -> list[Row]:
    """The store at 1,000 to 100,000 memories, each row beside its floor in the same
    run (the commands as whole processes; the review paths, MCP recall and import
    by their own benches: bench_review_paths.py, bench_mcp.py, bench_import.py)."""

    def review(key: str, title: str) -> Row:
        return Row(
            key,
            title,
            "review_paths",
            runs=5,
            quick_runs=2,
            sample=key,
            floor_goal=3.0,
            tables=("scale",),
        )

    return [
        Row(
            "clone",
            "first command after a clone (catalog built), memgov list --subject P",
            "cold_clone",
            runs=3,
            quick_runs=2,
            floor_goal=3.0,
            tables=("scale",),
        ),
        review("queue", "memgov queue --json"),
        review("doctor", "memgov doctor"),
        review("health", "memgov health"),
        Row(
            "mcp_recall",
            "MCP recall, p50 of a warm server's calls",
            "mcp_recall",
            runs=200,
            quick_runs=50,
            goal=0.010,
            growth_goal=1.5,
            tables=("scale",),
        ),
        Row(
            "history",
            "memgov history ID",
            "history",
            runs=9,
            quick_runs=3,
            floor_goal=3.0,
            floor_goals={100_000: 2.0},
            tables=BOTH,
        ),
        Row(
            "import",
            "memgov import claude-code of a folder (files/s in the note)",
            "import_files",
            runs=1,
            quick_runs=1,
            files=10_000,
            tables=("scale",),
        ),
        Row(
            "list",
            "memgov list --subject P",
            "list",
            floor_goal=3.0,
            growth_goal=1.5,
            tables=BOTH,
        ),
        Row(
            "recall",
            "memgov recall P --no-usage",
            "recall",
            floor_goal=3.0,
            growth_goal=1.5,
            tables=BOTH,
        ),
        Row(
            "catalog",
            "the catalog on disk",
            "catalog_bytes",
            runs=1,
            quick_runs=1,
            floor_goal=1.5,
            unit="bytes",
            tables=("scale",),
        ),
        Row(
            "startup",
            "CLI start-up (memgov --help)",
            "cli_help",
            runs=10,
            once=True,
            size_label="-",
            floor_goal=2.0,
            tables=BOTH,
        ),
        Row(
            "cli_remember",
            "memgov remember, one candidate (CLI)",
            "cli_remember",
            True,
            runs=7,
            goal=0.25,
            floor_goal=3.0,
            tables=BOTH,
        ),
        Row(
            "decide_cli",
            "one conflict decision (memgov decide, CLI)",
            "decide_cli",
            True,
            runs=7,
            floor_goal=3.0,
            tables=BOTH,
        ),
    ]


def rows(quick: bool) -> list[Row]:
    batch = 100 if quick else 1000
    erase_commits = 1000 if quick else 10_000
    return [
        *scale_rows(quick),
        Row(
            "remember",
            "remember() in process",
            "remember",
            True,
            runs=20,
            quick_runs=5,
            goal={10_000: 0.05, 100_000: 0.1},
        ),
        Row(
            "decide",
            "one conflict decision, ~1,000 open (open + decide)",
            "decide_one",
            True,
            goal=0.15,
        ),
        Row(
            # each decision its own transaction and commit (one `decide` call each,
            # in one process); the goal for a batch is the next row's: one list
            "batch",
            f"{batch:,} decisions in a row, one transaction each (per decision)",
            "decide_batch",
            True,
            runs=batch,
            quick_runs=batch,
        ),
        Row(
            "batch_list",
            f"{batch:,} decisions in one list (memgov decide -, per decision)",
            "decide_list",
            True,
            runs=batch,
            quick_runs=batch,
            goal=0.03,
        ),
        Row(
            "erase_cli",
            "one erasure: memgov decide (deletion approved)",
            "erase_cli",
            True,
            runs=3,
            quick_runs=1,
            goal=10.0,
        ),
        Row(
            "erase_purge",
            f"one erasure's purge, bench_erase.py {erase_commits:,} commits",
            "erase_purge",
            runs=3,
            quick_runs=1,
            once=True,
            args=("--commits", str(erase_commits)),
            goal=10.0,
            size_label=f"{erase_commits:,} commits",
        ),
        Row(
            "import100",
            "import of 100 Claude Code files",
            "import_cc",
            True,
            runs=1,
            quick_runs=1,
            args=("--files", "100"),
        ),
        Row(
            "import1000",
            "import of 1,000 Claude Code files",
            "import_cc",
            True,
            runs=1,
            quick_runs=1,
            args=("--files", "1000"),
            goal={10_000: 10.0},
        ),
        Row("export", "memgov export claude-code", "export_cc", runs=3),
        Row(
            "history_lib",
            "history_in() in process, after the first",
            "history_lib",
            runs=10,
            floor_goal=3.0,
        ),
        Row(
            "warm_open",
            "warm open: the catalog checked (nothing changed)",
            "warm_open",
            floor_goal=2.0,
        ),
        Row(
            "desk_queue",
            "desk: queue on screen",
            "desk",
            True,
            runs=3,
            quick_runs=1,
            sample="queue_on_screen",
            goal=1.5,
        ),
        Row(
            "desk_search",
            "desk: one search keystroke",
            "desk",
            True,
            runs=3,
            quick_runs=1,
            sample="search_key",
            goal=0.05,
        ),
        Row(
            "desk_kind",
            "desk: a kind key ([ or ])",
            "desk",
            True,
            runs=3,
            quick_runs=1,
            sample="kind_key",
            goal=0.05,
        ),
        Row(
            "desk_decide",
            "desk: enter on a decision to queue updated",
            "desk",
            True,
            runs=3,
            quick_runs=1,
            sample="after_decide",
        ),
    ]


def run_row(row: Row, size: int, store: Path, runs: int, timeout: float) -> dict[str, Any]:
    """One row at one size: measure.py in a fresh process, on a copy if it writes."""
    target = stores.fresh_copy(size, row.key) if row.writes else store
    command = [sys.executable, str(MEASURE), row.op, str(target), "--runs", str(runs), *row.args]
    command += ["--size", str(size)]
    if row.files is not None:
        command += ["--files", str(row.files)]
    started = time.perf_counter()
    # its own session, so a timeout ends the commands it started too (by its group id)
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=stores_env(),
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        done = subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"timeout > {timeout:.0f} s"}
    finally:
        if row.writes:
            shutil.rmtree(target, ignore_errors=True)
    took = time.perf_counter() - started
    load = f"load {os.getloadavg()[0]:.1f}"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"error": "failed: " + " | ".join(tail)[-300:], "wall": took}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"] = took
    result["note"] = "; ".join(x for x in (str(result.get("note", "")), load) if x)
    return result


def stores_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "MEMGOV_ACTOR": stores.OWNER}


def fmt(seconds: float | None, unit: str = "s") -> str:
    if seconds is None:
        return "-"
    if unit == "bytes":
        return f"{seconds / 1e6:.1f} MB" if seconds >= 1e5 else f"{seconds / 1e3:.1f} kB"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def _keys(row: Row) -> tuple[str, str, str]:
    """Where a row's samples are in its result: its CPU, its floor (the floor's CPU
    and name are the floor's key + ``_cpu`` / ``_name``)."""
    if row.sample == "samples":
        return "samples", "cpu", "floor"
    return row.sample, f"{row.sample}_cpu", f"{row.sample}_floor"


def _floor_text(row: Row, size: int, result: dict[str, Any], median: float) -> str:
    _sample, cpu_key, floor_key = _keys(row)
    floor = result.get(floor_key)
    if not floor:
        return ""
    f = statistics.median(floor)
    ratio = median / f if f else float("inf")
    text = f"{result.get(floor_key + '_name', 'floor')} {fmt(f, row.unit)}: {ratio:.1f}x"
    goal = (row.floor_goals or {}).get(size, row.floor_goal)
    if goal is not None:
        text += f" (goal <= {goal:g}x) " + ("ok" if ratio <= goal else "MISS")
    cpu, floor_cpu = result.get(cpu_key), result.get(floor_key + "_cpu")
    if cpu and floor_cpu:
        c, fc = statistics.median(cpu), statistics.median(floor_cpu)
        text += f"; CPU {fmt(c)} vs {fmt(fc)}: {c / max(fc, 1e-6):.1f}x"
    extra = result.get("extra_floor")
    if extra:
        e = statistics.median(extra)
        text += f"; {result.get('extra_floor_name')} {fmt(e)}: {median / e:.1f}x"
    return text


def summarize(row: Row, size: int, result: dict[str, Any]) -> dict[str, str]:
    out = {"operation": row.title, "size": f"{size:,}"}
    if "error" in result:
        out.update(median=result["error"], min="", max="", versus="", note="")
        return out
    samples = result.get(_keys(row)[0])
    if isinstance(samples, float | int):
        samples = [samples]
    samples = [float(s) for s in samples or []]
    if not samples:
        out.update(median="no samples", min="", max="", versus="", note="")
        return out
    median = statistics.median(samples)
    out.update(
        median=fmt(median, row.unit),
        min=fmt(min(samples), row.unit),
        max=fmt(max(samples), row.unit),
        n=str(result.get("runs", len(samples))),
        _median=str(median),
    )
    versus = []
    goal = row.goal.get(size) if isinstance(row.goal, dict) else row.goal
    if goal is not None:
        verdict = "ok" if median < goal else "MISS"
        versus.append(f"goal < {fmt(goal)}: {median / goal:.2f}x {verdict}")
    if floor := _floor_text(row, size, result, median):
        versus.append(floor)
    out["versus"] = "; ".join(versus)
    note = result.get("note", "")
    out["note"] = "; ".join(sorted(set(note))) if isinstance(note, list) else str(note)
    return out


def table(lines: list[dict[str, str]], sizes: list[int]) -> str:
    every = rows(False)
    titles = {r.title: i for i, r in enumerate(rows(True) + every)}
    growth_goals = {r.title: r.growth_goal for r in every if r.growth_goal}

    def order(li: dict[str, str]) -> tuple[int, str]:
        size = li["size"].replace(",", "").split()[0]
        return titles.get(li["operation"], 999), size.rjust(12, "0")

    lines = sorted(lines, key=order)
    # growth: a row's median at the largest size over the smallest
    medians: dict[str, dict[str, float]] = {}
    for line in lines:
        if "_median" in line:
            medians.setdefault(line["operation"], {})[line["size"]] = float(line["_median"])
    small, large = f"{min(sizes):,}", f"{max(sizes):,}"
    for line in lines:
        m = medians.get(line["operation"], {})
        line["growth"] = ""
        if line["size"] == large and small in m and large in m and m[small] and small != large:
            growth = m[large] / m[small]
            line["growth"] = f"x{growth:.2f}"
            if goal := growth_goals.get(line["operation"]):
                line["growth"] += f" (goal <= {goal:g}x) " + ("ok" if growth <= goal else "MISS")
    cols = ["operation", "size", "median", "min", "max", "n", "versus", "growth", "note"]
    heads = {
        "versus": "goal or floor: ratio",
        "growth": f"{small}->{large}" if small != large else "growth",
        "n": "runs",
    }
    widths = {c: max(len(heads.get(c, c)), *(len(li.get(c, "")) for li in lines)) for c in cols}
    out = ["| " + " | ".join(heads.get(c, c).ljust(widths[c]) for c in cols) + " |"]
    out.append("|" + "|".join("-" * (widths[c] + 2) for c in cols) + "|")
    for li in lines:
        out.append("| " + " | ".join(li.get(c, "").ljust(widths[c]) for c in cols) + " |")
    return "\n".join(out)


def parse_sizes(values: list[str] | None, quick: bool) -> list[int]:
    """``--sizes 1000 10000`` or ``--sizes 1000,10000``; --quick alone: 1,000."""
    if not values:
        return [1000] if quick else [10_000, 100_000]
    return [int(v) for value in values for v in value.split(",") if v]


def measure_rows(
    chosen: list[Row], sizes: list[int], args: argparse.Namespace, saved: Path
) -> list[dict[str, str]]:
    """Every chosen row at every size; a result shared by several rows (the desk's
    session, the review paths' bench) is measured once."""
    lines: list[dict[str, str]] = []
    shared: dict[tuple[str, int, int], dict[str, Any]] = {}
    for n, size in enumerate(sizes):
        t0 = time.perf_counter()
        store = stores.ensure(size)
        print(f"# store {size:,}: {time.perf_counter() - t0:.1f} s to build or reuse", flush=True)
        for row in chosen:
            if row.once and n:
                continue
            runs = args.runs or (row.quick_runs if args.quick else row.runs)
            t1 = time.perf_counter()
            key = (row.op, size, runs)
            if key in shared:
                result = shared[key]
            elif row.op == "desk":  # one desk session per run gives every desk row its samples
                merged: dict[str, Any] = {}
                for _ in range(runs):
                    result = run_row(row, size, store, 1, args.timeout)
                    if "error" in result:
                        merged = result
                        break
                    for k, v in result.items():
                        merged.setdefault(k, [])
                        merged[k] += v if isinstance(v, list) else [v]
                result = shared[key] = merged
            else:
                result = shared[key] = run_row(row, size, store, runs, args.timeout)
            line = summarize(row, size, result)
            if row.size_label:
                line["size"] = row.size_label
            lines.append(line)
            print(
                f"# {row.key} @ {size:,}: {line['median']} {line.get('versus', '')} "
                f"({time.perf_counter() - t1:.0f} s)",
                flush=True,
            )
            saved.write_text(json.dumps({"sizes": sizes, "lines": lines}, indent=1))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", nargs="+", default=None, help="memories, e.g. 1000 10000 100000 (or 1000,10000)"
    )
    parser.add_argument("--quick", action="store_true", help="1,000 memories, few runs")
    parser.add_argument(
        "--table",
        choices=("scale", "warm", "all"),
        default="scale",
        help="scale: the store against its floors (default); warm: the warm paths' goals",
    )
    parser.add_argument("--only", default="", help="comma-separated row ids")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a row may take")
    parser.add_argument("--runs", type=int, default=None, help="override every row's runs")
    parser.add_argument(
        "--reprint",
        nargs="*",
        type=Path,
        default=None,
        metavar="RESULTS",
        help="print saved results (bench/.stores/results-*.json), several merged, and exit",
    )
    args = parser.parse_args()
    sizes = parse_sizes(args.sizes, args.quick)
    name = f"results-{args.table}-{'-'.join(map(str, sizes))}{'-quick' if args.quick else ''}"
    if args.only:  # a run of some rows keeps its own file
        name += "-" + args.only.replace(",", "-")
    saved = stores.STORES / f"{name}.json"
    if args.reprint is not None:
        lines, all_sizes = [], []
        for path in args.reprint or [saved]:
            data = json.loads(path.read_text())
            lines += data["lines"]
            all_sizes += data["sizes"]
        print(table(lines, sorted(set(all_sizes))))
        return 0
    wanted = {k for k in args.only.split(",") if k}
    chosen = [
        r
        for r in rows(args.quick)
        if (args.table == "all" or args.table in r.tables) and (not wanted or r.key in wanted)
    ]
    if args.quick:
        chosen = [replace(r, files=r.files // 10) if r.files else r for r in chosen]
    # the long rows last, so a run cut short still has the quick ones
    chosen.sort(key=lambda r: r.key in HEAVY)
    started = time.perf_counter()
    stores.STORES.mkdir(parents=True, exist_ok=True)
    lines = measure_rows(chosen, sizes, args, saved)
    print()
    print(f"# load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(table(lines, sizes))
    print(f"\n# total {time.perf_counter() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
