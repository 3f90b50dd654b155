"""The append-only event log (SPEC section 4): JSON Lines, never edited in place.

The log is a sequence of shards, read in order (:func:`event_logs`,
:func:`read_log`): the legacy ``events.jsonl`` first when a store has one, then
``events/000001.jsonl``, ``events/000002.jsonl``, ... by number. A writer appends
to the last shard, and starts the next one once the last has reached
:data:`SHARD_BYTES` (:func:`next_append`), so no commit hashes more than one
bounded shard of the log, and history keeps each version of one shard only.
Where an append went is an :class:`EventsAt` (shard, byte offset): the crash
journal keeps it to tell whether the events made it (:mod:`core.store.recovery`).

Every change to a memory is an event. A torn last line (a crash mid-append) is
reported by :func:`read_events` and isolated on the next append by starting a
fresh line, so nothing after it is ever lost and nothing is rewritten.

The log is untrusted input (a team store is a repository others push to): a line
that is too long, not UTF-8, nested too deeply, or whose fields have the wrong type
or shape is a :class:`BadLine` naming the field, never a crash. The same field rules
hold when an :class:`Event` is built, so memgov never writes a line it would refuse
to read (a ValidationError before anything is written).
"""

from __future__ import annotations

import collections
import hashlib
import json
import math
import os
import re
import stat
import threading
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.domain.record import STATUSES, check_text, describe, is_clean
from core.store.fsutil import (
    UnsafePath,
    check_writable,
    confined,
    open_entry,
    read_confined,
    read_entry,
)

#: the legacy log, one file: still read (the oldest shard), appended to until it
#: reaches SHARD_BYTES, never created by this version
EVENTS_FILE = "events.jsonl"
#: the folder of the log's shards, ``NNNNNN.jsonl`` numbered from 1
EVENTS_DIR = "events"
#: a shard this size or larger is full: the next append starts a new shard
SHARD_BYTES = 256 * 1024
#: the most bytes memgov reads from one shard (a legacy log can be tens of MB)
MAX_SHARD_READ_BYTES = 256 * 1024 * 1024
_SHARD = re.compile(r"(\d{6,9})\.jsonl\Z")
#: a line longer than this is a bad line, not parsed (memgov's own are a few hundred bytes)
MAX_LINE_BYTES = 1024 * 1024
#: how deeply ``details`` may nest (memgov writes two levels); JSON nested deeper is a
#: bad line, never a RecursionError
MAX_DEPTH = 32
#: the most values ``details`` may hold, all levels together
MAX_DETAIL_ITEMS = 100_000
MAX_REASON_CHARS = 20_000
MAX_DETAIL_TEXT_CHARS = 20_000
MAX_ACTOR_CHARS = 320
MAX_MEMORY_IDS = 100_000
_TS_MAX_CHARS = 64


@dataclass(frozen=True)
class Event:
    """One transition or decision. Content never goes in here, only ids and hashes."""

    id: str
    ts: str
    actor: str
    action: str
    memory_ids: tuple[str, ...] = ()
    from_status: str | None = None
    to_status: str | None = None
    reason: str = ""
    request: str | None = None
    decision: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    #: set only by read_events, when the line's text already shows that ``details``
    #: holds no bad character and cannot be too deep or too large
    details_prechecked: InitVar[bool] = False

    def __post_init__(self, details_prechecked: bool) -> None:
        _check_event(self, details_prechecked)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "ts": self.ts,
            "actor": self.actor,
            "action": self.action,
            "memory_ids": list(self.memory_ids),
            "from": self.from_status,
            "to": self.to_status,
            "reason": self.reason,
        }
        if self.request:
            out["request"] = self.request
        if self.decision:
            out["decision"] = self.decision
        if self.details:
            out["details"] = self.details
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, details_prechecked: bool = False) -> Event:
        """An event from its JSON object; a ValidationError naming the field (never
        quoting its value) when a field is missing or of the wrong type or shape."""
        if not isinstance(data, dict):
            raise ValidationError(f"must be a JSON object, got {describe(data)}", path=EVENTS_FILE)
        for name in ("id", "ts", "action"):
            if name not in data:
                raise ValidationError("is missing", path=EVENTS_FILE, field=name)
        ids = data.get("memory_ids")
        if ids is None:
            ids = []
        if not isinstance(ids, list):
            # a bare string would otherwise become one id per character
            raise ValidationError(
                f"must be a list of ids, got {describe(ids)}", path=EVENTS_FILE, field="memory_ids"
            )
        details = data.get("details")
        if details is None:
            details = {}
        if not isinstance(details, dict):
            raise ValidationError(
                f"must be a JSON object, got {describe(details)}", path=EVENTS_FILE, field="details"
            )
        actor = data.get("actor")
        reason = data.get("reason")
        return cls(
            id=data["id"],
            ts=data["ts"],
            actor="" if actor is None else actor,
            action=data["action"],
            memory_ids=tuple(ids),
            from_status=data.get("from"),
            to_status=data.get("to"),
            reason="" if reason is None else reason,
            request=data.get("request"),
            decision=data.get("decision"),
            details=details,
            details_prechecked=details_prechecked,
        )

    def line(self) -> bytes:
        return (
            json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False, separators=(",", ":"))
            + "\n"
        ).encode("utf-8")


