"""The keyword prefilter: where each rule's keywords occur, found in one pass.

gitleaks finds every keyword in one Aho-Corasick pass, and so does this: the
lowercased UTF-8 bytes go through a byte automaton (ahocorasick-rs, Rust's
aho-corasick crate), built by the first text scanned, so offsets are byte offsets
with no decoding. A keyword found counts for each of its *needles*: a needle with
a ``tail`` (a rule's regex that must follow the keyword, on lowercased bytes) only
where its tail matches right after it.

A rule's regex runs only on the lines that hold its keywords' occurrences, so up
to ``MAX_WINDOWS + 1`` occurrences of each needle are kept (a rule with more runs
over the whole text), every one of a ``local`` rule's (its regex is matched at
each). The text is read by stretches, each twice the last: a keyword that counts
only up to ``MAX_WINDOWS`` leaves the automaton after the stretch that fills it,
so a common one (``ey``, ``s.``) costs no Python call a hit past that. Each
automaton keeps, for each of its keywords, what a hit of it does (its needles,
their compiled tails, whether they are local, whether the keyword may leave), so
the loop over the hits does a tuple lookup and, for a tailed needle, one
``re.match``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from core.domain.secrets.rules import RULES, Rule

#: the most keyword hits of one rule for which its regex runs line by line; beyond
#: it, the regex runs once over the whole text (that is cheaper)
MAX_WINDOWS = 64


def _needle(keyword: str, rule: Rule) -> bytes:
    """How a rule's keyword is found: the keyword, or (with a tail) the keyword then
    ``\0`` and the tail, a needle of its own."""
    word = keyword.encode("utf-8")
    return word + b"\0" + rule.tail.encode("utf-8") if rule.tail else word


def split(needle: bytes) -> tuple[bytes, bytes]:
    """A needle's keyword and its tail (empty: none)."""
    keyword, _, tail = needle.partition(b"\0")
    return keyword, tail


_PLAIN_LOCAL = {
    k.encode("utf-8") for rule in RULES if rule.local and not rule.tail for k in rule.keywords
}
#: each rule's keywords as needles, by its index in ``RULES``
KEYWORD_NEEDLES = tuple(
    tuple(
        k.encode("utf-8") if k.encode("utf-8") in _PLAIN_LOCAL else _needle(k, rule)
        for k in rule.keywords
    )
    for rule in RULES
)


def verified(rule: Rule, digest: str) -> bool:
    """Whether ``rule``'s regex is the one a shortcut was worked out for (its digest):
    a rule whose regex changed loses the shortcut, never a finding."""
    return hashlib.sha256(rule.regex.encode("utf-8")).hexdigest()[:16] == digest


# A rule whose keyword is common (``ey``) runs over the whole text once it occurs more
# than ``MAX_WINDOWS`` times. Where no part of a rule's regex matches a line break, each
# match lies on one line, and running it on the lines that hold its matches finds the
# same as running it over the text: so a needle that every match holds, and that is
# rarer, may stand in for its keywords. The JWT's: ``.ey`` (its second part starts
# there); SendGrid's: ``sg.`` with the tail its 66 characters make (``msg.send`` is
# no hit). Each with the digest of the regex it was worked out for.
_NARROWER: dict[str, tuple[str, tuple[bytes, ...]]] = {
    "jwt": ("c7aa0219cc4c6c62", (b".ey",)),
    "sendgrid-api-token": ("66f2451f1f3fa2e5", (b"sg.\0[a-z0-9=_\\-.]{66}",)),
}
#: each rule's needles, by its index in ``RULES``: what the prefilter searches for
NEEDLES = tuple(
    narrower[1] if narrower is not None and verified(rule, narrower[0]) else needles
    for rule, needles, narrower in zip(
        RULES, KEYWORD_NEEDLES, (_NARROWER.get(r.id) for r in RULES), strict=True
    )
)


def _rules_of() -> dict[bytes, tuple[int, ...]]:
    """The rules (by index in ``RULES``) whose keywords each needle is."""
    found: dict[bytes, list[int]] = {}
    for order, needles in enumerate(NEEDLES):
        for needle in dict.fromkeys(needles):
            found.setdefault(needle, []).append(order)
    return {needle: tuple(orders) for needle, orders in found.items()}


RULES_OF = _rules_of()
LOCAL = {n for rule, needles in zip(RULES, NEEDLES, strict=True) if rule.local for n in needles}


def _by_keyword() -> dict[str, tuple[tuple[bytes, bool, bool], ...]]:
    """Each keyword (its UTF-8 bytes read as Latin-1) and its needles: (needle, has a
    tail, local)."""
    found: dict[str, list[tuple[bytes, bool, bool]]] = {}
    for needle in sorted({n for needles in NEEDLES for n in needles}):
        keyword = split(needle)[0]
        found.setdefault(keyword.decode("latin-1"), []).append(
            (needle, len(keyword) < len(needle), needle in LOCAL)
        )
    return {keyword: tuple(needles) for keyword, needles in found.items()}


