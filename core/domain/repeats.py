"""Repeated explanations (seed 8.1): the words that mark a user saying something again.

The seed's headline measure is how often a user has to explain the same thing again.
It is counted mechanically and confirmed by a person: a user message is a candidate
when it carries a marker ("我说过", "上次说过", "还是", "又", "I told you", "again",
"as I said", ...) or states, within seven days, what an earlier message of another task
stated (the same normalised statement, or a source of the same key). This module is
the pure part: :func:`marker` finds a marker and its span, leaving alone the near
misses that read the same ("还是" asking which of two, "又称" naming, "against");
:func:`statement` is the normalised form two messages share when they say the same;
:func:`similarity` ranks earlier messages as the one a marked message repeats.
Nothing here reads a file (core.store.said reads the logs; core.review.labels builds
the review items).
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass

#: how far back a restatement counts as a repeat (seed 8.1: "七天内")
WINDOW_DAYS = 7


@dataclass(frozen=True)
class Marker:
    id: str
    pattern: re.Pattern[str]
    #: a match followed (in the same clause) by one of these is a near miss
    unless_after: re.Pattern[str] | None = None
    unless_before: re.Pattern[str] | None = None


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


#: the markers of seed 8.1 and their English counterparts, most specific first
MARKERS: tuple[Marker, ...] = (
    Marker(
        "told-before-zh",
        _re(
            r"(?:我|上次|之前|以前|早就|刚才|已经)(?:都|也)?(?:跟你|和你|给你)?"
            r"(?:说|讲|提|强调)(?:过|了好几次|了多少次)"
        ),
    ),
    Marker(
        "told-you-zh",
        _re(
            r"(?:告诉|提醒)过你|(?:跟你|和你|给你)(?:说|讲|提)过|不是(?:说|讲|提)过|(?:说|讲)过了"
            r"|(?:说|讲)了(?:多少|好几|几|两|三|四|很多|无数)[次遍]|再说一遍|第[二三四五几]次(?:说|提)"
        ),
    ),
    Marker(
        "still-zh",
        _re(r"还是"),
        # "A还是B？" asks which of two; "还是不错" is praise
        unless_after=_re(r"^[^，,。！!；;\n]{0,24}[？?吗呢]|^(?:不错|挺|很|比较|算)"),
    ),
    Marker(
        "again-zh",
        _re(r"又"),
        unless_after=_re(r"^(?:称|名|叫|快又|好又|大又|要|是|或)"),
        unless_before=_re(r"既\w{1,4}$"),
    ),
    Marker(
        "told-you-en",
        _re(
            r"\bI told you\b|\bI(?:'ve| have)? (?:already )?(?:told|said|asked|mentioned)"
            r"(?: (?:you|this|that|it))?(?: (?:before|already|twice|again|earlier|last time))\b"
        ),
    ),
    Marker(
        "as-i-said-en",
        _re(
            r"\b(?:as|like) I (?:said|mentioned|told you|asked)\b"
            r"|\bas (?:previously |already )?(?:mentioned|discussed|stated)\b"
        ),
    ),
    Marker(
        "again-en",
        _re(
            r"\bagain\b|\bonce more\b|\bfor the (?:last|second|third|nth) time\b|\bhow many times\b"
        ),
    ),
    Marker(
        "still-en",
        _re(
            r"\byou(?:'re| are)? still\b|\bkeep (?:doing|using|forgetting)\b"
            r"|\bstill (?:not|doing|using|wrong)\b"
        ),
    ),
)


@dataclass(frozen=True)
class Found:
    marker: str
    start: int
    end: int


@functools.lru_cache(maxsize=1 << 18)
def marker(text: str) -> Found | None:
    """The first marker of a repeat in ``text`` and where it is, or None (kept per text:
    the desk and the MCP server ask again of the same logs at every reload)."""
    best: Found | None = None
    for m in MARKERS:
        for hit in m.pattern.finditer(text):
            after = text[hit.end() : hit.end() + 30]
            before = text[max(0, hit.start() - 4) : hit.start()]
            if m.unless_after is not None and m.unless_after.search(after):
                continue
            if m.unless_before is not None and m.unless_before.search(before):
                continue
            if best is None or hit.start() < best.start:
                best = Found(m.id, hit.start(), hit.end())
            break
    return best


_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
#: a statement shorter than this says too little to be a constraint ("ok", "好的")
MIN_STATEMENT = 12
MIN_STATEMENT_CJK = 6


@functools.lru_cache(maxsize=1 << 18)
def statement(text: str) -> str | None:
    """The normalised statement of a message (NFKC, case folded, punctuation and spaces
    dropped), or None when it is too short to state a constraint."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    plain = _NOT_WORD.sub("", folded)
    enough = MIN_STATEMENT_CJK if _CJK.search(plain) else MIN_STATEMENT
    return plain if len(plain) >= enough else None


@functools.lru_cache(maxsize=1 << 18)
def grams(text: str) -> frozenset[str]:
    """The words of a message (over two letters) and, in CJK, its character pairs."""
    return frozenset(_grams(text))


def _grams(text: str) -> set[str]:
    plain = _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    words = plain.split()
    grams = {w for w in words if len(w) > 2 and not _CJK.search(w)}
    for word in words:  # CJK has no spaces: its character pairs stand for words
        cjk = [c for c in word if _CJK.match(c)]
        grams.update(a + b for a, b in itertools.pairwise(cjk))
    return grams


def similarity(a: str, b: str) -> float:
    """How much two messages share (Jaccard of words, and of character pairs in CJK)."""
    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb) if ga and gb else 0.0


#: the least similarity for an earlier message to be the one a marked message repeats
SIMILAR = 0.2
