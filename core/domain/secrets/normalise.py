"""A region of text normalised, scanned again, and its findings mapped back.

Three layers, each a :func:`core.domain.secrets.edits.rewrite`: unescape (runs
of ``%XX``, JSON and Python escapes, HTML character references; only what can
be part of a token), unhide (invisible characters and combining marks dropped,
NFKC expansions, then look-alike, full-width and precomposed accented letters
made ASCII one for one) and join (line
breaks between token characters, in views of their own).
:func:`normalised_spans` scans every view and keeps a finding only where a
layer changed something inside it (otherwise the raw scan has the last word),
as a :data:`Span` of the original bytes.
"""

from __future__ import annotations

import re

from core.domain.secrets.charsets import TOKEN_CHARS, TOKEN_CLASS, CharTables, char_tables
from core.domain.secrets.edits import Edits, rewrite
from core.domain.secrets.matching import find_secrets, keyword_at_pattern, keyword_hits
from core.domain.secrets.rules import RULES

Span = tuple[int, int, int, str]  # start byte, rule index, stop byte, how it was hidden
_VIA_ORDER = ("base64", "url", "escape", "zero-width", "combining", "nfkc", "homoglyph", "split")


# Layer 1, unescape: runs of %XX (UTF-8), JSON and Python escapes, HTML references.
# (each alternative starts with a character, so ``re`` skips to a ``%``, ``\`` or ``&``)
_UNESCAPE = re.compile(
    r"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})*"
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}|\\[0-3][0-7]{2}"
    r"|\\[/\\\"'nrt]"
    r"|&#[xX][0-9a-fA-F]{1,6};|&#[0-9]{1,7};"
)
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_SIMPLE_ESCAPES = {"/": "/", "\\": "\\", '"': '"', "'": "'", "n": "\n", "r": "\r", "t": "\t"}


def _matters(decoded: str, joins: bool = False) -> bool:
    """What an escape decodes to can be part of a hidden token: a token character,
    a suspicious character, or (where lines are joined) a line break; not ``%20``
    or ``\\"``."""
    if not TOKEN_CHARS.isdisjoint(decoded) or (joins and "\n" in decoded):
        return True
    if decoded.isascii():
        return False
    tables = char_tables()
    return bool(
        tables.suspect.search(decoded)
        or tables.suspect_astral.search(decoded)
        or not tables.marks.isdisjoint(decoded)
        or tables.accented.search(decoded)
    )


def _unescape_one(
    text: str, match: re.Match[str], joins: bool = False
) -> tuple[int, str, str] | None:
    """The edit for one escape; ``joins``: line breaks too (``\\n``, ``%0A``)."""
    raw = match.group()
    if raw[0] == "%":
        decoded = bytes.fromhex(raw.replace("%", "")).decode("utf-8", "replace")
        start, stop = match.span()
        if _matters(decoded, joins) or (decoded.endswith("%") and _HEX2.match(text, stop)):
            # (an encoded %: encoded twice, for the second pass; a line break: a split)
            return start, decoded, "split" if decoded.isspace() else "url"
        # a space between two words (``BEGIN%20RSA``), not where a token ends: one
        # that runs into ``%20`` is no token, written or decoded
        inside = start and stop < len(text) and text[start - 1] in TOKEN_CHARS
        return (start, decoded, "url") if inside and text[stop] in TOKEN_CHARS else None
    if raw[0] == "&":
        value = int(raw[3:-1], 16) if raw[2] in "xX" else int(raw[2:-1])
    elif raw[1] == "u" and len(raw) == 12:  # a UTF-16 surrogate pair
        value = 0x10000 + ((int(raw[2:6], 16) - 0xD800) << 10) + int(raw[8:12], 16) - 0xDC00
    elif raw[1] in "uUx":
        value = int(raw[2:], 16)
    elif raw[1].isdigit():
        value = int(raw[1:], 8)
    else:
        decoded = _SIMPLE_ESCAPES[raw[1]]
        # an escaped backslash before an escape: JSON inside JSON, for the second pass
        nested = decoded == "\\" and text[match.end() : match.end() + 1] in ("u", "U", "x", "/")
        if nested or _matters(decoded, joins):
            return match.start(), decoded, "split" if decoded.isspace() else "escape"
        return None
    if not 0 < value <= 0x10FFFF or not _matters(chr(value)):
        return None
    return match.start(), chr(value), "escape"