def _bad(field: str, message: str, hint: str | None = None) -> ValidationError:
    return ValidationError(message, path=EVENTS_FILE, field=field, hint=hint)


_ID = re.compile(
    r"(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,95}\Z"
)  # core.domain.record's ID_RE, no '..'
#: what ``request`` and ``decision`` point at: an id, or a review item's name that
#: has segments (a consolidation baseline is ``baseline/0001``); never '..', '//'
#: or a leading '/'
_REF = re.compile(r"(?!.*\.\.)(?!.*//)[A-Za-z0-9][A-Za-z0-9._/-]{0,191}\Z")
_STATUSES = frozenset(STATUSES)


def _is_id(value: Any) -> bool:
    return type(value) is str and _ID.match(value) is not None


def _is_ref(value: Any) -> bool:
    return type(value) is str and _REF.match(value) is not None


def _is_text(value: Any, limit: int) -> bool:
    return type(value) is str and len(value) <= limit and is_clean(value, multiline=True)


def _details_ok(value: Any, depth: int, budget: list[int]) -> bool:
    """The quick yes for ``details`` (the usual case); a no is explained by
    :func:`_explain_details`."""
    kind = type(value)
    if kind is str:
        return len(value) <= MAX_DETAIL_TEXT_CHARS and is_clean(value, multiline=True)
    if kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        return False
    if kind is dict:
        return all(
            type(k) is str
            and is_clean(k, multiline=True)
            and len(k) <= MAX_DETAIL_TEXT_CHARS
            and _details_ok(v, depth + 1, budget)
            for k, v in value.items()
        )
    if kind is list or kind is tuple:
        return all(_details_ok(v, depth + 1, budget) for v in value)
    return False


def _event_ok(event: Event, details_prechecked: bool) -> bool:
    ids = event.memory_ids
    if not (
        _is_id(event.id)
        and _is_id(event.action)
        and type(event.ts) is str
        and len(event.ts) <= _TS_MAX_CHARS
        and _is_text(event.actor, MAX_ACTOR_CHARS)
        and "\n" not in event.actor
        and "\t" not in event.actor
        and type(ids) is tuple
        and len(ids) <= MAX_MEMORY_IDS
        and all(_is_id(i) for i in ids)
        and (event.from_status is None or event.from_status in _STATUSES)
        and (event.to_status is None or event.to_status in _STATUSES)
        and _is_text(event.reason, MAX_REASON_CHARS)
        and (event.request is None or _is_ref(event.request))
        and (event.decision is None or _is_ref(event.decision))
        and type(event.details) is dict
        and (details_prechecked or _details_ok(event.details, 1, [MAX_DETAIL_ITEMS]))
    ):
        return False
    try:
        when = datetime.fromisoformat(event.ts)
    except ValueError:
        return False
    return when.tzinfo is not None


