"""The measurements behind ``bench/run_all.py``, each run in its own process.

    .venv/bin/python bench/measure.py OPERATION STORE [--runs N] [...]

prints one JSON object: ``{"samples": [seconds, ...], "floor": [seconds, ...], ...}``.
Everything goes through what a user of memgov would use: the ``memgov`` command
as a subprocess (timed from outside, start-up included), or the library's
public calls (``remember``, ``decide``, ``open_workspace``, ``Store.load``, the
desk app headless), timed inside a fresh interpreter after its imports.
The floors are the tools a user would reach for instead (``grep -rl``,
``git log -- FILE``, ``os.stat`` over every file, ``python -c 'import yaml'``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OWNER = "bench@example.com"
#: the commands run as an installed memgov does: with bytecode caches (this machine's
#: environment sets PYTHONDONTWRITEBYTECODE, which makes every start compile every
#: module again, some 250 ms that no installed copy pays)
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPATH": str(ROOT),
    "MEMGOV_ACTOR": OWNER,
}


# ----------------------------------------------------------------- helpers
def memgov(
    *args: str, store: Path | None, stdin: str | None = None, timeout: float = 900
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of ``memgov ARGS`` in a fresh interpreter (start-up included)."""
    command = [sys.executable, "-m", "tui.cli", *args]
    if store is not None:
        command += ["--store", str(store), "--as", OWNER]
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=ROOT, input=stdin, capture_output=True, text=True, env=ENV, timeout=timeout
    )
    return time.perf_counter() - started, done


