"""Rewriting a text while recording where it changed, to map positions back.

Each normalising layer is a :func:`rewrite` of its input; the :class:`Edits` it
returns map a position of the output back to the input, and say which kind of
hiding (``via``) a span of the output undid.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable


class Edits:
    """Where one normalising layer changed its input, to map positions back.

    Edit ``k`` replaced input ``[ins[k], ine[k])`` by output ``[outs[k], oute[k])``
    (empty for a deletion); edits are sorted and disjoint, and the text between
    them is copied unchanged.
    """

    __slots__ = ("ine", "ins", "oute", "outs", "vias")

    def __init__(self) -> None:
        self.ins: list[int] = []
        self.ine: list[int] = []
        self.outs: list[int] = []
        self.oute: list[int] = []
        self.vias: list[str] = []

    def start(self, pos: int) -> int:
        """The input position of the output character at ``pos``."""
        k = bisect.bisect_right(self.outs, pos) - 1
        if k < 0:
            return pos
        if pos < self.oute[k]:
            return self.ins[k]
        return self.ine[k] + pos - self.oute[k]

    def end(self, pos: int) -> int:
        """The input position just after the output character at ``pos - 1``."""
        k = bisect.bisect_right(self.outs, pos - 1) - 1
        if k < 0:
            return pos
        if pos - 1 < self.oute[k]:
            return self.ine[k]
        return self.ine[k] + pos - self.oute[k]

    def via(self, start: int, stop: int) -> set[str]:
        """The labels of the edits inside the output span ``[start, stop)``."""
        found: set[str] = set()
        k = bisect.bisect_right(self.oute, start)
        while k < len(self.outs) and self.outs[k] < stop:
            found.add(self.vias[k])
            k += 1
        return found


_Replace = Callable[[str, re.Match[str]], tuple[int, str, str] | None]


def rewrite(text: str, pattern: re.Pattern[str], replace: _Replace) -> tuple[str, Edits]:
    """``text`` with matches of ``pattern`` rewritten, and the edits made.

    ``replace(text, match)`` gives (where the edit starts, at or before the
    match; the new text; its label), or None to leave the match alone.
    """
    edits = Edits()
    pieces: list[str] = []
    piece, ins, ine, outs, oute, vias = (
        pieces.append,
        edits.ins.append,
        edits.ine.append,
        edits.outs.append,
        edits.oute.append,
        edits.vias.append,
    )
    copied = out = 0
    for match in pattern.finditer(text):
        result = replace(text, match)
        if result is None:
            continue
        start, new, via = result
        if start < copied:
            continue
        stop = match.end()
        piece(text[copied:start])
        piece(new)
        out += start - copied
        ins(start)
        ine(stop)
        outs(out)
        out += len(new)
        oute(out)
        vias(via)
        copied = stop
    if not pieces:
        return text, edits
    piece(text[copied:])
    return "".join(pieces), edits
