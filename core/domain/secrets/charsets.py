"""The characters evasions use: token characters, invisible ones, look-alikes, NFKC.

:func:`char_tables` builds, on the first text that is not ASCII, the tables and
patterns that find a suspicious character and map a hidden token back to ASCII
one character for one (:class:`CharTables`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

TOKEN_CLASS = "A-Za-z0-9_.+/=-"
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+/=-")

# Invisible and format characters: soft hyphen, combining grapheme joiner, Arabic
# letter mark, Hangul fillers, Khmer inherent vowels, Mongolian selectors,
# zero-width space/joiners, LRM/RLM, bidi embeddings, overrides and isolates,
# word joiner and invisible operators, BOM, variation selectors, tags.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
)
_INVISIBLE_ASTRAL = "\U000e0000-\U000e007f\U000e0100-\U000e01ef"

# Combining marks (general categories Mn and Me: accents, enclosing circles, the
# vowel signs and points of other scripts), looked for from U+0300 to the end of
# plane 1. After a token character they are an evasion: ``g\u0301hp_...`` reads as
# an accented letter, and NFKC would compose it rather than drop it.
_MARKS_FROM, _MARKS_TO = 0x0300, 0x20000
# The marks a Latin letter takes (looked at in runs, not one by one).
_LATIN_MARKS = ((0x0300, 0x0370), (0x1AB0, 0x1B00), (0x1DC0, 0x1E00))
# Where a letter with its accents precomposed (``á``, ``ё``) decomposes (NFD) to a
# token character or a look-alike and marks: Latin-1 to Latin Extended-B, Greek,
# Cyrillic, Latin Extended Additional.
_ACCENTED_RANGES = ((0x00C0, 0x0250), (0x0370, 0x0530), (0x1E00, 0x1F00))
#: the shortest run of token characters, accented letters and marks that is a
#: combining tell (with a digit, ``_``, ``-`` or two capitals, or a capital after a
#: small letter, once folded): no prose word, most tokens' random parts
ACCENTED_RUN = 16

# Letters that look like ASCII ones in common fonts (Cyrillic, Greek, Armenian,
# Cherokee, a few Latin). NFKC leaves them alone; a person reading does not.
LOOKALIKES: dict[str, str] = {
    # Cyrillic
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c",
    "\u0443": "y", "\u0445": "x", "\u043a": "k", "\u0455": "s", "\u0456": "i",
    "\u0458": "j", "\u04bb": "h", "\u0501": "d", "\u051b": "q", "\u051d": "w",
    "\u04cf": "l", "\u04af": "y", "\u0410": "A", "\u0412": "B", "\u0415": "E",
    "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O", "\u0420": "P",
    "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0423": "Y", "\u0405": "S",
    "\u0406": "I", "\u0408": "J", "\u051a": "Q", "\u051c": "W", "\u04c0": "I",
    "\u04ba": "H", "\u04ae": "Y", "\u0500": "D",
    # Greek
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H",
    "\u0399": "I", "\u039a": "K", "\u039c": "M", "\u039d": "N", "\u039f": "O",
    "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X", "\u03bf": "o",
    "\u03bd": "v", "\u03b1": "a", "\u03b9": "i", "\u03ba": "k", "\u03c1": "p",
    "\u03c5": "u", "\u03c7": "x", "\u03f2": "c", "\u03f3": "j", "\u03f9": "C",
    "\u03d2": "Y", "\u03b5": "e",
    # Armenian
    "\u0585": "o", "\u057d": "u", "\u0570": "h", "\u0578": "n", "\u0581": "g",
    "\u0566": "q", "\u054f": "S", "\u0555": "O", "\u054d": "U",
    # Cherokee
    "\u13aa": "A", "\u13ac": "E", "\u13bb": "H", "\u13ab": "J", "\u13e6": "K",
    "\u13b7": "M", "\u13e2": "P", "\u13da": "S", "\u13a2": "T", "\u13b3": "W",
    "\u13c3": "Z", "\u13df": "C", "\u13a0": "D", "\u13c0": "G", "\u13de": "L",
    "\u13a1": "R", "\u13f4": "B", "\u13d9": "V",
    # Latin
    "\u0131": "i", "\u0237": "j", "\u0261": "g", "\u0251": "a",
}  # fmt: skip

# Where NFKC maps a character to token characters: full-width forms,
# mathematical alphanumerics, circled and squared letters, super- and
# subscripts, letterlike symbols, ligatures, small forms, CJK compatibility.
_NFKC_RANGES = (
    (0x00A0, 0x0250), (0x02B0, 0x0300), (0x1D00, 0x1DC0), (0x2000, 0x2C00),
    (0x2C7C, 0x2C7E), (0x3000, 0x3400), (0xA770, 0xA771), (0xFB00, 0xFB07),
    (0xFE10, 0xFE70), (0xFF00, 0xFFF0), (0x1D400, 0x1D800), (0x1F100, 0x1F200),
    (0x1FBF0, 0x1FBFA),
)  # fmt: skip


def _char_class(chars: Iterable[str]) -> tuple[str, str]:
    """Regex class bodies for ``chars`` as ranges: (the BMP ones, the others).

    Apart, because a class holding a character beyond U+FFFF is no bitmap to
    ``re`` but a list it walks for every character of the text.
    """
    codes = sorted({ord(c) for c in chars})
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])

    def body(part: list[list[int]]) -> str:
        return "".join(
            re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
            for a, b in part
        )

    return body([r for r in ranges if r[1] < 0x10000]), body([r for r in ranges if r[0] > 0xFFFF])


@dataclass(frozen=True)
class CharTables:
    """Character tables, built on the first text that is not ASCII."""

    #: one character for one: look-alikes and one-character NFKC forms
    one: dict[int, str]
    #: NFKC forms longer than one character (ligatures, squared units, ``⑩``)
    expand: dict[str, str]
    #: combining marks, which the unhide layer drops (``via`` "combining")
    marks: frozenset[str]
    #: the tells that a region must be normalised: an invisible or NFKC-able
    #: character or a look-alike in the BMP (a look-alike counts next to an
    #: ASCII letter: ``lookalike_next``), and the same beyond the BMP
    suspect: re.Pattern[str]
    suspect_astral: re.Pattern[str]
    lookalike_next: re.Pattern[str]
    #: what the unhide layer rewrites: runs of invisible characters, expansions
    #: (``unhide_astral`` also beyond the BMP, for a text that has such characters)
    unhide: re.Pattern[str]
    unhide_astral: re.Pattern[str]
    lookalike: re.Pattern[str]
    nfkc_one: re.Pattern[str]
    #: a combining mark (in the BMP), a precomposed accented letter that
    #: ``one`` folds, and a run of token characters holding either (see
    #: ``ACCENTED_RUN``): the combining tell
    mark: re.Pattern[str]
    #: a mark of another block than Latin accents (U+0300, U+1AB0, U+1DC0) right
    #: after a token character: a tell with no run around it (in the BMP; beyond)
    odd_mark_next: re.Pattern[str]
    odd_mark_next_astral: re.Pattern[str]
    accented: re.Pattern[str]
    accented_run: re.Pattern[str]
    #: the characters ``one`` maps (in the BMP; anywhere)
    swap: re.Pattern[str]
    swap_astral: re.Pattern[str]


def _led(*alternatives: tuple[str, str]) -> str:
    """``[A]+|[B]+|[C]|...`` (each a character class and ``+`` or not; the empty ones
    left out), as one class of them all and then which one it was: the same matches,
    but ``re`` skips to the next character of the class in one loop instead of trying
    every alternative at every character."""
    kept = [(chars, more) for chars, more in alternatives if chars]
    which = "|".join(
        f"(?<=[{chars}])[{chars}]*" if more else f"(?<=[{chars}])" for chars, more in kept
    )
    return f"[{''.join(chars for chars, _ in kept)}](?:{which})"


@functools.cache
def char_tables() -> CharTables:
    single: dict[str, str] = {}
    expand: dict[str, str] = {}
    for low, high in _NFKC_RANGES:
        for code in range(low, high):
            char = chr(code)
            form = unicodedata.normalize("NFKC", char)
            if form == char or not form or not all(c in TOKEN_CHARS for c in form):
                continue
            if len(form) == 1:
                single[char] = form
            elif any(c.isalnum() for c in form):  # not the ellipsis: dots carry no keyword
                expand[char] = form
    accented: dict[str, str] = {}
    for low, high in _ACCENTED_RANGES:
        for code in range(low, high):
            char = chr(code)
            form = unicodedata.normalize("NFD", char)
            base = form[0] if form[0] in TOKEN_CHARS else LOOKALIKES.get(form[0], "")
            if len(form) > 1 and base and all(unicodedata.category(c) == "Mn" for c in form[1:]):
                accented[char] = base
    invisible = re.compile(f"[{_INVISIBLE}]")
    marks = {
        chr(code)
        for code in range(_MARKS_FROM, _MARKS_TO)
        if unicodedata.category(chr(code)) in ("Mn", "Me") and not invisible.match(chr(code))
    }  # (an invisible one, such as the grapheme joiner, stays a zero-width tell)
    near, _ = _char_class(LOOKALIKES)
    ascii_token = "A-Za-z0-9_-"
    nfkc, nfkc_astral = _char_class({*single, *expand})
    grow, grow_astral = _char_class(expand)
    one, one_astral = _char_class(single)
    mark, mark_astral = _char_class(marks)
    odd_mark, odd_mark_astral = _char_class(
        m for m in marks if not any(low <= ord(m) < high for low, high in _LATIN_MARKS)
    )
    acc, _ = _char_class(accented)
    run_char = f"[{acc}{mark}{TOKEN_CLASS}]"  # (its "-" last: no range)
    run = f"(?<!{run_char}){run_char}{{{ACCENTED_RUN},}}"
    # (the look-alikes and NFKC forms first: a precomposed letter is never one of them)
    folds = {**accented, **LOOKALIKES, **single}

    def either(*classes: str) -> str:
        return "|".join(f"[{c}]" for c in classes if c)

    return CharTables(
        one={ord(c): a for c, a in folds.items()},
        expand=expand,
        marks=frozenset(marks),
        suspect=re.compile(f"[{_INVISIBLE}{nfkc}{near}]"),
        suspect_astral=re.compile(either(_INVISIBLE_ASTRAL + nfkc_astral)),
        lookalike_next=re.compile(f"[{near}][{ascii_token}]|[{ascii_token}][{near}]"),
        unhide=re.compile(_led((_INVISIBLE, "+"), (mark, "+"), (grow, ""))),
        unhide_astral=re.compile(
            _led(
                (_INVISIBLE, "+"),
                (_INVISIBLE_ASTRAL, "+"),
                (mark, "+"),
                (mark_astral, "+"),
                (grow, ""),
                (grow_astral, ""),
            )
        ),
        lookalike=re.compile(f"[{near}]"),
        nfkc_one=re.compile(either(one, one_astral)),
        mark=re.compile(f"[{mark}]"),
        # (the mark first: rare, it is what ``re`` looks for, not every token character)
        odd_mark_next=re.compile(f"[{odd_mark}](?<=[{ascii_token}].)"),
        odd_mark_next_astral=re.compile(f"[{odd_mark_astral}](?<=[{ascii_token}].)"),
        accented=re.compile(f"[{acc}]"),
        accented_run=re.compile(run),
        swap=re.compile(f"[{near}{one}{acc}]"),
        swap_astral=re.compile(either(near + one + acc, one_astral)),
    )
