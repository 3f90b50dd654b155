"""A regex searched in any string only where it may match: the prefilter of its own."""

from __future__ import annotations

import re
import threading

from core.domain.keywords import Keywords
from core.domain.steering.engine import _SLOTS, _Lazy
from core.domain.steering.gates import _PARSER, _alternatives, _checks, _fold

#: a regex's prefilter: where its bits start in the shared mask, the alternatives lacking
#: a k-th gate (bits packed as the engine packs them), and how many alternatives there are
_Gates = tuple[int, int, int]


class _Filtered:
    """A regex for ``search`` in strings the engine's index was not made for (a sentence
    cut out of the text, say): its top-level alternatives' gates (the literals each of
    their matches holds, :func:`.gates._checks`) are looked for first, and the regex is
    searched only when the gates of one alternative all hold (else none can match). What
    it finds is what the plain regex finds.

    The regexes asked about the same strings share one prefilter (:class:`_Shared`, given
    as ``shared``; one for all by default): one pass over the folded string answers for
    all of them, and the last string read is remembered. Built and compiled the first time
    one is used."""

    def __init__(self, pattern: str, flags: int = 0, shared: _Shared | None = None) -> None:
        self.regex = _Lazy(pattern, flags)
        self.pattern, self.flags = pattern, flags
        self._gates: _Gates | None = None
        self._parts: list[_Lazy] | None = None  # each alternative alone, compiled when used
        self.shared = _SHARED if shared is None else shared
        self.shared.add(self)

    def _candidates(self, text: str) -> int | None:
        """The alternatives whose every gate holds on ``text`` (bits by their place; the
        others cannot match), or None: any may."""
        every = self.shared.mask(text)  # first: it builds every prefilter not built yet
        gates = self._gates
        if gates is None:
            return None
        offset, lack, width = gates
        every = every >> offset | lack
        candidates = every & (1 << width) - 1
        for k in range(1, _SLOTS):
            candidates &= every >> (k * width)
        return candidates

    def may_match(self, text: str) -> bool:
        """False when the regex surely finds nothing in ``text``."""
        return self._candidates(text) != 0

    def search(self, text: str) -> re.Match[str] | None:
        """The regex's first match in ``text`` (its span; the match is an alternative's):
        each alternative that may match is searched alone, and the leftmost match wins,
        on a tie the earlier alternative's, as the whole regex would choose."""
        candidates = self._candidates(text)
        if candidates is None:
            return self.regex.search(text)
        if self._parts is None:
            self._parts = [_Lazy(part, self.flags) for part in _alternatives(self.pattern)]
        best = None
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            found = self._parts[low.bit_length() - 1].search(text)
            if found and (best is None or found.start() < best.start()):
                best = found
        return best


def _keywords(filtered: _Filtered) -> tuple[list[tuple[str, int, bool]], int, int] | None:
    """A regex's gates' literals, each with its bits (alternative ``n``'s k-th gate: bit
    ``n + k * width``), the alternatives lacking a k-th gate, and how many alternatives
    there are; None when an alternative has no gate (it may match anywhere)."""
    if _PARSER is None:  # pragma: no cover - another Python: the regex always runs
        return None
    parts = _alternatives(filtered.pattern)
    checks = [_checks(_PARSER.parse(part, filtered.flags)) for part in parts]
    if not all(checks):
        return None
    width = len(checks)
    keywords: list[tuple[str, int, bool]] = []
    lack = 0
    for number, gates in enumerate(checks):
        for k in range(_SLOTS):
            bit = 1 << (number + k * width)
            if k < len(gates):
                keywords += ((literal, bit, start) for literal, start in gates[k])
            else:
                lack |= bit
    return keywords, lack, width


class _Shared:
    """The prefilter of every :class:`_Filtered`: their gates' literals in one
    :class:`Keywords`, each regex's bits side by side (from its offset), and the mask of
    the last string read."""

    def __init__(self) -> None:
        self.pending: list[_Filtered] = []
        self.keywords: list[tuple[str, int, bool]] = []
        self.offset = 0  # where the next regex's bits start
        self.prefilter = Keywords(())
        self.last: tuple[str | None, int] = (None, 0)
        self._building = threading.Lock()

    def add(self, filtered: _Filtered) -> None:
        with self._building:
            self.pending.append(filtered)

    def _build(self) -> None:
        """Every regex made so far joins the prefilter (which is built anew)."""
        with self._building:
            if not self.pending:
                return
            offset = self.offset
            for filtered in self.pending:
                found = _keywords(filtered)
                if found is None:
                    continue
                keywords, lack, width = found
                self.keywords += ((text, bits << offset, start) for text, bits, start in keywords)
                filtered._gates = (offset, lack, width)
                offset += width * _SLOTS
            self.offset = offset
            self.prefilter = Keywords(self.keywords)
            self.last = (None, 0)
            self.pending = []

    def mask(self, text: str) -> int:
        """The bits of every gate literal in ``text`` (folded), of every regex."""
        if self.pending:
            self._build()
        last = self.last
        if last[0] is not text:
            last = (text, self.prefilter.mask(_fold(text)))
            self.last = last
        return last[1]


_SHARED = _Shared()
