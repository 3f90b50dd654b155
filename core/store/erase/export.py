"""The ``git fast-export`` stream a purge reads, and the commit records it writes back.

:func:`parse_export` reads a ``--no-data --show-original-ids`` export into
:class:`ExportCommit` and :class:`ExportTag` records; :func:`commit_record` writes
one commit for ``git fast-import`` on the scratch ref, keeping author, committer,
dates, encoding and message byte for byte.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from core.store.erase.scrub import kind_of
from core.store.gitstore import GitFailed

SCRATCH_REF = "refs/memgov-purge/scratch"  # fast-import's branch for rewritten commits
NULL_ID = re.compile(rb"^0+$")  # an absent blob in a raw diff


# --------------------------------------------------------- the export stream
@dataclass
class ExportCommit:
    mark: int
    original: bytes
    ref: bytes
    head: bytes  # author, committer, encoding and data lines, verbatim
    parents: list[bytes]  # "from X" / "merge X" with X a mark ":N" or a commit id
    changes: list[tuple[bytes, bytes, bytes, str]]  # (op, mode, sha, path); op M or D
    other: list[bytes] = field(default_factory=list)  # lines passed through as they are


@dataclass
class ExportTag:
    name: bytes
    target: bytes
    body: bytes  # tagger and data, verbatim


def _unsupported() -> GitFailed:
    """What either parser raises for a file change it does not read."""
    return GitFailed(
        "git fast-export wrote a file change this purge does not read "
        "(copies, renames or notes): report it"
    )


def _unquote(raw: bytes) -> str:
    """A path as fast-export writes it: C-quoted when it holds special bytes."""
    if not raw.startswith(b'"'):
        return raw.decode("utf-8", "surrogateescape")
    out = bytearray()
    i, end = 1, len(raw) - 1
    simple = {ord(k): v for k, v in zip("abfnrtv", "\a\b\f\n\r\t\v", strict=True)}
    while i < end:
        c = raw[i]
        if c == 0x5C and i + 1 < end:  # backslash
            nxt = raw[i + 1]
            if 0x30 <= nxt <= 0x37:
                out.append(int(raw[i + 1 : i + 4], 8))
                i += 4
                continue
            out += simple.get(nxt, chr(nxt)).encode()
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out).decode("utf-8", "surrogateescape")


def _quote(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    if not any(b in raw for b in (b"\n", b'"', b"\\")) and not raw.startswith(b'"'):
        return raw
    escaped = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    return b'"' + escaped + b'"'


def parse_export(
    stream: bytes, *, quick: bool = True
) -> tuple[list[ExportCommit], list[ExportTag]]:
    """The commits and tags of a ``--no-data --show-original-ids`` export. A commit of
    the usual shape is read in one go (``quick``); any other line by line."""
    commits: list[ExportCommit] = []
    tags: list[ExportTag] = []
    pos, size = 0, len(stream)
    while pos < size:
        cmd, pos = _line(stream, pos)
        if not cmd or cmd.startswith((b"feature ", b"done", b"progress ")):
            continue
        if cmd.startswith(b"reset "):
            if stream.startswith(b"from ", pos):
                # a ref's tip: every ref is set from for-each-ref instead
                pos = _line(stream, pos)[1]
            continue
        if cmd.startswith(b"commit "):
            shaped = _COMMIT_HEAD.match(stream, pos) if quick else None
            if shaped is not None:  # the shape fast-export writes: read in one go
                pos = _read_commit(stream, cmd[7:], shaped, commits)
            else:
                pos = _read_commit_lines(stream, cmd[7:], pos, commits)
            continue
        if cmd.startswith(b"tag "):
            pos = _read_tag(stream, cmd[4:], pos, tags)
            continue
        raise GitFailed("git fast-export wrote a command this purge does not read")
    return commits, tags


def _line(stream: bytes, pos: int) -> tuple[bytes, int]:
    """The line at ``pos`` without its newline, and the position after it."""
    end = stream.find(b"\n", pos)
    end = len(stream) if end == -1 else end
    return stream[pos:end], end + 1


def _data(stream: bytes, header: bytes, pos: int) -> tuple[bytes, int]:
    """The ``data <n>`` record whose header line is ``header`` (already read), verbatim
    with its newlines; the position after it."""
    if not header.startswith(b"data ") or header.startswith(b"data <<"):
        raise GitFailed("git fast-export wrote a record this purge does not read")
    n = int(header[5:])
    body = stream[pos : pos + n]
    pos += n
    if stream[pos : pos + 1] == b"\n":
        pos += 1
    return header + b"\n" + body + b"\n", pos


def _read_commit_lines(stream: bytes, ref: bytes, pos: int, commits: list[ExportCommit]) -> int:
    """One commit record of any shape, line by line from right after its ``commit``
    line to the empty line that ends it; the position after it."""
    commit = ExportCommit(0, b"", ref, b"", [], [])
    head: list[bytes] = []
    while pos < len(stream):
        item, pos = _line(stream, pos)
        if item.startswith(b"mark :"):
            commit.mark = int(item[6:])
        elif item.startswith(b"original-oid "):
            commit.original = item[13:]
        elif item.startswith((b"author ", b"committer ", b"encoding ")):
            head.append(item + b"\n")
        elif item.startswith(b"data "):
            message, pos = _data(stream, item, pos)
            head.append(message)
        elif item.startswith((b"from ", b"merge ")):
            commit.parents.append(item)
        elif item.startswith(b"M "):
            mode, sha, path = item[2:].split(b" ", 2)
            commit.changes.append((b"M", mode, sha, _unquote(path)))
        elif item.startswith(b"D "):
            commit.changes.append((b"D", b"", b"", _unquote(item[2:])))
        elif item == b"":
            break
        elif item.startswith(b"deleteall"):
            commit.other.append(item)
        else:
            raise _unsupported()
    commit.head = b"".join(head)
    commits.append(commit)
    return pos


def _read_tag(stream: bytes, name: bytes, pos: int, tags: list[ExportTag]) -> int:
    """One annotated tag from right after its ``tag`` line to the end of its message;
    the position after it."""
    target, body = b"", []
    while pos < len(stream):
        item, pos = _line(stream, pos)
        if item.startswith(b"from "):
            target = item[5:]
        elif item.startswith(b"tagger "):
            body.append(item + b"\n")
        elif item.startswith(b"data "):
            message, pos = _data(stream, item, pos)
            body.append(message)
            break
        elif item.startswith((b"mark ", b"original-oid ")):
            continue
    tags.append(ExportTag(name, target, b"".join(body)))
    return pos


#: a commit's lines up to its message, as ``fast-export --show-original-ids`` writes them
_COMMIT_HEAD = re.compile(
    rb"mark :(\d+)\n(?:original-oid ([0-9a-f]+)\n)?"
    rb"((?:author [^\n]*\n)?committer [^\n]*\n(?:encoding [^\n]*\n)?)data (\d+)\n"
)


def _read_commit(
    stream: bytes, ref: bytes, shaped: re.Match[bytes], commits: list[ExportCommit]
) -> int:
    """One commit record from its head (matched by _COMMIT_HEAD, right after the
    ``commit`` line) to the empty line that ends it; the position after it."""
    length = int(shaped[4])
    pos = shaped.end()
    message = stream[pos : pos + length]
    pos += length
    if stream.startswith(b"\n", pos):
        pos += 1
    head = shaped[3] + b"data %d\n" % length + message + b"\n"
    commit = ExportCommit(int(shaped[1]), shaped[2] or b"", ref, head, [], [])
    if stream.startswith(b"\n", pos):
        commits.append(commit)
        return pos + 1
    end = stream.find(b"\n\n", pos)
    end = len(stream) if end == -1 else end
    changes = commit.changes
    for item in stream[pos:end].split(b"\n"):
        if item.startswith(b"M "):
            mode, sha, raw = item[2:].split(b" ", 2)
            if raw.startswith(b'"'):
                changes.append((b"M", mode, sha, _unquote(raw)))
            else:
                changes.append((b"M", mode, sha, raw.decode("utf-8", "surrogateescape")))
        elif item.startswith(b"D "):
            changes.append((b"D", b"", b"", _unquote(item[2:])))
        elif item.startswith((b"from ", b"merge ")):
            commit.parents.append(item)
        elif item.startswith(b"deleteall"):
            commit.other.append(item)
        else:
            raise _unsupported()
    commits.append(commit)
    return end + 2


def dropped(path: str, drop: frozenset[str]) -> bool:
    """Whether ``path`` is one of ``drop`` or inside one (called for every change of
    every commit: the folders' prefixes are made once per set)."""
    if not drop:
        return False
    return path in drop or path.startswith(_folders(drop))


@functools.lru_cache(maxsize=8)
def _folders(drop: frozenset[str]) -> tuple[str, ...]:
    return tuple(d + "/" for d in drop)


def parent_mark(parent: bytes) -> int:
    """The mark of a "from :N" / "merge :N" line; -1 for a commit id."""
    target = parent.split(b" ", 1)[1]
    return int(target[1:]) if target.startswith(b":") else -1


def commit_record(
    commit: ExportCommit,
    changed: set[int],
    by_mark: dict[int, ExportCommit],
    blob_marks: dict[tuple[bytes, str], int],
    drop: frozenset[str],
) -> bytes:
    # a root commit must not take the scratch branch's tip as its parent
    out = [b"reset %s\n" % SCRATCH_REF.encode()] if not commit.parents else []
    out.append(b"commit %s\nmark :%d\n" % (SCRATCH_REF.encode(), commit.mark))
    out.append(commit.head)
    for parent in commit.parents:
        verb, target = parent.split(b" ", 1)
        if target.startswith(b":") and int(target[1:]) not in changed:
            target = by_mark[int(target[1:])].original  # a parent kept as it was
        out.append(verb + b" " + target + b"\n")
    out.extend(item + b"\n" for item in commit.other)
    for op, mode, sha, path in commit.changes:
        if op == b"D":
            out.append(b"D " + _quote(path) + b"\n")
        elif dropped(path, drop):
            continue
        else:
            mark = blob_marks.get((sha, kind_of(path)))
            ref = b":%d" % mark if mark is not None else sha
            out.append(b"M " + mode + b" " + ref + b" " + _quote(path) + b"\n")
    out.append(b"\n")
    return b"".join(out)
