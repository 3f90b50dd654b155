"""The raw scan: rules' keywords found first, then their regexes run where they occur.

:func:`prepare` turns a text into its UTF-8 bytes, lowercased bytes and keyword
hits; :func:`find_secrets` gives every accepted secret, rule by rule, as
(start byte, rule index, stop byte). ``KEYWORD`` and ``KEYWORD_AT`` match any
rule keyword, for the evasion layers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from core.domain.secrets.placeholders import accept
from core.domain.secrets.rules import RULES, Rule

# The most keyword hits of one rule for which its regex runs line by line;
# beyond it, the regex runs once over the whole text (that is cheaper).
_MAX_WINDOWS = 64

# --- keyword prefilter ---------------------------------------------------------
#
# gitleaks finds every keyword in one Aho-Corasick pass. The stdlib has none, and
# one ``bytes.find`` per keyword means some 55 passes over the text. Instead each
# keyword is found by its rarest byte, its anchor: one regex per anchor byte,
# whose one-byte literal prefix ``re`` scans fast, checks the keywords around it
# by lookbehind and lookahead. (A single regex for all anchors is slower: ``re``
# then tests every byte against a set.)

# Bytes from rarest to most common in prose and code; a keyword's anchor is its
# byte that comes first here.
_RARITY = b"zqjx_-3579864210kvwbyfgpm.ucdlhrsnioate"


@dataclass(frozen=True)
class _AnchorGroup:
    """The needles sharing one anchor byte, and the regex that finds them."""

    anchor: bytes
    pattern: re.Pattern[bytes]
    # needle, its keyword, the anchor's offset in the keyword, and whether it is local
    needles: tuple[tuple[bytes, bytes, int, bool], ...]


def _needle(keyword: str, rule: Rule) -> bytes:
    """How a rule's keyword is found: the keyword, or (with a tail) the keyword then
    ``\0`` and the tail, a needle of its own."""
    word = keyword.encode("utf-8")
    return word + b"\0" + rule.tail.encode("utf-8") if rule.tail else word


def _split(needle: bytes) -> tuple[bytes, bytes]:
    keyword, _, tail = needle.partition(b"\0")
    return keyword, tail


def _trie(words: Iterable[bytes]) -> bytes:
    """A regex matching any of ``words``, factored by first byte (``re`` then
    tests one branch per byte, not every word in turn)."""
    heads: dict[bytes, list[bytes]] = {}
    whole = False
    for word in sorted(set(words)):
        if word:
            heads.setdefault(word[:1], []).append(word[1:])
        else:
            whole = True
    branches = [re.escape(h) + _trie(tails) for h, tails in heads.items()]
    if not branches:
        return b""
    body = branches[0] if len(branches) == 1 else b"(?:" + b"|".join(branches) + b")"
    return b"(?:" + body + b")?" if whole else body


# The bytes rare enough in text that an anchor on one of them is a cheap pass; a
# keyword with none (``secret``, ``pass``) is anchored on two bytes (``cr``, ``pa``).
_RARE = frozenset(_RARITY[:23])


def _rank(byte: int) -> int:
    return _RARITY.find(bytes((byte,))) % 256


def _anchor(keyword: bytes, among: set[bytes] | None = None) -> tuple[int, int] | None:
    """(offset, length) of the keyword's anchor: its rarest byte (of ``among``, if
    given), or, if that byte is not rare, its rarest pair of bytes."""
    if among is not None:
        found = [i for i in range(len(keyword)) if keyword[i : i + 1] in among]
        return (min(found, key=lambda i: _rank(keyword[i])), 1) if found else None
    best = min(range(len(keyword)), key=lambda i: _rank(keyword[i]))
    if keyword[best] in _RARE or len(keyword) < 2 or not keyword.isascii():
        return best, 1
    pairs = range(len(keyword) - 1)
    return min(pairs, key=lambda i: sorted((_rank(keyword[i]), _rank(keyword[i + 1])))), 2


def _anchor_groups(
    needles: set[bytes], local: set[bytes], first: set[bytes]
) -> tuple[_AnchorGroup, ...]:
    """One group per anchor. The ``first`` needles (the vendor tokens') take their
    rarest byte, as they always have; every other one its rarest byte if that is
    rare, else a byte some group already searches for if it holds one that is rare
    enough, else its rarest pair of bytes (each anchor is one more pass over the
    text, and a common one is tried at every occurrence)."""
    by_anchor: dict[bytes, list[tuple[bytes, bytes, int, bool]]] = {}
    for needle in sorted(needles, key=lambda n: (n not in first, n)):
        keyword = _split(needle)[0]
        if needle in first:
            found = _anchor(keyword, {bytes((b,)) for b in keyword})
        else:
            found = _anchor(keyword)
        offset, size = found or (0, 1)
        member = (needle, keyword, offset, needle in local)
        by_anchor.setdefault(keyword[offset : offset + size], []).append(member)
    return tuple(
        _AnchorGroup(anchor, _group_pattern(anchor, tuple(members)), tuple(members))
        for anchor, members in sorted(by_anchor.items())
    )


@functools.lru_cache(maxsize=512)
def _group_pattern(
    anchor: bytes, members: tuple[tuple[bytes, bytes, int, bool], ...]
) -> re.Pattern[bytes]:
    """The anchor, then each member's keyword (and tail) around it."""
    checks, plain = [], []
    size = len(anchor)
    for needle, k, i, _local in members:
        tail = _split(needle)[1]
        if not i and not tail:
            plain.append(k[size:])  # no lookbehind, a literal ahead: one trie for all
            continue
        ahead = re.escape(k[i + size :]) + tail
        checks.append(
            (b"(?<=" + re.escape(k[: i + size]) + b")" if i else b"")
            + (b"(?=" + ahead + b")" if ahead else b"")
        )
    if plain:
        checks.insert(0, b"(?=" + _trie(plain) + b")" if any(plain) else b"")
    return re.compile(re.escape(anchor) + b"(?:" + b"|".join(checks) + b")")


_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
_PLAIN_LOCAL = {
    k.encode("utf-8") for rule in RULES if rule.local and not rule.tail for k in rule.keywords
}
_NEEDLES = tuple(
    tuple(
        k.encode("utf-8") if k.encode("utf-8") in _PLAIN_LOCAL else _needle(k, rule)
        for k in rule.keywords
    )
    for rule in RULES
)
_LOCAL = {n for rule, needles in zip(RULES, _NEEDLES, strict=True) if rule.local for n in needles}
_GROUPS = _anchor_groups(
    {n for needles in _NEEDLES for n in needles},
    _LOCAL,
    {n for rule, needles in zip(RULES, _NEEDLES, strict=True) if rule.evades for n in needles},
)


def keyword_hits(lowered: bytes) -> dict[bytes, list[int]]:
    """Where each needle occurs: up to ``_MAX_WINDOWS + 1`` times each, every time
    for a local rule's. A needle seen that often leaves its group's regex, which
    goes on without it (so a common one, ``ey``, costs nothing past that)."""
    hits: dict[bytes, list[int]] = {}
    for group in _GROUPS:
        members, pattern, pos = group.needles, group.pattern, 0
        while members:
            full = _scan_group(pattern, members, lowered, pos, hits)
            if full is None:
                break
            members = tuple(m for m in members if m[0] not in full[0])
            if not members:
                break
            pattern, pos = _group_pattern(group.anchor, members), full[1]
    return hits


def _scan_group(
    pattern: re.Pattern[bytes],
    members: tuple[tuple[bytes, bytes, int, bool], ...],
    lowered: bytes,
    pos: int,
    hits: dict[bytes, list[int]],
) -> tuple[set[bytes], int] | None:
    """Record the members' hits from ``pos``; stop when one of them becomes full,
    with the full ones and where to go on, or at the end (None)."""
    for match in pattern.finditer(lowered, pos):
        full: set[bytes] = set()
        for needle, keyword, offset, local in members:  # two may share an anchor
            start = match.start() - offset
            if start < 0 or not lowered.startswith(keyword, start):
                continue
            if len(keyword) < len(needle) and not _tail_follows(needle, lowered, start):
                continue
            at = hits.setdefault(needle, [])
            at.append(start)
            if not local and len(at) > _MAX_WINDOWS:
                full.add(needle)
        if full:
            return full, match.start() + 1
    return None


_TAILS: dict[bytes, re.Pattern[bytes]] = {}


def _tail_follows(needle: bytes, lowered: bytes, start: int) -> bool:
    keyword, tail = _split(needle)
    pattern = _TAILS.get(needle)
    if pattern is None:
        pattern = _TAILS[needle] = re.compile(tail)
    return pattern.match(lowered, start + len(keyword)) is not None


def _windows(
    rule: Rule, needles: tuple[bytes, ...], hits: dict[bytes, list[int]], lowered: bytes
) -> list[tuple[int, int]]:
    """Byte spans to run the rule's regex on: none if no keyword occurs."""
    size = len(lowered)
    at = sorted(i for needle in needles for i in hits.get(needle, ()))
    if not at:
        return []
    if rule.local:
        return [(i, i) for i in dict.fromkeys(at)]  # matched where each keyword starts
    if len(at) > _MAX_WINDOWS:
        return [(0, size)]
    if rule.multiline:
        return [(lowered.rfind(b"\n", 0, at[0]) + 1, size)]
    spans: list[tuple[int, int]] = []
    for i in at:
        if spans and i < spans[-1][1]:
            continue  # on a line already taken
        end = lowered.find(b"\n", i)
        spans.append((lowered.rfind(b"\n", 0, i) + 1, size if end == -1 else end))
    return spans


def _candidates(
    rule: Rule, windows: list[tuple[int, int]], data: bytes
) -> Iterator[tuple[int, int]]:
    """Byte (start, end) of each accepted secret of ``rule`` in the windows of ``data``."""
    if rule.local:
        yield from _local_candidates(rule, windows, data)
        return
    for searcher in rule.searchers:
        for begin, end in windows:
            pos = begin
            while pos < end:
                match = searcher.search(data, pos, end)
                if match is None:
                    break
                start, stop = match.span(rule.secret_group)
                if rule.word_start and start > 0 and data[start - 1] in _WORD_BYTES:
                    pos = match.start() + 1  # gitleaks' \b: try again one byte on
                    continue
                pos = max(match.end(), match.start() + 1)
                if rule.check is not None:
                    span = rule.check(data, match)
                    if span is None:
                        continue
                    start, stop = span
                if accept(rule, data[start:stop].decode("utf-8", "replace")):
                    yield start, stop


def _local_candidates(
    rule: Rule, windows: list[tuple[int, int]], data: bytes
) -> Iterator[tuple[int, int]]:
    """A local rule's secrets: its regex matched at each keyword, each span once."""
    seen: set[tuple[int, int]] = set()
    for searcher in rule.searchers:
        for begin, _end in windows:
            match = searcher.match(data, begin)
            if match is None:
                continue
            span = rule.check(data, match) if rule.check is not None else match.span()
            if span is None or span in seen:
                continue
            seen.add(span)
            if accept(rule, data[span[0] : span[1]].decode("utf-8", "replace")):
                yield span


def prepare(text: str, caller: str) -> tuple[bytes, bytes, dict[bytes, list[int]]]:
    """The text's UTF-8 bytes, lowercased bytes, and keyword hits."""
    if not isinstance(text, str):
        raise TypeError(f"{caller}() expects str, not {type(text).__name__}")
    data = text.encode("utf-8", "surrogatepass")
    lowered = data.lower()
    return data, lowered, keyword_hits(lowered)


def find_secrets(
    data: bytes, lowered: bytes, hits: dict[bytes, list[int]]
) -> Iterator[tuple[int, int, int]]:
    """(start, rule index, end) of every accepted secret, rule by rule."""
    for order, rule in enumerate(RULES):
        windows = _windows(rule, _NEEDLES[order], hits, lowered)
        if not windows:
            continue  # no keyword: the rule's regexes are not even compiled
        for start, stop in _candidates(rule, windows, data):
            yield start, order, stop


# the keywords that mark a token split over lines: the vendor tokens' (a likely
# rule's ``password`` or ``token`` would make every wrapped sentence a tell)
KEYWORD = re.compile(
    _trie(k for rule, n in zip(RULES, _NEEDLES, strict=True) if rule.evades for k in n)
)
KEYWORD_AT = re.compile(KEYWORD.pattern.decode("ascii"), re.IGNORECASE | re.ASCII)
