"""What every match of a regex needs: the literals read from the stdlib's regex parser."""

from __future__ import annotations

import importlib
import unicodedata
from typing import Any

# -- speed: each alternative runs only when a word it needs is in the text -------------
try:
    _PARSER: Any = importlib.import_module("re._parser")  # the stdlib's own regex parser
except ImportError:  # pragma: no cover - another Python: every alternative always runs
    _PARSER = None
Gate = frozenset[str]  # some one of these literals is in every match (casefolded)
#: a gate as checked: its literals, casefolded, each with whether it starts a word in every
#: match (the text's prefilter, :class:`core.domain.keywords.Keywords`, looks for them)
Check = tuple[tuple[str, bool], ...]


def _fold(text: str) -> str:
    """Casefolded, with the two letters the regex engine folds to "i" that casefold
    does not (so a gate never skips what the regex would match)."""
    folded = text.casefold()
    if folded.isascii():  # neither letter is there
        return folded
    return folded.replace("i\u0307", "i").replace("\u0131", "i")


#: the categories of what casefolding turns a character into (besides itself): letters,
#: circled letters (So), Roman numerals (Nl), and a few combining marks of U+0300-U+036F
_FOLDED_INTO = frozenset(("Ll", "Lu", "Lt", "Lm", "So", "Nl"))


def _folds_as_is(literal: str) -> bool:
    """Whether a text holds ``literal`` exactly where its fold (:func:`_fold`) does: each
    of its characters folds to itself and is what no other character folds to."""
    return _fold(literal) == literal and not any(
        unicodedata.category(ch) in _FOLDED_INTO or "\u0300" <= ch <= "\u036f" for ch in literal
    )


def _usable(gate: Gate) -> bool:
    """A gate worth checking: not too many literals, none a lone Latin letter, digit,
    space or common sign (those are in nearly every text)."""
    return 0 < len(gate) <= _MOST_LITERALS and all(
        len(_plain(x)) >= 2 or not _plain(x).isascii() or _plain(x) in _RARE_SIGNS for x in gate
    )


#: the most literals a gate may have (the prefilter finds any number in one pass)
_MOST_LITERALS = 300
#: signs alone rare enough in prose to gate on
_RARE_SIGNS = frozenset("`")


#: words nearly every text has: a gate of them says little
_COMMON_WORDS = frozenset(
    (
        *("the", "to", "of", "and", "a", "in", "is", "it", "you", "that", "for", "on", "with"),
        *("as", "are", "be", "this", "not", "all", "any", "at", "by", "or", "from", "if", "he"),
        *("she", "they", "we", "an", "do", "can", "will", "use", "run", "set", "add", "so"),
        *("no", "yes", "user"),
    )
)


def _chance(gate: Gate) -> float:
    """A rough chance that a gate holds on a memory's text: short literals are common."""
    plain = {_plain(x) for x in gate}
    if plain & _COMMON_WORDS:
        return 1.0
    miss = 1.0
    for literal in sorted(plain):  # in one order: a product of floats depends on it
        n = len(literal) * (1 if literal.isascii() else 3)
        miss *= 1 - (
            1.0 if n <= 2 else 0.5 if n == 3 else 0.2 if n == 4 else 0.05 if n <= 6 else 0.01
        )
    return 1 - miss


def _best(gates: list[Gate]) -> Gate | None:
    usable = [g for g in gates if _usable(g)]
    return min(usable, key=lambda g: (_chance(g), len(g)), default=None)


def _lead(items: Any) -> str:
    """The literal run an alternative starts with."""
    run = ""
    for op, av in items:
        if str(op) != "LITERAL":
            break
        run += chr(av)
    return run


#: marks a literal that starts a word in every match (its first letters start a word)
_INITIAL = "\x01"


def _plain(literal: str) -> str:
    return literal.lstrip(_INITIAL)


def _nonword_class(av: Any) -> bool:
    """A character class of spaces and other non-word characters only (after one, a
    word starts)."""
    for op, value in av:
        name, what = str(op), str(value)
        if name == "CATEGORY" and what in ("CATEGORY_SPACE", "CATEGORY_NOT_WORD"):
            continue
        if name == "LITERAL" and not chr(value).isalnum() and chr(value) != "_":
            continue
        return False
    return True