def shell(command: list[str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - started


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(
    command: list[str], cwd: Path | None = None, stdin: str | None = None, check: bool = True
) -> tuple[float, float]:
    """(wall, CPU with its children) of one process, started as a user starts it."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - started
    if check:
        expect(done, (0, 1), " ".join(command[:6]))
    return wall, _children_cpu() - cpu


def cat_records(root: Path) -> list[str]:
    """The floor of a command that reads every record: reading their bytes."""
    return ["find", str(root / "memories"), "-name", "*.md", "-exec", "cat", "{}", "+"]


def commit_floor(root: Path) -> tuple[float, float]:
    """A one-file ``git commit`` in the store: what a write costs git at the least."""
    (root / "bench-floor.txt").write_text(f"{time.time_ns()}\n", encoding="utf-8")
    return timed(
        ["sh", "-c", "git add bench-floor.txt && git commit -q -m floor"], cwd=root, check=False
    )


def expect(done: subprocess.CompletedProcess[str], codes: tuple[int, ...], what: str) -> None:
    if done.returncode not in codes:
        raise SystemExit(
            f"{what}: exit {done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
        )


def log_sources(root: Path, count: int, *, skip: int = 0) -> list[dict[str, Any]]:
    """``count`` message lines of the store's daily logs, as candidate sources."""
    task_re = re.compile(r"^##\s+task\s+(\S+)\s*$")
    line_re = re.compile(r"^\s*-\s+\[(\d+)\]\s+\S+\s+\w+:\s+(.*)$")
    found: list[dict[str, Any]] = []
    for path in sorted((root / "logs").rglob("*.md"), reverse=True):
        task = None
        for line in path.read_text(encoding="utf-8").splitlines():
            if m := task_re.match(line):
                task = m.group(1)
            elif (m := line_re.match(line)) and task:
                found.append(
                    {
                        "task": task,
                        "message_index": int(m.group(1)),
                        "evidence": m.group(2),
                        "log": path.relative_to(root).as_posix(),
                    }
                )
                if len(found) >= count + skip:
                    return found[skip:]
    return found[skip:]


def candidate(n: int, source: dict[str, Any], tag: str) -> dict[str, Any]:
    """A new fact (a key no record holds): the pipeline writes it."""
    return {
        "content": f"The bench {tag} probe number {n} uses the blue runner pool.",
        "type": "semantic",
        "scope": "private",
        "subject": f"project:bench-{tag}",
        "attribute": f"runner_pool_{n}",
        "value": f"blue {n}",
        "condition": None,
        "source": source,
        "s1": 0.9,
        "s2": 0.85,
        "confidence": 0.9,
        "expires_at": None,
    }


def conflict_ids(root: Path, count: int) -> list[str]:
    _t, done = memgov("queue", "--kind", "conflict", "--json", store=root)
    expect(done, (0, 1), "memgov queue")
    data = json.loads(done.stdout)
    items = data if isinstance(data, list) else data.get("items", [])
    return [i["id"] for i in items][:count]


# ------------------------------------------------------------ measurements
def cli_help(root: Path, runs: int) -> dict[str, Any]:
    """``memgov --help`` in turn with ``python -c 'import yaml'``."""
    mine, base = [], []
    for _ in range(runs + 1):  # the first of each: a warm-up
        mine.append(timed([sys.executable, "-m", "tui.cli", "--help"], cwd=ROOT))
        base.append(timed([sys.executable, "-c", "import yaml"], cwd=ROOT))
    return _paired(mine[1:], base[1:], "python -c 'import yaml'")


def _cli(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "tui.cli", *args, "--store", str(root), "--as", OWNER]


def _paired(
    mine: list[tuple[float, float]], base: list[tuple[float, float]], name: str
) -> dict[str, Any]:
    """A command's and its floor's (wall, CPU) samples, taken in turn."""
    return {
        "samples": [w for w, _ in mine],
        "cpu": [c for _, c in mine],
        "floor": [w for w, _ in base],
        "floor_cpu": [c for _, c in base],
        "floor_name": name,
    }


def cli_remember(root: Path, runs: int) -> dict[str, Any]:
    """``memgov remember -`` of a new candidate, in turn with a one-file commit."""
    mine, base = [], []
    for n, source in enumerate(log_sources(root, runs)):
        stdin = json.dumps(candidate(n, source, "cli"))
        mine.append(timed(_cli(root, "remember", "-"), cwd=ROOT, stdin=stdin))
        base.append(commit_floor(root))
    return _paired(mine, base, "one-file git commit")


def remember_inproc(root: Path, runs: int) -> dict[str, Any]:
    from core.store.store import Store
    from core.writing.candidate import candidate_from_dict
    from core.writing.pipeline import remember

    sources = log_sources(root, runs, skip=runs)
    store = Store(root)
    store.load()
    samples = []
    outcomes = []
    for n, source in enumerate(sources):
        cand = candidate_from_dict(candidate(n, source, "lib"))
        started = time.perf_counter()
        outcome = remember(store, cand, actor=OWNER)
        samples.append(time.perf_counter() - started)
        outcomes.append(str(getattr(outcome, "kind", "?")))
    return {"samples": samples, "note": ",".join(sorted(set(map(str, outcomes))))}


def _decide_script(root: Path, ids: list[str], reopen: bool) -> str:
    return f"""
import json, sys, time
sys.path.insert(0, {str(ROOT)!r})
from core.review.decide import decide
from core.store.workspace import open_workspace
ids = {ids!r}
t0 = time.perf_counter()
ws = open_workspace([{str(root)!r}])
opened = time.perf_counter() - t0
for n, item in enumerate(ids):
    started = time.perf_counter()
    if {reopen!r} and n:
        ws = open_workspace([{str(root)!r}])
    decide(ws, item, approve=True, option="newer", actor={OWNER!r}, reason="bench")
    took = time.perf_counter() - started + (opened if n == 0 else 0.0)
    print(json.dumps(took), flush=True)
"""


def decide_one(root: Path, runs: int) -> dict[str, Any]:
    """One decision in a fresh process (open the workspace, decide), R times."""
    samples = []
    for item in conflict_ids(root, runs):
        done = subprocess.run(
            [sys.executable, "-c", _decide_script(root, [item], False)],
            capture_output=True,
            text=True,
            env=ENV,
        )
        expect(done, (0,), "decide")
        samples.append(float(done.stdout.split()[-1]))
    return {"samples": samples}


def decide_cli(root: Path, runs: int) -> dict[str, Any]:
    """``memgov decide ITEM --approve`` of a conflict, in turn with a one-file commit."""
    mine, base = [], []
    for item in conflict_ids(root, runs):
        argv = _cli(root, "decide", item, "--approve", "--option", "newer", "--reason", "bench")
        mine.append(timed(argv, cwd=ROOT))
        base.append(commit_floor(root))
    return _paired(mine, base, "one-file git commit")


def decide_batch(root: Path, runs: int) -> dict[str, Any]:
    """``runs`` decisions in a row in one process, one workspace; per decision.
    Prints each decision as it goes, so a timeout still reports what was done."""
    ids = conflict_ids(root, runs)
    script = _decide_script(root, ids, False)
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stdout is not None
    samples: list[float] = []
    deadline = time.perf_counter() + float(os.environ.get("BENCH_BATCH_DEADLINE", "300"))
    stopped = False
    for line in proc.stdout:
        samples.append(float(line))
        if time.perf_counter() > deadline and len(samples) < len(ids):
            proc.kill()  # the child this function started
            stopped = True
            break
    err = proc.stderr.read() if proc.stderr else ""
    if proc.wait() != 0 and not stopped:
        raise SystemExit(f"decision batch failed after {len(samples)}: {err[-1500:]}")
    note = f"{len(samples)} decisions, total {sum(samples):.1f} s"
    if stopped:
        note = f"stopped at the deadline after {len(samples)} of {len(ids)}; " + note
    return {"samples": samples, "note": note}


def decide_list(root: Path, runs: int) -> dict[str, Any]:
    """``runs`` decisions in one list (``memgov decide -``: one transaction, one
    commit), start-up included; the sample is the whole call divided by ``runs``."""
    ids = conflict_ids(root, runs)
    listing = [{"item": i, "approve": True, "option": "newer", "reason": "bench"} for i in ids]
    t, done = memgov("decide", "-", "--json", store=root, stdin=json.dumps(listing))
    expect(done, (0,), "memgov decide -")
    decided = len(json.loads(done.stdout))
    return {
        "samples": [t / decided] * decided,
        "note": f"{decided} decisions in one call, total {t:.1f} s",
    }


def erase_cli(root: Path, runs: int) -> dict[str, Any]:
    """An approved deletion (the record erased, its history purged), by the CLI:
    ``memgov request-delete`` (not timed), then ``memgov decide ITEM --approve``."""
    ids = [
        p.stem
        for p in sorted((root / "memories").rglob("*.md"))
        if "status: active" in p.read_text(encoding="utf-8")
    ]
    samples: list[float] = []
    deadline = time.perf_counter() + float(os.environ.get("BENCH_BATCH_DEADLINE", "300"))
    for memory_id in ids[len(ids) // 3 :][:runs]:
        if samples and time.perf_counter() > deadline:
            break
        _t, done = memgov("request-delete", memory_id, "--reason", "bench", "--json", store=root)
        expect(done, (0,), "memgov request-delete")
        found = re.search(r'"(delete-[^"]+)"', done.stdout)
        if found is None:
            raise SystemExit(f"no item id in: {done.stdout[:500]}")
        t, done = memgov("decide", found.group(1), "--approve", "--reason", "bench", store=root)
        expect(done, (0,), "memgov decide (erase)")
        samples.append(t)
    commits = subprocess.run(
        ["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    return {"samples": samples, "note": f"{commits} commits after"}


def erase_purge(root: Path, runs: int, commits: int) -> dict[str, Any]:
    """bench_erase.py (its own store of ``commits`` commits): the purge's seconds."""
    samples = []
    floor = []
    cpu: list[float] = []
    for _ in range(runs):
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "bench_erase.py"),
                "--commits",
                str(commits),
                "--no-export-floor",
                "--runs",
                "1",
            ],
            capture_output=True,
            text=True,
            env=ENV,
        )
        expect(done, (0,), "bench_erase.py")
        purge = re.search(r"^purge_history\s+([\d.]+)", done.stdout, re.M)
        repack = re.search(r"^floor: git repack -a -d\s+([\d.]+)", done.stdout, re.M)
        if purge is None:
            raise SystemExit(f"bench_erase.py printed no purge time: {done.stdout[-800:]}")
        samples.append(float(purge.group(1)))
        if repack:
            floor.append(float(repack.group(1)))
        if used := re.search(r"cpu ([\d.]+)s", done.stdout):
            cpu.append(float(used.group(1)))
    note = f"cpu (with its git children) median {statistics.median(cpu):.2f} s" if cpu else ""
    return {"samples": samples, "floor": floor, "floor_name": "git repack -a -d", "note": note}


def claude_folder(where: Path, files: int) -> Path:
    """A Claude Code memory folder of ``files`` topic files and its MEMORY.md."""
    folder = where / f"claude-{files}" / "memory"
    if (folder / "MEMORY.md").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    kinds = ("user", "feedback", "project", "reference")
    index = ["# Memory index", ""]
    for n in range(files):
        kind = kinds[n % 4]
        name = f"{kind}_topic_{n:05d}"
        body = (
            f"Topic {n} of the bench: the team keeps runbook {n} in the wiki.\n"
            f"**Why:** asked on day {n % 30}.\n**How to apply:** link runbook {n}."
        )
        (folder / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: runbook {n} lives in the wiki\n"
            f"type: {kind}\n---\n\n{body}\n",
            encoding="utf-8",
        )
        index.append(f"- [Topic {n}]({name}.md) — runbook {n} lives in the wiki")
    (folder / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return folder


def import_cc(root: Path, runs: int, files: int) -> dict[str, Any]:
    """``memgov import claude-code`` of ``files`` files, each run into a fresh copy
    of the store (the copies are made by run_all; here: one run a copy)."""
    folder = claude_folder(root.parent, files)
    t, done = memgov("import", "claude-code", str(folder), "--json", store=root, timeout=3600)
    expect(done, (0, 1, 3), "memgov import claude-code")
    return {"samples": [t], "note": f"exit {done.returncode}"}


def export_cc(root: Path, runs: int) -> dict[str, Any]:
    samples = []
    for n in range(runs):
        out = root.parent / f"export-{root.name}-{n}"
        subprocess.run(["rm", "-rf", str(out)], check=True)
        t, done = memgov("export", "claude-code", str(out), store=root)
        expect(done, (0, 1), "memgov export claude-code")
        samples.append(t)
        subprocess.run(["rm", "-rf", str(out)], check=True)
    return {"samples": samples}


def _some_id(root: Path) -> str:
    """A record in conflict (two commits touch it) from the middle of the history."""
    _t, done = memgov("queue", "--kind", "conflict", "--json", store=root)
    items = json.loads(done.stdout)
    items = items if isinstance(items, list) else items.get("items", [])
    item = items[len(items) // 2]
    text = json.dumps(item)
    ids = re.findall(r'"([a-z0-9-]+-[0-9a-f]{8})"', text)
    return ids[0]


def history(root: Path, runs: int) -> dict[str, Any]:
    """``memgov history ID`` of a record with two commits, in turn with ``git log -- FILE``."""
    from core.store.layout import memory_path

    memory_id = _some_id(root)
    rel = memory_path(memory_id)  # where the file is: a path that is not costs git nothing
    assert (root / rel).is_file(), rel
    mine, base = [], []
    for _ in range(runs + 1):  # the first of each: a warm-up
        mine.append(timed(_cli(root, "history", memory_id), cwd=ROOT))
        base.append(timed(["git", "log", "--", rel], cwd=root))
    return _paired(mine[1:], base[1:], "git log -- FILE")


def history_lib(root: Path, runs: int) -> dict[str, Any]:
    """The lookup without the CLI's start-up: ``history_in`` for ``runs`` memories
    spread over the history, in one process after a first call (which brings
    git's commit graph up to date); the floor is ``git log -- FILE`` of each."""
    from core.reports.history import history_in
    from core.store.layout import memory_path
    from core.store.workspace import open_workspace

    _t, done = memgov("list", "--json", store=root)
    expect(done, (0,), "memgov list")
    rows = json.loads(done.stdout)
    rows = rows if isinstance(rows, list) else rows.get("memories", [])
    step = max(1, len(rows) // runs)
    ids = [row["id"] for row in rows[::step]][:runs]
    workspace = open_workspace([str(root)])
    history_in(workspace, ids[0])
    samples, floor = [], []
    for memory_id in ids:
        started = time.perf_counter()
        found = history_in(workspace, memory_id)
        samples.append(time.perf_counter() - started)
        assert found.events, memory_id
        floor.append(shell(["git", "log", "--", memory_path(memory_id)], cwd=root))
    return {"samples": samples, "floor": floor, "floor_name": "git log -- FILE"}


def _grep(root: Path, subject: str) -> list[str]:
    return ["grep", "-rl", f"^subject: {subject}", str(root / "memories")]


def list_subject(root: Path, runs: int, subject: str) -> dict[str, Any]:
    """``memgov list --subject P`` in turn with ``grep -rl`` of the subject."""
    mine, base = [], []
    for _ in range(runs + 1):  # the first of each: a warm-up
        mine.append(timed(_cli(root, "list", "--subject", subject), cwd=ROOT))
        base.append(timed(_grep(root, subject), check=False))
    return _paired(mine[1:], base[1:], "grep -rl")


def recall(root: Path, runs: int, subject: str) -> dict[str, Any]:
    """``memgov recall P --no-usage`` in turn with ``grep -rl`` of the subject."""
    mine, base = [], []
    for _ in range(runs + 1):  # the first of each: a warm-up
        mine.append(timed(_cli(root, "recall", subject, "--no-usage"), cwd=ROOT))
        base.append(timed(_grep(root, subject), check=False))
    return _paired(mine[1:], base[1:], "grep -rl")


_OPEN = """
import json, os, sys, time
sys.path.insert(0, {root!r})
mode, path = sys.argv[1], sys.argv[2]
if mode == "ready":  # what every command does first: the catalog checked, a count
    from core.store.store import Store
    started = time.perf_counter()
    count = len(Store(path).memories)
elif mode == "open":  # every record built, as doctor needs
    from core.store.store import Store
    started = time.perf_counter()
    count = len(Store(path).load().memories)
elif mode == "stat":
    started = time.perf_counter()
    count = 0
    for top in ("memories", "logs", "requests", "decisions", "events"):
        for dirpath, _dirs, files in os.walk(os.path.join(path, top)):
            for name in files:
                os.stat(os.path.join(dirpath, name))
                count += 1
    os.stat(os.path.join(path, "MEMORY.md"))
else:
    started = time.perf_counter()
    count = 0
    for dirpath, _dirs, files in os.walk(os.path.join(path, "memories")):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as f:
                count += len(f.read())
print(json.dumps([time.perf_counter() - started, count]))
"""


def warm_open(root: Path, runs: int) -> dict[str, Any]:
    """``Store(root).load()`` with the cache valid (a first open writes it), in a fresh
    process each time (timed after the imports), beside stat-ing every file and
    reading every memory file."""
    script = _OPEN.format(root=str(ROOT))

    def once(mode: str) -> float:
        done = subprocess.run(
            [sys.executable, "-c", script, mode, str(root)], capture_output=True, text=True
        )
        expect(done, (0,), f"open ({mode})")
        return float(json.loads(done.stdout)[0])

    once("open")  # brings the catalog up to date if it was not
    samples = [once("ready") for _ in range(runs)]
    floor = [once("stat") for _ in range(runs)]
    built = [once("open") for _ in range(runs)]
    return {
        "samples": samples,
        "floor": floor,
        "floor_name": "stat every file",
        "extra_floor": built,
        "extra_floor_name": "every record built (Store.load, doctor's view)",
    }


# ------------------------------------------------- the scale table's rows
def cold_clone(root: Path, runs: int, subject: str) -> dict[str, Any]:
    """The first command after a clone (``git clone`` of the store, not timed; the
    catalog lives in ``.git/memgov/``, so a clone has none and the command builds it),
    in turn with reading every record's bytes in that clone."""
    clone = root.parent / f"{root.name}.clone"
    mine, base = [], []
    try:
        for _ in range(runs):
            shutil.rmtree(clone, ignore_errors=True)
            subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
            base.append(timed(cat_records(clone)))
            mine.append(timed(_cli(clone, "list", "--subject", subject), cwd=ROOT))
    finally:
        shutil.rmtree(clone, ignore_errors=True)
    return _paired(mine, base, "reading the bytes")


def catalog_bytes(root: Path, runs: int, subject: str) -> dict[str, Any]:
    """The catalog's bytes on disk (``.git/memgov/catalog.sqlite`` and its journal),
    brought up to date by a command and a search first, beside the records' bytes."""
    timed(_cli(root, "list", "--subject", subject), cwd=ROOT)
    timed(_cli(root, "recall", subject, "--no-usage"), cwd=ROOT)
    derived = root / ".git" / "memgov"
    catalog = sum(p.stat().st_size for p in derived.glob("catalog.sqlite*"))
    every = sum(p.stat().st_size for p in derived.rglob("*") if p.is_file())
    records = sum(p.stat().st_size for p in (root / "memories").rglob("*.md"))
    return {
        "samples": [float(catalog)],
        "floor": [float(records)],
        "floor_name": "the records' bytes",
        "unit": "bytes",
        "note": f"all of .git/memgov {every / 1e6:.1f} MB",
    }


def _bench(script: str, *args: str, stop_at: str | None = None, timeout: float = 3600) -> str:
    """Another bench of bench/, as a process of its own; its printed output. With
    ``stop_at``, it is stopped once a line matches (its group: SIGINT, then SIGKILL
    after a few seconds; its temporary files, under a folder of its own, removed)."""
    scratch = ROOT / "bench" / ".stores" / "work" / f"bench-tmp-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # its lines as it prints them; its temporary folders where they can be removed
        env={**ENV, "PYTHONUNBUFFERED": "1", "TMPDIR": str(scratch)},
        start_new_session=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.perf_counter() + timeout
    stopped = False
    for line in proc.stdout:
        lines.append(line)
        if (stop_at and re.search(stop_at, line)) or time.perf_counter() > deadline:
            stopped = True
            break
    if stopped:  # the group this function started
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    _out, err = proc.communicate()
    shutil.rmtree(scratch, ignore_errors=True)
    if (proc.returncode != 0 and not stopped) or not lines:
        raise SystemExit(f"{script}: exit {proc.returncode}\n{err[-1500:]}")
    return "".join(lines)


def _seconds(text: str) -> float:
    return float(text.strip().split()[0])


def review_paths(root: Path, runs: int, size: int) -> dict[str, Any]:
    """bench_review_paths.py at this size: ``queue --json``, ``doctor`` and ``health``,
    each in turn with its floor (its table's rows parsed: medians of wall and CPU)."""
    out = _bench("bench_review_paths.py", "--sizes", str(size), "--runs", str(runs))
    result: dict[str, Any] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 11 or not cells[0].startswith("`memgov ") or cells[2] != "this":
            continue
        name = cells[0].strip("`").split()[1]  # queue, doctor, health
        result[name] = [_seconds(cells[3])]
        result[f"{name}_cpu"] = [_seconds(cells[4])]
        result[f"{name}_floor"] = [_seconds(cells[6])]
        result[f"{name}_floor_cpu"] = [_seconds(cells[7])]
        result[f"{name}_floor_name"] = cells[5]
    if not result:
        raise SystemExit(f"bench_review_paths.py printed no row:\n{out[-1500:]}")
    result["note"] = "bench_review_paths.py"
    result["runs"] = runs
    return result


def mcp_recall(root: Path, runs: int, size: int) -> dict[str, Any]:
    """bench_mcp.py --recall-only at this size: recall's p50 over ``runs`` calls to a
    warm server, the floor an empty round trip (``request_status``) of the same run."""
    out = _bench(
        "bench_mcp.py", "--sizes", str(size), "--recall-only", "--calls", str(runs), timeout=1800
    )
    found = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) >= 3 and cells[0] in ("floor", "recall"):
            found[cells[0]] = (float(cells[1]) / 1000, float(cells[2]) / 1000)
    if "recall" not in found or "floor" not in found:
        raise SystemExit(f"bench_mcp.py printed no recall row:\n{out[-1500:]}")
    return {
        "samples": [found["recall"][0]],
        "floor": [found["floor"][0]],
        "floor_name": "an empty round trip",
        "runs": runs,
        "note": f"p50 of {runs} calls, p95 {found['recall'][1] * 1000:.1f} ms",
    }


def import_files(root: Path, runs: int, size: int, files: int) -> dict[str, Any]:
    """bench_import.py at this size: ``memgov import claude-code`` of a ``files``-file
    folder (a new process, start-up included) beside ``cp -r`` of it; the bench is
    stopped once its import row is printed (its sync rows are not this table's)."""
    # its row: store, import s, ratio, files/s, /500, cp -r s, x cp, again s, cpu s,
    # files/cpu s (the floor is the row's own cp -r, run just before the import)
    number = r"\s+([\d.,]+)"
    row = rf"^\s*{size:,}" + number * 9
    out = _bench("bench_import.py", "--files", str(files), "--sizes", str(size), stop_at=row)
    found = re.search(row, out, re.M)
    if found is None:
        raise SystemExit(f"bench_import.py printed no import row:\n{out[-1500:]}")
    seconds, _r, _f, _g, floor, _x, _again, cpu, per_cpu = (
        float(x.replace(",", "")) for x in found.groups()
    )
    return {
        "samples": [seconds],
        "floor": [floor],
        "floor_name": "cp -r",
        "note": f"{files:,} files, {files / seconds:.0f} files/s, {per_cpu:.0f} files a CPU"
        f" second (goal >= 500); CPU {cpu:.1f} s",
    }


# ---------------------------------------------------------------- the desk
async def _desk(root: Path, decide: bool) -> dict[str, Any]:  # noqa: C901
    """The desk headless on ``root``. Every frame the screen composes (what a terminal
    would be sent) is time-stamped; a key's time is from the press to the first frame
    after it (and, in ``settled``, to the last frame of its effect: no new frame for
    ``quiet`` seconds, workers done); a state's time is to the first frame after the
    state is reached."""
    from core.store.workspace import open_workspace
    from tui.app import MemgovDesk
    from tui.screens.queue.table import QueueTable

    quiet = 0.25
    started = time.perf_counter()
    app = MemgovDesk(open_workspace([root]), actor=OWNER, cursor_blink=False)
    frames: list[float] = []
    display = app._display

    def stamped(screen: Any, renderable: Any) -> None:
        if renderable is not None:
            frames.append(time.perf_counter())
        display(screen, renderable)

    app._display = stamped  # type: ignore[method-assign]
    out: dict[str, Any] = {}
    async with app.run_test(size=(140, 40)) as pilot:

        def table() -> Any:
            return app.screen.query_one("#queue", QueueTable)

        async def until(test: Any, limit: float = 300.0) -> float:
            end = time.perf_counter() + limit
            while True:
                try:
                    if test():
                        return time.perf_counter()
                except Exception:
                    pass
                if time.perf_counter() > end:
                    raise TimeoutError("the desk did not get there")
                await asyncio.sleep(0.002)

        async def next_frame(after: float, limit: float = 10) -> float:
            await until(lambda: frames and frames[-1] >= after, limit=limit)
            return next(f for f in frames if f >= after)

        async def settled(t0: float) -> float:
            """The last frame after t0 once the screen is quiet."""
            while True:
                await app.workers.wait_for_complete()
                last = frames[-1] if frames else 0.0
                await asyncio.sleep(quiet)
                if (frames[-1] if frames else 0.0) == last and not any(
                    w.is_running for w in app.workers
                ):
                    break
            after = [f for f in frames if f >= t0]
            return (after[-1] if after else time.perf_counter()) - t0

        reached = await until(lambda: table().row_count > 0)
        out["queue_on_screen"] = await next_frame(reached) - started
        await settled(started)
        total = table().row_count

        async def key(*keys: str) -> float:
            """Press to the next frame (kept in the result); the time until the screen is
            quiet again (the tabs' underline animates) goes to ``settled``."""
            t0 = time.perf_counter()
            await pilot.press(*keys)
            first = await next_frame(t0) - t0
            out.setdefault("settled", []).append(await settled(t0))
            return first

        # kind filter: ']' steps to the next kind, '[' back to all
        out["kind_key"] = []
        for _ in range(3):
            out["kind_key"] += [await key("right_square_bracket"), await key("left_square_bracket")]
        # search: '/', then one keystroke at a time
        await key("slash")
        out["search_key"] = [await key(ch) for ch in "timezone"]
        out["search_rows"] = table().row_count
        await key("escape")
        await until(lambda: table().row_count == total)
        if decide:
            await key("enter")
            decided = app.screen.item.id  # type: ignore[attr-defined]
            await key("n")  # newer wins: the reason dialog opens
            t0 = time.perf_counter()
            await pilot.press("enter")
            # the table holds a window of the queue: the decided item has left the queue
            reached = await until(
                lambda: (
                    type(app.screen).__name__ == "QueueScreen"
                    and all(i.id != decided for i in app.screen.items)  # type: ignore[attr-defined]
                )
            )
            # the poll runs on the app's own loop: the frame that showed the change may
            # come before the poll saw the state, or just after it
            try:
                shown = await next_frame(reached, limit=2)
            except TimeoutError:
                shown = max(f for f in frames if t0 <= f <= reached)
            out["after_decide"] = shown - t0
    return out


def desk(root: Path, runs: int) -> dict[str, Any]:
    result = asyncio.run(_desk(root, decide=True))
    return result


OPERATIONS = {
    "cli_help": cli_help,
    "cli_remember": cli_remember,
    "remember": remember_inproc,
    "decide_one": decide_one,
    "decide_cli": decide_cli,
    "decide_batch": decide_batch,
    "decide_list": decide_list,
    "erase_cli": erase_cli,
    "erase_purge": erase_purge,
    "import_cc": import_cc,
    "export_cc": export_cc,
    "history": history,
    "history_lib": history_lib,
    "list": list_subject,
    "recall": recall,
    "warm_open": warm_open,
    "desk": desk,
    "cold_clone": cold_clone,
    "catalog_bytes": catalog_bytes,
    "review_paths": review_paths,
    "mcp_recall": mcp_recall,
    "import_files": import_files,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("operation", choices=sorted(OPERATIONS))
    parser.add_argument("store", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--subject", default="project:p042")
    parser.add_argument("--size", type=int, default=0, help="the store's size (other benches)")
    args = parser.parse_args()
    fn = OPERATIONS[args.operation]
    extra: dict[str, Any] = {}
    if args.operation in ("import_cc", "import_files"):
        extra["files"] = args.files
    if args.operation == "erase_purge":
        extra["commits"] = args.commits
    if args.operation in ("list", "recall", "cold_clone", "catalog_bytes"):
        extra["subject"] = args.subject
    if args.operation in ("review_paths", "mcp_recall", "import_files"):
        extra["size"] = args.size
    result = fn(args.store, args.runs, **extra)
    if result.get("samples"):
        result["median"] = statistics.median(result["samples"])
    print(json.dumps(result))


if __name__ == "__main__":
    main()
