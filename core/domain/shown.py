"""How a record is named wherever an agent or a person reads it about.

One function, :func:`shown_title`, gives a record's "title with condition" for
every text an agent reads: the index (``MEMORY.md``), plain-text ``memgov list``
and ``memgov recall``, an export's index and topic files, and the MCP server. So
they all use the same words: ``Deploy command (env=production)``. Two records of
one key that hold under different conditions (a "parallel" decision) are told
apart by it; a record without a condition is its title alone.

Nothing a store holds is shown unredacted: a credential in the title or in the
condition shows as ``[secret: rule-id]``.
"""

from __future__ import annotations

from core.domain.record import Memory

ELLIPSIS = "…"


def shown_title(memory: Memory) -> str:
    """The record's title (its ``title``, else its attribute in words) with its
    condition after it in parentheses, redacted: ``Deploy command (env=production)``."""
    from core.domain import secrets  # the scanner compiles its rules on first use

    condition = secrets.redact(memory.condition) if memory.condition else None
    return titled(secrets.redact(memory.display_title), condition)


def titled(title: str, condition: str | None, room: int | None = None) -> str:
    """``title (condition)`` on one line, from parts already redacted (what
    :func:`shown_title` does for a record; the index builds its lines from the
    catalog's redacted parts). A title that already holds ``(condition)`` does not
    say it twice. Given ``room`` (characters), a longer text is cut with an ellipsis, the
    title first: the condition, which tells two records of one key apart, stays whole
    while the title keeps a character."""
    title = " ".join(title.split())
    cond = " ".join((condition or "").split())
    suffix = f" ({cond})" if cond and f"({cond})" not in title else ""
    text = title + suffix
    if room is None or len(text) <= room:
        return text
    keep = room - len(suffix) - 1  # the title's characters before its ellipsis
    if suffix and keep >= 1:
        return title[:keep].rstrip() + ELLIPSIS + suffix
    return text[: max(room - 1, 1)].rstrip() + ELLIPSIS


def visible(text: str) -> str:
    """``text`` as a person may read it: each invisible format or control character
    (zero-width, bidi controls, tag characters; not a newline) named as ``<U+200B>``,
    so hidden words show where they hide."""
    import unicodedata

    return "".join(
        f"<U+{ord(ch):04X}>"
        if ch != "\n" and unicodedata.category(ch) in ("Cf", "Cc", "Co")
        else ch
        for ch in text
    )
