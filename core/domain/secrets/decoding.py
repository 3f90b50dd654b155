"""What a file's bytes say, for a scanner that reads text: every text they hold.

A push carries files as bytes. A token in a UTF-16 or UTF-32 file is no token
to a scan of its bytes as UTF-8 (every other byte is a NUL), nor one in a gzip,
bzip2 or xz file (compressed), nor one among the bytes of a binary file.
:func:`decoded` gives each text to scan, as a :class:`Decoded` that says how it
was decoded:

* a byte order mark: the whole file in its encoding (UTF-8, UTF-16, UTF-32);
* gzip, bzip2, xz or zlib: the bytes decompressed and decoded the same way, down
  to ``LEVELS`` levels (a gzip in a gzip), ``MAX_OUTPUT`` bytes at most: beyond
  that, :class:`TooLarge` (a bomb is refused, never half scanned);
* no NUL byte: the bytes as UTF-8 (invalid bytes replaced);
* NUL bytes: the bytes as UTF-8 too (an ASCII token in a binary file), the
  whole file in each of UTF-16 and UTF-32 (either byte order) in which it
  decodes strictly with no NUL character, and where none does, the runs of
  UTF-8 text (in place of the bytes as UTF-8) and of UTF-16 and UTF-32
  characters found in it (``strings`` for wide characters, each encoding and
  byte order; ``whole`` false: their line numbers are not the file's).

Base64 needs nothing here: the scanner decodes it where it finds it. Nothing is
logged and no exception carries any of the bytes.
"""

from __future__ import annotations

import bz2
import lzma
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LEVELS = 3  # a compressed file in a compressed file, and once more
MAX_OUTPUT = 64 * 1024 * 1024  # the most bytes a compressed file may decompress to

