"""What a catalog row caches of the detectors: the secret flag and the steering hint.

A row keeps whether its file's text holds a credential and which of the steering
detector's questions the record raises, so that the queue, doctor and the index
read the few rows that may be flagged, not all of them. Both are made in chunks
(a chunk with no finding is clean as a whole), and a catalog whose flags another
scanner set is scanned again (:func:`scanner_fingerprint`).
"""

from __future__ import annotations

import functools
import os
from bisect import bisect_right
from collections.abc import Iterable
from pathlib import Path

from core.domain.record import Memory


@functools.cache
def scanner_fingerprint() -> str:
    """A digest of the secret scanner's and the steering detector's own source (every
    file of each package): a catalog whose flags or hints another detector set is
    scanned again. Read from their files, not imported (most commands never scan)."""
    import hashlib

    import core.domain

    digest = hashlib.sha256()
    domain = Path(core.domain.__file__).parent
    for package in ("secrets", "steering"):  # the steering detector's hints are cached too
        folder = domain / package
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                digest.update(f"{package}/{name}".encode() + b"\0" + (folder / name).read_bytes())
    return digest.hexdigest()[:16]


#: what :func:`steering_hint` sets: the detector's content rules fired on a text of
#: the record; it links somewhere; it is a preference (whose source must be the user's);
#: its content gives the agent an order (whose source must be the user's too)
STEERING_RULES, STEERING_LINK, STEERING_PREFERENCE, STEERING_ORDER = 1, 2, 4, 8
#: its words came from outside the user (its ``provenance`` says external)
STEERING_EXTERNAL = 16


def steering_hint(memory: Memory) -> int:
    """Which of the steering detector's questions a record raises, as bits: what the
    queue and doctor assess in full (with the source's role and the config's known
    hosts, core.review.quarantine), so that they read the few records that may be
    flagged, not all of them. A superset of what the full assessment flags."""
    return (STEERING_RULES if _fires(memory) else 0) | _shape_hint(memory)


def hint_inputs(memory: Memory) -> tuple[object, ...]:
    """Everything :func:`steering_hint` reads of a record: two records equal in these
    have the same hint (a decision that changes a status keeps its row's hint, and
    does not run the detector)."""
    external = bool(memory.provenance and memory.provenance.get("external"))
    return memory.content, memory.title, memory.value, memory.type, external


def _hint_texts(memory: Memory) -> list[str]:
    return [t for t in (memory.content, memory.title, memory.value) if t]


def steering_hints(memories: list[Memory | None]) -> list[int]:
    """:func:`steering_hint` of each record (None: not a record, 0), the detector run
    on chunks of records first: a regex that matches one record's text matches the
    texts joined by blank lines too, so a chunk where no rule fires holds no record
    a rule fires on, and only a chunk with a hit is read record by record (a test
    checks this against the record-by-record hints on every corpus). The order for
    the agent (:data:`STEERING_ORDER`) is looked for in the same joined text (the
    detector's reading of it is kept for the next rule), and only the records a match
    overlaps are read alone. Nothing to hint, nothing imported: the detector compiles
    its rules on import."""
    hints = [0] * len(memories)
    if not any(m is not None for m in memories):
        return hints
    from core.domain import steering

    for start in range(0, len(memories), _SCAN_CHUNK):
        chunk = memories[start : start + _SCAN_CHUNK]
        joined, spans = _joined(chunk)
        fired = bool(joined) and bool(steering.detect(joined))
        ordered = _overlapped(spans, steering.FOREIGN_RULE.find(joined))
        for offset, memory in enumerate(chunk):
            if memory is None:
                continue
            may = offset in ordered or not memory.content
            rules = STEERING_RULES if fired and _fires(memory) else 0
            hints[start + offset] = rules | _shape_hint(memory, may_order=may)
    return hints


