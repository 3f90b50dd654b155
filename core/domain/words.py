"""Counts in words, as a person writes them: "1 change", "2 changes".

Every count shown to a person goes through :func:`counted`, so no line says
"1 items waiting" or "1 need approval".
"""

from __future__ import annotations


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and the word that agrees with it (``plural`` defaults to an added "s")."""
    return f"{n:,} {singular if n == 1 else (plural or singular + 's')}"


def store_label(scope: str, name: str) -> str:
    """ "private store", or "private store ``notes``" when the folder is named otherwise
    (never "private store · private")."""
    return f"{scope} store" if name == scope else f"{scope} store {name}"
