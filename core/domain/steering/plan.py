"""Which rules may fire on a text: worked out once a text from the engine's prefilter."""

from __future__ import annotations

from collections.abc import Callable

from core.domain.steering.engine import _BRANCHES, _WHEN, Finder, Seen, _need_bits, _seen


class _Plan:
    """Which of some finders (the rules') may find something, worked out for a text in a
    few steps rather than a test a finder: those that always run; those that run on a
    text not all ASCII; those that run when a string is in it; and, for each gated
    alternative, the finders that need it (the text's candidates are few). Finders are
    bits of an int by their place (bit ``k``: the ``k``-th finder)."""

    def __init__(self, finders: tuple[Finder, ...]) -> None:
        self.size = len(finders)
        self.on_ascii = 0  # the finders that run on every text
        self.on_other = 0  # and those that run on every text not all ASCII
        self.literals: list[tuple[int, tuple[str, ...]]] = []
        self.found: list[tuple[int, int]] = []  # a finder's strings' bits, and its bit
        #: each test of the text (:data:`_WHEN`) once, with the finders it runs (two rules
        #: may ask the same test: it runs once a text)
        self.when: list[tuple[Callable[[str], bool], int]] = []
        self.by_branch: dict[int, int] = {}  # a gated alternative: the finders needing it
        self.gated = 0
        #: when the compiled set read the text (:mod:`.compiled`): the finders that run on
        #: every text (finders of their own), and for each alternative, gated or not, the
        #: finders that need it
        self.own = 0
        self.by_any: dict[int, int] = {}
        self.every = 0
        tests: dict[Callable[[str], bool], int] = {}
        for k, finder in enumerate(finders):
            bit = 1 << k
            bits = _need_bits(finder)
            if bits is None:
                self.on_ascii |= bit
                self.own |= bit
                continue
            mask, always, other, literals, found, every = bits
            self.every |= every
            _add_bits(self.by_any, every, bit)
            if always:
                self.on_ascii |= bit
            if other:
                self.on_other |= bit
            if literals:
                self.literals.append((bit, literals))
            if found:
                self.found.append((found, bit))
            for test in _WHEN.get(finder, ()):
                tests[test] = tests.get(test, 0) | bit
            if not always:
                self.gated |= mask
                _add_bits(self.by_branch, mask, bit)
        self.on_other |= self.on_ascii
        #: the same, their strings outside ASCII left out: an ASCII text holds none of them
        self.ascii_literals = [
            (bit, ascii) for bit, literals in self.literals if (ascii := _ascii_only(literals))
        ]
        self.when = list(tests.items())
        #: every finder's strings' bits at once (most texts hold none of them)
        self.found_any = 0
        for strings, _ in self.found:
            self.found_any |= strings

    def which(self, text: str, ascii: bool, seen: Seen) -> int:
        """The finders that may find something in ``text`` (``seen``: what :func:`_seen`
        says of it), as bits. A gated alternative that cannot start anywhere in the text
        (:meth:`_Branch.starts_nowhere`) runs no finder."""
        exact = seen[5]  # the compiled set read it: its alternatives are exact
        runs = self.own if exact else self.on_ascii if ascii else self.on_other
        held = seen[4]
        if held & self.found_any:
            for strings, bit in self.found:
                if strings & held:
                    runs |= bit
        for bit, literals in self.ascii_literals if ascii else self.literals:
            if not runs & bit:
                for literal in literals:  # a loop, not any() of a generator: most hold none
                    if literal in text:
                        runs |= bit
                        break
        for test, bits in self.when:
            if runs & bits != bits and test(text):
                runs |= bits
        if exact:
            hits = seen[2] & self.every
            while hits:
                low = hits & -hits
                hits ^= low
                runs |= self.by_any[low.bit_length() - 1]
            return runs
        hits = seen[2] & self.gated
        while hits:
            low = hits & -hits
            hits ^= low
            number = low.bit_length() - 1
            finders = self.by_branch[number]
            if runs & finders != finders and not _BRANCHES[number].starts_nowhere(seen):
                runs |= finders
        return runs


def _ascii_only(literals: tuple[str, ...]) -> tuple[str, ...]:
    """The ASCII strings of ``literals``."""
    return tuple(literal for literal in literals if literal.isascii())


def _add_bits(by_number: dict[int, int], mask: int, bit: int) -> None:
    """Add ``bit`` to each number's entry of ``by_number``, for each number in ``mask``."""
    while mask:
        low = mask & -mask
        mask ^= low
        number = low.bit_length() - 1
        by_number[number] = by_number.get(number, 0) | bit


def _plan(finders: tuple[Finder, ...]) -> _Plan:
    plan = _PLANS.get(finders)
    if plan is None:
        plan = _Plan(finders)
        if len(_PLANS) < 64:  # the rules', and a few others (the tests' rule by rule)
            _PLANS[finders] = plan
    return plan


def _may_finds(finders: tuple[Finder, ...], text: str, ascii: bool) -> list[bool]:
    """:func:`_may_find` of each of ``finders`` on ``text`` (all ASCII or not), at once."""
    runs = _running(finders, text, ascii)
    return [bool(runs >> k & 1) for k in range(len(finders))]


def _running(finders: tuple[Finder, ...], text: str, ascii: bool) -> int:
    """:func:`_may_finds` as the bits of an int (bit ``k``: the ``k``-th finder may find
    something in ``text``)."""
    seen = _seen(text)  # first: it compiles what is not compiled yet
    return _plan(finders).which(text, ascii, seen)


#: the plan of each tuple of finders asked about (the rules' finders)
_PLANS: dict[tuple[Finder, ...], _Plan] = {}
