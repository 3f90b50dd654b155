"""Which of a fixed set of literal keywords a text holds, found in one pass.

A prefilter, as gitleaks runs one before its rules: each rule declares literals that
every match of it contains, one pass over the (normalised) text finds which literals
occur, and only the rules whose literals occur run their regexes. :class:`Keywords`
is that pass and knows no rule: each keyword carries an ``int`` of bits (the caller's
rules, or its rules' gates), and :meth:`Keywords.mask` ORs together the bits of every
keyword found. A keyword may be marked to count only where it begins a word.

The pass is an Aho-Corasick automaton (ahocorasick-rs, Rust's aho-corasick crate), asked
for every occurrence however the keywords overlap: over the steering rules' ~3,000
literals it takes about a tenth of the time a regex of them all (a trie as one
alternation, tried at every position) takes, and over the secret rules' keywords about
half of what pyahocorasick (a C extension) took. The automaton is built the first time a
text is read, not when the keywords are given (a command that never scans pays nothing).
"""

from __future__ import annotations

import re
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
#: a lone surrogate: a ``str`` may hold one, UTF-8 (the automaton's) cannot
_SURROGATE = "[\ud800-\udfff]"
#: the most keywords searched with a DFA (see :meth:`Keywords._build`)
_DFA_MOST = 1000


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
            if re.search(_SURROGATE, text):
                raise ValueError(f"a keyword is UTF-8 text, not {text!r}")
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
        import ahocorasick_rs  # the Rust extension: loaded by the first text read

        # one entry a keyword text: the bits anywhere, the bits at a word start
        entries: dict[str, tuple[int, int]] = {}
        for (text, word_start), bits in self._keywords.items():
            anywhere, starting = entries.get(text, (0, 0))
            if word_start:
                starting |= bits
            else:
                anywhere |= bits
            entries[text] = (anywhere, starting & ~anywhere)
        if not entries:
            return None
        # a DFA searches fastest and, for a few hundred keywords, is built in a millisecond;
        # for thousands it takes tens, and the library's own choice is as fast on short texts
        implementation = ahocorasick_rs.Implementation.DFA if len(entries) <= _DFA_MOST else None
        automaton = ahocorasick_rs.AhoCorasick(list(entries), implementation=implementation)
        texts = tuple(entries)
        search = automaton.find_matches_as_indexes

        def matches(text: str) -> list[tuple[int, int, int]]:
            """Every occurrence: (keyword's number, start, end), by end."""
            try:
                return search(text, overlapping=True)
            except UnicodeEncodeError:  # a lone surrogate: searched as U+FFFD, kept if there
                found = search(re.sub(_SURROGATE, "\ufffd", text), overlapping=True)
                return [m for m in found if text[m[1] : m[2]] == texts[m[0]]]

        # for :meth:`mask`: each keyword's bits after a word character (those it has
        # anywhere), and elsewhere (those and the ones it has at a word start)
        inside = tuple(anywhere for anywhere, _ in entries.values())
        outside = tuple(anywhere | starting for anywhere, starting in entries.values())
        return matches, tuple(entries.values()), texts, inside, outside

    def mask(self, text: str) -> int:
        """The OR of the bits of every keyword that occurs in ``text`` (a word-start
        keyword only where no ASCII word character comes right before it)."""
        automaton = self._automaton or self._built()
        if automaton is None:
            return 0
        search, _, _, inside, outside = automaton
        found, word = 0, _WORD_CHARACTERS
        for number, start, _ in search(text):
            if start and text[start - 1] in word:
                found |= inside[number]
            else:
                found |= outside[number]
        return found

    def find(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Each occurrence of a keyword in ``text`` as ``(start, end, keyword)``, by where
        it ends (a word-start keyword only where it begins a word)."""
        automaton = self._built()
        if automaton is None:
            return
        search, entries, texts, _, _ = automaton
        for number, start, end in search(text):
            if entries[number][0] or start == 0 or text[start - 1] not in _WORD_CHARACTERS:
                yield start, end, texts[number]
