"""The value rules, once: when two records say the same thing, and how merging
sources raises confidence (SPEC section 6).

The write pipeline, a promotion into the team store and the consolidation engine
all decide "same value" and "merged confidence" here, so they cannot drift apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Protocol

from core.domain.record import Memory, Source

#: merged confidence never reaches certainty
MAX_CONFIDENCE = 0.99


class Valued(Protocol):
    """A record or a candidate: what "same value" compares."""

    @property
    def value(self) -> str | None: ...

    @property
    def content(self) -> str: ...


def normalise(text: str) -> str:
    """Same value, different spacing, case or final punctuation."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"[.。!!;;]+$", "", text)


def same_value(a: Valued, b: Valued) -> bool:
    """The ``value`` fields when both have one, else the normalised contents."""
    if a.value is not None and b.value is not None:
        return normalise(a.value) == normalise(b.value)
    return normalise(a.content) == normalise(b.content)


def noisy_or(confidence: float, other: float, *, independent: bool) -> float:
    """Confidence after a merge: a noisy OR for an independent source (another task),
    ``1 - (1 - a)(1 - b)`` capped at 0.99; the larger of the two otherwise."""
    if not independent:
        return max(confidence, other)
    combined = 1 - (1 - confidence) * (1 - other)
    return min(MAX_CONFIDENCE, max(combined, confidence))


def with_source(memory: Memory, source: Source) -> tuple[Source, ...]:
    """``memory.sources`` with ``source`` added, unless it is already there."""
    known = {s.key for s in memory.all_sources}
    if source.key in known:
        return memory.sources
    existing = memory.sources or ((memory.source,) if memory.source else ())
    return (*existing, source)


def with_sources(memory: Memory, sources: Iterable[Source]) -> tuple[Source, ...]:
    """``memory.sources`` with each of ``sources`` added that it does not hold yet."""
    known = {s.key for s in memory.all_sources}
    return memory.sources + tuple(s for s in sources if s.key not in known)
