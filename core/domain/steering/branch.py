"""One alternative of a gated regex (:class:`_Branch`), and the last text the engine read.

Every rule's regex is split into its top-level alternatives (:mod:`.engine`); each is a
:class:`_Branch`, numbered in :data:`_BRANCHES` in the order they were made, and runs
only where one of the literals its every match starts with is in the text. What the
engine worked out about the last text (:data:`Seen`) is kept here, beside the
alternatives that read it, so that this module needs nothing from the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from core.domain.steering.analysis import Analysed
from core.domain.steering.gates import _plain

#: the characters a word-start literal may not follow (see :func:`_occurrences`)
_WORD_CHARACTERS = frozenset("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


#: the last text seen (every rule asks about the same one): the text, folded, the gated
#: alternatives whose every gate holds on it (bits by number, see :func:`.engine._seen`), and
#: whether its folded text lines up with it character for character, which of the
#: finders' strings (:data:`.engine._LITERAL_BITS`) it holds, and whether the compiled set read it
#: (:mod:`.compiled`: then the alternatives are every one, gated or not, that may match)
Seen = tuple[str, str, "_Mask", bool, int, bool]


class _Mask(int):
    """A set of alternatives (by number) as the bits of an int: ``number in mask``."""

    __slots__ = ()

    def __contains__(self, number: object) -> bool:
        return isinstance(number, int) and number >= 0 and bool(self >> number & 1)


_LAST: list[Seen] = [("", "", _Mask(0), True, 0, False)]


_BRANCHES: list[_Branch] = []


class _Branch:
    """One alternative: its compiled regex, its checks, and the literals its every match
    starts with."""

    def __init__(self, analysis: Analysed, flags: int) -> None:
        pattern, self.checks, leading, non_ascii = analysis
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None
        marked = leading or frozenset()
        leads = {_plain(lead) for lead in marked}
        self.leads = tuple(sorted(leads)) if leads and all(leads) and len(leads) <= 60 else ()
        #: the leads that start a word wherever a match starts with them (an occurrence
        #: right after an ASCII word character is no place to try)
        self.initial = frozenset(lead for lead in leads if lead not in marked)
        #: whether an ASCII text cannot hold a match
        self.non_ascii = non_ascii
        #: the leads an ASCII text can hold (a folded ASCII text holds no other literal)
        self.ascii_leads = tuple(lead for lead in self.leads if lead.isascii())
        self.number = len(_BRANCHES)
        #: the last text looked at, and its leads in it (see :meth:`present`)
        self.known: tuple[str | None, list[str] | None] = (None, None)
        _BRANCHES.append(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The alternative's regex, compiled the first time it runs: most of a text's
        alternatives are ruled out by their gates and leads, and never compiled."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled

    def present(self, seen: Seen) -> list[str] | None:
        """The leads in the folded text ``seen`` is of, when it lines up with the text
        (None: a match may start anywhere); worked out once a text."""
        if not self.leads or not seen[3]:
            return None
        known = self.known
        if known[0] is seen[0]:
            return known[1]
        folded = seen[1]
        leads = self.ascii_leads if folded.isascii() else self.leads
        present = [lead for lead in leads if lead in folded]
        self.known = (seen[0], present)
        return present

    def starts_nowhere(self, seen: Seen) -> bool:
        """Whether no match can start in the text ``seen`` is of: none of the literals its
        every match starts with is in the folded text, which lines up with the text."""
        return self.present(seen) == []

    def spots(self, text: str) -> Iterable[int] | None:
        """Where in ``text`` a match may start, in order: where one of its leading literals
        is, when the folded text lines up with the text; None: anywhere."""
        last = _LAST[0]
        if last[0] is not text:
            return None
        present = self.present(last)
        if present is None:
            return None
        folded = last[1]
        starts = self.initial
        if len(present) == 1:
            return _occurrences(folded, present[0], present[0] in starts)
        return sorted({i for lead in present for i in _occurrences(folded, lead, lead in starts)})

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every match, as ``finditer`` finds them, trying the regex only at its spots."""
        spots = self.spots(text)
        if spots is None:
            yield from self.compiled.finditer(text)
            return
        done = 0
        compiled = self.compiled
        for i in spots:
            if i < done:
                continue
            match = compiled.match(text, i)
            if match:
                done = max(match.end(), i + 1)
                yield match


def _occurrences(folded: str, literal: str, initial: bool = False) -> Iterator[int]:
    """Where ``literal`` is in ``folded`` (``initial``: only where no ASCII word character
    comes right before it; another character may fold from a separator)."""
    i = folded.find(literal)
    while i >= 0:
        if not initial or i == 0 or folded[i - 1] not in _WORD_CHARACTERS:
            yield i
        i = folded.find(literal, i + 1)