BY_KEYWORD = _by_keyword()
#: the keywords that may stop being searched for: every needle of theirs is neither
#: local nor tailed, so past ``MAX_WINDOWS`` hits their rules run over the whole text
_CAPPED = frozenset(
    k for k, needles in BY_KEYWORD.items() if not any(n[1] or n[2] for n in needles)
)
_ALL = frozenset(BY_KEYWORD)
_LONGEST = max((len(k) for k in BY_KEYWORD), default=1)
# the first stretch of text searched with every keyword; each next one twice as long,
# up to the last size (a common keyword leaves the search after the stretch that fills it)
_FIRST_STRETCH, _LAST_STRETCH = 8192, 1 << 20

#: a hit's plan: for each needle of its keyword (the needle, its compiled tail's
#: ``match`` or None, local), and the keyword if it may leave the search (else None)
_Match = Callable[[bytes, int], "re.Match[bytes] | None"]
_Plan = tuple[tuple[tuple[bytes, "_Match | None", bool], ...], "str | None"]


class Automaton:
    """The automaton of a set of keywords, and the plan of a hit of each."""

    __slots__ = ("plans", "search")

    def __init__(self, keywords: frozenset[str]) -> None:
        import ahocorasick_rs  # the Rust extension: loaded by the first text read

        words = sorted(keywords)
        automaton = ahocorasick_rs.BytesAhoCorasick(
            [w.encode("latin-1") for w in words],
            implementation=ahocorasick_rs.Implementation.DFA,
        )
        self.search: Callable[..., list[tuple[int, int, int]]] = automaton.find_matches_as_indexes
        self.plans: tuple[_Plan, ...] = tuple(
            (
                tuple(
                    (needle, _tail(needle).match if tailed else None, local)
                    for needle, tailed, local in BY_KEYWORD[word]
                ),
                word if word in _CAPPED else None,
            )
            for word in words
        )


#: the automaton of each set of keywords still searched for (built by its first text)
AUTOMATA: dict[frozenset[str], Automaton] = {}
#: each tailed needle's tail, compiled by the first automaton that holds its keyword
_TAILS: dict[bytes, re.Pattern[bytes]] = {}


def _tail(needle: bytes) -> re.Pattern[bytes]:
    tail = _TAILS.get(needle)
    if tail is None:
        tail = _TAILS[needle] = re.compile(split(needle)[1])
    return tail


def _automaton(keywords: frozenset[str]) -> Automaton:
    found = AUTOMATA.get(keywords)
    if found is None:
        if len(AUTOMATA) >= 64:
            AUTOMATA.clear()
        found = AUTOMATA[keywords] = Automaton(keywords)
    return found


def keyword_hits(lowered: bytes) -> dict[bytes, list[int]]:
    """Where each needle occurs: up to ``MAX_WINDOWS + 1`` times each (a rule with
    more runs over the whole text), every time for a local rule's. One Aho-Corasick
    pass, by stretches (see above)."""
    hits: dict[bytes, list[int]] = {}
    size = len(lowered)
    if size <= _FIRST_STRETCH:  # one stretch: the whole text
        if size:
            _record_all(AUTOMATA.get(_ALL) or _automaton(_ALL), lowered, hits)
        return hits
    active = _ALL
    begin, stretch = 0, _FIRST_STRETCH
    while begin < size and active:
        end = min(size, begin + stretch)
        back = min(begin, _LONGEST - 1)  # a keyword across the boundary ends past it
        full = _record(_automaton(active), lowered, begin - back, end, back, hits)
        if full:
            active = active - full
        begin, stretch = end, min(stretch * 2, _LAST_STRETCH)
    return hits


def _record_all(automaton: Automaton, lowered: bytes, hits: dict[bytes, list[int]]) -> None:
    """:func:`_record` of a text read in one stretch (no keyword leaves the search)."""
    limit, plans = MAX_WINDOWS, automaton.plans
    for number, start, stop in automaton.search(lowered, overlapping=True):
        for needle, tail, local in plans[number][0]:
            if tail is not None and tail(lowered, stop) is None:
                continue
            at = hits.get(needle)
            if at is None:
                hits[needle] = [start]
            elif local or len(at) <= limit:
                at.append(start)


def _record(
    automaton: Automaton,
    lowered: bytes,
    begin: int,
    end: int,
    skip: int,
    hits: dict[bytes, list[int]],
) -> set[str]:
    """Record the needles found in ``lowered[begin:end]`` that end past its first
    ``skip`` bytes; the keywords that may leave, now full."""
    full: set[str] = set()
    limit, plans = MAX_WINDOWS, automaton.plans
    piece = memoryview(lowered)[begin:end]  # (no copy)
    for number, start, stop in automaton.search(piece, overlapping=True):
        if stop <= skip:
            continue  # ended in the stretch before: seen there
        at_ = start + begin
        needles, leaves = plans[number]
        for needle, tail, local in needles:
            if tail is not None and tail(lowered, begin + stop) is None:
                continue
            at = hits.get(needle)
            if at is None:
                hits[needle] = [at_]
            elif local or len(at) <= limit:
                at.append(at_)
                if leaves is not None and len(at) > limit:
                    full.add(leaves)
    return full
