"""One transcript into the daily logs: :func:`ingest_transcript`.

Every entry becomes one message of the task ``session-<id>`` (a sidechain's
``session-<id>-agent-<agent>``), numbered 1, 2, ... in the transcript's order: the
log's own ``(task, index)`` is the key, so a second run of the same transcript, or of
a longer one (the session went on), finds the messages already there and adds only
what follows. Credentials are redacted before anything is written (the rule id
stays); a long message is logged as an excerpt with its size and a hash. Everything
new lands in one transaction and one commit (journaled: a kill leaves all or none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from core.domain.data import AsData
from core.domain.errors import ValidationError
from core.importers.transcripts.claude_code import ClaudeCode
from core.importers.transcripts.codex import Codex
from core.importers.transcripts.model import (
    ROLES,
    Entry,
    Reading,
    TranscriptFormat,
    excerpt,
    json_lines,
)
from core.store import logs
from core.store.fsutil import confined
from core.store.store import Store
from core.store.transaction import Transaction, transaction
from core.store.workspace import Workspace
from core.writing.hook_events import Redactor, logged_key, said_keys, task_of
from core.writing.remember import log_store

#: the formats, in the order detection asks them (Codex's wrapper is the stricter)
FORMATS: dict[str, TranscriptFormat] = {"codex": Codex(), "claude-code": ClaudeCode()}
#: the largest transcript read
MAX_FILE_BYTES = 1024 * 1024 * 1024
#: how many skipped lines the report names (the count is always whole)
SHOWN_SKIPS = 20
_WORD = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class TranscriptReport(AsData):
    """What one ingest did: the messages added, already there and skipped, by role."""

    file: str
    format: str
    session: str
    store: str
    tasks: list[str]
    added: int
    already: int
    skipped: int
    by_role: dict[str, int]  # the transcript's messages by role (added or already there)
    added_by_role: dict[str, int]
    turns: int  # prompts: typed by the user (a subagent's: by the agent that started it)
    tool_calls: int
    tool_results: int
    ignored: int  # lines that are no message (progress, token counts, snapshots ...)
    skipped_lines: list[str] = field(default_factory=list)  # "file:line: why", the first 20
    logs: list[str] = field(default_factory=list)
    note: str | None = None


def _read(path: Path, fmt: str | None) -> tuple[str, Reading]:
    shown = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ValidationError(f"cannot be read: {exc.strerror}", path=shown) from None
    if not path.is_file():
        raise ValidationError("is not a file", path=shown, hint="give a transcript's .jsonl")
    if size > MAX_FILE_BYTES:
        raise ValidationError(f"is {size:,} bytes, over the 1 GiB read", path=shown)
    reading = Reading(source=shown)
    try:
        lines = list(json_lines(path, shown, reading))
    except OSError as exc:
        raise ValidationError(f"cannot be read: {exc.strerror}", path=shown) from None
    if fmt is None:
        first = lines[0][1] if lines else {}
        fmt = next((name for name, f in FORMATS.items() if f.claims(first)), None)
        if fmt is None:
            raise ValidationError(
                "is neither a Claude Code transcript nor a Codex rollout"
                + ("" if lines else " (no JSON line in it)"),
                path=shown,
                field="format",
                hint="pass --format claude-code or --format codex",
            )
    elif fmt not in FORMATS:
        raise ValidationError(f"must be one of {', '.join(FORMATS)}", field="format")
    FORMATS[fmt].read(lines, reading)
    return fmt, reading


def _session(reading: Reading, path: Path) -> str:
    name = reading.session if reading.session else path.stem
    word = _WORD.sub("-", name).strip("-.")[:80]
    return word or "unnamed"


def _present(root: Path, tasks: set[str]) -> set[tuple[str, int]]:
    """The (task, index) of every message of these tasks already in a daily log."""
    found: set[tuple[str, int]] = set()
    index = logs.task_index(root)
    for rel in sorted({r for t in tasks for r in index.get(t, [])}):
        path = root / rel
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for task, line in logs.lines_by_task(text):
            if task in tasks and (m := logs.MESSAGE_RE.match(line)):
                found.add((task, int(m["index"])))
    return found


def _hooked(root: Path, session: str | None) -> set[tuple[str, str]]:
    """What the hooks logged live for this session (under its task, the session's id):
    each message's :func:`~core.writing.hook_events.logged_key`, so the transcript
    does not log it a second time."""
    if not session:
        return set()
    task = task_of({"session_id": session})
    keys: set[tuple[str, str]] = set()
    index = logs.task_index(root)
    for rel in sorted(index.get(task, [])):
        path = root / rel
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for in_task, line in logs.lines_by_task(text):
            if in_task == task and (m := logs.MESSAGE_LINE.match(line)):
                keys.add(logged_key(m["role"].lower(), m["text"]))
    return keys


def _when(entry: Entry, last: datetime, now: datetime, tz: tzinfo) -> datetime:
    """The message's own time in the store's zone; an absent or absurd one: the last."""
    when = entry.when
    if when is None or not (datetime(2000, 1, 1, tzinfo=tz) <= when <= now + timedelta(days=1)):
        return last
    return when.astimezone(tz)


def _with_lines(text: str | None, day: str, block: dict[str, list[str]]) -> str:
    """A day's log with each task's new lines added at the end of its section."""
    lines = text.splitlines() if text else [f"# {day}"]
    for task, new in block.items():
        start = next(
            (
                i
                for i, line in enumerate(lines)
                if (m := logs.TASK_RE.match(line)) and m["task"] == task
            ),
            None,
        )
        if start is None:
            lines += ["", f"## task {task}", "", *new]
            continue
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        lines[end:end] = new
    return "\n".join(lines) + "\n"


#: what an entry may count as in the report
COUNTED = ("turn", "call", "result")


@dataclass
class _Plan:
    """The transcript's messages numbered by task, counted by role, then (under the
    store's lock) the lines to add by day and task."""

    planned: list[tuple[str, int, Entry]] = field(default_factory=list)
    numbers: dict[str, int] = field(default_factory=dict)
    by_role: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    counters: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTED, 0))
    days: dict[str, tuple[str, dict[str, list[str]]]] = field(default_factory=dict)
    per_day: dict[str, dict[str, int]] = field(default_factory=dict)
    added_by_role: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    already: int = 0
    skipped: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)

    def add(
        self, task: str, index: int, entry: Entry, when: datetime, file: Path, redact: Redactor
    ) -> None:
        """One new message's line under its day and task: redacted (as the store's log
        marks a credential), excerpted, checked (one that is no fit message is skipped
        and named)."""
        text = excerpt(entry.role, redact(entry.text))
        try:
            logs.check_message(task=task, index=index, role=entry.role, text=text)
        except ValidationError as exc:
            self.skipped.append(f"{file}: message {index}: {exc}")
            return
        rel = logs.log_path(when)
        self.days.setdefault(rel, (f"{when:%Y-%m-%d}", {}))[1].setdefault(task, []).append(
            f"- [{index}] {when:%H:%M} {entry.role}: {text}"
        )
        self.per_day.setdefault(rel, {}).setdefault(entry.role, 0)
        self.per_day[rel][entry.role] += 1