# Layer 2, unhide: invisible characters dropped, NFKC expansions (then, one for
# one so no position moves, look-alikes and one-character NFKC forms).
def _unhide_one(_text: str, match: re.Match[str]) -> tuple[int, str, str]:
    tables = char_tables()
    expanded = tables.expand.get(match.group())
    if expanded is None:
        return match.start(), "", "combining" if match.group()[0] in tables.marks else "zero-width"
    return match.start(), expanded, "nfkc"


# Layer 3, join: a line break between token characters, with what surrounds it.
_JOIN = re.compile(rf"\n[ \t]*(?:\+[ \t]*)?[\"']?(?=[{TOKEN_CLASS}])")


def before_break(text: str, newline: int) -> int:
    """Where the separator before the line break at ``newline`` starts, or -1.

    The separator is what may sit between a token's first half and the break: a
    closing quote, then a ``+`` or a backslash between spaces, then ``\\r``. -1
    if no token character comes before it, or only spaces end the line.
    """
    k = newline
    if k and text[k - 1] == "\r":
        k -= 1
    spaced = k
    while spaced and text[spaced - 1] in " \t":
        spaced -= 1
    if spaced and (
        text[spaced - 1] == "\\"
        or (text[spaced - 1] == "+" and spaced > 1 and text[spaced - 2] in " \t\"'")
    ):
        k = spaced - 1
        while k and text[k - 1] in " \t":
            k -= 1
    elif spaced != k:
        return -1  # spaces and then the line's end: a phrase ends there, no token
    if k and text[k - 1] in "\"'":
        k -= 1
    return k if k and text[k - 1] in TOKEN_CHARS else -1


