"""The erasure rules for one file's bytes (SPEC section 3), current or historical.

What goes (:func:`transform`, applied by :func:`scrub_file` to a current file and
by :mod:`core.store.erase.purge` to every version in history), by the file's kind
(:func:`kind_of`):

- ``MEMORY.md``: every line that links to an erased record's file, whatever its
  hook said (cut to 150 characters or not), and the needles in the rest;
- ``decisions/*.json``: an erased record's front matter under ``before`` and
  ``after`` and in ``touched`` entries, reduced to :data:`ERASED_KEEP`, then the
  needles in its values;
- structured files (the event log's lines, requests, held items, sync state,
  proposals; a record's front matter in history): parsed, the needles replaced in
  string values only, written back (:mod:`core.store.erase.parsed`); ids, keys and
  the structure stay what they were, so every file still parses;
- text (the daily logs): every needle (content, its lines, source quotes, titles,
  and their JSON-escaped forms), replaced by ``[erased]``.

Everywhere, a needle that stands inside a name is left: a title is often the slug of
the record's id (``deploy-checklist-3debb0d0``) and of the agent's file name
(``deploy-checklist.md``); those are what points at the record, not its words
(:func:`core.store.erase.parsed.inside_name`).

Line-local rules are computed as edits (spans to replace) so that a large version
can be searched only where it differs from the previous one (:func:`edits_since`).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.store.erase import parsed
from core.store.layout import MEMORY_DIR, memory_paths

ERASED = b"[erased]"
#: what a decision record keeps of a record once it is erased: its id and key, no content
ERASED_KEEP = ("id", "scope", "subject", "attribute", "condition", "status")
MIN_NEEDLE = 12  # bytes: four CJK characters; shorter strings only go by structure
INDEX_FILE = "MEMORY.md"
DECISION_DIR = "decisions"
#: kinds whose files are rewritten whole (parsed); the others are searched line by line
WHOLE_KINDS = frozenset({"decision", "json", "yaml", "record"})


def scrub(data: bytes, needles: Iterable[bytes]) -> bytes:
    """Every occurrence of a needle (or of its JSON-escaped form) becomes ``[erased]``."""
    return apply_edits(data, needle_edits(data, patterns(tuple(needles), ()).needles))


def scrub_file(rel: str, data: bytes, needles: Iterable[bytes], erased_ids: Iterable[str]) -> bytes:
    """One current file cleaned by the rules the history rewrite applies to every
    version of it: the structured rules for ``rel`` (``MEMORY.md`` lines, decision
    front matter), then the needles. Returns ``data`` itself when nothing applies."""
    return transform(rel, data, patterns(tuple(needles), tuple(erased_ids)))


# ----------------------------------------------------------------- transforms
@dataclass(frozen=True)
class Patterns:
    needles: tuple[bytes, ...]  # with their JSON-escaped forms, longest first
    words: tuple[bytes, ...]  # the needles as given (a parsed value holds them so)
    ids: tuple[str, ...]
    links: tuple[bytes, ...]  # ](memories/<shard>/<id>.md) and ](memories/<id>.md) of each id
    quoted_ids: tuple[bytes, ...]  # "<id>" as JSON writes it
    longest: int

    def __bool__(self) -> bool:
        return bool(self.needles or self.ids)


@functools.lru_cache(maxsize=64)
def patterns(needles: tuple[bytes, ...], ids: tuple[str, ...]) -> Patterns:
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
    words = tuple(
        sorted(
            {n for n in needles if len(n) >= MIN_NEEDLE and ERASED not in n},
            key=lambda n: (-len(n), n),
        )
    )
    ids = tuple(sorted(set(ids)))
    links = tuple(f"]({path})".encode() for i in ids for path in memory_paths(i))
    quoted = tuple(f'"{i}"'.encode() for i in ids)
    longest = max((len(p) for p in (*ordered, *links, *quoted)), default=0)
    return Patterns(ordered, words, ids, links, quoted, longest)


def kind_of(rel: str) -> str:
    """How a file is scrubbed: "index", "decision", "jsonl" (one JSON value a line:
    the event log), "json", "yaml", "record" (a memory file: YAML front matter and
    a body) or "plain" (text)."""
    if rel == INDEX_FILE:
        return "index"
    if rel.startswith(DECISION_DIR + "/") and rel.endswith(".json") and rel.count("/") == 1:
        return "decision"
    if rel.endswith(".jsonl"):
        return "jsonl"
    if rel.endswith(".json"):
        return "json"
    if rel.endswith((".yaml", ".yml")):
        return "yaml"
    if rel.startswith(MEMORY_DIR + "/") and rel.endswith(".md"):
        return "record"
    return "plain"


def transform(rel: str, data: bytes, pats: Patterns) -> bytes:
    """The whole rule set for one file: structure first, then needles."""
    kind = kind_of(rel)
    if kind in WHOLE_KINDS:
        return whole_file(kind, rel, data, pats)
    return apply_edits(data, rule_edits(kind, data, pats))


def whole_file(kind: str, rel: str, data: bytes, pats: Patterns) -> bytes:
    """A file of a kind rewritten whole (parsed); ``data`` itself when nothing applies."""
    if not pats:
        return data

    def text(raw: bytes) -> bytes:  # a value that parsed: the needles as given
        return apply_edits(raw, needle_edits(raw, pats.words))

    def broken(raw: bytes) -> bytes:  # a file that did not: as bytes, escapes too
        return apply_edits(raw, needle_edits(raw, pats.needles))

    if kind == "yaml":  # folded lines hide a needle from a search of the bytes: parsed
        return parsed.yaml_file(data, text, broken, width=1000 if rel.startswith("held/") else None)
    if kind == "decision":
        if not _holds(data, pats.needles) and not any(q in data for q in pats.quoted_ids):
            return data
        return parsed.json_file(data, text, broken, reduce=lambda r: _reduce_decision(r, pats.ids))
    if not _holds(data, pats.needles):
        return data
    if kind == "json":
        return parsed.json_file(data, text, broken)
    return parsed.front_matter_file(data, text, broken)


def _holds(data: bytes, needles: Sequence[bytes]) -> bool:
    return any(n in data for n in needles)


Edit = tuple[int, int, bytes]  # replace data[start:end] by these bytes


def apply_edits(data: bytes, edits: Sequence[Edit]) -> bytes:
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


def needle_spans(
    data: bytes, needles: Sequence[bytes], lo: int = 0, hi: int = -1
) -> list[tuple[int, int]]:
    """Where each needle stands in data[lo:hi], but inside a name (an id, a file name:
    :func:`core.store.erase.parsed.inside_name`), unsorted."""
    hi = len(data) if hi < 0 else hi
    spans: list[tuple[int, int]] = []
    for needle in needles:
        at = data.find(needle, lo, hi)
        while at != -1:
            end = at + len(needle)
            if not parsed.inside_name(data, at, end, needle):
                spans.append((at, end))
            at = data.find(needle, at + 1, hi)
    return spans


def needle_edits(data: bytes, needles: Sequence[bytes], lo: int = 0, hi: int = -1) -> list[Edit]:
    """Every occurrence of every needle in data[lo:hi]; overlapping ones merged."""
    spans = needle_spans(data, needles, lo, hi)
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


def rule_edits(kind: str, data: bytes, pats: Patterns, lo: int = 0, hi: int = -1) -> list[Edit]:
    """The edits of a line-local kind ("index", "jsonl", "plain") in data[lo:hi]."""
    if kind == "jsonl":
        return _jsonl_edits(data, pats, lo, hi)
    needle = needle_edits(data, pats.needles, lo, hi)
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


def _jsonl_edits(data: bytes, pats: Patterns, lo: int, hi: int) -> list[Edit]:
    """Each line of data[lo:hi] that holds a needle, parsed and scrubbed value by value
    (an event's id, its memory ids and its structure stay as they are)."""
    spans = needle_spans(data, pats.needles, lo, hi)
    if not spans:
        return []

    def text(raw: bytes) -> bytes:
        return apply_edits(raw, needle_edits(raw, pats.words))

    def broken(raw: bytes) -> bytes:
        return apply_edits(raw, needle_edits(raw, pats.needles))

    out: list[Edit] = []
    for start, end in parsed.lines_with(data, spans, len(data) if hi < 0 else hi):
        line = data[start:end]
        new = parsed.event_line(line, text, broken)
        if new != line:
            out.append((start, end, new))
    return out


def _reduce_decision(record: Any, ids: Sequence[str]) -> bool:
    """An erased record's front matter in a parsed decision, down to ERASED_KEEP, in
    place; whether anything changed."""
    if not ids or not isinstance(record, dict):
        return False
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
    return changed


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
class Version:
    data: bytes
    edits: list[Edit]


def edits_since(kind: str, new: bytes, old: Version, pats: Patterns) -> list[Edit]:
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
    return left + rule_edits(kind, new, pats, lo, hi) + right
