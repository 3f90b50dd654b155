"""Erasure (SPEC section 3): deleted means the content is gone for good.

After the erasing commit, :func:`purge_history` rewrites every commit of a
private store so that no object anywhere in ``.git`` holds the memory's file or
its content, then expires the reflog and prunes. Team stores are never
rewritten (clones already pushed keep their history: the desk says so plainly).

What goes, in every historical blob of every ref (:func:`transform`, the same
rules :func:`scrub_file` applies to a current file):

- the erased files themselves (``drop_paths``);
- ``MEMORY.md``: every line that links to an erased record's file, whatever its
  hook said (cut to 150 characters or not);
- ``decisions/*.json``: an erased record's front matter under ``before`` and
  ``after`` and in ``touched`` entries, reduced to :data:`ERASED_KEEP`;
- every needle (content, its lines, source quotes, and their JSON-escaped forms)
  anywhere, replaced by ``[erased]``. :func:`history_needles` finds them in every
  earlier version of the files (a consolidation rewrite, a correction).

The rewrite is one streaming pass: ``git fast-export --no-data`` lists every
commit and the blobs it changes; one ``git cat-file --batch`` reads each blob
version once (a version that extends or edits the previous one of its path is
searched only where it differs); one ``git fast-import`` writes the changed
blobs, trees and commits, from the first commit that changes onward. Commits
keep their author, committer, dates, encoding and message byte for byte, refs
keep their names (branches, ``memgov/batch/<id>``, annotated tags with their
messages), HEAD stays on its branch.

Rerunnable: the rewrite is deterministic and a rewritten history rewrites to
itself, so a call killed at any moment and called again with the same arguments
finishes the job: it first clears what killed git processes leave (stale ref
locks, temporary packs, fast-import's keep files and crash reports, the scratch
ref), and it needs no state of its own. The caller holds the store lock: nothing
else drives this repository's git meanwhile.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ERASED = b"[erased]"
#: what a decision record keeps of a record once it is erased: its id and key, no content
ERASED_KEEP = ("id", "scope", "subject", "attribute", "condition", "status")
MIN_NEEDLE = 12  # bytes: four CJK characters; shorter strings only go by structure
INDEX_FILE = "MEMORY.md"
DECISION_DIR = "decisions"
MEMORY_DIR = "memories"
SCRATCH_REF = "refs/memgov-purge/scratch"  # fast-import's branch for rewritten commits
_TEMP_INDEX = "memgov-purge.index"
_INCREMENTAL_MIN = 16 * 1024  # blobs this large are searched only where they changed
_ZERO = re.compile(rb"^0+$")


# ------------------------------------------------------------------- needles
def needles_for(content: str, quotes: Iterable[str] = ()) -> list[bytes]:
    """What must not survive: the content, each of its lines long enough to identify
    it (12 bytes: four CJK characters), and the source quotes it was drawn from."""
    found = {content.strip(), *(q.strip() for q in quotes)}
    found.update(line.strip() for line in content.splitlines())
    encoded = {n.encode("utf-8", "replace") for n in found}
    return sorted((n for n in encoded if len(n) >= MIN_NEEDLE), key=len, reverse=True)


def scrub(data: bytes, needles: Iterable[bytes]) -> bytes:
    """Every occurrence of a needle (or of its JSON-escaped form) becomes ``[erased]``."""
    return _apply(data, _needle_edits(data, _patterns(tuple(needles), ()).needles))


def scrub_file(rel: str, data: bytes, needles: Iterable[bytes], erased_ids: Iterable[str]) -> bytes:
    """One current file cleaned by the rules the history rewrite applies to every
    version of it: the structured rules for ``rel`` (``MEMORY.md`` lines, decision
    front matter), then the needles. Returns ``data`` itself when nothing applies."""
    return _transform(rel, data, _patterns(tuple(needles), tuple(erased_ids)))


def history_needles(
    root: Path | str, paths: Iterable[str], *, keep: Iterable[bytes | str] = ()
) -> list[bytes]:
    """Needles (:func:`needles_for`) from every version of ``paths`` in every ref:
    each version's content, its lines, title, value and source quotes. A version
    that does not parse gives the text after its front matter. Titles and values
    under 12 bytes are left out (the structured rules remove them); so is any
    needle found in one of ``keep`` (what a live record still says)."""
    root = Path(root)
    wanted = [p for p in dict.fromkeys(paths) if p]
    if not wanted:
        return []
    out = _git(
        root,
        "--literal-pathspecs",
        "log",
        "--all",
        "-m",
        "--format=",
        "--raw",
        "--no-abbrev",
        "--no-renames",
        "--",
        *wanted,
        check=False,
    )
    shas: dict[bytes, None] = {}
    for row in out.splitlines():  # ":<mode> <mode> <blob> <blob> <status>\t<path>"
        if not row.startswith(b":"):
            continue
        parts = row[1:].split(b"\t", 1)[0].split(b" ")
        if len(parts) < 5:
            continue
        for sha in parts[2:4]:
            if not _ZERO.match(sha):
                shas[sha] = None
    found: set[bytes] = set()
    for data in _read_blobs(root, list(shas)).values():
        found.update(_version_needles(data))
    kept = [k.encode("utf-8", "replace") if isinstance(k, str) else k for k in keep]
    return sorted((n for n in found if not any(n in k for k in kept)), key=len, reverse=True)


def _version_needles(data: bytes) -> list[bytes]:
    from core.domain.record import parse_memory  # record pulls in YAML: only when needed

    text = data.decode("utf-8", "replace")
    try:
        memory = parse_memory(text)
    except Exception:  # a hostile or broken version: its body still goes
        body = text
        if text.startswith("---"):
            end = text.find("\n---", 3)
            if end != -1:
                newline = text.find("\n", end + 4)
                body = text[newline + 1 :] if newline != -1 else ""
        return needles_for(body)
    quotes = [s.evidence for s in memory.all_sources]
    quotes += [memory.title or "", memory.value or ""]
    return needles_for(memory.content, quotes)


# ----------------------------------------------------------------- transforms
@dataclass(frozen=True)
class _Patterns:
    needles: tuple[bytes, ...]  # with their JSON-escaped forms, longest first
    ids: tuple[str, ...]
    links: tuple[bytes, ...]  # ](memories/<id>.md) of each erased id
    quoted_ids: tuple[bytes, ...]  # "<id>" as JSON writes it
    longest: int

    def __bool__(self) -> bool:
        return bool(self.needles or self.ids)


@functools.lru_cache(maxsize=64)
def _patterns(needles: tuple[bytes, ...], ids: tuple[str, ...]) -> _Patterns:
    found: set[bytes] = set()
    for needle in needles:
        if len(needle) < MIN_NEEDLE or ERASED in needle:
            continue
        found.add(needle)
        text = needle.decode("utf-8", "surrogateescape")
        with contextlib.suppress(UnicodeEncodeError):  # as JSON writes it, both ways
            for ascii_only in (False, True):
                escaped = json.dumps(text, ensure_ascii=ascii_only)[1:-1].encode("utf-8")
                found.add(escaped)
    ordered = tuple(sorted(found, key=lambda n: (-len(n), n)))
    ids = tuple(sorted(set(ids)))
    links = tuple(f"]({MEMORY_DIR}/{i}.md)".encode() for i in ids)
    quoted = tuple(f'"{i}"'.encode() for i in ids)
    longest = max((len(p) for p in (*ordered, *links, *quoted)), default=0)
    return _Patterns(ordered, ids, links, quoted, longest)


def _kind(rel: str) -> str:
    if rel == INDEX_FILE:
        return "index"
    if rel.startswith(DECISION_DIR + "/") and rel.endswith(".json") and rel.count("/") == 1:
        return "decision"
    return "plain"


def _transform(rel: str, data: bytes, pats: _Patterns) -> bytes:
    """The whole rule set for one file: structure first, then needles."""
    kind = _kind(rel)
    if kind == "decision":
        data = _reduce_decision(data, pats.ids)
        return _apply(data, _needle_edits(data, pats.needles))
    return _apply(data, _edits(kind, data, pats))


Edit = tuple[int, int, bytes]  # replace data[start:end] by these bytes


def _apply(data: bytes, edits: Sequence[Edit]) -> bytes:
    if not edits:
        return data
    if len(edits) == 1 and edits[0][0] == 0 and edits[0][1] == len(data):
        return edits[0][2]
    view = memoryview(data)
    parts: list[bytes | memoryview] = []
    pos = 0
    for start, end, new in edits:
        parts.append(view[pos:start])
        parts.append(new)
        pos = end
    parts.append(view[pos:])
    return b"".join(parts)


def _needle_edits(data: bytes, needles: Sequence[bytes], lo: int = 0, hi: int = -1) -> list[Edit]:
    """Every occurrence of every needle in data[lo:hi]; overlapping ones merged."""
    hi = len(data) if hi < 0 else hi
    spans: list[tuple[int, int]] = []
    for needle in needles:
        at = data.find(needle, lo, hi)
        while at != -1:
            spans.append((at, at + len(needle)))
            at = data.find(needle, at + 1, hi)
    if not spans:
        return []
    spans.sort()
    merged = [list(spans[0])]
    for start, end in spans[1:]:
        if start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e, ERASED) for s, e in merged]


def _line_edits(data: bytes, links: Sequence[bytes], lo: int = 0, hi: int = -1) -> list[Edit]:
    """Each whole line of data[lo:hi] that holds one of ``links`` goes."""
    hi = len(data) if hi < 0 else hi
    lines: set[tuple[int, int]] = set()
    for link in links:
        at = data.find(link, lo, hi)
        while at != -1:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end == -1 else end + 1
            lines.add((start, end))
            at = data.find(link, end, hi)
    return [(s, e, b"") for s, e in sorted(lines)]


def _edits(kind: str, data: bytes, pats: _Patterns, lo: int = 0, hi: int = -1) -> list[Edit]:
    """The edits of a line-local kind ("index", "plain") in data[lo:hi]."""
    needle = _needle_edits(data, pats.needles, lo, hi)
    if kind != "index" or not pats.links:
        return needle
    lines = _line_edits(data, pats.links, lo, hi)
    if not needle:
        return lines
    # a needle inside a removed line goes with the line
    out: list[Edit] = []
    for start, end, new in sorted(lines + needle):
        if out and start < out[-1][1]:
            prev = out[-1]
            span_end = max(prev[1], end)
            # the merged span stays a removal only if it is still one whole line
            keep_removal = prev[2] == b"" and end <= prev[1]
            out[-1] = (prev[0], span_end, b"" if keep_removal else ERASED)
        else:
            out.append((start, end, new))
    return out


def _reduce_decision(data: bytes, ids: Sequence[str]) -> bytes:
    """An erased record's front matter in a decision file, down to ERASED_KEEP."""
    if not ids or not any(f'"{i}"'.encode() in data for i in ids):
        return data
    try:
        record = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return data  # left to the needle scrub
    if not isinstance(record, dict):
        return data
    wanted = set(ids)
    places: list[tuple[Any, str]] = [
        (record.get(side), i) for side in ("before", "after") for i in ids
    ]
    for entry in record.get("touched") or ():
        if isinstance(entry, dict) and entry.get("id") in wanted:
            places += [(entry, "before"), (entry, "after")]
    changed = False
    for holder, key in places:
        if not isinstance(holder, dict):
            continue
        front = holder.get(key)
        if isinstance(front, dict) and set(front) - set(ERASED_KEEP):
            holder[key] = {k: v for k, v in front.items() if k in ERASED_KEEP}
            changed = True
    if not changed:
        return data
    text = json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    return text.encode("utf-8")


