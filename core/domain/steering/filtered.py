"""A regex searched in any string only where it may match: the prefilter of its own."""

from __future__ import annotations

import re
import threading

from core.domain.keywords import Keywords
from core.domain.steering.engine import _SLOTS, _Lazy
from core.domain.steering.gates import _PARSER, _alternatives, _checks, _fold

#: a regex's prefilter: its gates' literals (bits packed as the engine packs them), the
#: alternatives lacking a k-th gate, and how many alternatives there are
_Gates = tuple[Keywords, int, int]


class _Filtered:
    """A regex for ``search`` in strings the engine's index was not made for (a sentence
    cut out of the text, say): its top-level alternatives' gates (the literals each of
    their matches holds, :func:`.gates._checks`) are looked for first, in one pass of a
    prefilter of its own over the folded string, and the regex is searched only when the
    gates of one alternative all hold (else none can match). What it finds is what the
    plain regex finds. Built and compiled the first time it is used."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.regex = _Lazy(pattern, flags)
        self.pattern, self.flags = pattern, flags
        self._gates: _Gates | None = None
        self._built = False
        self._building = threading.Lock()

    def _build(self) -> _Gates | None:
        """The prefilter, or None when an alternative has no gate (it may match anywhere)."""
        if _PARSER is None:  # pragma: no cover - another Python: the regex always runs
            return None
        checks = [_checks(_PARSER.parse(part, self.flags)) for part in _alternatives(self.pattern)]
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
        return Keywords(keywords), lack, width

    def may_match(self, text: str) -> bool:
        """False when the regex surely finds nothing in ``text``."""
        if not self._built:
            with self._building:
                if not self._built:
                    self._gates, self._built = self._build(), True
        gates = self._gates
        if gates is None:
            return True
        keywords, lack, width = gates
        every = keywords.mask(_fold(text)) | lack
        candidates = every & (1 << width) - 1
        for k in range(1, _SLOTS):
            candidates &= every >> (k * width)
        return bool(candidates)

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text) if self.may_match(text) else None
