"""Needles: the byte strings an erasure removes wherever they appear.

:func:`needles_for` gives them for one record's content and source quotes;
:func:`history_needles` for every version of a file in every ref (a correction or
a consolidation rewrite said it in other words before).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from core.store import gitstore
from core.store.erase.export import NULL_ID
from core.store.erase.scrub import MIN_NEEDLE


def needles_for(content: str, quotes: Iterable[str] = ()) -> list[bytes]:
    """What must not survive: the content, each of its lines long enough to identify
    it (12 bytes: four CJK characters), and the source quotes it was drawn from."""
    found = {content.strip(), *(q.strip() for q in quotes)}
    found.update(line.strip() for line in content.splitlines())
    encoded = {n.encode("utf-8", "replace") for n in found}
    return sorted((n for n in encoded if len(n) >= MIN_NEEDLE), key=len, reverse=True)


def history_needles(
    root: Path | str, paths: Iterable[str], *, keep: Iterable[bytes | str] = ()
) -> list[bytes]:
    """Needles (:func:`needles_for`) from every version of ``paths`` in every ref:
    each version's content, its lines, title, value and source quotes. A version
    that does not parse gives the text after its front matter. Titles and values
    under 12 bytes are left out (the structured rules remove them); so is any
    needle found in one of ``keep`` (what a live record still says)."""
    root = Path(root)
    wanted = [p for p in dict.fromkeys(paths) if p]
    if not wanted:
        return []
    out = gitstore.run(
        root,
        "--literal-pathspecs",
        "log",
        "--all",
        "-m",
        "--format=",
        "--raw",
        "--no-abbrev",
        "--no-renames",
        "--",
        *wanted,
        check=False,
    )
    shas: dict[bytes, None] = {}
    for row in out.splitlines():  # ":<mode> <mode> <blob> <blob> <status>\t<path>"
        if not row.startswith(b":"):
            continue
        parts = row[1:].split(b"\t", 1)[0].split(b" ")
        if len(parts) < 5:
            continue
        for sha in parts[2:4]:
            if not NULL_ID.match(sha):
                shas[sha] = None
    found: set[bytes] = set()
    for data in gitstore.read_blob_ids(root, list(shas)).values():
        found.update(_version_needles(data))
    kept = [k.encode("utf-8", "replace") if isinstance(k, str) else k for k in keep]
    return sorted((n for n in found if not any(n in k for k in kept)), key=len, reverse=True)


def _version_needles(data: bytes) -> list[bytes]:
    from core.domain.record import parse_memory  # record pulls in YAML: only when needed

    text = data.decode("utf-8", "replace")
    try:
        memory = parse_memory(text)
    except Exception:  # a hostile or broken version: its body still goes
        body = text
        if text.startswith("---"):
            end = text.find("\n---", 3)
            if end != -1:
                newline = text.find("\n", end + 4)
                body = text[newline + 1 :] if newline != -1 else ""
        return needles_for(body)
    quotes = [s.evidence for s in memory.all_sources]
    quotes += [memory.title or "", memory.value or ""]
    return needles_for(memory.content, quotes)
