"""Daily logs (``logs/YYYY/MM/YYYY-MM-DD.md``): the raw evidence sources point into.

A day's log groups messages by task::

    # 2027-03-14

    ## task tr_20270314_02

    - [7] 10:20 user: 以后文档都用中文,对比直接上表

A source pointer ``{task, message_index, log}`` resolves to the message line;
:func:`resolve` returns it with a few lines of context. Imported memories point
at their original file and line instead (``file``, ``line``).

A long text is logged as an excerpt (:func:`excerpt_line`, read back by
:func:`excerpt_of`): its start, then ``… [excerpt: N characters, sha256 <hex>]``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import re
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from core.domain.data import AsData, shown_as
from core.domain.errors import ValidationError
from core.domain.provenance import word_filter
from core.domain.record import Source, check_field, describe
from core.store.fsutil import HostileEntry, UnsafePath, atomic_write_text, confined, read_entry

LOG_DIR = "logs"
TASK_RE = re.compile(r"^##\s+task\s+(?P<task>\S+)\s*$")
MESSAGE_RE = re.compile(r"^\s*-\s+\[(?P<index>\d+)\]\s")
#: a message line as :func:`append_message` writes it: index, time, role, text
_SAID_RE = re.compile(r"^\s*-\s+\[\d+\]\s+\d{1,2}:\d{2}\s+(?P<role>[A-Za-z][\w-]{0,31}):\s")


def message_role(line: str) -> str | None:
    """Who said a logged message (``user``, ``assistant``, ``tool``, ...), as its line
    names it; None for a line that is not a message as memgov logs them."""
    found = _SAID_RE.match(line)
    return found["role"].lower() if found else None


@dataclass(frozen=True)
class Excerpt(AsData):
    """The resolved evidence: where it is, and the lines around it."""

    file: str  # relative to the store root, or the original path for imports
    line: int  # 1-based line of the pointed-at message
    #: (line number, text) with context
    lines: tuple[tuple[int, str], ...] = field(
        metadata=shown_as(convert=lambda ls: [{"line": n, "text": t} for n, t in ls])
    )


#: the file of a store's local state that holds the salt of its logs' secret marks
SALT_FILE = "log-salt"
_SALT_BYTES = 32


def log_salt(state_dir: Path) -> bytes:
    """The store's own salt for the hashes of the secrets its logs leave out: 32 random
    bytes in its local state (inside ``.git``: never committed, never pushed), made at
    first use, whole or not at all (written aside, then linked into place: two writers
    agree on the first)."""
    import os

    path = state_dir / SALT_FILE
    try:
        found = path.read_bytes()
    except FileNotFoundError:
        found = b""
    if len(found) == _SALT_BYTES:
        return found
    state_dir.mkdir(parents=True, exist_ok=True)
    aside = state_dir / f".{SALT_FILE}.{os.getpid()}.{threading.get_ident()}"
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, os.urandom(_SALT_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        if found:  # cut short by a kill: never a mark was made with it
            os.replace(aside, path)
        else:
            with contextlib.suppress(FileExistsError):  # another writer's came first
                os.link(aside, path)
    finally:
        aside.unlink(missing_ok=True)
    return path.read_bytes()


def redacted(state_dir: Path, text: str) -> str:
    """``text`` as a daily log may keep it: each credential replaced by ``[secret: <rule>
    #<12 hex>]``, the hex an HMAC of the secret under the store's salt (:func:`log_salt`).
    The same secret quoted again gives the same mark, so a memory's quote of the message
    still finds its line; nobody holding only the repository can test a guess."""
    import hmac

    from core.domain import secrets

    if secrets.is_clean(text):
        return text
    salt = log_salt(state_dir)

    def mark(rule: str, value: bytes) -> str:
        digest = hmac.new(salt, value, hashlib.sha256).hexdigest()[:12]
        return f"[secret: {rule} #{digest}]"

    return secrets.redact_marked(text, mark)


def log_path(when: datetime) -> str:
    return f"{LOG_DIR}/{when:%Y}/{when:%m}/{when:%Y-%m-%d}.md"


#: the end of a message logged as an excerpt (:func:`excerpt_line`): the whole text's
#: length in characters and its SHA-256
EXCERPT_MARK = re.compile(
    r" … \[excerpt: (?P<chars>\d{1,3}(?:,\d{3})*) characters, sha256 (?P<sha>[0-9a-f]{64})"
    r"(?:, words (?P<words>[A-Za-z0-9+/]{8,8192}={0,2}))?\]\Z"
)


@dataclass(frozen=True)
class Cut:
    """What :func:`excerpt_of` reads in a logged excerpt: its start as logged, and the
    whole text's length and SHA-256."""

    start: str
    chars: int
    sha256: str
    #: the whole text's words (core.domain.provenance.word_filter); None in an excerpt
    #: written before they were kept
    words: bytes | None = None


def excerpt_line(text: str, limit: int) -> str:
    """A text as a daily log keeps it, on one line (its whitespace made single spaces):
    whole when it has at most ``limit`` characters, else its first ``limit`` with the
    whole's length and the SHA-256 of the whole (UTF-8), so the whole can be recognised
    later, and its words as a filter (base64), so a memory's words can be traced to the
    whole (core.domain.provenance): ``start … [excerpt: 523,112 characters, sha256 <64
    hex>, words <base64>]``. The caller redacts credentials first: the hash and the
    words are of what the log may hold."""
    shown = " ".join(text.split())
    if len(shown) <= limit:
        return shown
    digest = hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()
    found = base64.b64encode(word_filter(shown)).decode("ascii")
    return (
        f"{shown[:limit].rstrip()} … [excerpt: {len(shown):,} characters, sha256 {digest}, "
        f"words {found}]"
    )


def excerpt_of(text: str) -> Cut | None:
    """The excerpt a logged message's text is (:func:`excerpt_line`), or None when it is
    whole."""
    found = EXCERPT_MARK.search(text)
    if found is None:
        return None
    try:
        kept = base64.b64decode(found["words"], validate=True) if found["words"] else None
    except ValueError:
        kept = None
    return Cut(text[: found.start()], int(found["chars"].replace(",", "")), found["sha"], kept)


#: the largest message index a log takes (messages of a task are numbered 0 or 1 up)
MAX_MESSAGE_INDEX = 999_999_999
#: the most bytes one logged message may have (UTF-8): a long reply fits, a dump does not
MAX_MESSAGE_BYTES = 256 * 1024
#: the most bytes memgov reads from a daily log; a message that would make the day's
#: log larger is refused (a log over this size is not read: its evidence would vanish)
MAX_LOG_BYTES = 16 * 1024 * 1024
_ROLE_RE = re.compile(r"[A-Za-z][\w-]{0,31}\Z", re.ASCII)


def check_message(*, task: str, index: int, role: str, text: str) -> None:
    """A message fit for a daily log, or a ValidationError naming the field and what to
    do (never the value). The log is line-based evidence: a task id with a newline or
    any control character, or a role with one, would write a forged task header or a
    forged message line; an absurd index or a huge line is refused as well."""
    if not isinstance(task, str) or not task.strip():
        raise ValidationError(
            f"must be a task id, got {describe(task)}",
            field="task",
            where="log",
            hint="name the task or conversation, e.g. tr_20261112_01",
        )
    check_field(task, "source.task", path="log", field="task")  # no control character, <= 512 chars
    if task.split() != [task]:
        raise ValidationError(
            "holds a space; a task id is one word",
            field="task",
            where="log",
            hint="join its words with '_' or '-', e.g. tr_20261112_01",
        )
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValidationError(
            f"must be a whole number >= 0, got {describe(index)}",
            field="index",
            where="log",
            hint="number a task's messages 0 (or 1), 1, 2, ... in the order they were said",
        )
    if index > MAX_MESSAGE_INDEX:
        raise ValidationError(
            f"is a number of {len(str(index)):,} digits, over the {MAX_MESSAGE_INDEX:,} a "
            f"message index may be",
            field="index",
            where="log",
            hint="number a task's messages 0 (or 1), 1, 2, ... in the order they were said",
        )
    if not isinstance(role, str) or not _ROLE_RE.match(role):
        raise ValidationError(
            f"must be a word of letters, digits, '_' or '-' (at most 32), got {describe(role)}",
            field="role",
            where="log",
            hint="e.g. user, assistant or tool",
        )
    if not isinstance(text, str):
        raise ValidationError(f"must be text, got {describe(text)}", field="text", where="log")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ValidationError(
            f"is {size:,} bytes, over the {MAX_MESSAGE_BYTES:,} a logged message may have",
            field="text",
            where="log",
            hint="log the part a memory will quote, or split the message over several indexes",
        )


def append_message(
    root: Path, *, task: str, index: int, role: str, text: str, when: datetime
) -> tuple[str, int]:
    """Append one message to the day's log; return (log path, line number).

    Messages of a task that already has a section that day go at its end.
    Writing is a whole-file replace through a temporary file (the caller holds
    the store lock and commits the file).
    """
    check_message(task=task, index=index, role=role, text=text)
    rel = log_path(when)
    path = root / rel
    try:
        data = read_entry(path, limit=MAX_LOG_BYTES, shown=rel)
    except HostileEntry as exc:
        raise ValidationError(
            exc.problem, path=rel, hint="today's log cannot be written until it is a file"
        ) from None
    lines = (
        data.decode("utf-8", "replace").splitlines() if data is not None else [f"# {when:%Y-%m-%d}"]
    )
    body = " ".join(text.split())
    entry = f"- [{index}] {when:%H:%M} {role}: {body}"
    start = next(
        (i for i, line in enumerate(lines) if (m := TASK_RE.match(line)) and m["task"] == task),
        None,
    )
    if start is None:
        lines += ["", f"## task {task}", "", entry]
        number = len(lines)
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        for at in range(start + 1, end):  # a message index is logged once a task and day
            found = MESSAGE_RE.match(lines[at])
            if found is None or int(found["index"]) != index:
                continue
            parts = lines[at].strip().split(" ", 3)  # "-", "[i]", "HH:MM", "role: text"
            said = parts[3] if len(parts) == 4 else ""
            if said == f"{role}: {body}":
                return rel, at + 1  # the same message again: already there, nothing written
            raise ValidationError(
                f"task {task} already has message {index} in this log (line {at + 1}), "
                f"with other text",
                path=rel,
                field="index",
                hint="a message index is written once; log this message under the next index",
            )
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        lines.insert(end, entry)
        number = end + 1
    out = "\n".join(lines) + "\n"
    if len(out.encode("utf-8", "surrogatepass")) > MAX_LOG_BYTES:
        raise ValidationError(
            f"would grow past the {MAX_LOG_BYTES // (1024 * 1024)} MiB memgov reads from a "
            "daily log",
            path=rel,
            field="text",
            hint="log the part a memory will quote; tomorrow's log starts empty",
        )
    atomic_write_text(path, out)
    return rel, number


@dataclass(frozen=True)
class _Parsed:
    """A daily log read once: its lines, and where each task's header and messages
    are: a task's header, and its messages in its first section only (where a source
    points: the first message of that index after the header)."""

    lines: list[str]
    at: dict[tuple[str, int | None], int]
    tasks: tuple[str, ...] = ()  # every task heading, in order, repeats included


#: daily logs parsed, by path, each with the stat data it was read at (a changed
#: file, replaced by a rename or not, has another mtime, size or inode)
_PARSED: OrderedDict[str, tuple[tuple[int, int, int], _Parsed]] = OrderedDict()
_PARSED_MAX = 8192  # daily logs: one a day is 22 years
_PARSED_LOCK = threading.Lock()


def _parse(lines: list[str]) -> _Parsed:
    at: dict[tuple[str, int | None], int] = {}
    seen: set[str] = set()
    headings: list[str] = []
    task: str | None = None
    for number, line in enumerate(lines, start=1):
        header = TASK_RE.match(line)
        if header:
            name = header["task"]
            headings.append(name)
            task = None if name in seen else name  # a later section of it is not read
            seen.add(name)
            if task is not None:
                at[(task, None)] = number
            continue
        if task is not None and (m := MESSAGE_RE.match(line)):
            at.setdefault((task, int(m["index"])), number)
    return _Parsed(lines, at, tuple(headings))


def _parsed_log(path: Path) -> _Parsed | None:
    """The log at ``path`` parsed, from the cache while its stat data is unchanged;
    None when it cannot be read (a link, not a file, over 16 MiB)."""
    try:
        st = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_LOG_BYTES:
        return None
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    name = str(path)
    with _PARSED_LOCK:
        hit = _PARSED.get(name)
        if hit is not None and hit[0] == key:
            _PARSED.move_to_end(name)
            return hit[1]
    lines = _read_lines(path)
    if lines is None:
        return None
    parsed = _parse(lines)
    with _PARSED_LOCK:
        _PARSED[name] = (key, parsed)
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return parsed


def _read_lines(path: Path) -> list[str] | None:
    """A log's or an agent's file's lines; None when it is not a regular file memgov
    reads (core.store.fsutil.read_entry: a link, a pipe, a folder, over 16 MiB)."""
    try:
        data = read_entry(path, limit=MAX_LOG_BYTES)
    except (HostileEntry, OSError):
        return None
    return None if data is None else data.decode("utf-8", "replace").splitlines()


def _line_of(lines: list[str], source: Source) -> int | None:
    """Where a file source's evidence stands now: its line, or, when the file moved its
    lines since (an agent's ``MEMORY.md`` that the agent or a sync edited), the first
    line that holds the evidence's first line; None when neither does."""
    assert source.line is not None
    quoted = next((q.strip() for q in source.evidence.splitlines() if q.strip()), "")
    at = source.line
    if at <= len(lines) and (not quoted or quoted in lines[at - 1]):
        return at
    if quoted:
        for number, line in enumerate(lines, 1):
            if quoted in line:
                return number
    return at if at <= len(lines) else None


def _excerpt(lines: list[str], number: int, shown: str, context: int) -> Excerpt:
    low, high = max(number - context, 1), min(number + context, len(lines))
    return Excerpt(
        file=shown, line=number, lines=tuple((n, lines[n - 1]) for n in range(low, high + 1))
    )


def resolve(
    root: Path,
    source: Source,
    *,
    context: int = 2,
    task_logs: dict[str, list[str]] | None = None,
    outside_ok: bool = False,
) -> Excerpt | None:
    """The evidence a source points at, or None when it does not resolve.

    ``task_logs`` (task id -> log paths) lets callers that resolve many sources
    build :func:`task_index` once instead of scanning the logs each time.

    A store is untrusted input: a log or a file inside it is read only when no
    component of its path is a symbolic link; a ``file`` outside the store (an
    imported memory's original, in the user's own agent folder) only when
    ``outside_ok`` (the caller's private store), never for a team store.
    """
    if source.file is not None:
        target = Path(source.file)
        if target.is_absolute():
            if not outside_ok or ".." in target.parts:
                return None
        else:
            try:
                target = confined(root, source.file)
            except UnsafePath:
                return None
        lines = _read_lines(target)
        if lines is None:
            return None
        if source.line is None:
            return _excerpt(lines, 1, source.file, context) if lines else None
        number = _line_of(lines, source)
        return None if number is None else _excerpt(lines, number, source.file, context)
    candidates: Iterable[str]
    if source.log is not None:
        if ".." in Path(source.log).parts:
            return None
        candidates = [source.log]
    elif task_logs is not None:
        candidates = task_logs.get(source.task, [])
    else:
        # no log named and no index given: the logs newest first, up to the first
        # that holds the message. A source usually points at a message just logged,
        # so this reads today's log, not every log of the store
        candidates = _newest_first(root)
    for rel in candidates:
        try:
            path = confined(root, rel)
        except UnsafePath:
            continue
        parsed = _parsed_log(path)
        if parsed is None:
            continue
        number = parsed.at.get((source.task, source.message_index))
        if number is not None:
            return _excerpt(parsed.lines, number, rel, context)
    return None


def resolving(
    root: Path,
    records: Iterable[Iterable[Source]],
    *,
    task_logs: dict[str, list[str]],
    outside_ok: bool = False,
) -> Iterator[bool]:
    """Whether any source of each record resolves, as :func:`resolve` says, for many
    records at once (health's source completeness): each log's path is checked and its
    parse looked up once, not once a source, and no excerpt is built."""
    logs: dict[str, _Parsed | None] = {}

    def parsed(rel: str) -> _Parsed | None:
        if rel not in logs:
            try:
                logs[rel] = _parsed_log(confined(root, rel))
            except UnsafePath:
                logs[rel] = None
        return logs[rel]

    def resolves(source: Source) -> bool:
        if source.file is not None:
            return resolve(root, source, context=0, outside_ok=outside_ok) is not None
        if source.log is not None:
            candidates = [] if ".." in Path(source.log).parts else [source.log]
        else:
            candidates = task_logs.get(source.task, [])
        return any(
            (log := parsed(rel)) is not None and (source.task, source.message_index) in log.at
            for rel in candidates
        )

    for sources in records:
        yield any(resolves(source) for source in sources)


def _newest_first(root: Path) -> Iterator[str]:
    """The daily logs' paths (``logs/YYYY/MM/YYYY-MM-DD.md``), the newest first."""
    base = root / LOG_DIR
    if not base.is_dir() or base.is_symlink():
        return
    for path in sorted(base.rglob("*.md"), reverse=True):
        if not path.is_symlink():
            yield path.relative_to(root).as_posix()


def task_index(root: Path) -> dict[str, list[str]]:
    """Which daily logs mention each task (one pass over the logs)."""
    found: dict[str, list[str]] = {}
    base = root / LOG_DIR
    if not base.is_dir() or base.is_symlink():
        return found
    for path in sorted(base.rglob("*.md")):
        if path.is_symlink():
            continue
        parsed = _parsed_log(path)  # kept while the log is unchanged
        rel = path.relative_to(root).as_posix()
        for task in parsed.tasks if parsed is not None else ():
            found.setdefault(task, []).append(rel)
    return found


def with_message_line(text: str | None, *, day: str, task: str, line: str) -> str:
    """A daily log's text with one raw message line added under its task (if absent).

    Used when a promotion carries evidence into the team store: only the quoted
    message line travels, never the rest of the private log.
    """
    lines = text.splitlines() if text else [f"# {day}"]
    if line in lines:
        return "\n".join(lines) + "\n"
    start = next(
        (i for i, item in enumerate(lines) if (m := TASK_RE.match(item)) and m["task"] == task),
        None,
    )
    if start is None:
        lines += ["", f"## task {task}", "", line]
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        lines.insert(end, line)
    return "\n".join(lines) + "\n"


def lines_by_task(text: str) -> Iterator[tuple[str, str]]:
    """Each line of a daily log that is no task heading, with the task it stands under
    ("" before the first heading)."""
    task = ""
    for line in text.splitlines():
        header = TASK_RE.match(line)
        if header:
            task = header["task"]
        else:
            yield task, line


@dataclass(frozen=True)
class Message:
    """One logged message as :func:`append_message` writes it: where, when, who, what."""

    log: str  # relative to the store root
    line: int
    task: str
    index: int
    when: datetime  # the log's day and the message's time, in the store's time zone
    role: str
    text: str


#: a message line whole: index, time, role and text
MESSAGE_LINE = re.compile(
    r"^\s*-\s+\[(?P<index>\d+)\]\s+(?P<h>\d{1,2}):(?P<m>\d{2})\s+"
    r"(?P<role>[A-Za-z][\w-]{0,31}):\s(?P<text>.*)$"
)
_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})\.md\Z")
#: each log's messages, by the parse they were read from (the same object while the
#: log is unchanged: :func:`_parsed_log`) and the time zone
_MESSAGES: dict[str, tuple[_Parsed, str, list[Message]]] = {}
#: what a file that is no daily log holds: always this one list, so that
#: :func:`messages` sees nothing changed
_NONE: list[Message] = []
#: the years a daily log may be named for: any other is no log (its times would not
#: subtract a week)
_YEARS = range(1970, 9000)


