"""The tells of a hidden token, and the regions around them to normalise.

:func:`find_tells` finds the cheap signs that a token was hidden (a suspicious
non-ASCII character, an escape of a token character, a line break inside what
could be one token); :func:`tell_regions` gives the byte ranges around them
that :func:`core.domain.secrets.normalise.normalised_spans` looks at.
``CLASSES`` sorts bytes for the non-ASCII and base64 searches.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from core.domain.secrets.charsets import (
    ACCENTED_RUN,
    LOOKALIKES,
    TOKEN_CHARS,
    CharTables,
    char_tables,
)
from core.domain.secrets.matching import evading_keywords
from core.domain.secrets.normalise import before_break

if TYPE_CHECKING:
    import ahocorasick_rs

#: bytes normalised either side of a tell: more than the longest token (pypi,
#: ~1000 characters); one hidden all along has tells all along, whose regions
#: chain (a PEM block's region runs on to the block's end)
REGION = 1536
_BLOCK = 1024  # non-ASCII text is decoded and looked at this many bytes at a time
_TELL_GAP = REGION // 4  # tells closer than this to the last one add nothing
_RUN_MAX = 1100  # the longest run of token characters looked at around a line break

# Bytes by class, for the base64 and non-ASCII tells: "A" for the base64 and
# base64url alphabet, "u" for a byte of a non-ASCII character, "x" for the rest.
CLASSES = bytes(
    ord("A") if chr(b) in TOKEN_CHARS and chr(b) not in ".=" else ord("u") if b > 0x7F else ord("x")
    for b in range(256)
)
_HEX_TOKEN = rb"(?:2[BbDdEeFf]|3[0-9Dd]|4[1-9A-Fa-f]|5[0-9AaFf]|6[1-9A-Fa-f]|7[0-9Aa])"
# (inside a run of token characters: ``%4d `` in a format string is no tell)
_URL_TELL = re.compile(
    rb"%(?:" + _HEX_TOKEN + rb"|[C-Fc-f][0-9A-Fa-f]|25[0-9A-Fa-f]{2})"
    rb"(?:(?<=[A-Za-z0-9_.+/=-]...)|(?<=[A-Za-z0-9_.+/=-]...[0-9A-Fa-f]{2})|(?=[A-Za-z0-9_.+/=%-]))"
)
# \u: an ASCII token character, Latin extensions, Greek, Cyrillic, Armenian, the
# scripts with combining marks up to U+1FFF (Hebrew to Tibetan, Cherokee, Latin
# letters with accents), phonetic and general punctuation (invisible characters,
# bidi), letterlike and enclosed forms, variation selectors, BOM, full-width forms,
# a surrogate of plane 1 (mathematical letters, marks); \x and octal: a token
# character.
_ESCAPE_TELL = re.compile(
    rb"\\(?:u(?:00" + _HEX_TOKEN + rb"|00[Aa][Dd]|0[1-9A-Fa-f][0-9A-Fa-f]{2}|1[0-9A-Fa-f]{3}"
    rb"|2[0-4][0-9A-Fa-f]{2}|[Ff][Ee][0-9A-Fa-f]{2}|[Ff][Ff][0-9A-Fa-f]{2}|[Dd]83[0-9A-Fa-f])"
    rb"|U0001[Dd][0-9A-Fa-f]{3}|U000[Ee]0[0-1][0-9A-Fa-f]{2}|U000000"
    + _HEX_TOKEN
    + rb"|x"
    + _HEX_TOKEN
    + rb"|/|0[5-7][0-7]|1[0-7][0-7])|&#(?:[xX][0-9A-Fa-f]{1,6}|[0-9]{1,7});"
)
# A line break after nine token characters, or a token character and a
# separator (a quote, a backslash, `` +``, a space), before a token character; or
# after one token character before nine. First a one-byte look back that most
# line breaks fail (after ``:``, ``)``, ``]``, another line break); then a
# capital or a digit near it: a token's random part has one in any twelve of
# its characters (none in twelve: under 3 in 10,000 for the most lowercase
# family, Hugging Face), prose and most code have none around a line end.
_T = rb"[A-Za-z0-9_.+/=-]"
# A capital or a digit in the twelve bytes before it or the forty after it.
_MIXED_NEAR = rb"(?:(?<![^A-Z0-9]{12}\n)|(?=[^\n]{0,40}[A-Z0-9]))"
_BREAK_TELL = re.compile(
    rb"\n(?<=[A-Za-z0-9_.+/=\-\"'\\ \t\r]\n)"
    # (what both forms below need after the break, first: the cheaper test)
    + rb"(?=[ \t]*(?:\+[ \t]*)?[\"']?%s)" % _T
    + _MIXED_NEAR
    + rb"(?:"
    + rb"(?:(?<=%s{9}\n)|(?<=%s{9}\r\n)|(?<=%s[\"']\n)|(?<=%s[\"']\r\n)" % (_T, _T, _T, _T)
    + rb"|(?<=%s\\\n)|(?<=%s[ \t]\\\n)|(?<=[\"'] \+\n)|(?<=[\"']\+\n)|(?<=%s[ \t]\n))"
    % (_T, _T, _T)
    + rb"[ \t]*(?:\+[ \t]*)?[\"']?(?=%s)" % _T
    + rb"|(?:(?<=%s\n)|(?<=%s\r\n))[ \t]*(?:\+[ \t]*)?[\"']?(?=%s{9}))" % (_T, _T, _T)
)
# A line break escaped in a JSON or Python string, between token characters.
_ESCAPED_BREAK_TELL = re.compile(
    rb"\\n(?<=[A-Za-z0-9_.+/=\-\"' \t]\\n)(?=[ \t]*(?:\+[ \t]*)?[\"']?[A-Za-z0-9_.+/=-])"
    rb"(?:(?<![^A-Z0-9]{12}\\n)|(?=[^\n]{0,40}[A-Z0-9]))"
)
_TOKEN_RUN = re.compile(rb"[A-Za-z0-9_.+/=-]*")
_AFTER_BREAK = re.compile(
    rb"[ \t]*(?:\+[ \t]*)?[\"']?([A-Za-z0-9_.+/=-]{1,%s})" % str(_RUN_MAX).encode()
)


_TOKEN_MIN = 18  # the shortest token any rule takes (sk_live_ and ten characters)

# The two-character keywords are in every other line of code (``key``, ``self.``):
# around a line break they count with the shape of their token only.
_SHORT_KEYWORDS = {b"ey": re.compile(rb"eyj"), b"s.": re.compile(rb"s\.[a-z0-9]{24}")}


# What a token's random part has and a word does not, once its accents are folded.
_MIXED = re.compile(r"[0-9_-]|[a-z][A-Z]|[A-Z]{2}")


# Runs of token characters and the bytes of Latin letters with accents and of
# combining marks (lead bytes C3 to C9, CC, CD and E1, and continuation bytes), as
# long as ``ACCENTED_RUN`` at least: the runs :func:`_combining` looks at, found by
# ``bytes.find`` in the block translated ("r" in a run, "x" not), with no regex
# stepping through every byte of accented prose. One of them counts with a digit,
# an ``_``, or a capital after a letter, an accent between them at most.
_IN_RUN = {ord(c) for c in TOKEN_CHARS} | {*range(0x80, 0xCA), 0xCC, 0xCD, 0xE1}
_RUN_BYTES = bytes(ord("r") if b in _IN_RUN else ord("x") for b in range(256))
_RUN_NEEDLE = b"r" * ACCENTED_RUN
# The lead bytes of the marks outside the Latin blocks (U+0483 on, U+0591 to U+07FF,
# U+0800 to U+FFFF, plane 1): where none is, no mark of ``odd_mark_next`` is.
_ODD_MARK_LEAD = re.compile(rb"[\xd2\xd6-\xdf\xe0-\xf0]")
_TOKEN_LIKE = re.compile(rb"[0-9_]|[A-Za-z](?:[\x80-\xff]{2})?[A-Z]")


def _combining(text: str, block: bytes, tables: CharTables) -> bool:
    """``text`` (``block`` decoded) holds a run of ``ACCENTED_RUN`` token characters,
    accented letters and combining marks, one of them at least, that reads as a token
    once folded (a digit, ``_``, ``-``, two capitals or a capital after a small
    letter): the accents of ``über``, ``café`` or an NFD file name are no tell, those
    on a token are. A mark of another block right after a token character (an
    enclosing circle, a Hebrew point) is a tell on its own."""
    if _ODD_MARK_LEAD.search(block) and tables.odd_mark_next.search(text):
        return True
    runs = block.translate(_RUN_BYTES)
    pos = 0
    while (begin := runs.find(_RUN_NEEDLE, pos)) >= 0:
        pos = runs.find(b"x", begin)
        pos = len(runs) if pos < 0 else pos
        if block[begin:pos].isascii() or not _TOKEN_LIKE.search(block, begin, pos):
            continue
        for word in tables.accented_run.finditer(block[begin:pos].decode("utf-8", "ignore")):
            found = word.group()
            if (tables.mark.search(found) or tables.accented.search(found)) and _MIXED.search(
                tables.mark.sub("", found).translate(tables.one)
            ):
                return True
    return False


def _suspicious(text: str, block: bytes, tables: CharTables) -> bool:
    """``text`` (``block`` decoded) holds a tell: see ``CharTables.suspect``, and
    :func:`_combining`."""
    found = tables.suspect.search(text)
    while found is not None:
        at = found.start()
        if found.group() not in LOOKALIKES or tables.lookalike_next.search(text, at - 1, at + 2):
            return True
        found = tables.suspect.search(text, at + 1)
    if _combining(text, block, tables):
        return True
    # beyond the BMP: tag characters start with F3, the rest with F0
    return (b"\xf0" in block or b"\xf3" in block) and bool(
        tables.suspect_astral.search(text) or tables.odd_mark_next_astral.search(text)
    )


def _unicode_tells(data: bytes, classes: bytes) -> list[int]:
    """Byte positions around suspicious non-ASCII characters.

    From each non-ASCII byte, the next ``_BLOCK`` bytes are decoded and looked at
    at once; then the search goes on after them.
    """
    tables = char_tables()
    tells: list[int] = []
    pos = 0
    while (found := classes.find(b"u", pos)) >= 0:
        begin = max(0, found - 1)  # the ASCII character before, for a look-alike
        pos = found + _BLOCK
        block = data[begin : pos + 3]  # whole characters at the end
        if _suspicious(block.decode("utf-8", "ignore"), block, tables):
            tells += (begin, pos)
    return tells


def _tells(pattern: re.Pattern[bytes], data: bytes) -> list[int]:
    """Where ``pattern`` matches, but one position per ``_TELL_GAP`` bytes at most."""
    tells: list[int] = []
    pos = 0
    while (match := pattern.search(data, pos)) is not None:
        tells.append(match.start())
        pos = match.start() + _TELL_GAP
    return tells


def _run_back(data: bytes, stop: int, limit: int) -> int:
    """How many token characters, ``limit`` at most, end at ``stop``."""
    run = _TOKEN_RUN.match(data[max(0, stop - limit) : stop][::-1])
    return 0 if run is None else run.end()


# What may sit either side of a real line break between a token's two halves (see
# ``before_break`` and ``_AFTER_BREAK``): a '+' that is a token character too is
# taken away with them, which no keyword or shape holds.
_AFTER_SEPARATOR = re.compile(rb"\n[ \t\"'+]+")
_BEFORE_SEPARATOR_REVERSED = re.compile(rb"\n[ \t\"'+\\\r]+")


#: the fewest breaks that may be tells worth a first pass (a few are looked at one by
#: one sooner), and the bytes of lines it looks at at once
_FIRST_PASS_BREAKS = 16
_BLOCK_LINES_BYTES = 4096


@functools.cache
def _keyword_automaton() -> ahocorasick_rs.BytesAhoCorasick:
    """The evading keywords, in the order of :func:`evading_keywords`."""
    import ahocorasick_rs  # the Rust extension: loaded by the first line break looked at

    return ahocorasick_rs.BytesAhoCorasick(evading_keywords())


def _may_break(low: bytes) -> bool:
    """False only when no real line break of ``low`` (lowered bytes) can be a break
    tell: its lines, glued with every separator around each break taken away, hold no
    evading keyword (a short one in its shape). Each pair of runs that
    :func:`_break_tells` joins is in the glued text as it is joined, so a keyword it
    finds is found here (in C: a glue by two substitutions, one Aho-Corasick pass);
    the glue joins more than it does (any two lines), which only says True more."""
    low = _AFTER_SEPARATOR.sub(b"\n", low)
    glued = _BEFORE_SEPARATOR_REVERSED.sub(b"\n", low[::-1])[::-1].replace(b"\n", b"")
    return _holds_keyword(glued)


def _holds_keyword(low: bytes, *, shaped_from: int = 0) -> bool:
    """Whether ``low`` (lowered bytes) holds an evading keyword: every occurrence
    (overlapping ones too) in one Aho-Corasick pass; a short keyword counts only in
    its shape, and only in a text of ``shaped_from`` bytes or more."""
    keywords = evading_keywords()
    for index, start, _end in _keyword_automaton().find_matches_as_indexes(low, overlapping=True):
        shape = _SHORT_KEYWORDS.get(keywords[index])
        if shape is None or (len(low) >= shaped_from and shape.match(low, start)):
            return True
    return False


def _first_pass(data: bytes, found: list[re.Match[bytes]]) -> list[re.Match[bytes]]:
    """The breaks ``found`` (real ones, in order) that lie in blocks of lines (about
    ``_BLOCK_LINES_BYTES`` each, from the line of the first break not yet placed) that
    :func:`_may_break` passes: what a break tell reads lies in the line before it and
    the line after it (runs of token characters end at a line's end), so a block is
    looked at with the line after its last break."""
    kept: list[re.Match[bytes]] = []
    size = len(data)
    i = 0
    while i < len(found):
        begin = data.rfind(b"\n", 0, found[i].start()) + 1
        cut = data.find(b"\n", begin + _BLOCK_LINES_BYTES)  # the block's last break
        end = size if cut < 0 else cut + 1
        reach = data.find(b"\n", end)  # the end of the line after it
        j = i
        while j < len(found) and found[j].start() < end:
            j += 1
        if _may_break(data[begin : size if reach < 0 else reach].lower()):
            kept += found[i:j]
        i = j
    return kept


def _joins_keyword(data: bytes, match: re.Match[bytes]) -> bool:
    """Whether the runs of token characters either side of the break ``match`` found,
    joined, hold a keyword (a short one in its shape)."""
    newline = match.start()
    window = data[max(0, newline - 16) : newline].decode("latin-1")
    stop = before_break(window, len(window))
    if stop < 0:
        return False
    stop += newline - len(window)
    before = _run_back(data, stop, 64)
    if before == 64:  # a long run: look further back
        before = _run_back(data, stop, _RUN_MAX)
    after = _AFTER_BREAK.match(data, newline + len(match.group()))
    if after is None:
        return False
    joined = (data[stop - before : stop] + after.group(1)).lower()
    return _holds_keyword(joined, shaped_from=_TOKEN_MIN)


def _break_tells(data: bytes, pattern: re.Pattern[bytes] = _BREAK_TELL) -> list[int]:
    """Line breaks (``pattern``: real ones, or escaped) inside what could be one token
    split in two: the runs of token characters either side, joined, hold a keyword.
    Many real ones are first sifted by :func:`_first_pass`."""
    found = list(pattern.finditer(data))
    if pattern is _BREAK_TELL and len(found) >= _FIRST_PASS_BREAKS:
        found = _first_pass(data, found)
    tells: list[int] = []
    skip = 0
    for match in found:
        newline = match.start()
        if newline >= skip and _joins_keyword(data, match):
            tells.append(newline)
            skip = newline + _TELL_GAP  # closer ones: this one's region covers them
    return tells


_PEM_END = re.compile(rb"(?i)key(?: block)?-----")
_PEM_MAX = 16 * 1024  # how far a region that holds ``-----`` looks for a PEM block's end


def tell_regions(data: bytes, tells: list[tuple[int, bool]]) -> list[tuple[int, int, bool]]:
    """Byte ranges to normalise: ``REGION`` around each tell, to line ends, merged.

    ``tells`` are (position, is a line break); a region says whether it holds a
    line-break tell (only then are lines joined in it).
    """
    size = len(data)
    regions: list[tuple[int, int, bool]] = []
    for tell, breaks in sorted(tells):
        begin, end = max(0, tell - REGION), min(size, tell + REGION)
        line = data.rfind(b"\n", max(0, begin - 512), begin)
        begin = line + 1 if line >= 0 else begin
        line = data.find(b"\n", end, end + 512)
        end = line if line >= 0 else end
        if data.find(b"-----", begin, end) >= 0:  # a PEM header, maybe: on to its end
            close = _PEM_END.search(data, end - 16, min(size, end + _PEM_MAX))
            end = max(end, close.end()) if close else end
        while 0 < begin < size and 0x80 <= data[begin] < 0xC0:
            begin -= 1  # not inside a character
        while 0 < end < size and 0x80 <= data[end] < 0xC0:
            end += 1
        if regions and begin <= regions[-1][1]:
            last = regions[-1]
            regions[-1] = (last[0], max(end, last[1]), last[2] or breaks)
        else:
            regions.append((begin, end, breaks))
    return regions


def find_tells(data: bytes, classes: bytes) -> tuple[list[int], list[int]]:
    """(tells, line-break tells) of ``data``, byte positions; the breaks sorted.

    ``classes`` is ``data.translate(CLASSES)``.
    """
    tells: list[int] = []
    if not data.isascii():
        tells += _unicode_tells(data, classes)
    if b"%" in data:
        tells += _tells(_URL_TELL, data)
    # one byte is found by memchr, two by a slower search: one first, then two
    backslash = b"\\" in data
    if backslash or (b"&" in data and b"&#" in data):
        tells += _tells(_ESCAPE_TELL, data)
    breaks = _break_tells(data) if b"\n" in data else []
    if backslash and b"\\n" in data:
        breaks += _break_tells(data, _ESCAPED_BREAK_TELL)
    breaks.sort()
    return tells, breaks
