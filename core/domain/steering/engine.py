"""The engine: a rule's regex split into alternatives, each run only where it can match."""

from __future__ import annotations

import heapq
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from core.domain.data import AsData
from core.domain.steering.gates import (
    _PARSER,
    _WORD_STARTS,
    Check,
    _alternatives,
    _checks,
    _fold,
    _leads,
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
#: (characters, words' first letters), the literals looked for in it, the alternatives
#: whose first gates' keys are in it, and whether its folded text lines up with it
#: character for character
Seen = tuple[str, str, set[str], dict[str, bool], set[int], bool]
_LAST: list[Seen] = [("", "", set(), {}, set(), True)]
#: for the first three gates of the alternatives: each key, and the alternatives (by number)
#: whose gate holds it; and, for each of those gates, the alternatives that lack it
_BY_KEY: tuple[dict[str, list[int]], ...] = ({}, {}, {})
_KEYS: tuple[set[str], ...] = (set(), set(), set())
_LACK: tuple[set[int], ...] = (set(), set(), set())


def _seen(text: str) -> Seen:
    if _PENDING:  # the first text read: every rule's alternatives are compiled now
        _build_pending()
    last = _LAST[0]
    if last[0] is not text:
        folded = _fold(text)
        grams = set(folded)  # one character: a character key; two to four: a word's start
        for starts in _WORD_STARTS:
            grams.update(starts.findall(folded))
        candidates: set[int] | None = None
        for keys, by_key, lack in zip(_KEYS, _BY_KEY, _LACK, strict=True):
            into = lack.union(*map(by_key.__getitem__, keys & grams))
            candidates = into if candidates is None else candidates & into
        aligned = text.isascii() or (
            "\u0307" not in text
            and all(len(_fold(ch)) == 1 for ch in set(text) if not ch.isascii())
        )
        last = (text, folded, grams, {}, candidates or set(), aligned)
        _LAST[0] = last
    return last


def _holds(
    text: str, checks: tuple[Check, ...], indexed: int = 0, last: Seen | None = None
) -> bool:
    """Whether every gate holds on ``text``: some literal of each is in it (the first
    ``indexed`` gates' keys are known to be there: a gate whose keys are its literals
    holds then). ``last``: what :func:`_seen` just gave for ``text``, if the caller has it."""
    if not checks:
        return True
    _, folded, grams, seen, _, _ = last if last is not None else _seen(text)
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
        self.number = len(_BRANCHES)
        _BRANCHES.append(self)
        for k, (by_key, every, lack) in enumerate(zip(_BY_KEY, _KEYS, _LACK, strict=True)):
            if k >= len(self.checks):
                lack.add(self.number)
                continue
            for key in self.checks[k][0]:  # keys, by_key, exact
                by_key.setdefault(key, []).append(self.number)
                every.add(key)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every match, as ``finditer`` finds them; when the folded text lines up with the
        text, the regex is tried only where one of its leading literals is."""
        last = _LAST[0]
        if not self.leads or last[0] is not text or not last[5]:
            yield from self.compiled.finditer(text)
            return
        folded = last[1]
        spots = sorted({i for lead in self.leads for i in _occurrences(folded, lead)})
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
        self.gated: frozenset[int] = frozenset()
        _PENDING.append(self)  # compiled when the first text is read (see _build_pending)

    def _build(self) -> None:
        branches = [_Branch(p, self.flags) for p in _alternatives(self.pattern)]
        self.always = [b for b in branches if not b.checks]
        self.gated = frozenset(b.number for b in branches if b.checks)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        last = _seen(text)  # first: it compiles what is not compiled yet
        maybe = self.gated & last[4]
        runs = [b.finditer(text) for b in self.always]
        if maybe:
            indexed = len(_KEYS)
            runs += [
                b.finditer(text)
                for b in (_BRANCHES[i] for i in sorted(maybe))
                if _holds(text, b.checks, indexed, last)
            ]
        if len(runs) == 1:
            yield from runs[0]
        elif runs:
            yield from heapq.merge(*runs, key=lambda m: (m.start(), m.end()))


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
        _LAST[0] = ("", "", set(), {}, set(), True)
        del _PENDING[: len(made)]


def _regex(pattern: str, flags: int = re.IGNORECASE) -> Finder:
    compiled = _Gated(pattern, flags)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in compiled.finditer(text):
            yield match.start(), match.end()

    return find


def _chain(*finders: Finder) -> Finder:
    def find(text: str) -> Iterator[tuple[int, int]]:
        for finder in finders:
            yield from finder(text)

    return find


_ML = re.IGNORECASE | re.MULTILINE
