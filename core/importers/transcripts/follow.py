"""A Codex rollout followed as it grows: :func:`follow_rollout`, what Codex's Stop
hook runs at the end of each turn.

A rollout only grows (Codex appends each item as a line). Where the last read
stopped is kept beside the store's repository (``.git/memgov/rollouts/``, one small
file per rollout: the byte offset of the last whole line read, the session's id, how
many messages were numbered, the last message's time), so a turn's read costs what
the turn appended, not the session and not the store: the lines after the offset
are read (a last line still being written waits for the next turn), numbered on
from where the last read stopped, and checked against the daily logs of their own
days and today's only (what the hooks logged live is today's), never by a pass
over every log.

The messages are the ones ``memgov log --transcript`` logs (the same reader, the
same task ``session-<id>``, the same ``(task, index)`` keys), so a rollout read
whole before, or a read the kill of a hook cut short after its commit, adds
nothing twice: the lines are read again from the offset kept and found in their
day's log. A kept offset past the file's end (the rollout replaced) or a state file
that cannot be read starts the rollout over from its first line.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from core.domain.data import AsData
from core.domain.errors import ValidationError
from core.importers.transcripts.codex import Codex
from core.importers.transcripts.ingest import _Plan, _session, _when, _write, store_redactor
from core.importers.transcripts.model import MAX_LINE_BYTES, Reading, when_of
from core.store import logs
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace
from core.writing.hook_events import logged_key, said_key, task_of
from core.writing.remember import log_store

#: the most bytes one read takes from a rollout (the rest waits for the next turn)
MAX_READ_BYTES = 64 * 1024 * 1024


@dataclass
class Cursor:
    """Where the last read of a rollout stopped."""

    offset: int = 0  # bytes read: the end of the last whole line
    session: str | None = None
    numbered: int = 0  # messages numbered in the session's task so far
    last: str | None = None  # the last message's time (ISO 8601)

    @classmethod
    def parse(cls, data: Any) -> Cursor:
        if not isinstance(data, dict):
            return cls()
        offset, numbered = data.get("offset"), data.get("numbered")
        session, last = data.get("session"), data.get("last")
        if not (isinstance(offset, int) and isinstance(numbered, int)) or min(offset, numbered) < 0:
            return cls()
        return cls(
            offset,
            session if isinstance(session, str) else None,
            numbered,
            last if isinstance(last, str) else None,
        )


@dataclass(frozen=True)
class FollowReport(AsData):
    """What one read added: messages added, already there, skipped; bytes read."""

    file: str
    session: str
    added: int
    already: int
    skipped: int
    read_bytes: int
    skipped_lines: list[str] = field(default_factory=list)


def cursor_path(root: Path, rollout: Path) -> Path | None:
    """The cursor's file for this rollout in the store at ``root`` (None: the store
    has no repository folder to keep it in)."""
    git = root / ".git"
    if git.is_symlink() or not git.is_dir():
        return None
    key = hashlib.sha256(str(rollout.resolve()).encode("utf-8", "surrogatepass")).hexdigest()
    return git / "memgov" / "rollouts" / f"{key[:32]}.json"


def _load(path: Path | None, size: int) -> Cursor:
    if path is None:
        return Cursor()
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 64 * 1024:
            return Cursor()
        cursor = Cursor.parse(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, RecursionError):
        return Cursor()
    return cursor if cursor.offset <= size else Cursor()


def _save(path: Path | None, cursor: Cursor) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".cursor.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(vars(cursor), out)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _prompt_line(value: dict[str, Any]) -> bool:
    """A line of a typed prompt: its ``event_msg`` or the ``response_item`` copy."""
    payload = value.get("payload")
    if not isinstance(payload, dict):
        return False
    if value.get("type") == "event_msg":
        return payload.get("type") == "user_message"
    return value.get("type") == "response_item" and payload.get("role") == "user"


def _new_lines(
    path: Path, offset: int, reading: Reading
) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The whole lines after ``offset`` parsed (line numbers counted from the offset),
    and the offset the next read starts at: after the last whole line, or before the
    prompt lines that end what was read (a prompt's two copies are read together, so
    the reader logs it once, whichever the last read saw first)."""
    parsed: list[tuple[int, int, dict[str, Any]]] = []
    with path.open("rb") as handle:
        handle.seek(offset)
        data = handle.read(MAX_READ_BYTES)
    end = data.rfind(b"\n") + 1  # a line still being written waits for the next read
    if end == 0 and len(data) == MAX_READ_BYTES:  # one line longer than a read: past it
        reading.skip(1, f"over {MAX_LINE_BYTES // (1024 * 1024)} MiB")
        return [], offset + len(data)
    number, start = 0, 0
    for raw in data[:end].split(b"\n")[:-1]:
        number += 1
        at, start = start, start + len(raw) + 1
        if not raw.strip():
            continue
        if len(raw) > MAX_LINE_BYTES:
            reading.skip(number, f"over {MAX_LINE_BYTES // (1024 * 1024)} MiB")
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            reading.skip(number, "not JSON")
            continue
        if isinstance(value, dict):
            parsed.append((number, at, value))
        else:
            reading.skip(number, "not a JSON object")
    while parsed and _prompt_line(parsed[-1][2]):
        end = parsed.pop()[1]
    return [(number, value) for number, _, value in parsed], offset + end


