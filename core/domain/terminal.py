"""Text a terminal shows and does not act on (nothing else imported: ``memgov scan``
and every other command print through it without loading the rest of memgov)."""

from __future__ import annotations

import re

#: what a terminal acts on rather than shows: C0 and C1 controls but the newline and
#: the tab (ESC starts a sequence that can move the cursor, recolour, retitle or erase
#: what a person reads), and the bidi embeddings, overrides and isolates that reorder
#: the characters after them
_TERMINAL_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: each control a terminal would act on named
    as ``<U+001B>``, the rest as it is (a zero-width joiner inside an emoji, a ZWNJ in a
    Persian word stay). What a store holds (a daily log is written by agents and can come
    from a pull) is printed through it, so a log line cannot repaint the screen."""
    return _TERMINAL_CONTROLS.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)