def _numbered(reading: Reading, session: str) -> _Plan:
    """Each entry under its task (``session-<id>``, a sidechain's own) and index."""
    plan = _Plan(skipped=list(reading.skipped))
    for entry in reading.entries:
        task = f"session-{session}" + (f"-{entry.task_suffix}" if entry.task_suffix else "")
        plan.numbers[task] = plan.numbers.get(task, 0) + 1
        plan.planned.append((task, plan.numbers[task], entry))
        plan.by_role[entry.role] = plan.by_role.get(entry.role, 0) + 1
        if entry.counts_as:
            plan.counters[entry.counts_as] += 1
    return plan


def store_redactor(store: Store) -> Redactor:
    """A credential as the store's log marks it: ``[secret: <rule> #<salted hash>]``."""
    state_dir = store.state_dir
    return lambda text: logs.redacted(state_dir, text)


def _new_lines(plan: _Plan, store: Store, reading: Reading, file: Path) -> None:
    """The lines of the messages not in the logs yet, by day and task. Read under the
    store's lock, after recovery: a change a kill left half done is finished or
    undone before what is there is read, and no other writer adds lines meanwhile."""
    now = store.now()
    tz = now.tzinfo or datetime.now().astimezone().tzinfo
    assert tz is not None
    present = _present(store.root, set(plan.numbers))
    hooked = _hooked(store.root, reading.session)
    redact = store_redactor(store)
    last = now
    for task, index, entry in plan.planned:
        when = last = _when(entry, last, now, tz)
        if (task, index) in present or (
            hooked and not hooked.isdisjoint(said_keys(entry.role, entry.text, entry.head, redact))
        ):
            plan.already += 1
            continue
        plan.add(task, index, entry, when, file, redact)


