"""The raw scan: rules' keywords found first, then their regexes run where they occur.

:func:`prepare` turns a text into its UTF-8 bytes, lowercased bytes and keyword
hits; :func:`find_secrets` gives every accepted secret, rule by rule, as
(start byte, rule index, stop byte). :func:`keyword_pattern` and
:func:`keyword_at_pattern` match any vendor token's keyword, for the evasion layers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from core.domain.keywords import Keywords
from core.domain.secrets.placeholders import accept
from core.domain.secrets.rules import RULES, Rule

# The most keyword hits of one rule for which its regex runs line by line;
# beyond it, the regex runs once over the whole text (that is cheaper).
_MAX_WINDOWS = 64

# --- keyword prefilter ---------------------------------------------------------
#
# gitleaks finds every keyword in one Aho-Corasick pass, and so does this: the
# lowercased bytes, read as Latin-1 (one character a byte, so offsets stay byte
# offsets), go through :class:`core.domain.keywords.Keywords`, whose automaton is
# built by the first text scanned. A keyword found counts for each of its needles:
# a needle with a ``tail`` only where its tail's regex matches right after it. The
# text is read by stretches, each twice the last: a keyword that counts only up to
# ``_MAX_WINDOWS`` leaves the automaton after the stretch that fills it, so a common
# one (``ey``, ``s.``) costs no Python call a hit past that.


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


def _rules_of() -> dict[bytes, tuple[int, ...]]:
    """The rules (by index in ``RULES``) whose keywords each needle is."""
    found: dict[bytes, list[int]] = {}
    for order, needles in enumerate(_NEEDLES):
        for needle in dict.fromkeys(needles):
            found.setdefault(needle, []).append(order)
    return {needle: tuple(orders) for needle, orders in found.items()}


_RULES_OF = _rules_of()
_LOCAL = {n for rule, needles in zip(RULES, _NEEDLES, strict=True) if rule.local for n in needles}


def _by_keyword() -> dict[str, tuple[tuple[bytes, bool, bool], ...]]:
    """Each keyword (as Latin-1 text) and its needles: (needle, has a tail, local)."""
    found: dict[str, list[tuple[bytes, bool, bool]]] = {}
    for needle in sorted({n for needles in _NEEDLES for n in needles}):
        keyword = _split(needle)[0]
        found.setdefault(keyword.decode("latin-1"), []).append(
            (needle, len(keyword) < len(needle), needle in _LOCAL)
        )
    return {keyword: tuple(needles) for keyword, needles in found.items()}


_BY_KEYWORD = _by_keyword()
#: the keywords that may stop being searched for: every needle of theirs is neither
#: local nor tailed, so past ``_MAX_WINDOWS`` hits their rules run over the whole text
_CAPPED = frozenset(
    k for k, needles in _BY_KEYWORD.items() if not any(n[1] or n[2] for n in needles)
)
_ALL = frozenset(_BY_KEYWORD)
_LONGEST = max((len(k) for k in _BY_KEYWORD), default=1)
#: the automaton of each set of keywords still searched for (built by its first text)
_AUTOMATA: dict[frozenset[str], Keywords] = {}
#: each tailed needle's tail, compiled by the first text that holds its keyword
_TAILS: dict[bytes, re.Pattern[bytes]] = {}
# the first stretch of text searched with every keyword; each next one twice as long,
# up to the last size (a common keyword leaves the search after the stretch that fills it)
_FIRST_STRETCH, _LAST_STRETCH = 8192, 1 << 20


def _automaton(keywords: frozenset[str]) -> Keywords:
    found = _AUTOMATA.get(keywords)
    if found is None:
        if len(_AUTOMATA) >= 64:
            _AUTOMATA.clear()
        found = _AUTOMATA[keywords] = Keywords((k, 1, False) for k in keywords)
    return found


def keyword_hits(lowered: bytes) -> dict[bytes, list[int]]:
    """Where each needle occurs: up to ``_MAX_WINDOWS + 1`` times each (a rule with
    more runs over the whole text), every time for a local rule's. One Aho-Corasick
    pass, by stretches (see above)."""
    hits: dict[bytes, list[int]] = {}
    text = lowered.decode("latin-1")
    active = _ALL
    begin, size, stretch = 0, len(text), _FIRST_STRETCH
    while begin < size and active:
        end = min(size, begin + stretch)
        back = min(begin, _LONGEST - 1)  # a keyword across the boundary ends past it
        full = _record(
            _automaton(active), text[begin - back : end], begin - back, back, lowered, hits
        )
        if full:
            active = active - full
        begin, stretch = end, min(stretch * 2, _LAST_STRETCH)
    return hits


def _record(
    keywords: Keywords,
    piece: str,
    offset: int,
    skip: int,
    lowered: bytes,
    hits: dict[bytes, list[int]],
) -> set[str]:
    """Record the needles found in ``piece`` (at ``offset`` in the text) that end past
    its first ``skip`` characters; the capped keywords now full."""
    full: set[str] = set()
    by_keyword, limit, capped = _BY_KEYWORD, _MAX_WINDOWS, _CAPPED
    for start, stop, keyword in keywords.find(piece):
        if stop <= skip:
            continue  # ended in the stretch before: seen there
        at_ = start + offset
        for needle, tailed, local in by_keyword[keyword]:
            if tailed:
                tail = _TAILS.get(needle)
                if tail is None:
                    tail = _TAILS[needle] = re.compile(_split(needle)[1])
                if tail.match(lowered, at_ + len(keyword)) is None:
                    continue
            at = hits.get(needle)
            if at is None:
                hits[needle] = [at_]
            elif local or len(at) <= limit:
                at.append(at_)
                if len(at) > limit and keyword in capped:
                    full.add(keyword)
    return full


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
    found = {order for needle in hits for order in _RULES_OF[needle]}
    for order in sorted(found):  # a rule none of whose keywords occurs is not even compiled
        rule = RULES[order]
        windows = _windows(rule, _NEEDLES[order], hits, lowered)
        if not windows:
            continue
        for start, stop in _candidates(rule, windows, data):
            yield start, order, stop


@functools.cache
def keyword_pattern() -> re.Pattern[bytes]:
    """Any keyword that marks a token split over lines: the vendor tokens' (a likely
    rule's ``password`` or ``token`` would make every wrapped sentence a tell).
    Compiled by its first use."""
    return re.compile(
        _trie(k for rule, n in zip(RULES, _NEEDLES, strict=True) if rule.evades for k in n)
    )


@functools.cache
def keyword_at_pattern() -> re.Pattern[str]:
    """:func:`keyword_pattern` for a ``str``, in any case."""
    return re.compile(keyword_pattern().pattern.decode("ascii"), re.IGNORECASE | re.ASCII)
