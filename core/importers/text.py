"""The text helpers every format's reader shares: :func:`slug` (an attribute from
free text), :func:`short` (a title), :func:`origin_key` (file and line order) and
:data:`WISH` (the words that make a statement a preference)."""

from __future__ import annotations

import hashlib
import re
import unicodedata

#: a statement that says what someone wants is a preference, else a fact
WISH = re.compile(
    r"\b(?:prefers?|preferred|preferences?|likes?|dislikes?|wants?|hates?|always|never|"
    r"don'?t|do not|avoid|please)\b|偏好|喜欢|希望|不要|别用|总是|讨厌|更愿意|习惯",
    re.IGNORECASE,
)


_WORD = re.compile(r"\w+")


def slug(text: str, *, limit: int = 48) -> str:
    """An attribute from free text: lower-case words joined by '_', at most ``limit``
    characters; a longer one is cut and ends in a short hash of the whole."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    joined = "_".join(w.strip("_") for w in words if w.strip("_"))
    if len(joined) <= limit:
        return joined or "memory"
    digest = hashlib.sha256(joined.encode("utf-8")).hexdigest()[:6]
    return joined[:limit].rstrip("_") + "_" + digest


def short(text: str, limit: int = 60) -> str:
    """A title from free text: its first line, cut at a word near ``limit``."""
    line = " ".join((text.strip().splitlines() or [""])[0].split()).strip("#*- ")
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,.;:") + "…"


def origin_key(origin: str) -> tuple[str, int]:
    file, _, line = origin.rpartition(":")
    return (file, int(line)) if line.isdigit() else (origin, 0)
