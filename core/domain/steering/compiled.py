"""One compiled pass over an ASCII text: which of every rule's alternatives can match.

RE2's ``Set`` (google-re2) runs many regexes as one automaton, in time linear in the
text, and says which of them match. Each alternative of the rules is given to it as
:func:`.superset.superset` writes it (a byte pattern that matches wherever the Python
regex does, on an ASCII text), and so is each string a finder needs (a link's "://"):
one pass answers what the keyword prefilter and every alternative's gates answered,
and more exactly (an alternative runs only when it, or the superset of it, matches).
The Python regex still finds the span: the set says only which may match.

Only for ASCII texts up to :data:`LONGEST` characters: another text takes the
prefilter's way. A pattern RE2 will not take is answered "may match" always; and when
the automaton fails (RE2 gives up when its memory runs out) the answer is None and the
caller takes the prefilter's way, never a wrong "no": a pattern that matches every text
is given first, and an answer without it is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.domain.steering.superset import Unsupported, superset

#: the longest text the set reads (a memory is a few hundred characters; a longer text
#: takes the prefilter's way)
LONGEST = 16_384
#: the automaton's memory (RE2's budget for the program and its cache of states)
_MEMORY = 64 << 20


class AlternativeSet:
    """The rules' alternatives and a finder's strings, one RE2 set for all (see the
    module's docstring). ``patterns``: each alternative's superset, by its number (None:
    it may match any text); ``strings``: each string with its bit."""

    def __init__(self, patterns: Sequence[str | None], strings: Sequence[tuple[str, int]]) -> None:
        import re2  # type: ignore[import-untyped]  # the C++ extension: loaded with the rules' regexes, on the first text

        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.max_mem = _MEMORY
        options.log_errors = False
        self._set = re2.Set.SearchSet(options)
        #: what each of the set's patterns says: an alternative's bit, a string's bit
        self._bits: list[tuple[int, int]] = []
        self.always = 0  # the alternatives the set cannot answer for
        self._add("", (0, 0))  # matches every text: an answer without it is no answer
        for number, pattern in enumerate(patterns):
            if pattern is None or not self._add(pattern, (1 << number, 0)):
                self.always |= 1 << number
        for string, bit in strings:
            text = superset(re.escape(string), re.IGNORECASE)
            if not self._add(text, (0, bit)):
                raise Unsupported(string)
        self._set.Compile()
        self._match = self._set.Match

    def _add(self, pattern: str, bits: tuple[int, int]) -> bool:
        try:
            index = self._set.Add(pattern.encode("latin-1"))
        except Exception:  # re2.error, or a pattern RE2 will not take
            return False
        assert index == len(self._bits)
        self._bits.append(bits)
        return True

    def matching(self, text: str) -> tuple[int, int] | None:
        """For an ASCII ``text``: the alternatives that may match it (bits by number) and
        the strings in it (their bits); None when the set cannot say."""
        if len(text) > LONGEST:
            return None
        found: Any = self._match(text.encode("ascii"))
        if not found or 0 not in found:
            return None
        bits = self._bits
        alternatives, strings = self.always, 0
        for index in found:
            alternative, string = bits[index]
            alternatives |= alternative
            strings |= string
        return alternatives, strings
