"""The engine: a rule's regex split into alternatives, each run only where it can match."""

from __future__ import annotations

import heapq
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from core.domain.data import AsData
from core.domain.keywords import Keywords
from core.domain.lazy import LazyRegex
from core.domain.steering.analysis import analysed
from core.domain.steering.branch import _BRANCHES as _BRANCHES
from core.domain.steering.branch import _LAST as _LAST
from core.domain.steering.branch import Seen as Seen
from core.domain.steering.branch import _Branch as _Branch
from core.domain.steering.branch import _Mask as _Mask
from core.domain.steering.compiled import AlternativeSet
from core.domain.steering.gates import MOST_GATES, _fold, _folds_as_is
from core.domain.steering.gates import _alternatives as _alternatives
from core.domain.steering.superset import written

_Lazy = LazyRegex  # (the rules' modules import it from here)
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


#: the most gates an alternative is checked for (see :func:`.gates._checks`)
_SLOTS = MOST_GATES
#: every gate's literals, each with the alternatives whose k-th gate it is in: the bits of
#: an int by number, the gates' bits side by side (``_WIDTH`` bits each: gate k's alternative
#: n is bit ``n + k * width``); and the alternatives that lack a k-th gate, packed so
_PREFILTER: list[Keywords] = [Keywords(())]
_PACKED_LACK = [0]
_WIDTH = [0]
#: each string a finder needs (see :func:`_needing`) that the prefilter looks for, and its
#: bit (above the gates' bits; a text holds it where its fold does, see ``_folds_as_is``)
_LITERAL_BITS: dict[str, int] = {}


def _pack() -> None:
    """:data:`_PREFILTER` from :data:`_BRANCHES` (after alternatives were added)."""
    width = len(_BRANCHES)
    keywords: list[tuple[str, int, bool]] = []
    lack = 0
    for branch in _BRANCHES:
        for k in range(_SLOTS):
            bit = 1 << (branch.number + k * width)
            if k < len(branch.checks):
                keywords += ((literal, bit, start) for literal, start in branch.checks[k])
            else:
                lack |= bit
    for literal in dict.fromkeys(x for strings in _LITERALS.values() for x in strings):
        if literal not in _LITERAL_BITS and _folds_as_is(literal):
            _LITERAL_BITS[literal] = 1 << len(_LITERAL_BITS)
    base = width * _SLOTS
    keywords += ((literal, bit << base, False) for literal, bit in _LITERAL_BITS.items())
    _PREFILTER[0] = Keywords(keywords)
    _PACKED_LACK[0] = lack
    _WIDTH[0] = width
    _SET[0] = _alternative_set()


#: every alternative and the finders' strings in one compiled set (None: not to be had)
_SET: list[AlternativeSet | None] = [None]


def _alternative_set() -> AlternativeSet | None:
    """The compiled set of :data:`_BRANCHES` and :data:`_LITERAL_BITS`; None when RE2 is
    not installed or will not build it (the prefilter answers alone, as before)."""
    try:
        return AlternativeSet(
            [written(b.pattern, int(b.flags)) for b in _BRANCHES], list(_LITERAL_BITS.items())
        )
    except Exception:  # no RE2 here, or it refused the set: the prefilter's way
        return None


def alternatives() -> list[tuple[str, int]]:
    """Every alternative of every gated regex made so far: its pattern and flags."""
    if _PENDING:
        _build_pending()
    return [(b.pattern, int(b.flags)) for b in _BRANCHES]


def _seen(text: str) -> Seen:
    """What the rules ask about ``text``, worked out once: one pass of the prefilter over
    its folded text gives, for each gate, whether it holds, and so the gated alternatives
    whose every gate holds (the only ones that may match)."""
    if _PENDING:  # the first text read: every rule's alternatives are compiled now
        _build_pending()
    last = _LAST[0]
    if last[0] is not text:
        found = None
        compiled = _SET[0]
        if compiled is not None and text.isascii():
            found = compiled.matching(text)
        if found is not None:  # the set read it: its fold is its lower case, aligned
            last = (text, text.lower(), _Mask(found[0]), True, found[1], True)
            _LAST[0] = last
            return last
        folded = _fold(text)
        every = _PREFILTER[0].mask(folded) | _PACKED_LACK[0]
        width = _WIDTH[0]
        candidates = every & (1 << width) - 1
        for k in range(1, _SLOTS):
            candidates &= every >> (k * width)
        # each character folds to one (only U+0130 folds to a run with U+0307 in it, and
        # it folds to "i" here; no character folds to nothing): the lengths say it
        aligned = "\u0307" not in text and len(folded) == len(text)
        last = (text, folded, _Mask(candidates), aligned, every >> (_SLOTS * width), False)
        _LAST[0] = last
    return last


