"""What the engine needs of each alternative of a gated regex, worked out once.

Splitting a rule's regex into its alternatives and reading, with the stdlib's regex
parser, the literals every match of each needs (:mod:`.gates`) is most of what the
detector's first text cost a process (about 1,000 alternatives parsed and walked: a
CLI ``memgov remember`` paid it every time). It depends on nothing but the pattern,
its flags and the parser, so it is kept in ``analysed.json`` beside this module, made
by ``bench/steering_table.py`` and checked by a test to be exactly what
:func:`analyse` gives for every gated regex of the rules. A regex the table does not
hold (a rule changed and the table was not made again), another Python's parser, or
a table that cannot be read: the analysis is worked out here, as before. The table
is part of the package's source, never a store's file.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from core.domain.steering.gates import (
    _PARSER,
    Check,
    _alternatives,
    _checks,
    _leads,
    _needs_non_ascii,
)

#: one alternative: its pattern, its checks, the literals every match of it starts with
#: (marked where they start a word; None: a match may start with anything), and whether
#: a match needs a character that is not ASCII
Analysed = tuple[str, tuple[Check, ...], frozenset[str] | None, bool]
TABLE_FILE = Path(__file__).with_name("analysed.json")
#: the table, once read: (pattern, flags) -> its alternatives
_TABLE: list[dict[tuple[str, int], tuple[Analysed, ...]]] = []


def analyse(pattern: str, flags: int) -> tuple[Analysed, ...]:
    """Each alternative of ``pattern`` with what the engine needs of it, worked out."""
    out: list[Analysed] = []
    for part in _alternatives(pattern):
        parsed = _PARSER.parse(part, flags) if _PARSER is not None else None
        marked = _leads(parsed) if parsed is not None else None
        non_ascii = parsed is not None and not flags & re.IGNORECASE and _needs_non_ascii(parsed)
        out.append((part, _checks(parsed), marked, bool(non_ascii)))
    return tuple(out)


def analysed(pattern: str, flags: int) -> tuple[Analysed, ...]:
    """:func:`analyse` of the regex, from the table when it holds it."""
    if not _TABLE:
        _TABLE.append(_read(TABLE_FILE))
    known = _TABLE[0].get((pattern, int(flags)))
    return known if known is not None else analyse(pattern, flags)


def _read(path: Path) -> dict[tuple[str, int], tuple[Analysed, ...]]:
    """The table in ``path``; empty when it is another Python's, or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if _PARSER is None or data["python"] != list(sys.version_info[:2]):
            return {}
        return {
            (str(pattern), int(flags)): tuple(_entry(part) for part in parts)
            for pattern, flags, parts in data["regexes"]
        }
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _entry(part: list[Any]) -> Analysed:
    pattern, checks, marked, non_ascii = part
    return (
        str(pattern),
        tuple(tuple((str(lit), bool(start)) for lit, start in check) for check in checks),
        None if marked is None else frozenset(str(x) for x in marked),
        bool(non_ascii),
    )


def table_data(regexes: Iterable[tuple[str, int]]) -> dict[str, Any]:
    """The table of these regexes (pattern, flags), as ``analysed.json`` holds it."""
    return {
        "python": list(sys.version_info[:2]),
        "regexes": [
            [
                pattern,
                int(flags),
                [
                    [part, [list(map(list, check)) for check in checks], _listed(marked), na]
                    for part, checks, marked, na in analyse(pattern, flags)
                ],
            ]
            for pattern, flags in dict.fromkeys((p, int(f)) for p, f in regexes)
        ],
    }


def _listed(marked: frozenset[str] | None) -> list[str] | None:
    return None if marked is None else sorted(marked)


def table_text(regexes: Iterable[tuple[str, int]]) -> str:
    """``analysed.json``'s text for these regexes (one regex a line)."""
    data = table_data(regexes)
    lines = ",\n".join(json.dumps(entry, ensure_ascii=False) for entry in data["regexes"])
    return f'{{"python": {json.dumps(data["python"])}, "regexes": [\n{lines}\n]}}\n'
