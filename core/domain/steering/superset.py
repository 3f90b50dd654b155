"""A regex rewritten for a byte engine on ASCII text: it matches wherever the regex does.

The compiled multi-pattern engine (:mod:`.compiled`) reads RE2 syntax over bytes; the
rules are Python regexes over ``str``. :func:`superset` writes an alternative, from the
stdlib's parse of it, as a pattern that matches every ASCII text the alternative
matches (and may match more: it is a prefilter, the Python regex confirms). What it
keeps exactly, on an ASCII text: literals, classes, repeats of at most :data:`_MOST`,
alternations, ``\\b`` and ``\\B``, line and string anchors; what it widens: a longer
repeat (unbounded), lookarounds (dropped), a
backreference (its group's pattern again), an atomic group or possessive repeat (as a
plain one), a conditional (either branch). Python's classes are spelled out as they
hold on ASCII (``\\s`` holds U+001C-U+001F too), and a letter outside ASCII that the
regex, ignoring case, takes for an ASCII one (the long s, the Kelvin sign, dotted and
dotless i) is written as that ASCII letter; any other character outside ASCII matches
nothing in an ASCII text.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from core.domain.steering.gates import _PARSER

#: what a class escape holds on an ASCII text, as Python's ``str`` regexes read it
_CATEGORIES = {
    "CATEGORY_DIGIT": "0-9",
    "CATEGORY_SPACE": "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f ",
    "CATEGORY_WORD": "0-9A-Za-z_",
    "CATEGORY_LINEBREAK": "\\n",
}
_NEGATED = {
    "CATEGORY_NOT_DIGIT": "CATEGORY_DIGIT",
    "CATEGORY_NOT_SPACE": "CATEGORY_SPACE",
    "CATEGORY_NOT_WORD": "CATEGORY_WORD",
    "CATEGORY_NOT_LINEBREAK": "CATEGORY_LINEBREAK",
}
#: a class that no ASCII text holds a character of
NOTHING = "[\\x80-\\xff]"
_MAXREPEAT = 4294967295


class Unsupported(ValueError):
    """A construct the rewrite does not know: the alternative is not filtered."""


#: the characters outside ASCII that Python's regexes, ignoring case, take for an ASCII
#: letter (dotted and dotless i, the long s, the Kelvin sign; a test checks every one)
_FOLDING = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}


def _ascii_equivalents(code: int, ignorecase: bool) -> set[int]:
    """The ASCII characters ``chr(code)`` matches in a Python regex (ignoring case or not)."""
    if not ignorecase:
        return {code} if code < 128 else set()
    letter = chr(code).lower() if code < 128 else _FOLDING.get(code, "")
    if not letter.isalpha():
        return {code} if code < 128 else set()
    return {ord(letter), ord(letter.upper())}


def _escaped(code: int) -> str:
    return f"\\x{code:02x}"


def _class_items(items: Any, ignorecase: bool) -> tuple[bool, str]:
    """A class's items as the inside of a byte class: whether it is negated, and its text."""
    negated = False
    out: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negated = True
        elif name == "LITERAL":
            out += (_escaped(c) for c in sorted(_ascii_equivalents(av, ignorecase)))
        elif name == "RANGE":
            low, high = av
            if low < 128:
                out.append(f"{_escaped(low)}-{_escaped(min(high, 127))}")
                if ignorecase:  # the other case of the letters in it
                    out += (
                        _escaped(c)
                        for c in range(128)
                        if chr(c).isalpha() and low <= ord(chr(c).swapcase()) <= min(high, 127)
                    )
            if high >= 128 and ignorecase:
                for x, letter in _FOLDING.items():
                    if low <= x <= high:
                        out += (_escaped(ord(letter)), _escaped(ord(letter.upper())))
        elif name == "CATEGORY":
            what = str(av)
            if what in _CATEGORIES:
                out.append(_CATEGORIES[what])
            elif what in _NEGATED:
                out.append(_complement(_CATEGORIES[_NEGATED[what]]))
            else:
                raise Unsupported(what)
        else:
            raise Unsupported(name)
    return negated, "".join(out)


def _complement(inside: str) -> str:
    """The ASCII characters not in a class's inside (as ranges)."""
    held = re.compile(f"[{inside}]")
    runs: list[str] = []
    start = None
    for c in range(129):
        inside_it = c < 128 and held.match(chr(c)) is not None
        if not inside_it and c < 128 and start is None:
            start = c
        elif (inside_it or c == 128) and start is not None:
            runs.append(
                _escaped(start) if start == c - 1 else f"{_escaped(start)}-{_escaped(c - 1)}"
            )
            start = None
    return "".join(runs)


def _class(items: Any, ignorecase: bool) -> str:
    negated, inside = _class_items(items, ignorecase)
    if negated:
        return f"[^{inside}]" if inside else "[\\x00-\\xff]"
    return f"[{inside}]" if inside else NOTHING


#: the most repetitions written out: a bounded repeat (``[^.\n]{0,40}``) is as many
#: copies in the automaton, and each copy multiplies its states (RE2's cache of them
#: thrashes); past this, a repeat is written unbounded, and at most this many are
#: required (it matches more, never less)
_MOST = 3


def _repeat(lo: int, hi: int) -> str:
    if hi > _MOST:
        hi = _MAXREPEAT
    lo = min(lo, _MOST)
    if hi == _MAXREPEAT:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if lo == 0 and hi == 1:
        return "?"
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"