def _candidates(text: str) -> _Mask:
    """The gated alternatives (bits by number) whose every gate holds on ``text`` (or, when
    the compiled set read it, every alternative that may match it)."""
    return _seen(text)[2]


class _Gated:
    """A regex as its top-level alternatives, each compiled alone with the gates its every
    match satisfies (in each gate, one literal is in the match): an alternative whose gates
    do not all hold on the text is not run, and one that runs searches only around those
    literals. Matches come in text order (as ``finditer`` of the whole would give them,
    though two alternatives may both match at one place)."""

    def __init__(self, pattern: str, flags: int = re.IGNORECASE) -> None:
        self.pattern, self.flags = pattern, flags
        self.always: list[_Branch] = []
        self.always_ascii: list[_Branch] = []  # those of them that may match an ASCII text
        self.gated = 0  # the gated alternatives, as bits by number
        #: the same from the first alternative's number on (they are numbered in a row):
        #: a few bits, not the thousands of every rule's
        self.base, self.gated_here = 0, 0
        self.always_here = 0  # the alternatives without gates, so
        #: the last text read, and the alternatives that run on it
        self.last: tuple[str | None, list[_Branch]] = (None, [])
        _PENDING.append(self)  # compiled when the first text is read (see _build_pending)
        _MADE.append(self)

    def _build(self) -> None:
        branches = [_Branch(a, self.flags) for a in analysed(self.pattern, self.flags)]
        self.always = [b for b in branches if not b.checks]
        self.always_ascii = [b for b in self.always if not b.non_ascii]
        for b in branches:
            if b.checks:
                self.gated |= 1 << b.number
        self.base = branches[0].number
        self.gated_here = self.gated >> self.base
        for b in self.always:
            self.always_here |= 1 << (b.number - self.base)

    def live(self, text: str) -> list[_Branch]:
        """The alternatives that run on ``text``: those without gates, then those whose
        gates all hold (by number); none of the others can match."""
        known = self.last
        if known[0] is text:
            return known[1]
        seen = _seen(text)  # first: it compiles what is not compiled yet
        if seen[5]:
            live = self._matching(seen[2] >> self.base)
            self.last = (text, live)
            return live
        maybe = seen[2] >> self.base & self.gated_here
        live = self.always_ascii if text.isascii() else self.always
        if maybe:
            live = live.copy()
            base = self.base - 1
            while maybe:  # the alternatives in the order of their numbers
                low = maybe & -maybe
                maybe ^= low
                branch = _BRANCHES[low.bit_length() + base]
                if not branch.starts_nowhere(seen):
                    live.append(branch)
        self.last = (text, live)
        return live

    def _matching(self, here: int) -> list[_Branch]:
        """The alternatives the compiled set says may match (``here``: its bits from this
        regex's first): those without gates, then the gated ones, by number."""
        live: list[_Branch] = []
        base = self.base - 1
        for maybe in (here & self.always_here, here & self.gated_here):
            while maybe:
                low = maybe & -maybe
                maybe ^= low
                live.append(_BRANCHES[low.bit_length() + base])
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
#: every gated regex made (what ``analysed.json`` holds: :mod:`.analysis`)
_MADE: list[_Gated] = []


def gated_regexes() -> list[tuple[str, int]]:
    """Each gated regex made so far: its pattern and flags."""
    return [(g.pattern, int(g.flags)) for g in _MADE]


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
        _LAST[0] = ("", "", _Mask(0), True, 0, False)
        del _PENDING[: len(made)]


#: the finders that find nothing where their gated regexes cannot match: the regexes
_NEEDS: dict[Finder, tuple[_Gated, ...]] = {}


#: the finders that may find something when one of these strings is in the text
_LITERALS: dict[Finder, tuple[str, ...]] = {}


#: the finders that may find something in a text one of these tests holds for
_WHEN: dict[Finder, tuple[Callable[[str], bool], ...]] = {}


