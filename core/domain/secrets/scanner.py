"""The scanner's interface: :func:`scan` gives findings, :func:`is_clean` a yes or no.

A :class:`Finding` says which rule saw a secret and where (line and column in
characters), never the value nor a part of it; an :class:`EvadedFinding` also
says how the secret was hidden.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from core.domain.data import AsData, shown_as
from core.domain.secrets.hidden import base64_runs, hidden_spans, not_overlapping
from core.domain.secrets.matching import find_secrets, prepare
from core.domain.secrets.normalise import Span
from core.domain.secrets.rules import RULES
from core.domain.secrets.tells import CLASSES


@dataclass(frozen=True)
class Finding(AsData):
    """Where a secret is, and which rule saw it. Never the value, nor a part of it."""

    rule_id: str = field(metadata=shown_as(key="rule"))
    description: str
    line: int  # 1-based line of the secret's first character
    column: int  # 1-based column (in characters) of the secret's first character
    #: ``certain`` (blocked everywhere) or ``likely`` (a secret's name and a value
    #: that looks like one: held for a person)
    tier: str = "certain"

    def __str__(self) -> str:
        return f"{self.rule_id} at line {self.line}, column {self.column}"


@dataclass(frozen=True)
class EvadedFinding(Finding):
    """A secret that was hidden, and how: seen only once the text was normalised.

    ``via`` is one of ``"zero-width"`` (an invisible character inside: zero-width,
    bidi control, soft hyphen, BOM, variation selector), ``"combining"`` (combining
    marks on its characters, or letters with accents precomposed), ``"nfkc"`` (full-width or
    other compatibility forms), ``"homoglyph"`` (Cyrillic, Greek, ... look-alike
    letters), ``"url"`` (``%XX``), ``"escape"`` (JSON, Python or HTML escapes),
    ``"split"`` (over two lines) or ``"base64"``. Never the value either.
    """

    via: str = ""

    def __str__(self) -> str:
        return f"{super().__str__()} (hidden: {self.via})"


_MIN_REPEAT = 8
# (a byte of a word: a repeat must stand alone there, not inside a longer token)
_WORD_SET = frozenset(
    bytes([b]) for b in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)


def _repeats(data: bytes, raw: list[Span]) -> list[Span]:
    """Every other place the text holds a secret found once (eight bytes or more, a
    whole token there): ``hash_salt = 'X'`` above ``['password'] = 'X'``, a password
    quoted again in prose. Found by a likely rule where it is named; the same value
    elsewhere is the same secret, whatever stands beside it (a certain rule's token is
    found by its form wherever it is). (Each value looked for once, the text
    read once per value; a repeat that overlaps a span already found is the scan's and the
    redaction's to merge.)"""
    starts = {start for start, _o, _e, _v in raw}
    # (a certain rule finds its every occurrence: a likely value over a certain token, "the
    # token is ghp_...", is that token's)
    certain = sorted((s, e) for s, o, e, _v in raw if RULES[o].tier == "certain")
    certain_starts = [s for s, _e in certain]
    reach = list(itertools.accumulate((e for _s, e in certain), max))
    values: dict[bytes, int] = {}
    for start, order, stop, _via in raw:
        if (
            stop - start >= _MIN_REPEAT
            and RULES[order].tier == "likely"
            and not _over(certain_starts, reach, start, stop)
        ):
            values.setdefault(data[start:stop], order)
    found: list[Span] = []
    for at, end, order in _occurrences(data, values):
        if (
            at not in starts
            and data[at - 1 : at] not in _WORD_SET
            and data[end : end + 1] not in _WORD_SET
        ):
            found.append((at, order, end, ""))
    return found


def _over(starts: list[int], reach: list[int], start: int, stop: int) -> bool:
    """Whether [start, stop) overlaps a span of those sorted by start (``reach``: the
    furthest end among the first i + 1 of them)."""
    at = bisect.bisect_left(starts, stop)  # the spans before ``at`` start before ``stop``
    return at > 0 and reach[at - 1] > start


_FEW = 4


def _occurrences(data: bytes, values: dict[bytes, int]) -> Iterator[tuple[int, int, int]]:
    """(start, end, rule) of every occurrence of the values: a few by ``find``, many by one
    Aho-Corasick pass (a text of thousands of secrets is read once, not once a secret)."""
    if len(values) <= _FEW:
        for value, order in values.items():
            at = data.find(value)
            while at != -1:
                yield at, at + len(value), order
                at = data.find(value, at + len(value))
        return
    import ahocorasick_rs  # (the keyword prefilter's library, loaded by then)

    patterns = list(values)
    automaton = ahocorasick_rs.BytesAhoCorasick(
        patterns, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST
    )
    for index, at, end in automaton.find_matches_as_indexes(data):
        yield at, end, values[patterns[index]]


def text_spans(text: str, caller: str) -> tuple[bytes, list[Span], list[Span]]:
    """The text's UTF-8 bytes, its raw secret spans, and its evaded ones."""
    data, lowered, hits = prepare(text, caller)
    classes = data.translate(CLASSES)
    runs = base64_runs(data, classes)
    raw = [(s, o, e, "") for s, o, e in find_secrets(data, lowered, hits, runs)]
    if raw:
        raw += _repeats(data, raw)
    hidden = hidden_spans(data, 0, classes, runs)
    if hidden and any(RULES[o].tier == "likely" for _, o, _, _ in raw):
        # a hidden token is more exact than the likely value around it ("token":
        # "gh\u0301p_..."): the likely span gives way to it
        certain = [span for span in raw if RULES[span[1]].tier == "certain"]
        shown = not_overlapping(certain, hidden)
        raw = certain + [
            span
            for span in raw
            if RULES[span[1]].tier == "likely" and not_overlapping(shown, [span])
        ]
    return data, raw, hidden


#: the findings of the short texts scanned last: a write scans the same words again and
#: again (a key's fields, a folder's path, an origin's format, in the gate, the report and
#: the catalog), an import of thousands of files thousands of times. A text's findings
#: depend on the text alone; the findings are frozen, each caller gets its own list
_SEEN: dict[str, tuple[Finding, ...]] = {}
#: the longest text kept, and how many are kept (then the oldest half goes)
_SEEN_CHARS = 400
_SEEN_MOST = 8192


def scan(text: str) -> list[Finding]:
    """All findings in text, sorted by (line, column, rule_id): :func:`scan_text`,
    remembered for a short text (:data:`_SEEN`)."""
    if not isinstance(text, str) or len(text) > _SEEN_CHARS:
        return scan_text(text)
    found = _SEEN.get(text)
    if found is None:
        if len(_SEEN) >= _SEEN_MOST:
            for old in list(itertools.islice(_SEEN, _SEEN_MOST // 2)):
                del _SEEN[old]
        found = _SEEN[text] = tuple(scan_text(text))
    return list(found)


def scan_text(text: str) -> list[Finding]:
    """All findings in text, sorted by (line, column, rule_id).

    One finding per secret span: if two rules match overlapping text, the one
    starting first is kept, then the one listed first in ``RULES``. A secret
    found only once the text is normalised (see :mod:`core.domain.secrets.hidden`)
    is an ``EvadedFinding``, at the line and column in ``text`` where its hidden
    form starts; one that a plainly written secret overlaps is not reported twice.
    """
    data, raw, hidden = text_spans(text, "scan")  # the caller's name in a TypeError
    findings: list[Finding] = []
    taken_until = pos = line_start = 0
    line = 1
    for start, order, stop, via in sorted(raw + not_overlapping(raw, hidden)):
        if start < taken_until:
            continue  # overlaps a secret already reported
        taken_until = stop
        newlines = data.count(b"\n", pos, start)
        if newlines:
            line += newlines
            line_start = data.rfind(b"\n", pos, start) + 1
        pos = start
        column = len(data[line_start:start].decode("utf-8", "surrogatepass")) + 1
        rule = RULES[order]
        if via:
            findings.append(
                EvadedFinding(rule.id, rule.description, line, column, rule.tier, via=via)
            )
        else:
            findings.append(Finding(rule.id, rule.description, line, column, rule.tier))
    findings.sort(key=lambda f: (f.line, f.column, f.rule_id))
    return findings


def is_clean(text: str) -> bool:
    """True if no rule finds a secret in text, as written or once normalised."""
    data, lowered, hits = prepare(text, "is_clean")
    classes = data.translate(CLASSES)
    runs = base64_runs(data, classes)
    if next(find_secrets(data, lowered, hits, runs), None) is not None:
        return False
    return not hidden_spans(data, 0, classes, runs)
