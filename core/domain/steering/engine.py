"""The engine: a rule's regex split into alternatives, each run only where it can match."""

from __future__ import annotations

import heapq
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any, Literal

from core.domain.data import AsData
from core.domain.steering.gates import (
    _PARSER,
    _WORD_STARTS,
    Check,
    Key,
    _alternatives,
    _checks,
    _fold,
    _leads,
    _needs_non_ascii,
)

Finder = Callable[[str], Iterator[tuple[int, int]]]
Strength = Literal["strong", "weak"]


@dataclass(frozen=True)
class Flag(AsData):
    """One rule that fired, and where: ``start``/``end`` index the text."""

    rule: str
    family: str
    start: int
    end: int
    shown: str  # the span as a person may read it (invisible characters named)
    why: str


@dataclass(frozen=True)
class Rule:
    id: str
    family: str
    why: str
    find: Finder
    catches: tuple[str, ...]
    misses: tuple[str, ...]
    #: ``strong`` flags alone; ``weak`` only off the user's own words (see :func:`assess`)
    strength: Strength = "strong"


def _alt(*parts: str) -> str:
    return "|".join(parts)


class _Lazy:
    """A regex compiled the first time it is used, not on import (``re.compile`` is what
    the import would spend its time on). It answers as the compiled one does: the first
    call compiles it and puts the compiled regex's own methods on the instance, so that
    every later call goes straight to them."""

    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def compiled(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern, self.flags)
        for name in self._METHODS:  # an instance's attribute hides the class's method
            setattr(self, name, getattr(compiled, name))
        return compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().fullmatch(text, pos, endpos)

    def finditer(
        self, text: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text, pos, endpos)

    def findall(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled().findall(text, pos, endpos)

    def sub(self, repl: str, text: str, count: int = 0) -> str:
        return self.compiled().sub(repl, text, count)


#: the last text seen (every rule asks about the same one): the text, folded, its index
#: (characters, words' first letters, every three characters in a row), the literals looked
#: for in it, the alternatives whose first gates' keys are in it, whether its folded text
#: lines up with it character for character, and (once asked, see :func:`_runnable`) the
#: alternatives whose every gate holds
Seen = tuple[str, str, set[Key], dict[str, bool], "_Mask", bool, list[int | None]]


class _Mask(int):
    """A set of alternatives (by number) as the bits of an int: ``number in mask``."""

    __slots__ = ()

    def __contains__(self, number: object) -> bool:
        return isinstance(number, int) and number >= 0 and bool(self >> number & 1)


_LAST: list[Seen] = [("", "", set(), {}, _Mask(0), True, [None])]
#: for the first three gates of the alternatives: each key, and the alternatives (bits of
#: an int, by number) whose gate holds it; and, for each of those gates, the alternatives
#: that lack it
_BY_KEY: tuple[dict[Key, int], ...] = ({}, {}, {})
_KEYS: tuple[set[Key], ...] = (set(), set(), set())
_LACK: list[int] = [0, 0, 0]
#: the same, by key: each key of any of the three gates, and its alternatives at each
_INDEX: dict[Key, list[int]] = {}
#: the same again, the three gates' bits side by side in one int (``_WIDTH`` bits each, see
#: :func:`_pack`): a text's keys are OR-ed together in one pass
_PACKED: dict[Key, int] = {}
_PACKED_LACK = [0]
_WIDTH = [0]


def _pack() -> None:
    """:data:`_PACKED` from :data:`_INDEX` (after alternatives were added)."""
    width = len(_BRANCHES)
    _PACKED.clear()
    for key, masks in _INDEX.items():
        _PACKED[key] = sum(mask << (k * width) for k, mask in enumerate(masks))
    _PACKED_LACK[0] = sum(mask << (k * width) for k, mask in enumerate(_LACK))
    _WIDTH[0] = width


def _seen(text: str) -> Seen:
    if _PENDING:  # the first text read: every rule's alternatives are compiled now
        _build_pending()
    last = _LAST[0]
    if last[0] is not text:
        folded = _fold(text)
        grams: set[Key] = set(folded)  # one character; two to four: a word's start
        for starts in _WORD_STARTS:
            grams.update(starts.findall(folded))
        grams.update(zip(folded, folded[1:], folded[2:], strict=False))  # three in a row
        every = reduce(or_, map(_PACKED.__getitem__, _PACKED.keys() & grams), _PACKED_LACK[0])
        width = _WIDTH[0]
        candidates = every & (1 << width) - 1
        for k in range(1, len(_KEYS)):
            candidates &= every >> (k * width)
        # each character folds to one (only U+0130 folds to a run with U+0307 in it, and
        # it folds to "i" here; no character folds to nothing): the lengths say it
        aligned = "\u0307" not in text and len(folded) == len(text)
        last = (text, folded, grams, {}, _Mask(candidates), aligned, [None])
        _LAST[0] = last
    return last


def _runnable(text: str, last: Seen) -> int:
    """The gated alternatives (bits by number) whose every gate holds on ``text`` (the
    candidates of :func:`_seen` that :func:`_holds`), worked out once for the text."""
    box = last[6]
    known = box[0]
    if known is None:
        known, maybe, indexed = 0, last[4] + 0, len(_KEYS)
        while maybe:
            low = maybe & -maybe
            maybe ^= low
            if _holds(text, _BRANCHES[low.bit_length() - 1].checks, indexed, last):
                known |= low
        box[0] = known
    return known


def _holds(
    text: str, checks: tuple[Check, ...], indexed: int = 0, last: Seen | None = None
) -> bool:
    """Whether every gate holds on ``text``: some literal of each is in it (the first
    ``indexed`` gates' keys are known to be there: a gate whose keys are its literals
    holds then). ``last``: what :func:`_seen` just gave for ``text``, if the caller has it."""
    if not checks:
        return True
    _, folded, grams, seen, _, _, _ = last if last is not None else _seen(text)
    for k, (keys, by_key, exact) in enumerate(checks):
        if exact and k < indexed:
            continue
        found = keys & grams
        if not found:
            return False
        for key in found:
            for literal in by_key[key]:
                if literal == key:  # a short word's start, or one character: the key says it
                    break
                held = seen.get(literal)
                if held is None:
                    held = seen[literal] = literal in folded
                if held:
                    break
            else:
                continue
            break
        else:
            return False
    return True


_BRANCHES: list[_Branch] = []


class _Branch:
    """One alternative: its compiled regex, its checks, and the literals its every match
    starts with."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.compiled = re.compile(pattern, flags)
        parsed = _PARSER.parse(pattern, flags) if _PARSER is not None else None
        self.checks = _checks(parsed)
        leads = _leads(parsed) if parsed is not None else None
        self.leads = tuple(sorted(leads)) if leads and all(leads) and len(leads) <= 60 else ()
        #: whether an ASCII text cannot hold a match
        self.non_ascii = (
            parsed is not None and not flags & re.IGNORECASE and _needs_non_ascii(parsed)
        )
        #: the leads an ASCII text can hold (a folded ASCII text holds no other literal)
        self.ascii_leads = tuple(lead for lead in self.leads if lead.isascii())
        self.number = len(_BRANCHES)
        _BRANCHES.append(self)
        bit = 1 << self.number
        for k, (by_key, every) in enumerate(zip(_BY_KEY, _KEYS, strict=True)):
            if k >= len(self.checks):
                _LACK[k] |= bit
                continue
            for key in self.checks[k][0]:  # keys, by_key, exact
                by_key[key] = by_key.get(key, 0) | bit
                every.add(key)
                _INDEX.setdefault(key, [0] * len(_KEYS))[k] |= bit

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every match, as ``finditer`` finds them; when the folded text lines up with the
        text, the regex is tried only where one of its leading literals is."""
        last = _LAST[0]
        if not self.leads or last[0] is not text or not last[5]:
            yield from self.compiled.finditer(text)
            return
        folded = last[1]
        leads = self.ascii_leads if folded.isascii() else self.leads
        present = [lead for lead in leads if lead in folded]
        if not present:
            return
        if len(present) == 1:
            spots: Iterable[int] = _occurrences(folded, present[0])
        else:
            spots = sorted({i for lead in present for i in _occurrences(folded, lead)})
        done = 0
        for i in spots:
            if i < done:
                continue
            match = self.compiled.match(text, i)
            if match:
                done = max(match.end(), i + 1)
                yield match


def _occurrences(folded: str, literal: str) -> Iterator[int]:
    i = folded.find(literal)
    while i >= 0:
        yield i
        i = folded.find(literal, i + 1)


class _Gated:
    """A regex as its top-level alternatives, each compiled alone with the gates its every
    match satisfies (in each gate, one literal is in the match): an alternative whose gates
    do not all hold on the text is not run, and one that runs searches only around those
    literals. Matches come in text order (as ``finditer`` of the whole would give them,
    though two alternatives may both match at one place)."""

    def __init__(self, pattern: str, flags: int = re.IGNORECASE) -> None:
        self.pattern, self.flags = pattern, flags
        self.always: list[_Branch] = []
        self.gated = 0  # the gated alternatives, as bits by number
        #: the last text read, and the alternatives that run on it
        self.last: tuple[str | None, list[_Branch]] = (None, [])
        _PENDING.append(self)  # compiled when the first text is read (see _build_pending)

    def _build(self) -> None:
        branches = [_Branch(p, self.flags) for p in _alternatives(self.pattern)]
        self.always = [b for b in branches if not b.checks]
        for b in branches:
            if b.checks:
                self.gated |= 1 << b.number

    def live(self, text: str) -> list[_Branch]:
        """The alternatives that run on ``text``: those without gates, then those whose
        gates all hold (by number); none of the others can match."""
        known = self.last
        if known[0] is text:
            return known[1]
        last = _seen(text)  # first: it compiles what is not compiled yet
        maybe = self.gated & _runnable(text, last)
        live = [b for b in self.always if not b.non_ascii] if text.isascii() else list(self.always)
        while maybe:  # the alternatives in the order of their numbers
            low = maybe & -maybe
            maybe ^= low
            live.append(_BRANCHES[low.bit_length() - 1])
        self.last = (text, live)
        return live

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        live = self.live(text)
        if not live:
            return
        _seen(text)  # the branches read the folded text (another text may have come between)
        runs = [b.finditer(text) for b in live]
        if len(runs) == 1:
            yield from runs[0]
        elif runs:
            yield from _merged(runs)


def _merged(runs: list[Iterator[re.Match[str]]]) -> Iterator[re.Match[str]]:
    """The runs' matches in text order (by start, then end; on a tie, the earlier run's
    first), as ``heapq.merge`` keyed so gives them, with less work for the first one."""
    heads: list[tuple[int, int, int, re.Match[str], Iterator[re.Match[str]]]] = []
    for order, run in enumerate(runs):
        for match in run:
            heads.append((match.start(), match.end(), order, match, run))
            break
    heapq.heapify(heads)
    while heads:
        _, _, order, match, run = heads[0]
        yield match
        following = next(run, None)
        if following is None:
            heapq.heappop(heads)
        else:
            heapq.heapreplace(heads, (following.start(), following.end(), order, following, run))


#: the gated regexes not compiled yet, in the order they were made
_PENDING: list[_Gated] = []
_BUILDING = threading.Lock()


def _build_pending() -> None:
    """Compile every gated regex made so far, in the order they were made: the engine's
    tables (:data:`_BRANCHES`, the keys' indexes) come out as if each had been compiled
    when it was made, and the cost is paid by the first text read, not by the import.
    The last text seen is forgotten (its candidates were drawn from the tables before);
    :data:`_PENDING` empties only once the tables are whole (another thread waits)."""
    with _BUILDING:
        made = list(_PENDING)
        for gated in made:
            gated._build()
        _pack()
        _LAST[0] = ("", "", set(), {}, _Mask(0), True, [None])
        del _PENDING[: len(made)]


#: the finders that find nothing where their gated regexes cannot match: the regexes
_NEEDS: dict[Finder, tuple[_Gated, ...]] = {}


def _needing(finder: Finder, *inner: Finder | _Gated) -> Finder:
    """Say that ``finder`` yields only what ``inner`` (finders or gated regexes) find: when
    none of those can match a text, :func:`_may_find` says it finds nothing there either."""
    needs: list[_Gated] = []
    for one in inner:
        if isinstance(one, _Gated):
            needs.append(one)
        elif one in _NEEDS:
            needs += _NEEDS[one]
        else:
            return finder  # a finder of its own: it always runs
    _NEEDS[finder] = tuple(needs)
    return finder


#: for each finder of :data:`_NEEDS`: its regexes' gated alternatives (bits by number),
#: and whether one of their alternatives runs on every text, on every text not all ASCII
_NEED_BITS: dict[Finder, tuple[int, bool, bool]] = {}


def _need_bits(finder: Finder) -> tuple[int, bool, bool] | None:
    """:data:`_NEED_BITS` of ``finder`` (None for a finder of its own); only once the
    rules are compiled (after :func:`_seen`)."""
    bits = _NEED_BITS.get(finder)
    if bits is None:
        needs = _NEEDS.get(finder)
        if needs is None:
            return None
        always = other = False
        mask = 0
        for one in needs:
            mask |= one.gated
            always = always or any(not b.non_ascii for b in one.always)
            other = other or bool(one.always)
        bits = _NEED_BITS[finder] = (mask, always, other)
    return bits


def _may_find(finder: Finder, text: str, ascii: bool | None = None) -> bool:
    """False when ``finder`` surely finds nothing in ``text`` (see :func:`_needing`);
    ``ascii``: whether ``text`` is all ASCII, if the caller knows."""
    last = _seen(text)  # first: it compiles what is not compiled yet
    bits = _need_bits(finder)
    if bits is None:
        return True
    mask, always, other = bits
    if always or (other and not (text.isascii() if ascii is None else ascii)):
        return True
    return bool(mask & _runnable(text, last))


def _regex(pattern: str, flags: int = re.IGNORECASE) -> Finder:
    compiled = _Gated(pattern, flags)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in compiled.finditer(text):
            yield match.start(), match.end()

    return _needing(find, compiled)


def _chain(*finders: Finder) -> Finder:
    def find(text: str) -> Iterator[tuple[int, int]]:
        for finder in finders:
            yield from finder(text)

    return _needing(find, *finders)


_ML = re.IGNORECASE | re.MULTILINE