# ------------------------------------------------- searching versions quickly
def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    view = memoryview(b)
    if a.startswith(view[:n]):
        return n
    lo, hi = 0, n - 1  # a[:lo] == b[:lo]; a[:hi+1] != b[:hi+1]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.startswith(view[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    n = min(len(a), len(b), limit)
    view = memoryview(b)
    lb = len(b)
    if n == 0 or a.endswith(view[lb - n :]):
        return n
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a.endswith(view[lb - mid :]):
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass
class _Version:
    data: bytes
    edits: list[Edit]


def _edits_since(kind: str, new: bytes, old: _Version, pats: _Patterns) -> list[Edit]:
    """The edits of ``new`` given an earlier version of the same file and its edits:
    only the part that differs (widened by a needle's length, to whole lines, and
    over any old edit it cuts) is searched; the rest keeps the old edits."""
    a, olds = old.data, old.edits
    prefix = _common_prefix(a, new)
    suffix = _common_suffix(a, new, min(len(a), len(new)) - prefix)
    reach = max(pats.longest - 1, 0)
    lo = max(prefix - reach, 0)
    hi = min(len(new) - suffix + reach, len(new))
    shift = len(new) - len(a)
    while True:
        lo = new.rfind(b"\n", 0, lo) + 1 if lo > 0 else 0
        at = new.find(b"\n", hi) if hi < len(new) else -1
        hi = len(new) if at == -1 or hi >= len(new) else at + 1
        a_hi = hi - shift
        moved = False
        for start, end, _new in olds:
            if start < lo < end:
                lo, moved = start, True
            if start < a_hi < end:
                hi, moved = end + shift, True
        if not moved:
            break
    left = [e for e in olds if e[1] <= lo]
    right = [(s + shift, e + shift, r) for s, e, r in olds if s >= hi - shift]
    return left + _edits(kind, new, pats, lo, hi) + right