def _check_id(value: Any, name: str, *, optional: bool = False, ref: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise _bad(name, f"must be an id, got {describe(value)}")
    if not (_REF if ref else _ID).match(value):
        raise _bad(
            name,
            f"is not an id ({describe(value)})",
            "letters, digits, '.', '_', '-'" + (" and '/' between parts" if ref else ""),
        )


def _check_event(event: Event, details_prechecked: bool = False) -> None:
    """Every field of ``event`` against its type and shape (see the module docstring):
    a ValidationError naming the first bad field, never quoting it."""
    if _event_ok(event, details_prechecked):
        return
    _check_id(event.id, "id")
    _check_id(event.action, "action")
    ts = event.ts
    if not isinstance(ts, str):
        raise _bad("ts", f"must be a timestamp, got {describe(ts)}")
    try:
        when = datetime.fromisoformat(ts) if len(ts) <= _TS_MAX_CHARS else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise _bad("ts", f"is not an ISO 8601 timestamp with an offset ({describe(ts)})")
    if not isinstance(event.actor, str):
        raise _bad("actor", f"must be text, got {describe(event.actor)}")
    check_text(event.actor, field="actor", path=EVENTS_FILE, limit=MAX_ACTOR_CHARS)
    ids = event.memory_ids
    if not isinstance(ids, tuple) or len(ids) > MAX_MEMORY_IDS:
        raise _bad("memory_ids", f"must be a list of at most {MAX_MEMORY_IDS:,} ids")
    for number, memory_id in enumerate(ids):
        _check_id(memory_id, f"memory_ids[{number}]")
    for name, status in (("from", event.from_status), ("to", event.to_status)):
        if status is not None and status not in _STATUSES:
            raise _bad(
                name,
                f"must be a status or null, got {describe(status)}",
                f"one of: {', '.join(STATUSES)}",
            )
    if not isinstance(event.reason, str):
        raise _bad("reason", f"must be text, got {describe(event.reason)}")
    check_text(
        event.reason, field="reason", path=EVENTS_FILE, limit=MAX_REASON_CHARS, multiline=True
    )
    _check_id(event.request, "request", optional=True, ref=True)
    _check_id(event.decision, "decision", optional=True, ref=True)
    if not isinstance(event.details, dict):
        raise _bad("details", f"must be a mapping, got {describe(event.details)}")
    _explain_details(event.details)


def _explain_details(details: dict[str, Any]) -> None:
    """Which value of ``details`` breaks the rules of :func:`_details_ok`, by its path
    (keys shown only when they are id-like)."""
    stack: list[tuple[Any, str, int]] = [(details, "details", 1)]
    containers = 0
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, str):
            check_text(
                value, field=where, path=EVENTS_FILE, limit=MAX_DETAIL_TEXT_CHARS, multiline=True
            )
        elif isinstance(value, dict | list | tuple):
            containers += 1
            if containers > MAX_DETAIL_ITEMS:
                raise _bad("details", f"holds over {MAX_DETAIL_ITEMS:,} lists and mappings")
            if depth > MAX_DEPTH:
                raise _bad(where, f"is nested over {MAX_DEPTH} levels deep")
            if isinstance(value, dict):
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise _bad(where, f"has a key that is not text ({describe(key)})")
                    label = f"{where}.{key}" if _ID.match(key) and len(key) <= 24 else where
                    check_text(
                        key,
                        field=label,
                        path=EVENTS_FILE,
                        limit=MAX_DETAIL_TEXT_CHARS,
                        multiline=True,
                    )
                    stack.append((item, label, depth + 1))
            else:
                stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value))
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise _bad(where, "is not a finite number")
        elif value is not None and not isinstance(value, int):  # bool is an int
            raise _bad(where, f"must be JSON data, got {describe(value)}")


@dataclass(frozen=True)
class BadLine:
    """A line of the log that could not be read (torn by a crash, or edited by hand)."""

    line: int
    reason: str
    last: bool
    #: the shard it is in (line 0: the whole shard could not be read)
    file: str = EVENTS_FILE


def new_event_id(now: datetime, basis: str = "") -> str:
    """Sortable and unique: UTC time to the microsecond plus a digest of what the
    event is about (``basis``), so a replay with a pinned clock gives the same ids;
    random bits when no basis is given (48 of them: ids made at one instant do not
    collide, where 24 bits met once in a few thousand)."""
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%S%f")
    tail = hashlib.sha256(basis.encode("utf-8")).hexdigest()[:6] if basis else os.urandom(6).hex()
    return f"ev-{stamp}-{tail}"


def append_events(path: Path, events: Iterable[Event]) -> int:
    """Append events in one write; return the byte offset where they start.

    The caller holds the store lock. If the file's last line is torn (no final
    newline), a newline is written first so the fragment stays a line of its
    own, reported, and never glued to a new event.
    """
    payload = b"".join(event.line() for event in events)
    if not payload:
        return path.stat().st_size if path.exists() else 0
    check_writable(path)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            check_writable(path)  # swapped in since: raises, naming it
        size = st.st_size
        if size:
            last = os.pread(fd, 1, size - 1)
            if last != b"\n":
                payload = b"\n" + payload
        os.write(fd, payload)
        os.fsync(fd)
        return size
    finally:
        os.close(fd)


def read_events(path: Path) -> tuple[list[Event], list[BadLine]]:
    """Every readable event of one file in order, and the lines that could not be read
    (a store's whole log: :func:`read_log`)."""
    data = read_entry(path, limit=MAX_SHARD_READ_BYTES)
    return ([], []) if data is None else _parse(data, EVENTS_FILE)


