"""Large bench stores with as many commits as memories, built fast and cached.

    .venv/bin/python bench/stores.py 10000 100000      # build (or reuse) and check them

A store of N memories has N commits after its ``memgov init`` commit, each what one
``memgov remember`` commits: one memory file added in its shard folder (a conflict
also changes the record it contradicts), its events appended to the event log's
last shard (``events/NNNNNN.jsonl``, a new one every 256 KiB), its message in the
day's log under ``logs/``, and ``MEMORY.md`` written within its caps. About 1,000
(N/10 below 10,000) of the memories are second values of a key already held: both
records go to ``conflict`` with the pipeline's events (``conflict`` for the new
record, ``active -> conflict`` for the old one, ``conflict-opened``), so the store
opens with that many conflict items in ``memgov queue``.

The history is one ``git fast-import`` stream, not N ``git commit`` runs. What a
commit writes no longer grows with the store (a shard of the log is at most
256 KiB, the index at most its 25,000-byte cap, a folder of ``memories/`` lists
about N/256 files), so every version is sent while the stream stays under
``BUDGET`` bytes; past that, the log shards and the index are written at
checkpoints (every K-th commit and always the last, so the last commit's tree is
exactly the store's state). Every commit still adds or changes its memory file
and its day's log.

Stores live under ``bench/.stores/`` (gitignored), one folder per size, with a
``.built`` marker; :func:`fresh_copy` gives a writing bench its own copy.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import random
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.record import Memory, Source
from core.store.events import FIRST_SHARD, SHARD_BYTES, Event, new_event_id, shard_name
from core.store.index import fit_index, index_line, render_index
from core.store.layout import memory_path
from core.store.store import Store
from core.writing.pipeline import conflict_item_id

STORES = ROOT / "bench" / ".stores"
OWNER = "bench@example.com"
TZ = timezone(timedelta(hours=8))
BASE = datetime(2022, 6, 1, 8, 0, tzinfo=TZ)
STEP = timedelta(minutes=20)
#: most bytes of events.jsonl and MEMORY.md versions the stream may carry
BUDGET = 1_000_000_000
TYPE_ORDER = ("working", "episodic", "semantic", "preference", "reflection")
KINDS = ("episodic", "semantic", "preference", "reflection")

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
#: the subject prefix the list and recall benches ask for (about 1% of the records)
PROBE_SUBJECT = "project:p042"


def subject_of(i: int) -> str:
    return f"project:p{i % 97:03d}" if i % 2 else f"user:u{i % 50:02d}/project:p{i % 97:03d}"


def conflicts_for(size: int) -> int:
    return min(1000, size // 10)


def path_for(size: int, scope: str = "private") -> Path:
    return STORES / (f"mg-{size}" if scope == "private" else f"mg-{scope}-{size}")


class _Sim:
    """The simulated remember calls: per commit, the files it writes and its events."""

    def __init__(self, size: int, line_chars: int, scope: str = "private") -> None:
        rng = random.Random(size)
        self.line_chars = line_chars
        conflicts = conflicts_for(size)
        gap = size // conflicts if conflicts else 0
        second_of: dict[int, int] = {}  # commit of a key's second value -> commit of its first
        for j in range(conflicts):
            first = j * gap
            second_of[first + max(gap // 2, 1)] = first
        self.commits: list[tuple[dict[str, bytes], str, datetime]] = []
        self.events = bytearray()
        self.event_ends: list[int] = []
        self.index_ops: list[list[tuple[str, str, tuple[object, ...] | None]]] = []
        self.memories: dict[str, Memory] = {}
        by_commit: dict[int, Memory] = {}
        log_text: dict[str, list[str]] = {}
        for i in range(size):
            when = BASE + STEP * i
            task = f"tr_{when:%Y%m%d}_{i:06d}"
            index = rng.randint(1, 30)
            day = f"logs/{when:%Y/%m/%Y-%m-%d}.md"
            files: dict[str, bytes] = {}
            ops: list[tuple[str, str, tuple[object, ...] | None]] = []
            first = second_of.get(i)
            if first is None:
                kind = "semantic" if i in second_of.values() else rng.choice(KINDS)
                attribute = f"{rng.choice(ATTRS)}_{i}"
                value = f"{rng.choice(WORDS)} {i}"
                subject = subject_of(i)
                status = "active"
            else:
                old = by_commit[first]
                kind, attribute, subject = old.type, old.attribute, old.subject
                value = f"{rng.choice(WORDS)} {i} instead"
                status = "conflict"
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(15, 60)))
            evidence = f"we use {value} for {attribute.replace('_', ' ')}"
            memory = Memory(
                id=f"{attribute.replace('_', '-')}-{i:08x}",
                type=kind,
                scope=scope,
                status=status,
                subject=subject,
                attribute=attribute,
                content=f"The {attribute.replace('_', ' ')} is {value}. {words.capitalize()}.\n\n"
                f"**Why:** {rng.choice(WORDS)} {rng.choice(WORDS)}.",
                value=value,
                confidence=round(rng.uniform(0.6, 0.95), 2),
                created_at=when,
                verified_at=when,
                source=Source(task=task, message_index=index, evidence=evidence, log=day),
            )
            memory = memory.with_changes(path=memory_path(memory.id))
            by_commit[i] = memory
            self.memories[memory.id] = memory
            files[memory.path] = memory.to_markdown().encode()
            lines = log_text.setdefault(day, [f"# {when:%Y-%m-%d}"])
            lines += ["", f"## task {task}", "", f"- [{index}] {when:%H:%M} user: {evidence}"]
            files[day] = ("\n".join(lines) + "\n").encode()
            message = f"remember: {subject} {attribute}"
            evs: list[Event] = []

            def event(
                action: str,
                ids: tuple[str, ...],
                evs: list[Event] = evs,
                message: str = message,
                when: datetime = when,
                **kw: object,
            ) -> None:
                basis = f"{message}|{len(evs)}|{action}|{','.join(ids)}"
                evs.append(
                    Event(
                        id=new_event_id(when, basis),
                        ts=when.isoformat(),
                        actor=OWNER,
                        action=action,
                        memory_ids=ids,
                        **kw,  # type: ignore[arg-type]
                    )
                )

            key = {"scope": scope, "subject": subject, "attribute": attribute}
            key["condition"] = None  # type: ignore[assignment]
            details = {"key": key, "content_hash": memory.content_hash}
            if first is None:
                event(
                    "create",
                    (memory.id,),
                    to_status="active",
                    reason="passed the write gate",
                    details={**details, "gate": 0.8},
                )
                ops.append(("add", memory.id, self._sort(memory)))
            else:
                old = by_commit[first]
                item = conflict_item_id(memory.key)
                event(
                    "conflict",
                    (memory.id,),
                    to_status="conflict",
                    reason="contradicts a record of the same key",
                    request=item,
                    details={**details, "gate": 0.8, "against": [old.id]},
                )
                event(
                    "conflict",
                    (old.id,),
                    from_status="active",
                    to_status="conflict",
                    request=item,
                    reason=f"contradicting evidence arrived ({memory.id})",
                    details={
                        "key": key,
                        "content_hash": old.content_hash,
                        "against": [memory.id],
                    },
                )
                event(
                    "conflict-opened",
                    (memory.id, old.id),
                    reason="same key, different values: waiting for a person",
                    request=item,
                )
                old = old.with_changes(status="conflict")
                by_commit[first] = old
                self.memories[old.id] = old
                files[old.path] = old.to_markdown().encode()
                ops.append(("del", old.id, None))
            for ev in evs:
                self.events += ev.line()
            self.event_ends.append(len(self.events))
            self.index_ops.append(ops)
            body = "\n".join(
                [
                    message,
                    "",
                    f"actor: {OWNER}",
                    "memories: " + ", ".join(sorted({i for e in evs for i in e.memory_ids})),
                    "events: " + ", ".join(e.id for e in evs),
                ]
            )
            self.commits.append((files, body, when))

    def _sort(self, m: Memory) -> tuple[object, ...]:
        order = TYPE_ORDER.index(m.type) if m.type in TYPE_ORDER else 99
        return (order, m.subject, m.attribute, m.id, index_line(m, self.line_chars))


def build(  # noqa: C901
    root: Path, size: int, *, budget: int = BUDGET, scope: str = "private"
) -> dict[str, float]:
    """Build the store of ``size`` memories at ``root`` (replacing what is there); a
    team store's only maintainer is the bench's actor."""
    started = time.perf_counter()
    shutil.rmtree(root, ignore_errors=True)
    if scope == "team":
        store = Store.init(root, scope="team", maintainers=(OWNER,), actor=OWNER)
    else:
        store = Store.init(root, owner=OWNER, actor=OWNER)
    sim = _Sim(size, store.config.index_line_chars, scope)
    simulated = time.perf_counter() - started
    # a shard of the event log is at most SHARD_BYTES and the index at most its byte
    # cap: what a checkpoint writes does not grow with the store
    per_commit = SHARD_BYTES / 2 + store.config.index_max_bytes
    every = max(1, math.ceil(size * per_commit / budget))
    checkpoints = [i for i in range(size) if (i + 1) % every == 0 or i == size - 1]
    tip = _git(root, "rev-parse", "HEAD").strip()
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"],
        cwd=root,
        stdin=subprocess.PIPE,
        bufsize=1 << 20,
    )
    assert proc.stdin is not None
    out = proc.stdin
    mark = 0

    def blob(data: bytes | memoryview) -> int:
        nonlocal mark
        mark += 1
        out.write(b"blob\nmark :%d\ndata %d\n" % (mark, len(data)))
        out.write(data)
        out.write(b"\n")
        return mark

    # each file's versions in a row, so fast-import stores each as a delta of the last
    # the event log in shards, as the store writes it (a new one once the last holds
    # SHARD_BYTES); at a checkpoint, the version of each shard written since the last
    first = (root / FIRST_SHARD).read_bytes()
    log = memoryview(first + bytes(sim.events))
    shard_of: list[tuple[int, int]] = []  # per commit: (shard number, its start)
    shard, start, before = 1, 0, len(first)
    for end in sim.event_ends:
        if before - start >= SHARD_BYTES:
            shard, start = shard + 1, before
        shard_of.append((shard, start))
        before = len(first) + end
    last_of = {n: j for j, (n, _start) in enumerate(shard_of)}  # each shard's last commit
    event_marks: dict[int, list[tuple[str, int]]] = {}
    written = 0  # the shard the last checkpoint wrote
    for i in checkpoints:
        number, begin = shard_of[i]
        marks = []
        for older in range(max(written, 1), number):  # shards filled since: their last version
            last = last_of[older]
            full = log[shard_of[last][1] : len(first) + sim.event_ends[last]]
            marks.append((shard_name(older), blob(full)))
        marks.append((shard_name(number), blob(log[begin : len(first) + sim.event_ends[i]])))
        event_marks[i] = marks
        written = number
    # the index within its caps, from the first lines of the live records in order
    final_index = render_index(sim.memories.values(), store.config).encode()
    index_marks: dict[int, int] = {}
    live: list[tuple[object, ...]] = []
    sort_of: dict[str, tuple[object, ...]] = {}
    wanted = set(checkpoints)
    cap = store.config.index_max_lines + 1
    for i, ops in enumerate(sim.index_ops):
        for op, memory_id, sort in ops:
            old = sort_of.pop(memory_id, None)
            if old is not None:
                del live[bisect.bisect_left(live, old)]
            if op == "add":
                assert sort is not None
                sort_of[memory_id] = sort
                bisect.insort(live, sort)
        if i == size - 1:
            index_marks[i] = blob(final_index)
        elif i in wanted:
            # (kept in this order and listed so: an old version, its order does not matter)
            entries = ((s[:-1], str(s[-1]) + "\n") for s in live[:cap])
            text = fit_index(entries, len(live), store.config)
            index_marks[i] = blob(text.encode())
    file_marks = [{rel: blob(data) for rel, data in files.items()} for files, _, _ in sim.commits]
    for i, (_files, message, when) in enumerate(sim.commits):
        stamp = b"%d +0800" % int(when.timestamp())
        data = message.encode()
        out.write(b"commit refs/heads/main\n")
        out.write(b"author bench <%s> %s\n" % (OWNER.encode(), stamp))
        out.write(b"committer bench <%s> %s\n" % (OWNER.encode(), stamp))
        out.write(b"data %d\n%s\n" % (len(data), data))
        if i == 0:
            out.write(b"from %s\n" % tip.encode())
        if i in event_marks:
            for rel, shard_mark in event_marks[i]:
                out.write(b"M 100644 :%d %s\n" % (shard_mark, rel.encode()))
            out.write(b"M 100644 :%d MEMORY.md\n" % index_marks[i])
        for rel, blob_mark in file_marks[i].items():
            out.write(b"M 100644 :%d %s\n" % (blob_mark, rel.encode()))
        out.write(b"\n")
    out.write(b"done\n")
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed while building the bench store")
    imported = time.perf_counter() - started
    _git(root, "reset", "-q", "--hard", "main")
    (root / ".git" / "info" / "exclude").open("a").write("/.built\n")
    info = {
        "memories": size,
        "commits": int(_git(root, "rev-list", "--count", "HEAD")),
        "conflicts": conflicts_for(size),
        "checkpoint_every": every,
        "simulate_s": round(simulated, 1),
        "import_s": round(imported - simulated, 1),
        "build_s": round(time.perf_counter() - started, 1),
    }
    return info


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def cli(*args: str, store: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """``memgov ARGS`` in a fresh interpreter, this checkout's code."""
    command = [sys.executable, "-m", "tui.cli", *args]
    if store is not None:
        command += ["--store", str(store), "--as", OWNER]
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT), "MEMGOV_ACTOR": OWNER}
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )


def check(root: Path) -> dict[str, object]:
    """``memgov doctor`` (no errors allowed) and ``memgov queue`` (the conflicts open)."""
    doctor = cli("doctor", "--json", store=root)
    report = json.loads(doctor.stdout or "{}")
    items = [f for s in report.get("stores", []) for f in s.get("findings", [])]
    errors = [f for f in items if isinstance(f, dict) and f.get("severity") == "error"]
    warnings = [f for f in items if isinstance(f, dict) and f.get("severity") == "warning"]
    if doctor.returncode not in (0, 1) or errors:
        raise SystemExit(
            f"memgov doctor on {root}: exit {doctor.returncode}, {len(errors)} errors: "
            f"{errors[:3]} {doctor.stderr[-500:]}"
        )
    queue = cli("queue", "--kind", "conflict", "--json", store=root)
    data = json.loads(queue.stdout)
    listed = data if isinstance(data, list) else data.get("items", [])
    return {
        "doctor_errors": len(errors),
        "doctor_warnings": [f.get("reason", "")[:80] for f in warnings][:3],
        "queue_conflicts": len(listed),
    }


def ensure(size: int, *, verbose: bool = True, scope: str = "private") -> Path:
    """The cached store of ``size`` memories, built and checked the first time."""
    root = path_for(size, scope)
    marker = root / ".built"
    if marker.exists():
        warm(root)
        return root
    info = build(root, size, scope=scope)
    info.update(check(root))
    if info["queue_conflicts"] != conflicts_for(size):
        raise SystemExit(f"memgov queue lists {info['queue_conflicts']} conflicts in {root}")
    marker.write_text(json.dumps(info, indent=1) + "\n")
    if verbose:
        print(f"# built {root.name}: {json.dumps(info)}", file=sys.stderr, flush=True)
    return root


def fresh_copy(size: int, name: str) -> Path:
    """A copy of the store of ``size`` for one writing bench (``cp -a``: the cache
    and everything under ``.git`` come along)."""
    src = ensure(size)
    dst = STORES / "work" / f"{name}-{size}"
    shutil.rmtree(dst, ignore_errors=True)
    dst.parent.mkdir(parents=True, exist_ok=True)
    # resolved: a symlinked store would be copied as the link, and written through
    subprocess.run(["cp", "-a", str(src.resolve()), str(dst)], check=True)
    warm(dst)
    return dst


def warm(root: Path) -> None:
    """Open the store once, untimed: a copy has other inodes, so its catalog
    (``.git/memgov/catalog.sqlite``) is read again from the files here, as a user's
    first open after a clone would, and the timed runs start warm."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            f"from core.store.store import Store; Store({str(root)!r}).load()",
        ],
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="*", default=[10_000])
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    for size in args.sizes:
        if args.rebuild:
            shutil.rmtree(path_for(size), ignore_errors=True)
        root = ensure(size)
        print((root / ".built").read_text())


if __name__ == "__main__":
    main()