# ------------------------------------------------------------------------ git
def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """A git child dies with this process: a kill -9 of memgov leaves no orphan
    fast-import or gc running beside the rerun."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


_PREEXEC = _die_with_parent if sys.platform.startswith("linux") else None


class GitFailed(RuntimeError):
    """A git command failed; the message names the command, never a blob's bytes."""


def _git(root: Path, *args: str, data: bytes | None = None, check: bool = True) -> bytes:
    result = subprocess.run(
        ["git", *args],
        cwd=root,
        input=data,
        capture_output=True,
        check=False,
        preexec_fn=_PREEXEC,
    )
    if check and result.returncode != 0:
        verb = next((a for a in args if not a.startswith("-")), args[0])
        raise GitFailed(
            f"{root}: git {verb} failed (exit {result.returncode}): "
            f"{result.stderr.decode('utf-8', 'replace').strip()[:500]}"
        )
    return result.stdout


class _Blobs:
    """One ``git cat-file --batch``: blobs asked for in order, read back in order."""

    def __init__(self, root: Path, shas: Sequence[bytes]) -> None:
        self.proc = subprocess.Popen(
            ["git", "-c", "core.deltaBaseCacheLimit=512m", "cat-file", "--batch"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=1 << 20,
            preexec_fn=_PREEXEC,
        )
        self.root = root
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.out: IO[bytes] = self.proc.stdout
        stdin = self.proc.stdin

        def feed() -> None:
            with contextlib.suppress(BrokenPipeError, ValueError):
                for start in range(0, len(shas), 512):
                    stdin.write(b"".join(s + b"\n" for s in shas[start : start + 512]))
                stdin.close()

        self.writer = threading.Thread(target=feed, daemon=True)
        self.writer.start()

    def next(self) -> bytes:
        header = self.out.readline().split()
        if len(header) != 3:
            raise GitFailed(
                f"{self.root}: git cat-file: object "
                f"{header[0].decode('ascii', 'replace') if header else '?'} is missing; "
                f"run 'git fsck' in the store"
            )
        data = self.out.read(int(header[2]))
        self.out.read(1)
        return data

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.out.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.writer.join(timeout=5)


def _read_blobs(root: Path, shas: Sequence[bytes]) -> dict[bytes, bytes]:
    if not shas:
        return {}
    reader = _Blobs(root, shas)
    try:
        return {sha: reader.next() for sha in shas}
    finally:
        reader.close()


# --------------------------------------------------------- the export stream
@dataclass
class _Commit:
    mark: int
    original: bytes
    ref: bytes
    head: bytes  # author, committer, encoding and data lines, verbatim
    parents: list[bytes]  # "from X" / "merge X" with X a mark ":N" or a commit id
    changes: list[tuple[bytes, bytes, bytes, str]]  # (op, mode, sha, path); op M or D
    other: list[bytes] = field(default_factory=list)  # lines passed through as they are


@dataclass
class _Tag:
    name: bytes
    target: bytes
    body: bytes  # tagger and data, verbatim


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


def _parse_export(stream: bytes) -> tuple[list[_Commit], list[_Tag]]:
    commits: list[_Commit] = []
    tags: list[_Tag] = []
    pos, size = 0, len(stream)

    def line() -> bytes:
        nonlocal pos
        end = stream.find(b"\n", pos)
        end = size if end == -1 else end
        out = stream[pos:end]
        pos = end + 1
        return out

    def data(header: bytes) -> bytes:
        nonlocal pos
        if not header.startswith(b"data ") or header.startswith(b"data <<"):
            raise GitFailed("git fast-export wrote a record this purge does not read")
        n = int(header[5:])
        body = stream[pos : pos + n]
        pos += n
        if stream[pos : pos + 1] == b"\n":
            pos += 1
        return header + b"\n" + body + b"\n"

    while pos < size:
        cmd = line()
        if not cmd or cmd.startswith((b"feature ", b"done", b"progress ")):
            continue
        if cmd.startswith(b"reset "):
            if stream.startswith(b"from ", pos):
                line()  # a ref's tip: every ref is set from for-each-ref instead
            continue
        if cmd.startswith(b"commit "):
            ref = cmd[7:]
            commit = _Commit(0, b"", ref, b"", [], [])
            head: list[bytes] = []
            while pos < size:
                item = line()
                if item.startswith(b"mark :"):
                    commit.mark = int(item[6:])
                elif item.startswith(b"original-oid "):
                    commit.original = item[13:]
                elif item.startswith((b"author ", b"committer ", b"encoding ")):
                    head.append(item + b"\n")
                elif item.startswith(b"data "):
                    head.append(data(item))
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
                    raise GitFailed(
                        "git fast-export wrote a file change this purge does not read "
                        "(copies, renames or notes): report it"
                    )
            commit.head = b"".join(head)
            commits.append(commit)
            continue
        if cmd.startswith(b"tag "):
            name, target, body = cmd[4:], b"", []
            while pos < size:
                item = line()
                if item.startswith(b"from "):
                    target = item[5:]
                elif item.startswith(b"tagger "):
                    body.append(item + b"\n")
                elif item.startswith(b"data "):
                    body.append(data(item))
                    break
                elif item.startswith((b"mark ", b"original-oid ")):
                    continue
            tags.append(_Tag(name, target, b"".join(body)))
            continue
        raise GitFailed("git fast-export wrote a command this purge does not read")
    return commits, tags


# ------------------------------------------------------------------ the purge
def purge_history(
    root: Path | str,
    *,
    drop_paths: Iterable[str],
    needles: Iterable[bytes],
    erased_ids: Iterable[str] = (),
) -> int:
    """Rewrite all history without ``drop_paths``, the needles and the structured
    traces of ``erased_ids``; expire the reflog and prune. Returns the number of
    commits this call rewrote (0 when a killed earlier call had already done it).
    Called again with the same arguments after a crash, it finishes the job."""
    root = Path(root).resolve()
    gitdir = Path(_git(root, "rev-parse", "--absolute-git-dir").decode().strip())
    _clear_leftovers(root, gitdir)
    pats = _patterns(tuple(needles), tuple(erased_ids))
    drop = {p.strip("/") for p in drop_paths if p.strip("/")}
    rewritten = 0
    if (pats or drop) and _git(root, "rev-parse", "--verify", "-q", "HEAD", check=False):
        rewritten = _rewrite(root, gitdir, drop, pats)
        _sync_worktree(root, gitdir)
    for leftover in ("ORIG_HEAD", "FETCH_HEAD"):
        (gitdir / leftover).unlink(missing_ok=True)
    _git(root, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    _git(root, "gc", "--prune=now", "--quiet", "--force")
    _clear_leftovers(root, gitdir)
    return rewritten


def _dropped(path: str, drop: set[str]) -> bool:
    if path in drop:
        return True
    return any(path.startswith(d + "/") for d in drop) if drop else False


def _rewrite(root: Path, gitdir: Path, drop: set[str], pats: _Patterns) -> int:
    refs: list[tuple[bytes, bytes]] = []  # (name, commit) of each ref to a commit
    listing = _git(root, "for-each-ref", "--format=%(objecttype) %(objectname) %(refname)")
    for row in listing.splitlines():
        kind, oid, name = row.split(b" ", 2)
        if kind == b"commit" and name != SCRATCH_REF.encode():
            refs.append((name, oid))
    detached = None
    if not _git(root, "symbolic-ref", "-q", "HEAD", check=False).strip():
        detached = _git(root, "rev-parse", "HEAD").strip()
    stream = _git(
        root,
        "-c",
        "core.quotepath=false",
        "fast-export",
        "--all",
        "--reencode=no",
        "--show-original-ids",
        "--no-data",
        "--signed-tags=verbatim",
        "--use-done-feature",
    )
    if not stream.rstrip().endswith(b"done"):
        raise GitFailed(f"{root}: git fast-export stopped early; nothing was changed")
    commits, tags = _parse_export(stream)

    # 1. every blob version, once, in stream order: which change, and how
    wanted: list[tuple[bytes, str, str]] = []
    seen: set[tuple[bytes, str]] = set()
    for commit in commits:
        for op, mode, sha, path in commit.changes:
            if op != b"M" or mode == b"160000" or _dropped(path, drop):
                continue
            key = (sha, _kind(path))
            if key not in seen:
                seen.add(key)
                wanted.append((sha, path, key[1]))
    edits: dict[tuple[bytes, str], list[Edit]] = {}
    rank: dict[bytes, int] = {}
    if pats:
        edits, rank = _scan(root, wanted, pats)
    dirty = {key for key, found in edits.items() if found}

    # 2. which commits change: a dirty or dropped file, or a changed parent
    changed: set[int] = set()
    by_mark = {c.mark: c for c in commits}
    mark_of = {c.original: c.mark for c in commits}
    for commit in commits:
        if any(_parent_mark(p) in changed for p in commit.parents) or any(
            op == b"M" and (_dropped(path, drop) or (sha, _kind(path)) in dirty)
            for op, _m, sha, path in commit.changes
        ):
            changed.add(commit.mark)
    if not changed:
        return 0

    # 3. one fast-import: the new blobs (each file's versions in a row, so that
    #    each is stored as a delta of the one before), then the changed commits
    order: dict[str, list[tuple[bytes, str]]] = {}
    placed: set[tuple[bytes, str]] = set()
    for commit in commits:
        if commit.mark not in changed:
            continue
        for op, _mode, sha, path in commit.changes:
            key = (sha, _kind(path))
            if op == b"M" and key in dirty and key not in placed and not _dropped(path, drop):
                placed.add(key)
                order.setdefault(path, []).append(key)
    # within a file, in pack order: each version is read right after its delta base
    queue = [key for keys in order.values() for key in sorted(keys, key=lambda k: rank[k[0]])]
    next_mark = max(by_mark, default=0) + 1
    blob_marks: dict[tuple[bytes, str], int] = {}
    with tempfile.TemporaryDirectory(prefix="memgov-purge-") as tmp:
        marks_file = Path(tmp) / "marks"
        errors = (Path(tmp) / "stderr").open("w+b")
        importer = subprocess.Popen(
            [
                "git",
                "fast-import",
                "--force",
                "--quiet",
                "--done",
                f"--export-marks={marks_file}",
            ],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            bufsize=1 << 20,
            preexec_fn=_PREEXEC,
        )
        assert importer.stdin is not None
        sink = importer.stdin
        try:
            sink.write(b"feature done\n")
            reader = _Blobs(root, [sha for sha, _kind_ in queue])
            try:
                for key in queue:
                    data = _apply(reader.next(), edits[key])
                    blob_marks[key] = next_mark
                    sink.write(b"blob\nmark :%d\ndata %d\n" % (next_mark, len(data)))
                    sink.write(data)
                    sink.write(b"\n")
                    next_mark += 1
            finally:
                reader.close()
            for commit in commits:
                if commit.mark in changed:
                    sink.write(_commit_record(commit, changed, by_mark, blob_marks, drop))
            for name, tip in refs:
                mark = mark_of.get(tip, -1)
                if mark in changed:
                    sink.write(b"reset %s\nfrom :%d\n\n" % (name, mark))
            for tag in tags:
                if tag.target.startswith(b":") and int(tag.target[1:]) in changed:
                    sink.write(b"tag %s\nfrom %s\n%s" % (tag.name, tag.target, tag.body))
            sink.write(b"done\n")
            sink.close()
        except BrokenPipeError:
            pass
        code = importer.wait()
        errors.seek(0)
        message = errors.read().decode("utf-8", "replace").strip()[:500]
        errors.close()
        if code != 0:
            raise GitFailed(f"{root}: git fast-import failed (exit {code}): {message}")
        new_ids: dict[int, bytes] = {}
        for entry in marks_file.read_bytes().splitlines():
            mark_text, _sp, new_id = entry.partition(b" ")
            new_ids[int(mark_text[1:])] = new_id
    if detached is not None:
        mark = mark_of.get(detached, -1)
        if mark in changed:
            _git(root, "update-ref", "--no-deref", "HEAD", new_ids[mark].decode())
    _git(root, "update-ref", "-d", SCRATCH_REF, check=False)
    return sum(1 for c in commits if c.mark in changed and new_ids.get(c.mark) != c.original)


def _parent_mark(parent: bytes) -> int:
    """The mark of a "from :N" / "merge :N" line; -1 for a commit id."""
    target = parent.split(b" ", 1)[1]
    return int(target[1:]) if target.startswith(b":") else -1


def _commit_record(
    commit: _Commit,
    changed: set[int],
    by_mark: dict[int, _Commit],
    blob_marks: dict[tuple[bytes, str], int],
    drop: set[str],
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
        elif _dropped(path, drop):
            continue
        else:
            mark = blob_marks.get((sha, _kind(path)))
            ref = b":%d" % mark if mark is not None else sha
            out.append(b"M " + mode + b" " + ref + b" " + _quote(path) + b"\n")
    out.append(b"\n")
    return b"".join(out)


def _scan(
    root: Path, wanted: list[tuple[bytes, str, str]], pats: _Patterns
) -> tuple[dict[tuple[bytes, str], list[Edit]], dict[bytes, int]]:
    """The edits every blob version needs; [] for a clean one. A large version is
    compared with the previous version of its path and searched where it differs."""
    found: dict[tuple[bytes, str], list[Edit]] = {}
    last: dict[str, _Version] = {}
    # in pack order: each delta comes right after its base, which git then keeps in
    # its cache, and the version seen before is mostly the one next to it in time
    listing = _git(
        root, "cat-file", "--batch-all-objects", "--unordered", "--batch-check=%(objectname)"
    )
    rank = {sha: n for n, sha in enumerate(listing.split())}
    wanted = sorted(wanted, key=lambda item: rank.setdefault(item[0], -1))
    reader = _Blobs(root, [sha for sha, _path, _kind in wanted])
    try:
        for sha, path, kind in wanted:
            data = reader.next()
            if kind == "decision":
                new = _transform(path, data, pats)
                found[(sha, kind)] = [] if new == data else [(0, len(data), new)]
                continue
            previous = last.get(path)
            if previous is not None and len(data) >= _INCREMENTAL_MIN:
                result = _edits_since(kind, data, previous, pats)
            else:
                result = _edits(kind, data, pats)
            found[(sha, kind)] = result
            if len(data) >= _INCREMENTAL_MIN:
                last[path] = _Version(data, result)
            else:
                last.pop(path, None)
    finally:
        reader.close()
    return found, rank


# -------------------------------------------------------- working tree, index
def _object_id(data: bytes, algorithm: str) -> bytes:
    digest = hashlib.new(algorithm)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest().encode()


def _sync_worktree(root: Path, gitdir: Path) -> None:
    """When the rewrite changed HEAD's tree (it held a needle), the index and the
    clean files of the working tree follow it, so that nothing keeps the old blobs
    alive and ``git status`` stays clean. A file someone changed is left alone."""
    diff = _git(
        root, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "HEAD"
    )
    if not diff:
        return
    algorithm = _git(root, "rev-parse", "--show-object-format").decode().strip() or "sha1"
    fields = diff.split(b"\0")
    plans: list[tuple[str, bytes, bytes]] = []
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        mode_head, mode_index, sha_head, sha_index = meta[1:].split(b" ")[:4]
        if {mode_head, mode_index} & {b"120000", b"160000"}:
            continue
        path = raw_path.decode("utf-8", "surrogateescape")
        target = root / path
        if target.is_symlink() or target.is_dir():
            continue
        current = _object_id(target.read_bytes(), algorithm) if target.is_file() else None
        head_id = None if _ZERO.match(sha_head) else sha_head
        index_id = None if _ZERO.match(sha_index) else sha_index
        if current == head_id or current != index_id:
            continue  # already as HEAD has it, or changed by someone: left alone
        plans.append((path, mode_head, sha_head if head_id else b""))
    contents = _read_blobs(root, [sha for _p, _m, sha in plans if sha])
    for path, mode, sha in plans:
        target = root / path
        if not sha:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.memgov-purge")
        temp.write_bytes(contents[sha])
        if mode == b"100755":
            temp.chmod(0o755)
        os.replace(temp, target)
    index = gitdir / "index"
    temp_index = gitdir / _TEMP_INDEX
    if index.exists():
        temp_index.write_bytes(index.read_bytes())
    env = {**os.environ, "GIT_INDEX_FILE": str(temp_index)}
    for args in (("read-tree", "--reset", "HEAD"), ("update-index", "-q", "--refresh")):
        subprocess.run(
            ["git", *args],
            cwd=root,
            env=env,
            capture_output=True,
            check=args[0] == "read-tree",
            preexec_fn=_PREEXEC,
        )
    os.replace(temp_index, index)


# ------------------------------------------------ what killed git leaves behind
def _leftovers(gitdir: Path) -> Iterator[Path]:
    for name in ("packed-refs.lock", "HEAD.lock", "gc.pid", _TEMP_INDEX, _TEMP_INDEX + ".lock"):
        yield gitdir / name
    yield from gitdir.glob("fast_import_crash_*")
    for folder in ("refs", "logs"):
        if (gitdir / folder).is_dir():
            yield from (gitdir / folder).rglob("*.lock")
    objects = gitdir / "objects"
    info = objects / "info"
    yield from info.glob("*.lock")
    yield from info.glob("tmp_*")
    yield from info.glob("commit-graphs/*.lock")
    yield from info.glob("commit-graphs/tmp_*")
    yield from objects.glob("tmp_*")
    yield from objects.glob("??/tmp_*")
    pack = objects / "pack"
    yield from pack.glob("tmp_*")
    yield from pack.glob(".tmp-*")
    yield from pack.glob("*.lock")
    for keep in pack.glob("pack-*.keep"):
        with contextlib.suppress(OSError):
            if keep.read_bytes().strip() == b"fast-import":
                yield keep
    for item in pack.glob("pack-*.pack"):  # a pack written without its index
        if not item.with_suffix(".idx").exists():
            yield item
    for suffix in (".idx", ".rev", ".bitmap"):
        for item in pack.glob(f"pack-*{suffix}"):
            if not item.with_suffix(".pack").exists():
                yield item


def _clear_leftovers(root: Path, gitdir: Path) -> None:
    """Remove what a killed purge's git processes left: stale locks, temporary
    and half-written packs, fast-import's keep files and crash reports (which
    quote the stream), the scratch ref. Safe because the caller holds the store
    lock, so no git process of this repository is still running."""
    for item in list(_leftovers(gitdir)):
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            item.unlink()
    if _git(root, "rev-parse", "--verify", "-q", SCRATCH_REF, check=False).strip():
        _git(root, "update-ref", "-d", SCRATCH_REF, check=False)
