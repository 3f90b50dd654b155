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
    the agent (:data:`STEERING_ORDER`) is looked for in the chunk's contents joined
    the same way, and only the records a match overlaps are read alone. Nothing to
    hint, nothing imported: the detector compiles its rules on import."""
    hints = [0] * len(memories)
    if not any(m is not None for m in memories):
        return hints
    from core.domain import steering

    for start in range(0, len(memories), _SCAN_CHUNK):
        chunk = memories[start : start + _SCAN_CHUNK]
        joined = "\n\n".join(t for m in chunk if m is not None for t in _hint_texts(m))
        fired = bool(joined) and bool(steering.detect(joined))
        ordered = _may_order(chunk)
        for offset, memory in enumerate(chunk):
            if memory is None:
                continue
            may = offset in ordered
            rules = STEERING_RULES if fired and _fires(memory) else 0
            hints[start + offset] = rules | _shape_hint(memory, may_order=may)
    return hints


def _fires(memory: Memory) -> bool:
    from core.domain import steering

    return any(steering.detect(t) for t in _hint_texts(memory))


def _may_order(chunk: list[Memory | None]) -> set[int]:
    """The offsets of the records of ``chunk`` whose content may give the agent an
    order: the detector's order rule run once on the contents joined by blank lines,
    and every record a match overlaps (or with no content) kept to be read alone. A
    match in one content alone is a match in the joined text at the same place, or
    the joined text has an earlier match running into it: either overlaps it."""
    from bisect import bisect_right

    from core.domain import steering

    starts: list[int] = []
    ends: list[int] = []
    offsets: list[int] = []
    maybe: set[int] = set()
    at = 0
    parts: list[str] = []
    for offset, memory in enumerate(chunk):
        if memory is None:
            continue
        if not memory.content:
            maybe.add(offset)
            continue
        starts.append(at)
        ends.append(at + len(memory.content))
        offsets.append(offset)
        parts.append(memory.content)
        at += len(memory.content) + 2
    for begin, end in steering.FOREIGN_RULE.find("\n\n".join(parts)):
        first = max(bisect_right(starts, begin) - 1, 0)
        for k in range(first, bisect_right(starts, end)):
            if starts[k] <= end and begin <= ends[k]:
                maybe.add(offsets[k])
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