_BOMS = (  # the UTF-32 ones first: FF FE 00 00 starts with UTF-16's FF FE
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_WIDE = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")

# Runs of eight characters or more in a wide encoding, inside binary bytes: in
# UTF-16 a unit whose high byte is 00 (then a printable or non-ASCII low byte), 01
# to 33 (Latin to CJK punctuation: accents, look-alikes, invisible characters) or
# FE, FF (variation selectors, full-width letters); in UTF-32 a unit of planes 0,
# 1 or 14 (tags). Random bytes seldom make one: a unit of UTF-16 one time in five,
# eight in a row one time in 400,000.
_PRINTABLE = rb"[\t\n\r\x20-\x7e\x80-\xff]"
_WIDE_RUNS = {
    "utf-16-le": re.compile(rb"(?:%s\x00|[\x00-\xff][\x01-\x33\xfe\xff]){8,}" % _PRINTABLE),
    "utf-16-be": re.compile(rb"(?:\x00%s|[\x01-\x33\xfe\xff][\x00-\xff]){8,}" % _PRINTABLE),
    "utf-32-le": re.compile(
        rb"(?:%s\x00\x00\x00|[\x00-\xff][\x01-\xff]\x00\x00|[\x00-\xff]{2}[\x01\x0e]\x00){8,}"
        % _PRINTABLE
    ),
    "utf-32-be": re.compile(
        rb"(?:\x00\x00\x00%s|\x00\x00[\x01-\xff][\x00-\xff]|\x00[\x01\x0e][\x00-\xff]{2}){8,}"
        % _PRINTABLE
    ),
}


class TooLarge(Exception):
    """A compressed file decompresses to more than ``MAX_OUTPUT`` bytes."""

    def __init__(self, how: str) -> None:
        super().__init__(f"{how}: more than {MAX_OUTPUT // (1024 * 1024)} MB once decompressed")
        self.how = how


@dataclass(frozen=True)
class Decoded:
    """One text a file's bytes hold, and how it was decoded (empty: as UTF-8)."""

    how: str
    text: str
    whole: bool = True  # the whole file (False: strings pulled out of binary bytes)


def _gunzip(data: bytes) -> bytes:
    return _inflate(zlib.decompressobj(wbits=31), data, "gzip")


def _zlib(data: bytes) -> bytes:
    return _inflate(zlib.decompressobj(), data, "zlib")


def _inflate(engine: Any, data: bytes, how: str) -> bytes:
    """A zlib-family stream decompressed, members one after another (``cat a.gz b.gz``)."""
    out = bytearray()
    while True:
        out += engine.decompress(data, MAX_OUTPUT + 1 - len(out))
        if len(out) > MAX_OUTPUT:
            raise TooLarge(how)
        rest = engine.unused_data
        if not engine.eof or not rest or how != "gzip" or not rest.startswith(b"\x1f\x8b"):
            return bytes(out)
        engine, data = zlib.decompressobj(wbits=31), rest


def _unbzip(data: bytes) -> bytes:
    return _stream(bz2.BZ2Decompressor, data, "bzip2")


def _unxz(data: bytes) -> bytes:
    return _stream(lzma.LZMADecompressor, data, "xz")


def _stream(make: Callable[[], Any], data: bytes, how: str) -> bytes:
    engine = make()
    out = engine.decompress(data, max_length=MAX_OUTPUT + 1)
    if len(out) > MAX_OUTPUT or (not engine.eof and not engine.needs_input):
        raise TooLarge(how)
    return bytes(out)


_COMPRESSED: tuple[tuple[bytes, str, Callable[[bytes], bytes]], ...] = (
    (b"\x1f\x8b", "gzip", _gunzip),
    (b"BZh", "bzip2", _unbzip),
    (b"\xfd7zXZ\x00", "xz", _unxz),
    (b"\x78\x01", "zlib", _zlib),
    (b"\x78\x5e", "zlib", _zlib),
    (b"\x78\x9c", "zlib", _zlib),
    (b"\x78\xda", "zlib", _zlib),
)


def _joined(how: str, more: str) -> str:
    return f"{how}, {more}" if how else more


_UTF8_RUN = re.compile(
    rb"(?:[\t\n\r\x20-\x7e]|[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}"
    rb"|[\xf0-\xf4][\x80-\xbf]{3}){8,}"
)


def _utf8_strings(data: bytes) -> str:
    """The runs of eight UTF-8 characters or more in binary ``data``, a line each."""
    return "\n".join(m.group().decode("utf-8", "replace") for m in _UTF8_RUN.finditer(data))


def _wide_strings(data: bytes, encoding: str) -> str:
    """The runs of ``encoding`` characters in binary ``data``, a line each, read from
    each alignment (a run may start a byte or three early: ``FF 67 00 00`` is a
    character of UTF-32 too)."""
    step = 2 if "16" in encoding else 4
    lines = []
    for match in _WIDE_RUNS[encoding].finditer(data):
        run = match.group()
        for shift in range(step):
            piece = run[shift : len(run) - (len(run) - shift) % step]
            lines.append(piece.decode(encoding, "replace").replace("\0", "\n"))
    return "\n".join(lines)


def _views(data: bytes, how: str, level: int) -> list[Decoded]:
    for magic, name, undo in _COMPRESSED:
        if level < LEVELS and data.startswith(magic):
            try:
                inner = undo(data)
            except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
                break  # not what its first bytes say: bytes as any other
            # the header holds text too (gzip keeps the file's name)
            return [
                Decoded(how, data.decode("utf-8", "replace")),
                *_views(inner, _joined(how, name), level + 1),
            ]
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, "replace")
            return [Decoded(_joined(how, encoding.replace("-", "")), text)]
    views = [Decoded(how, data.decode("utf-8", "replace"))]
    if b"\0" not in data:
        return views
    for encoding in _WIDE:  # each that the whole file is (UTF-16 BE is UTF-16 LE too)
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "\0" not in text:
            views.append(Decoded(_joined(how, encoding.replace("-", "")), text))
    if len(views) > 1:
        return views
    # binary bytes: its runs of UTF-8 text, not its every byte read as text
    views = [Decoded(how, _utf8_strings(data), whole=False)]
    for encoding in _WIDE:
        text = _wide_strings(data, encoding)
        if text:
            name = f"{encoding.replace('-', '')} strings"
            views.append(Decoded(_joined(how, name), text, whole=False))
    return views


def decoded(data: bytes) -> list[Decoded]:
    """Every text ``data`` holds (see the module's docstring); :class:`TooLarge` for
    a compressed file that decompresses to more than ``MAX_OUTPUT`` bytes."""
    return _views(data, "", 0)