def _messages_of(root: Path, rel: str, tz: tzinfo) -> list[Message]:
    path = root / rel
    day = _DAY.search(rel)
    parsed = _parsed_log(path) if day else None
    if parsed is None or day is None or int(day[1]) not in _YEARS:
        return _NONE
    name = str(path)
    with _PARSED_LOCK:
        hit = _MESSAGES.get(name)
        if hit is not None and hit[0] is parsed and hit[1] == str(tz):
            return hit[2]
    try:
        base = datetime(int(day[1]), int(day[2]), int(day[3]), tzinfo=tz)
    except ValueError:  # a name that is no date (2027-02-30)
        return _NONE
    out: list[Message] = []
    task = ""
    for number, line in enumerate(parsed.lines, start=1):
        header = TASK_RE.match(line)
        if header:
            task = header["task"]
            continue
        found = MESSAGE_LINE.match(line)
        if found is None or not task:
            continue
        hour, minute = int(found["h"]), int(found["m"])
        if hour > 23 or minute > 59:
            continue
        when = base.replace(hour=hour, minute=minute)
        out.append(
            Message(
                rel, number, task, int(found["index"]), when, found["role"].lower(), found["text"]
            )
        )
    with _PARSED_LOCK:
        _MESSAGES[name] = (parsed, str(tz), out)
    return out