#: a record's :func:`hint_inputs` -> its :func:`steering_hint`: the hints a
#: transaction's preparation made (it asks which changed record reaches the agent),
#: which the catalog's rows of the records it wrote then reuse instead of running the
#: detector on each record again
KnownHints = dict[tuple[object, ...], int]


def known_hints(memories: Iterable[Memory], known: KnownHints | None = None) -> KnownHints:
    """``known`` with the :func:`steering_hint` of each record not in it yet, keyed
    by its :func:`hint_inputs` (everything the hint reads, so a record equal in them
    has the same hint): made with :func:`steering_hints`, the detector run on chunks
    of records first, as a cold build of the catalog makes them."""
    known = {} if known is None else known
    missing: dict[tuple[object, ...], Memory] = {}
    for memory in memories:
        inputs = hint_inputs(memory)
        if inputs not in known:
            missing.setdefault(inputs, memory)
    if missing:
        batch: list[Memory | None] = list(missing.values())
        known.update(zip(missing, steering_hints(batch), strict=True))
    return known


def _fires(memory: Memory) -> bool:
    from core.domain import steering

    return any(steering.detect(t) for t in _hint_texts(memory))


def _joined(chunk: list[Memory | None]) -> tuple[str, list[tuple[int, int, int]]]:
    """The texts of a chunk's records joined by blank lines, and where each record's
    texts lie in it: (start, end, offset in the chunk)."""
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    at = 0
    for offset, memory in enumerate(chunk):
        if memory is None:
            continue
        texts = _hint_texts(memory)
        if not texts:
            continue
        length = sum(len(t) for t in texts) + 2 * (len(texts) - 1)
        spans.append((at, at + length, offset))
        parts += texts
        at += length + 2
    return "\n\n".join(parts), spans


def _overlapped(spans: list[tuple[int, int, int]], found: Iterable[tuple[int, int]]) -> set[int]:
    """The offsets of the records whose texts a match overlaps. A match in one
    record's text alone is a match in the joined text at the same place, or the joined
    text has an earlier match running into it: either overlaps the record."""
    starts = [begin for begin, _end, _offset in spans]
    maybe: set[int] = set()
    for begin, end in found:
        for k in range(max(bisect_right(starts, begin) - 1, 0), bisect_right(starts, end)):
            if spans[k][0] <= end and begin <= spans[k][1]:
                maybe.add(spans[k][2])
    return maybe


def _shape_hint(memory: Memory, *, may_order: bool = True) -> int:
    """The bits of :func:`steering_hint` that no content rule sets: a link, a
    preference, an order for the agent (each needs the source's role or the config;
    ``may_order`` False: the chunk's joined contents say it gives none)."""
    from core.domain import steering

    hint = STEERING_LINK if any("://" in t for t in _hint_texts(memory)) else 0
    if memory.type in steering.PREFERENCE_TYPES:
        hint |= STEERING_PREFERENCE
    if may_order and any(steering.FOREIGN_RULE.find(memory.content)):
        hint |= STEERING_ORDER
    if memory.provenance and memory.provenance.get("external"):
        hint |= STEERING_EXTERNAL
    return hint


def _has_secret(text: str) -> int:
    from core.domain import secrets

    return 1 if text and secrets.scan(text) else 0


#: texts scanned together first: a chunk with no finding is clean as a whole
_SCAN_CHUNK = 64


def secret_flags(texts: list[str]) -> list[int]:
    """:func:`_has_secret` of each text, scanning them in chunks first: the scanner's
    cost is mostly per call, and a finding in any text is a finding in the texts
    joined (a span across two texts can only add findings, and one finding hiding
    another still leaves one), so a clean chunk is clean text by text and only a
    chunk with a finding is scanned again text by text."""
    from core.domain import secrets

    flags = [0] * len(texts)
    for start in range(0, len(texts), _SCAN_CHUNK):
        chunk = texts[start : start + _SCAN_CHUNK]
        if secrets.scan("\n\n".join(chunk)):
            for offset, text in enumerate(chunk):
                flags[start + offset] = _has_secret(text)
    return flags