def _ends_nonword(items: Any) -> bool:
    """Whether every match of the parsed ``items`` ends in a non-word character."""
    items = list(items)
    if not items:
        return False
    op, av = items[-1]
    name = str(op)
    if name == "LITERAL":
        return not (chr(av).isalnum() or chr(av) == "_")
    if name == "IN":
        return _nonword_class(av)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        return bool(av[0] >= 1) and _ends_nonword(av[2])
    if name == "SUBPATTERN":
        return _ends_nonword(av[-1])
    if name == "ATOMIC_GROUP":
        return _ends_nonword(av)
    if name == "BRANCH":
        return all(_ends_nonword(alt) for alt in av[1])
    return False


def _word_lookbehind(av: Any) -> bool:
    """``(?<![\\w...])``: no word character before."""
    direction, inner = av
    if direction != -1 or len(inner) != 1 or str(inner[0][0]) != "IN":
        return False
    return any(str(v) == "CATEGORY_WORD" for _, v in inner[0][1])


def _required(items: Any, initial: bool = False) -> list[Gate]:  # noqa: C901
    """The gates every match of the parsed ``items`` satisfies: each literal run, and
    what each required group or repeat needs; an alternation needs one of its
    alternatives' best gates (and a run before it joins each alternative's own start:
    the parser turns ``iex|invoke`` into ``i(?:ex|nvoke)``). A literal that starts a word
    in every match (after ``\\b`` or a space) is marked :data:`_INITIAL`."""
    gates: list[Gate] = []
    run, run_initial = "", False

    def mark(literal: str, at_start: bool) -> str:
        return (_INITIAL if at_start else "") + _fold(literal)

    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            if not run:
                run_initial = initial
            run += chr(av)
            initial = not (chr(av).isalnum() or chr(av) == "_")
            continue
        if name == "AT":
            if str(av) in (
                "AT_BOUNDARY",
                "AT_BEGINNING",
                "AT_BEGINNING_LINE",
                "AT_BEGINNING_STRING",
            ):
                initial = initial or not run
            continue  # a boundary consumes nothing: the run goes on
        if name == "BRANCH" and run:
            leads = [_lead(alt) for alt in av[1]]
            if all(leads):
                gates.append(frozenset(mark(run + lead, run_initial) for lead in leads))
        if run:
            gates.append(frozenset({mark(run, run_initial)}))
            run = ""
        if name == "SUBPATTERN":
            gates += _required(av[-1], initial)
            initial = False
        elif name == "ATOMIC_GROUP":
            gates += _required(av, initial)
            initial = False
        elif name == "BRANCH":
            best = [_best(_required(alt, initial)) for alt in av[1]]
            if all(best):
                gates.append(frozenset().union(*(g for g in best if g)))
            initial = False
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, _, item = av
            if lo >= 1:
                gates += _required(item, initial)
            # after it, a word starts if every pass ends in a non-word character (and, when
            # it may not match at all, a word started before it)
            initial = _ends_nonword(item) and (lo >= 1 or initial)
        elif name == "IN":
            initial = _nonword_class(av)
        elif name == "ASSERT_NOT":
            initial = initial or _word_lookbehind(av)
        elif name != "ASSERT":
            initial = False
    if run:
        gates.append(frozenset({mark(run, run_initial)}))
    return gates


def _alternatives(pattern: str) -> list[str]:
    """``pattern`` split at its top-level ``|`` (outside groups, classes and escapes)."""
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


#: the most gates an alternative is checked for (a fourth, the likeliest to hold, rules out
#: few alternatives and costs the prefilter more hits)
MOST_GATES = 3


def _checks(parsed: Any) -> tuple[Check, ...]:
    """The checks for a pattern's usable gates (``parsed`` by the stdlib's parser, or
    None without it), the least likely to hold first."""
    if parsed is None:
        return ()
    found = {g for g in _required(parsed) if _usable(g)}
    kept: list[Gate] = []
    for gate in sorted(found, key=lambda g: (_chance(g), len(g), sorted(g))):
        if not any(_implies(other, gate) for other in kept):  # it would rule out nothing
            kept.append(gate)
    return tuple(tuple(sorted({_checked(x) for x in gate})) for gate in kept[:MOST_GATES])