def ingest_transcript(
    workspace: Workspace,
    path: str | Path,
    *,
    actor: str,
    format: str | None = None,
) -> TranscriptReport:
    """Read a Claude Code transcript or a Codex rollout into the daily logs.

    ``format``: ``claude-code`` or ``codex``; None detects it from the first line.
    Returns what was added, already there and skipped, by role. A line that cannot
    be read is skipped and named (file and line number), never an error; a file that
    is no transcript is a :class:`ValidationError` naming it.
    """
    file = Path(path)
    fmt, reading = _read(file, format)
    session = _session(reading, file)
    store, note = log_store(workspace, actor)
    plan = _numbered(reading, session)
    # one transaction: what is there is read under its lock (after recovery), and
    # every new line lands in one commit, or none (nothing new: no commit)
    with transaction(store, actor=actor, message=f"log: transcript of session {session}") as tx:
        _new_lines(plan, store, reading, file)
        _write(tx, plan)
        tx.message += f", {sum(plan.added_by_role.values())} messages"
    return TranscriptReport(
        file=str(file),
        format=fmt,
        session=session,
        store=str(store.root),
        tasks=sorted(plan.numbers),
        added=sum(plan.added_by_role.values()),
        already=plan.already,
        skipped=len(plan.skipped),
        by_role={r: n for r, n in plan.by_role.items() if n},
        added_by_role={r: n for r, n in plan.added_by_role.items() if n},
        turns=plan.counters["turn"],
        tool_calls=plan.counters["call"],
        tool_results=plan.counters["result"],
        ignored=reading.ignored,
        skipped_lines=plan.skipped[:SHOWN_SKIPS],
        logs=plan.written,
        note=note,
    )


def _write(tx: Transaction, plan: _Plan) -> None:
    """The new lines into their days' logs (a day whose log is no file, or would grow
    past 16 MiB, is skipped and said)."""
    root = tx.store.root
    for rel, (day, block) in sorted(plan.days.items()):
        path = confined(root, rel)
        count = sum(plan.per_day[rel].values())
        if path.is_symlink() or (path.exists() and not path.is_file()):
            plan.skipped.append(f"{rel}: not a file; its {count} messages skipped")
            continue
        old = path.read_text(encoding="utf-8", errors="replace") if path.exists() else None
        text = _with_lines(old, day, block)
        if len(text.encode("utf-8", "surrogatepass")) > logs.MAX_LOG_BYTES:
            plan.skipped.append(f"{rel}: would grow past 16 MiB; its {count} messages skipped")
            continue
        tx.write_file(rel, text)
        plan.written.append(rel)
        for role, n in plan.per_day[rel].items():
            plan.added_by_role[role] = plan.added_by_role.get(role, 0) + n
