"""Which of a fixed set of literal keywords a text holds, found in one pass.

A prefilter, as gitleaks runs one before its rules: each rule declares literals that
every match of it contains, one pass over the (normalised) text finds which literals
occur, and only the rules whose literals occur run their regexes. :class:`Keywords`
is that pass and knows no rule: each keyword carries an ``int`` of bits (the caller's
rules, or its rules' gates), and :meth:`Keywords.mask` ORs together the bits of every
keyword found. A keyword may be marked to count only where it begins a word.

The pass is an Aho-Corasick automaton (pyahocorasick, a C extension): over the
steering rules' ~3,000 literals it takes about a tenth of the time a regex of them all
(a trie as one alternation, tried at every position) takes, and every literal is found
however the literals overlap. The automaton is built the first time a text is read,
not when the keywords are given (a command that never scans pays nothing).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

#: a keyword: its text (as the caller normalised it), its bits, and whether it counts
#: only where it begins a word
Keyword = tuple[str, int, bool]


#: what a word-start keyword may not follow: an ASCII letter, digit or underscore. Only
#: ASCII: a character outside it may normalise from (or to) a separator, so it is taken as
#: one, and a keyword after it counts (a prefilter may let through, never hold back)
_WORD_CHARACTERS = frozenset("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class Keywords:
    """A set of keywords and the one-pass search for them (see the module's docstring).

    ``mask(text)``: the OR of the bits of every keyword in ``text``; ``find(text)``:
    each occurrence as ``(start, end, keyword)``. Both are case-sensitive: the caller
    gives keywords and texts normalised alike (casefolded, lowercased)."""

    def __init__(self, keywords: Iterable[Keyword]) -> None:
        merged: dict[tuple[str, bool], int] = {}
        for text, bits, word_start in keywords:
            if not text:
                raise ValueError("a keyword is never empty")
            merged[text, word_start] = merged.get((text, word_start), 0) | bits
        self._keywords = merged
        self._automaton: Any = None
        self._building = threading.Lock()

    def __len__(self) -> int:
        return len(self._keywords)

    def _built(self) -> Any:
        automaton = self._automaton
        if automaton is None:
            with self._building:
                automaton = self._automaton
                if automaton is None:
                    automaton = self._automaton = self._build()
        return automaton

    def _build(self) -> Any:
        import ahocorasick  # the C extension: loaded by the first text read

        # one entry a keyword text: its length, the bits anywhere, the bits at a word start
        entries: dict[str, tuple[int, int, int]] = {}
        for (text, word_start), bits in self._keywords.items():
            _, anywhere, starting = entries.get(text, (len(text), 0, 0))
            if word_start:
                starting |= bits
            else:
                anywhere |= bits
            entries[text] = (len(text), anywhere, starting & ~anywhere)
        automaton = ahocorasick.Automaton()
        for text, entry in entries.items():
            automaton.add_word(text, entry)
        if entries:
            automaton.make_automaton()
        return automaton

    def mask(self, text: str) -> int:
        """The OR of the bits of every keyword that occurs in ``text`` (a word-start
        keyword only where no ASCII word character comes right before it)."""
        automaton = self._built()
        if not self._keywords:
            return 0
        found, word = 0, _WORD_CHARACTERS
        for end, (length, anywhere, starting) in automaton.iter(text):
            if anywhere:
                found |= anywhere
            # the character before the keyword is at end - length (none when it is negative)
            if starting and (end < length or text[end - length] not in word):
                found |= starting
        return found

    def find(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Each occurrence of a keyword in ``text`` as ``(start, end, keyword)``, by where
        it ends (a word-start keyword only where it begins a word)."""
        automaton = self._built()
        if not self._keywords:
            return
        for end, (length, anywhere, _) in automaton.iter(text):
            start = end - length + 1
            if anywhere or start == 0 or text[start - 1] not in _WORD_CHARACTERS:
                yield start, end + 1, text[start : end + 1]