def shard_name(number: int) -> str:
    return f"{EVENTS_DIR}/{number:06d}.jsonl"


#: the shard a new store starts its log in
FIRST_SHARD = shard_name(1)


def is_event_log(rel: str) -> bool:
    """Whether ``rel`` names a shard of the log (the legacy file or a numbered one)."""
    folder, _, name = rel.rpartition("/")
    return rel == EVENTS_FILE or (folder == EVENTS_DIR and _SHARD.match(name) is not None)


def _number(rel: str) -> int:
    match = _SHARD.match(rel.rpartition("/")[2])
    return int(match.group(1)) if match and rel != EVENTS_FILE else 0


def event_logs(root: Path) -> list[str]:
    """The log's shards in order, as store paths: ``events.jsonl`` (when present),
    then ``events/NNNNNN.jsonl`` by number. The folder is listed without following a
    link (a linked folder lists nothing); a shard that is a link is listed, and
    refused when read or written. Other names in the folder are not the log."""
    found = [EVENTS_FILE] if os.path.lexists(root / EVENTS_FILE) else []
    folder = root / EVENTS_DIR
    if folder.is_symlink() or not folder.is_dir():
        return found
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return found
    numbered = sorted(
        (int(m.group(1)), e.name) for e in entries if (m := _SHARD.match(e.name)) is not None
    )
    return found + [f"{EVENTS_DIR}/{name}" for _, name in numbered]


@dataclass(frozen=True)
class EventsAt:
    """Where events were (or will be) appended: a shard of the log and its byte offset."""

    file: str
    offset: int


def next_append(root: Path) -> EventsAt:
    """The shard the next append goes to and the offset it starts at: the last shard,
    or a new one after it when the last is full (an UnsafePath when the shard or the
    folder is a link)."""
    logs = event_logs(root)
    if (root / EVENTS_DIR).is_symlink():
        confined(root, FIRST_SHARD)  # raises: never write through a linked folder
    if not logs:
        return EventsAt(FIRST_SHARD, 0)
    last = logs[-1]
    path = confined(root, last)
    check_writable(path)  # a folder or a pipe named as a shard: refused, named
    size = path.stat().st_size if path.exists() else 0
    if size >= SHARD_BYTES:
        return EventsAt(shard_name(_number(last) + 1), 0)
    return EventsAt(last, size)


def append_to_log(root: Path, events: Iterable[Event], at: EventsAt | None = None) -> EventsAt:
    """Append events to the log in one write: to ``at``'s shard (what
    :func:`next_append` said when the change was prepared) or the current one.
    Returns where they start. Never writes through a link."""
    batch = list(events)
    target = at or next_append(root)
    path = confined(root, target.file)
    if batch and target.file != EVENTS_FILE:
        folder = confined(root, EVENTS_DIR)
        folder.mkdir(exist_ok=True)
        path = confined(root, target.file)  # the folder may have been a link
    offset = append_events(path, batch) if batch else target.offset
    return EventsAt(target.file, offset)


def read_log(root: Path) -> tuple[list[Event], list[BadLine]]:
    """Every readable event of the whole log in order, and what could not be read: a
    bad line names its shard; a shard that is a link, not a file, or over
    :data:`MAX_SHARD_READ_BYTES` is one bad line 0, not read."""
    events: list[Event] = []
    bad: list[BadLine] = []
    if (root / EVENTS_DIR).is_symlink():
        bad.append(
            BadLine(0, "a symbolic link; not read (memgov never follows one)", True, EVENTS_DIR)
        )
    for rel in event_logs(root):
        try:
            data = read_confined(root, rel, limit=MAX_SHARD_READ_BYTES)
        except UnsafePath as exc:
            bad.append(BadLine(0, f"not read: {exc}", True, rel))
            continue
        if data:
            found, wrong = _parsed_shard(root, rel, data)
            events += found
            bad += wrong
    return events, bad


#: the shards parsed last, by path: the digest of the bytes they were parsed from, and
#: what they gave (events are frozen; the lists are copied out). A shard is read at each
#: call, so a change on disk is seen; only its unchanged bytes are not parsed again
_SHARDS: collections.OrderedDict[str, tuple[bytes, list[Event], list[BadLine]]] = (
    collections.OrderedDict()
)
_SHARDS_MAX = 256
_SHARDS_LOCK = threading.Lock()