def _join_one(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
    start = before_break(text, match.start())
    return None if start < 0 else (start, "", "split")


def _join_unless_keyword(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
    """As ``_join_one``, but not before a line that starts with a keyword: a token
    begins there, and the line before, joined to it, would run into it."""
    if keyword_at_pattern().match(text, match.end()):
        return None
    return _join_one(text, match)


def _unescape_joining(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
    return _unescape_one(text, match, joins=True)


def normalised_spans(data: bytes, begin: int, end: int, breaks: list[int]) -> list[Span]:
    """Evaded secrets in ``data[begin:end]``, normalised: (start, rule, stop, via).

    ``breaks``: the line-break tells in the region (byte positions); with any,
    escaped line breaks are decoded and views with lines joined are scanned too.
    """
    joins = bool(breaks)
    try:
        original = data[begin:end].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return []  # decoded base64 that is not UTF-8 throughout: raw scan only
    unescape = _unescape_joining if joins else _unescape_one
    unescaped, escapes = rewrite(original, _UNESCAPE, unescape)
    layers = [escapes]
    if escapes.ins:  # encoded twice (``%2567``, JSON in JSON): once more, no further
        unescaped, again = rewrite(unescaped, _UNESCAPE, unescape)
        layers.append(again)
    tables = None if unescaped.isascii() else char_tables()
    if tables is None:
        unhidden, hidden, translated = unescaped, Edits(), unescaped
    else:
        astral = max(unescaped, default="") > "\uffff"
        unhide = tables.unhide_astral if astral else tables.unhide
        unhidden, hidden = rewrite(unescaped, unhide, _unhide_one)
        swap = tables.swap_astral if astral else tables.swap
        translated = swap.sub(lambda m: tables.one[ord(m.group())], unhidden)
    # Joined lines are views of their own: joining two lines that each end and
    # start with a token would hide both, and so would joining the line before a
    # token, or after it, to it. So: every break joined (a token over many
    # lines); every break but those before a keyword; only the breaks that told.
    views = [(translated, Edits())]
    if joins and "\n" in translated:
        told = {
            len(data[begin:at].decode("utf-8", "surrogatepass")) for at in breaks if at >= begin
        }

        def only_told(text: str, match: re.Match[str]) -> tuple[int, str, str] | None:
            at = hidden.start(match.start())
            for layer in reversed(layers):
                at = layer.start(at)
            return _join_one(text, match) if at in told else None

        seen: set[str] = set()
        for join in (_join_one, _join_unless_keyword, only_told):
            joined, splits = rewrite(translated, _JOIN, join)
            if splits.ins and joined not in seen:
                seen.add(joined)
                views.append((joined, splits))
    spans: list[Span] = []
    for text, splits in views:
        view = text.encode("utf-8", "surrogatepass")
        lowered = view.lower()
        found = sorted(
            (start, order, stop)
            for start, order, stop in find_secrets(view, lowered, keyword_hits(lowered))
            if order != _PRIVATE_KEY or _key_material(view[start:stop])
        )
        if found:
            spans += _mapped_back(
                found, view, splits, (unhidden, hidden, tables), layers, original, begin
            )
    return spans


_PRIVATE_KEY = [rule.id for rule in RULES].index("private-key")
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/=]")


def _key_material(block: bytes) -> bool:
    """A PEM block's body is base64 (90% at least, for ``Proc-Type:`` lines).

    gitleaks takes any 64 characters as the body; in a normalised view that
    would take code that builds a PEM from pieces (``"-----" + "BEGIN ..."``
    and a variable) for a key.
    """
    head = block.find(b"-----", 5) + 5
    foot = block.rfind(b"-----", head, len(block) - 5)
    body = b"".join(block[head:foot].split())
    return len(body) >= 64 and len(_NOT_BASE64.findall(body)) * 10 <= len(body)


def _mapped_back(
    found: list[tuple[int, int, int]],
    view: bytes,
    splits: Edits,
    unhide: tuple[str, Edits, CharTables | None],
    escapes: list[Edits],
    original: str,
    begin: int,
) -> list[Span]:
    """Spans found in a normalised ``view`` as spans of the original bytes.

    A span no layer changed anything inside is left out: the raw scan saw it.
    """
    unhidden, hidden, tables = unhide
    spans: list[Span] = []
    ascii_view = view.isascii()
    char = byte = 0  # a position in ``original``, in characters and in bytes
    view_char = view_byte = 0  # the same in ``view`` (``found`` is sorted)
    for start, order, stop in found:
        if ascii_view:
            a, b = start, stop
        else:
            view_char += len(view[view_byte:start].decode("utf-8", "surrogatepass"))
            view_byte = start
            a = view_char
            b = a + len(view[start:stop].decode("utf-8", "surrogatepass"))
        vias = splits.via(a, b)
        a, b = splits.start(a), splits.end(b)
        if tables is not None:
            if tables.lookalike.search(unhidden, a, b):
                vias.add("homoglyph")
            if tables.nfkc_one.search(unhidden, a, b):
                vias.add("nfkc")
            if tables.accented.search(unhidden, a, b):
                vias.add("combining")
        vias |= hidden.via(a, b)
        a, b = hidden.start(a), hidden.end(b)
        for layer in reversed(escapes):
            vias |= layer.via(a, b)
            a, b = layer.start(a), layer.end(b)
        if not vias:
            continue  # nothing was hidden here: the raw scan saw it as it is
        via = min(vias, key=_VIA_ORDER.index)
        if a < char:
            char = byte = 0
        byte += len(original[char:a].encode("utf-8", "surrogatepass"))
        length = len(original[a:b].encode("utf-8", "surrogatepass"))
        char = a
        spans.append((begin + byte, order, begin + byte + length, via))
    return spans
