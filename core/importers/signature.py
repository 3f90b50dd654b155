"""A signature of what memgov derived from an agent's file: when a record's
signature still matches the one its origin keeps, memgov changed nothing, and an
export gives the file back byte for byte (:mod:`core.importers.claude_code.origin`).
Every entry's candidate carries one beside its origin, whatever the format."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from core.domain.record import Memory


def signature(
    *,
    title: str | None,
    type: str,
    subject: str,
    attribute: str,
    condition: str | None,
    content: str,
) -> str:
    """What memgov derived from the file: when a record's signature still matches its
    origin's, memgov changed nothing, and the file goes back byte for byte."""
    parts = (title or "", type, subject, attribute, condition or "", content.strip())
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]


def signatures(
    *,
    title: str | None,
    type: str,
    subject: str,
    attribute: str,
    condition: str | None,
    content: str,
) -> dict[str, str]:
    """``sig``: of everything memgov derived from the file; ``keys``: of all of it but
    the content (what the front matter says)."""

    def sig(text: str) -> str:
        return signature(
            title=title,
            type=type,
            subject=subject,
            attribute=attribute,
            condition=condition,
            content=text,
        )

    return {"sig": sig(content), "keys": sig("")}


def record_signatures(memory: Memory) -> dict[str, str]:
    return signatures(
        title=memory.title,
        type=memory.type,
        subject=memory.subject,
        attribute=memory.attribute,
        condition=memory.condition,
        content=memory.content,
    )


def with_signature(
    origin: Mapping[str, str] | None, sigs: Mapping[str, str]
) -> dict[str, str] | None:
    return {**origin, **sigs} if origin else None