def _seen(
    root: Path, rels: set[str], task: str, hook_task: str
) -> tuple[set[int], set[tuple[str, str]]]:
    """In these daily logs: the indexes of the task's messages, and the keys of what
    the hooks logged under the session's own task."""
    present: set[int] = set()
    hooked: set[tuple[str, str]] = set()
    for rel in sorted(rels):
        path = root / rel
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for in_task, line in logs.lines_by_task(text):
            if in_task == task and (m := logs.MESSAGE_RE.match(line)):
                present.add(int(m["index"]))
            elif in_task == hook_task and (m := logs.MESSAGE_LINE.match(line)):
                hooked.add(logged_key(m["role"].lower(), m["text"]))
    return present, hooked


def follow_rollout(workspace: Workspace, path: str | Path, *, actor: str) -> FollowReport:
    """Read what a Codex rollout gained since the last read into the daily logs (see
    the module's docstring). A file that cannot be read is a :class:`ValidationError`."""
    file = Path(path)
    shown = str(file)
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise ValidationError(f"cannot be read: {exc.strerror}", path=shown) from None
    if not file.is_file():
        raise ValidationError("is not a file", path=shown, hint="give a rollout's .jsonl")
    store, _note = log_store(workspace, actor)
    state = cursor_path(store.root, file)
    cursor = _load(state, size)
    if cursor.offset == size:  # nothing appended since the last read
        return FollowReport(shown, _session(Reading(session=cursor.session), file), 0, 0, 0, 0)
    reading = Reading(source=shown, session=cursor.session)
    try:
        lines, offset = _new_lines(file, cursor.offset, reading)
    except OSError as exc:
        raise ValidationError(f"cannot be read: {exc.strerror}", path=shown) from None
    Codex().read(lines, reading)
    session = _session(reading, file)
    task = f"session-{session}"
    # what is there is read under the store's lock, after recovery (a kill left no
    # half-done change counted as logged), and every new line lands in one commit
    with transaction(store, actor=actor, message=f"log: rollout of session {session}") as tx:
        plan, already, last = _plan(store, reading, cursor, file, task)
        _write(tx, plan)
        tx.message += f", {sum(plan.added_by_role.values())} messages"
    added_by_role = plan.added_by_role
    skipped = plan.skipped
    _save(
        state,
        Cursor(offset, reading.session, cursor.numbered + len(reading.entries), last.isoformat()),
    )
    return FollowReport(
        file=shown,
        session=session,
        added=sum(added_by_role.values()),
        already=already,
        skipped=len(skipped),
        read_bytes=offset - cursor.offset,
        skipped_lines=skipped[:20],
    )


def _plan(
    store: Store, reading: Reading, cursor: Cursor, file: Path, task: str
) -> tuple[_Plan, int, datetime]:
    """The new lines by day, the messages already logged, and the last one's time."""
    now = store.now()
    tz = now.tzinfo or datetime.now().astimezone().tzinfo
    assert tz is not None
    last = (when_of(cursor.last) or now).astimezone(tz)
    planned = []
    for number, entry in enumerate(reading.entries, start=cursor.numbered + 1):
        last = _when(entry, last, now, tz)
        planned.append((number, entry, last))
    rels = {logs.log_path(when) for _, _, when in planned} | {logs.log_path(now)}
    present, hooked = _seen(store.root, rels, task, task_of({"session_id": reading.session or ""}))
    plan = _Plan(skipped=list(reading.skipped))
    redact = store_redactor(store)
    already = 0
    for index, entry, when in planned:
        if index in present or (
            reading.session and said_key(entry.role, entry.text, redact) in hooked
        ):
            already += 1
            continue
        plan.add(task, index, entry, when, file, redact)
    return plan, already, last
