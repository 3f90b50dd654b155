r"""Evasions: every secret someone hid, found and placed in the original text.

The raw scan sees a token as it is written. Someone who wants one past the
gate writes it otherwise: with an invisible character inside, in full-width
or look-alike letters, URL- or backslash-escaped, split over two lines, or
base64-encoded. Each of those has a cheap tell (:mod:`.tells`), and only the
text around a tell is normalised and scanned again (:mod:`.normalise`):

* a suspicious non-ASCII character: an invisible one, one whose NFKC form is
  made of token characters, a Cyrillic/Greek/Armenian/Cherokee look-alike next
  to an ASCII letter, digit, ``_`` or ``-``, or combining marks and accented
  letters in a run of token characters that reads as a token (a digit, ``_`` or
  capitals in it; ``über`` and ``café`` are none; see
  :func:`.tells._combining`) (from each non-ASCII byte, 1 KiB is decoded and
  searched at once: CJK prose and Cyrillic words cost one regex search per KiB
  that holds them);
* an escape that decodes to a token character or to the lead byte of a
  suspicious character (``%67``, ``%E2``, ``\u0067``, ``\x67``, ``\/``,
  ``\147``, ``&#103;``); ``%20`` and ``\u4e2d`` are not tells;
* a line break, or an escaped ``\n``, between two runs of token characters,
  one of them nine long or the break marked by a quote, `` +`` or backslash,
  whose join holds a rule keyword (``ghp_abc⏎  def``, ``"gh" +⏎ "p_...``).

Around each tell ``REGION`` bytes either side (to a line end) are normalised:
unescape (runs of ``%XX``, JSON and Python escapes, HTML character references;
only what can be part of a token, so ``%20`` after a token does not make it
one), then unhide (invisible characters and combining marks dropped, NFKC
ligatures expanded, full-width, look-alike and accented letters made ASCII one
for one). That text is scanned, and so is a second view of it with the line
breaks between token characters joined, with the indentation, quotes, ``+`` or
backslash around them (a view of its own: joining two lines that each hold a
token would hide both). Each layer records where it changed its input, so a
span found in a view maps back to the original text. A finding there counts
only if a change falls inside its span (otherwise the raw scan has the last
word), and ``scan`` drops one that a raw finding overlaps.

Base64: runs of ``_B64_MIN`` or more base64 or base64url characters (one
line, or whole lines wrapped like MIME or PEM) are decoded in chunks of
``_B64_CHUNK`` characters that overlap by ``_B64_OVERLAP``, from the run's
first character and from just after each ``+`` or ``/`` among its first
twelve (what is glued in front, ``path/`` or ``token_``, shifts the
alignment and ends with one of them). A decoded chunk that is not text
(over 5% control bytes or invalid UTF-8) is dropped: a binary blob costs a
decode. Text is scanned like the input, evasions and base64 included, down
to ``B64_LEVELS`` levels of nesting: the work stays linear in the input and
the memory one chunk per level, and a deeper nesting is not seen.
"""

from __future__ import annotations

import binascii
import bisect
import itertools
import re

from core.domain.secrets.matching import find_secrets, keyword_hits
from core.domain.secrets.normalise import Span, normalised_spans
from core.domain.secrets.tells import CLASSES, find_tells, tell_regions

_B64_MIN = 20
_B64_CHUNK = 64 * 1024
_B64_OVERLAP = 4096
B64_LEVELS = 2


# A base64 run: one line, or whole lines of base64 wrapped after it.
_B64_RUN = re.compile(
    rb"[A-Za-z0-9+/_-]+(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]{4,}(?==*[ \t]*\r?(?:\n|\Z)))*=*"
)
_B64_SPACE = re.compile(rb"[^ \t\r\n]+")
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r") + b"\x7f"


def _texty(raw: bytes) -> bool:
    """Decoded base64 that reads as text: 5% control bytes or invalid UTF-8 at most."""
    if not raw:
        return False
    bad = len(raw) - len(raw.translate(None, _CONTROL))
    if not raw.isascii():
        bad += raw.decode("utf-8", "replace").count("\ufffd")
    return bad * 20 <= len(raw)


def _origin(starts: list[int], origins: list[int], index: int) -> int:
    """The byte in the input of character ``index`` of a base64 run without its line breaks."""
    k = bisect.bisect_right(starts, index) - 1
    k = min(k, len(origins) - 1)
    return origins[k] + index - starts[k]