def _implies(gate: Gate, other: Gate) -> bool:
    """Whether ``other`` holds wherever ``gate`` does: each literal of ``gate`` holds one
    of ``other``'s (where it starts a word, when that one must)."""
    return all(any(_within(small, big) for small in other) for big in gate)


def _within(small: str, big: str) -> bool:
    """Whether a text holding the marked literal ``big`` holds ``small`` (see
    :data:`_INITIAL`): inside it, and at a word's start when ``small`` must be."""
    inner, outer = _plain(small), _plain(big)
    if not small.startswith(_INITIAL):
        return inner in outer
    if big.startswith(_INITIAL) and outer.startswith(inner):
        return True
    at = outer.find(inner, 1)
    while at > 0:
        if not (outer[at - 1].isascii() and (outer[at - 1].isalnum() or outer[at - 1] == "_")):
            return True
        at = outer.find(inner, at + 1)
    return False


def _checked(literal: str) -> tuple[str, bool]:
    """A gate's literal as checked: its text, and whether it is found only where it starts
    a word (marked :data:`_INITIAL`, and its first character a word character: after
    ``\\b``, a literal that opens with a space or a sign follows a word)."""
    plain = _plain(literal)
    return plain, literal.startswith(_INITIAL) and (plain[0].isalnum() or plain[0] == "_")


def _needs_non_ascii(items: Any) -> bool:
    """Whether every match of the parsed ``items`` (compiled without IGNORECASE) holds a
    character outside ASCII: one of them is such a character, or a class of such only."""
    for op, av in items:
        name = str(op)
        if name == "LITERAL" and av >= 128:
            return True
        if name == "IN" and all(
            (str(kind) == "LITERAL" and value >= 128) or (str(kind) == "RANGE" and value[0] >= 128)
            for kind, value in av
        ):
            return True
    return False


#: the assertions after which a word character starts a word
_STARTS = ("AT_BOUNDARY", "AT_BEGINNING", "AT_BEGINNING_LINE", "AT_BEGINNING_STRING")


def _leads(items: Any, initial: bool = False) -> frozenset[str] | None:
    """The literals every match of the parsed ``items`` starts with (casefolded), or None
    when a match may start otherwise; one that starts a word in every match (after ``\\b``
    or ``^``, its first character a word character) is marked :data:`_INITIAL`."""

    def mark(literal: str) -> str:
        folded = _fold(literal)
        word = folded[:1].isalnum() or folded[:1] == "_"
        return _INITIAL + folded if initial and word else folded

    items = list(items)
    for k, (op, av) in enumerate(items):
        name = str(op)
        if name == "AT":
            initial = initial or str(av) in _STARTS
            continue
        if name == "LITERAL":
            run = ""
            for op2, av2 in items[k:]:
                if str(op2) != "LITERAL":
                    break
                run += chr(av2)
            rest = items[k + len(run) :]
            if rest and str(rest[0][0]) == "BRANCH":  # i(?:ex|nvoke): the parser's factoring
                tails = [_lead(alt) for alt in rest[0][1][1]]
                if all(tails):
                    return frozenset(mark(run + tail) for tail in tails)
            return frozenset({mark(run)})
        if name == "SUBPATTERN":
            return _leads(list(av[-1]) + items[k + 1 :], initial)
        if name == "BRANCH":
            found: set[str] = set()
            for alt in av[1]:
                lead = _leads(list(alt) + items[k + 1 :], initial)
                if lead is None:
                    return None
                found |= lead
            return frozenset(found)
        if name in ("MAX_REPEAT", "MIN_REPEAT") and av[0] == 0 and av[1] == 1:
            first = _leads(list(av[2]) + items[k + 1 :], initial)
            then = _leads(items[k + 1 :], initial)
            return first | then if first is not None and then is not None else None
        return None
    return None