def _parsed_shard(root: Path, rel: str, data: bytes) -> tuple[list[Event], list[BadLine]]:
    name = str(root / rel)
    digest = hashlib.blake2b(data, digest_size=20).digest()
    with _SHARDS_LOCK:
        hit = _SHARDS.get(name)
        if hit is not None and hit[0] == digest:
            _SHARDS.move_to_end(name)
            return list(hit[1]), list(hit[2])
    found, wrong = _parse(data, rel)
    with _SHARDS_LOCK:
        _SHARDS[name] = (digest, found, wrong)
        while len(_SHARDS) > _SHARDS_MAX:
            _SHARDS.popitem(last=False)
    return list(found), list(wrong)


def _parse(data: bytes, file: str) -> tuple[list[Event], list[BadLine]]:
    events: list[Event] = []
    bad: list[BadLine] = []
    lines = data.split(b"\n")
    torn_tail = bool(data) and not data.endswith(b"\n")
    count = len(lines)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        is_last = number == count
        problem = _line_problem(raw)
        if isinstance(problem, Event):
            events.append(problem)
            continue
        if is_last and torn_tail:
            reason = "torn last line (a crash during an append); kept, not replayed"
        else:
            reason = f"unreadable event line ({problem}); kept, not replayed"
        bad.append(BadLine(line=number, reason=reason, last=is_last, file=file))
    return events, bad


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
#: JSON escapes of what core.domain.record.MULTI_LINE_BAD refuses (C0 but tab and line
#: feed, DEL, C1, surrogates); a line without them and without those characters raw
#: holds no bad text
_BAD_ESCAPE = re.compile(
    r"\\(?:[bfr]|u00[01][0-9a-fA-F]|u00[89][0-9a-fA-F]|u007[fF]|u[dD][89a-fA-F])"
)


def _line_problem(raw: bytes) -> Event | str:
    """The event on one line, or why it is not one (never the line's content)."""
    if len(raw) > MAX_LINE_BYTES:
        return f"{len(raw):,} bytes, over the {MAX_LINE_BYTES:,} a line may have"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 at byte {exc.start + 1:,}"
    try:
        item = _DECODER.decode(text)
    except RecursionError:
        return "JSON nested too deeply"
    except ValueError as exc:  # JSONDecodeError, an over-long integer
        if isinstance(exc, json.JSONDecodeError):
            return f"not JSON: {exc.msg} at character {exc.pos + 1:,}"
        return "not JSON: a number too large"
    if not isinstance(item, dict):
        return f"not a JSON object but {describe(item)}"
    prechecked = (
        len(text) <= MAX_DETAIL_TEXT_CHARS
        and text.count("{") + text.count("[") <= MAX_DEPTH
        and is_clean(text, multiline=True)
        and _BAD_ESCAPE.search(text) is None
    )
    try:
        return Event.from_dict(item, details_prechecked=prechecked)
    except ValidationError as exc:
        where = f"field '{exc.field}': " if exc.field else ""
        return where + exc.message
    except RecursionError:  # pragma: no cover - json nests less deeply than Python recurses
        return "JSON nested too deeply"


def index_log(root: Path, rel: str, start: int) -> list[tuple[str, int, int, str, str, str | None]]:
    """(shard, offset, length, event id, action, memory id) of each readable event of
    one shard from byte ``start`` on, one row per memory it names (None: none). A
    line that does not read is left out (doctor reports it)."""
    try:
        data = read_confined(root, rel, limit=MAX_SHARD_READ_BYTES) or b""
    except UnsafePath:
        return []
    rows: list[tuple[str, int, int, str, str, str | None]] = []
    offset = start
    while offset < len(data):
        end = data.find(b"\n", offset)
        if end == -1:  # a torn last line: not an event until it ends
            break
        raw = data[offset:end]
        if raw.strip():
            event = _line_problem(raw)
            if isinstance(event, Event):
                for memory_id in event.memory_ids or (None,):
                    rows.append((rel, offset, end - offset, event.id, event.action, memory_id))
        offset = end + 1
    return rows


def read_lines(root: Path, spans: Iterable[tuple[str, int, int]]) -> list[Event]:
    """The events at these (shard, offset, length) spans, in the order given; a span
    that no longer holds an event is skipped."""
    out: list[Event] = []
    handles: dict[str, int | None] = {}
    try:
        for rel, offset, length in spans:
            if rel not in handles:
                try:  # never through a link, never outside the store
                    handles[rel] = open_entry(confined(root, rel))
                except (UnsafePath, OSError):
                    handles[rel] = None
            fd = handles[rel]
            if fd is None or length > MAX_LINE_BYTES:
                continue
            event = _line_problem(os.pread(fd, length, offset))
            if isinstance(event, Event):
                out.append(event)
    finally:
        for fd in handles.values():
            if fd is not None:
                os.close(fd)
    return out