def base64_runs(data: bytes, classes: bytes) -> list[tuple[int, int]]:
    """(start, end) of each base64 run of ``data``, wrapped lines included; ``classes``
    is ``data.translate(CLASSES)``.

    The first twenty alphabet bytes from ``pos`` start a run: had it started
    earlier, but after ``pos`` (the end of the last run), it would have been
    found there. So every twenty alphabet bytes in a row are inside a run.
    """
    needle = b"A" * _B64_MIN
    runs: list[tuple[int, int]] = []
    pos = 0
    while (begin := classes.find(needle, pos)) >= 0:
        run = _B64_RUN.match(data, begin)
        pos = begin + _B64_MIN if run is None else max(run.end(), begin + _B64_MIN)
        runs.append((begin, pos))
    return runs


def _base64_spans(data: bytes, runs: list[tuple[int, int]], depth: int) -> list[Span]:
    """Secrets in the text that base64 runs of ``data`` decode to, mapped onto the runs."""
    spans: list[Span] = []
    for begin, pos in runs:
        raw = data[begin:pos]
        if raw.islower() or raw.isupper():
            continue  # snake_case names, hex digests: base64 of text mixes cases
        # the run without its line breaks, and where each piece of it started
        if b"\n" in raw:
            pieces = [(m.start(), m.group()) for m in _B64_SPACE.finditer(raw)]
            clean = b"".join(p for _, p in pieces)
            starts = list(itertools.accumulate((len(p) for _, p in pieces), initial=0))
            origins = [begin + at for at, _ in pieces]
        else:
            clean, starts, origins = raw, [0], [begin]
        clean = clean.rstrip(b"=").translate(_URLSAFE)
        # what is glued in front (``token_``, ``path/``) ends with a separator
        # character of the alphabet: try from just after each one too
        firsts = [0]
        lead = clean[:12]
        if b"/" in lead or b"+" in lead:
            firsts += [i + 1 for i in range(min(12, len(clean) - 1)) if clean[i] in b"+/"]
        for first in firsts:
            for chunk in range(first, max(first + 1, len(clean) - _B64_OVERLAP), _B64_CHUNK):
                piece = clean[chunk : chunk + _B64_CHUNK + _B64_OVERLAP]
                if len(piece) % 4 == 1:
                    piece = piece[:-1]  # a lone sextet holds no byte
                piece += b"=" * (-len(piece) % 4)
                if len(piece) < _B64_MIN:
                    continue
                try:
                    decoded = binascii.a2b_base64(piece)
                except binascii.Error:
                    continue
                if not _texty(decoded):
                    continue
                raw_spans, hidden_spans = _secret_spans(decoded, depth + 1)
                for start, order, stop, _via in raw_spans + hidden_spans:
                    head = chunk + start // 3 * 4
                    tail = min(len(clean), chunk + -(-stop // 3) * 4)
                    spans.append(
                        (
                            _origin(starts, origins, head),
                            order,
                            _origin(starts, origins, tail - 1) + 1,
                            "base64",
                        )
                    )
    return spans


def hidden_spans(
    data: bytes,
    depth: int,
    classes: bytes | None = None,
    runs: list[tuple[int, int]] | None = None,
) -> list[Span]:
    """Every evaded secret in ``data``, in its bytes: (start, rule index, stop, via).
    ``classes`` and ``runs``: ``data.translate(CLASSES)`` and its :func:`base64_runs`,
    if the caller has them."""
    if classes is None:
        classes = data.translate(CLASSES)
    tells, breaks = find_tells(data, classes)
    spans: list[Span] = []
    if tells or breaks:
        marked = [(t, False) for t in tells] + [(t, True) for t in breaks]
        for begin, end, joins in tell_regions(data, marked):
            inside = breaks[bisect.bisect_left(breaks, begin) : bisect.bisect_left(breaks, end)]
            spans += normalised_spans(data, begin, end, inside if joins else [])
    if depth < B64_LEVELS:
        if runs is None:
            runs = base64_runs(data, classes)
        if runs:
            spans += _base64_spans(data, runs, depth)
    return spans


def _secret_spans(data: bytes, depth: int = 0) -> tuple[list[Span], list[Span]]:
    """(raw spans, evaded spans) of the secrets in ``data``; the two may overlap."""
    lowered = data.lower()
    classes = data.translate(CLASSES)
    runs = base64_runs(data, classes)
    found = find_secrets(data, lowered, keyword_hits(lowered), runs)
    raw = [(s, o, e, "") for s, o, e in found]
    return raw, hidden_spans(data, depth, classes, runs)


def not_overlapping(raw: list[Span], hidden: list[Span]) -> list[Span]:
    """The evaded spans that no raw span overlaps (the raw finding is the exact one)."""
    if not raw or not hidden:
        return hidden
    raw = sorted(raw)
    starts = [s for s, _, _, _ in raw]
    reach = list(itertools.accumulate((e for _, _, e, _ in raw), max))
    kept = []
    for span in hidden:
        k = bisect.bisect_left(starts, span[2])
        if not k or reach[k - 1] <= span[0]:
            kept.append(span)
    return kept