def task_messages(root: Path, source: Source) -> list[Message]:
    """The messages of a source's task in the daily log it points at, in the log's order
    (what :func:`core.domain.provenance.derive` compares a memory's words with); none
    when the source names no log or the log cannot be read."""
    if source.log is None or source.file is not None or ".." in Path(source.log).parts:
        return []
    try:
        confined(root, source.log)
    except UnsafePath:
        return []
    return [m for m in _messages_of(root, source.log, UTC) if m.task == source.task]


def messages(root: Path, tz: tzinfo = UTC) -> list[Message]:
    """Every message of the daily logs, oldest first (each log read once while it is
    unchanged: the parse is kept by its stat data, like :func:`resolve`'s). A log
    writes the local time of day without its offset: ``tz`` is the store's.

    While no log changed, the same list is returned again (the caller must not change
    it): core.review.labels keeps what it found in it by that."""
    parts = [_messages_of(root, rel, tz) for rel in reversed(list(_newest_first(root)))]
    stamp = tuple(id(part) for part in parts)  # each part is kept in _MESSAGES: ids hold
    name = (str(root), str(tz))
    with _PARSED_LOCK:
        hit = _ALL.get(name)
        if hit is not None and hit[0] == stamp:
            return hit[2]
    out = [m for part in parts for m in part]
    out.sort(key=lambda m: (m.when, m.log, m.line))
    with _PARSED_LOCK:
        _ALL[name] = (stamp, parts, out)
    return out


_ALL: dict[tuple[str, str], tuple[tuple[int, ...], list[list[Message]], list[Message]]] = {}


def log_timezone(created: Iterable[datetime], default: tzinfo) -> tzinfo:
    """The time zone a store's logs were written in: a log line has the time of day and
    no offset, written by the clock that stamps the records, so the newest record's
    offset is the logs' (``default``, the clock's now, for a store with none)."""
    newest = max(created, default=None)
    return newest.tzinfo if newest is not None and newest.tzinfo is not None else default