def _needing(
    finder: Finder,
    *inner: Finder | _Gated,
    literals: tuple[str, ...] = (),
    when: tuple[Callable[[str], bool], ...] = (),
) -> Finder:
    """Say that ``finder`` yields only what ``inner`` (finders or gated regexes) find, or
    else only in a text holding one of ``literals`` (as written) or one ``when`` says
    holds it (a test of the text, such as a long run of base64): when none of those can
    match a text, :func:`_may_find` says it finds nothing there either."""
    needs: list[_Gated] = []
    for one in inner:
        if isinstance(one, _Gated):
            needs.append(one)
        elif one in _NEEDS:
            needs += _NEEDS[one]
            literals += _LITERALS.get(one, ())
            when += _WHEN.get(one, ())
        else:
            return finder  # a finder of its own: it always runs
    _NEEDS[finder] = tuple(needs)
    if literals:
        _LITERALS[finder] = literals
    if when:
        _WHEN[finder] = when
    return finder


#: for each finder of :data:`_NEEDS`: its regexes' gated alternatives (bits by number),
#: whether one of their alternatives runs on every text, on every text not all ASCII, and
#: the strings in a text that make it run (:data:`_LITERALS`): those the prefilter does
#: not look for, and the bits of those it does (:data:`_LITERAL_BITS`); and every one of
#: its regexes' alternatives, gated or not (bits by number: the compiled set's answer)
Needs = tuple[int, bool, bool, tuple[str, ...], int, int]
_NEED_BITS: dict[Finder, Needs] = {}


#: the finders that find nothing in an ASCII text (see :func:`_outside_ascii`)
_OUTSIDE_ASCII: set[Finder] = set()


def _outside_ascii(finder: Finder) -> Finder:
    """Say that ``finder`` finds nothing in an ASCII text (what it looks for is a
    character outside ASCII): :func:`_may_find` says so without calling it."""
    _OUTSIDE_ASCII.add(finder)
    return finder


def _need_bits(finder: Finder) -> Needs | None:
    """:data:`_NEED_BITS` of ``finder`` (None for a finder of its own); only once the
    rules are compiled (after :func:`_seen`)."""
    bits = _NEED_BITS.get(finder)
    if bits is None and finder in _OUTSIDE_ASCII:
        bits = _NEED_BITS[finder] = (0, False, True, (), 0, 0)  # it runs on a text not ASCII
    if bits is None:
        needs = _NEEDS.get(finder)
        if needs is None:
            return None
        always = other = False
        mask = every = 0
        for one in needs:
            mask |= one.gated
            every |= one.gated | one.always_here << one.base
            always = always or any(not b.non_ascii for b in one.always)
            other = other or bool(one.always)
        literals = _LITERALS.get(finder, ())
        found = sum(_LITERAL_BITS.get(x, 0) for x in dict.fromkeys(literals))
        rest = tuple(x for x in literals if x not in _LITERAL_BITS)
        bits = _NEED_BITS[finder] = (mask, always, other, rest, found, every)
    return bits


def _may_find(finder: Finder, text: str, ascii: bool | None = None) -> bool:
    """False when ``finder`` surely finds nothing in ``text`` (see :func:`_needing`);
    ``ascii``: whether ``text`` is all ASCII, if the caller knows."""
    seen = _seen(text)  # first: it compiles what is not compiled yet
    bits = _need_bits(finder)
    if bits is None:
        return True
    mask, always, other, literals, found, every = bits
    if seen[5]:  # the compiled set read it: it says which alternatives may match
        held = bool(every & seen[2] or found & seen[4])
    else:
        held = bool(
            always
            or (other and not (text.isascii() if ascii is None else ascii))
            or mask & seen[2]
            or found & seen[4]
        )
    if held:
        return True
    return any(lit in text for lit in literals) or any(test(text) for test in _WHEN.get(finder, ()))


def _regex(pattern: str, flags: int = re.IGNORECASE) -> Finder:
    compiled = _Gated(pattern, flags)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in compiled.finditer(text):
            yield match.start(), match.end()

    _PLAIN[find] = compiled  # its first match is quicker found alone: see .firsts
    return _needing(find, compiled)


#: the gated regex of each finder made by :func:`_regex`
_PLAIN: dict[Finder, _Gated] = {}


def _chain(*finders: Finder) -> Finder:
    def find(text: str) -> Iterator[tuple[int, int]]:
        for finder in finders:
            yield from finder(text)

    return _needing(find, *finders)


_ML = re.IGNORECASE | re.MULTILINE