class _Writer:
    def __init__(self, flags: int) -> None:
        self.groups: dict[int, Any] = {}
        self.flags = flags

    def items(self, items: Any, flags: int) -> str:
        return "".join(self.item(op, av, flags) for op, av in items)

    def item(self, op: Any, av: Any, flags: int) -> str:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN", "AT"):
            return self.one(name, av, flags)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, inner = av
            return f"(?:{self.items(inner, flags)}){_repeat(lo, hi)}"
        if name == "SUBPATTERN":
            group, add, delete, inner = av
            if group is not None:
                self.groups[group] = (inner, flags | add & ~delete)
            return f"(?:{self.items(inner, flags | add & ~delete)})"
        if name == "ATOMIC_GROUP":
            return f"(?:{self.items(av, flags)})"
        if name == "BRANCH":
            return "(?:" + "|".join(self.items(alt, flags) for alt in av[1]) + ")"
        if name in ("ASSERT", "ASSERT_NOT"):
            return ""  # dropped: the rewrite matches more, never less
        if name == "GROUPREF":
            if av not in self.groups:
                raise Unsupported("a reference to a later group")
            inner, inner_flags = self.groups[av]
            return f"(?:{self.items(inner, inner_flags)})"
        if name == "GROUPREF_EXISTS":
            _, yes, no = av
            return f"(?:{self.items(yes, flags)}|{self.items(no, flags) if no else ''})"
        raise Unsupported(name)

    def one(self, name: str, av: Any, flags: int) -> str:
        """An item that matches one character, or an anchor."""
        ignorecase = bool(flags & re.IGNORECASE)
        if name == "LITERAL":
            found = _ascii_equivalents(av, ignorecase)
            if not found:
                return NOTHING
            if len(found) == 1:
                return _escaped(next(iter(found)))
            return "[" + "".join(_escaped(c) for c in sorted(found)) + "]"
        if name == "NOT_LITERAL":
            return _class([(_PARSER.NEGATE, None), (_PARSER.LITERAL, av)], ignorecase)
        if name == "ANY":
            return "[\\x00-\\xff]" if flags & re.DOTALL else "[^\\n]"
        if name == "IN":
            return _class(av, ignorecase)
        return self.anchor(str(av), flags)

    def anchor(self, what: str, flags: int) -> str:
        multiline = bool(flags & re.MULTILINE)
        if what == "AT_BOUNDARY":
            return "\\b"
        if what == "AT_NON_BOUNDARY":
            return "\\B"
        if what == "AT_BEGINNING_STRING":
            return "\\A"
        if what == "AT_END_STRING":
            return "\\z"
        if multiline != bool(self.flags & re.MULTILINE):
            return ""  # a line anchor under a flag set inside the pattern: dropped (matches more)
        if what == "AT_BEGINNING":
            return "^"
        if what == "AT_END":  # Python's "$" holds before a last newline too; RE2's, only at the end
            return "$" if multiline else "(?:\\n?\\z)"
        return ""


def superset(pattern: str, flags: int) -> str:
    """``pattern`` (its Python ``flags``) as a byte pattern matching, on every ASCII text,
    wherever it matches (see the module's docstring); :class:`Unsupported` when it cannot
    be written so."""
    if _PARSER is None:  # pragma: no cover - another Python
        raise Unsupported("no parser")
    parsed = _PARSER.parse(pattern, flags)
    flags = int(parsed.state.flags)
    written = _Writer(flags).items(parsed, flags)
    return "(?m)" + written if flags & re.MULTILINE else written


#: each alternative's superset, worked out once (``bench/steering_table.py`` writes it; a
#: test checks it is what :func:`superset` gives): parsing ~1,000 alternatives again in
#: each process would cost the first text about half a second
TABLE_FILE = Path(__file__).with_name("supersets.json")
_TABLE: list[dict[tuple[str, int], str | None]] = []


def written(pattern: str, flags: int) -> str | None:
    """:func:`superset` of an alternative, from the table when it holds it; None when it
    cannot be written (it may match any text)."""
    if not _TABLE:
        _TABLE.append(_read(TABLE_FILE))
    key = (pattern, int(flags))
    if key in _TABLE[0]:
        return _TABLE[0][key]
    try:
        return superset(pattern, flags)
    except (Unsupported, re.error):
        return None


def _read(path: Path) -> dict[tuple[str, int], str | None]:
    """The table in ``path``; empty when it is another Python's, or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if _PARSER is None or data["python"] != list(sys.version_info[:2]):
            return {}
        return {
            (str(pattern), int(flags)): None if text is None else str(text)
            for pattern, flags, text in data["supersets"]
        }
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def table_text(alternatives: list[tuple[str, int]]) -> str:
    """``supersets.json``'s text for these alternatives (pattern, flags), one a line."""
    rows = []
    for pattern, flags in dict.fromkeys(alternatives):
        try:
            text: str | None = superset(pattern, flags)
        except (Unsupported, re.error):
            text = None
        rows.append(json.dumps([pattern, flags, text], ensure_ascii=False))
    lines = ",\n".join(rows)
    return f'{{"python": {json.dumps(list(sys.version_info[:2]))}, "supersets": [\n{lines}\n]}}\n'
