"""Consent for the notes of a folder's ``MEMORY.md``: a bullet that links to no file
carries the memory itself, so it is held line by line as a topic file is held
whole (:mod:`core.importers.claude_code.consent`).

A note line of the folder's index that the approved copy of that index (the one
the last sync kept) does not hold is new or changed: it is held as a ``consent``
item whose file is the index, whose hash is the line's, and whose held bytes are
the line (credentials redacted); where it stands (the approved line it replaced,
the line before it) waits beside it (``held/<id>.place``). The folder's index gets
the approved line back, or loses the new one. Keeping it puts the line back where
the agent wrote it (in place of the line it replaced, else after the line before
it, else at the end) in the folder and in the approved copy; a revert takes it
out of both again.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import dataclass

from core.importers.claude_code.files import INDEX_FILE, TEAM_DIR, index_notes, outside_link
from core.importers.entries import Reading
from core.importers.held import HELD_DIR, Held, file_hash, held_for

INDEXES = (INDEX_FILE, f"{TEAM_DIR}/{INDEX_FILE}")


def is_index(rel: str) -> bool:
    """Whether a consent item holds a note of an index rather than a topic file."""
    return rel in INDEXES


def place_path(held_id: str) -> str:
    return f"{HELD_DIR}/{held_id}.place"


def line_hash(line: str) -> str:
    return file_hash(line.encode("utf-8"))


def note_lines(text: str, rel: str) -> list[tuple[int, str]]:
    """(number from 0, the line as it stands) of each note of an index."""
    found = index_notes(text.splitlines(), rel, Reading())
    return [(n.line - 1, n.raw) for n in found if outside_link(n.raw, rel) is None]


@dataclass
class NoteChange:
    """A note of the folder's index that nobody approved: where it stands now."""

    index: str
    number: int
    raw: str
    replaces: str | None  # the approved note it stands in place of
    after: str | None  # the line before it, as the agent wrote it
    found: Held | None  # its item (open or dropped), or None: a new one


def note_changes(
    approved: str, now: str, index: str, folder: str, items: list[Held]
) -> Iterator[NoteChange]:
    """The notes of ``now`` (the folder's index) that ``approved`` does not hold, and
    which no person kept."""
    ok = {raw for _n, raw in note_lines(approved, index)}
    old, new = approved.splitlines(), now.splitlines()
    paired = _pairs(old, new)
    for number, raw in note_lines(now, index):
        if raw in ok:
            continue
        found = held_for(items, folder, index, line_hash(raw))
        if found is not None and found.status == "approved":
            continue
        was = old[paired[number]] if number in paired else None
        replaces = was if was is not None and was in ok and was not in new else None
        after = new[number - 1] if number > 0 else None
        yield NoteChange(index, number, raw, replaces, after, found)


def _pairs(old: list[str], new: list[str]) -> dict[int, int]:
    """new line -> the old line it stands in place of: within each block the agent
    rewrote, the most alike old line (at least half alike), each paired once."""
    paired: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag != "replace":
            continue
        free = set(range(i1, i2))
        for j in range(j1, j2):
            scored = [(difflib.SequenceMatcher(a=old[i], b=new[j]).ratio(), -i) for i in free]
            if scored and max(scored)[0] >= 0.5:
                i = -max(scored)[1]
                paired[j] = i
                free.discard(i)
    return paired


def place_text(replaces: str | None, after: str | None) -> str:
    return json.dumps({"replaces": replaces, "after": after}, ensure_ascii=False) + "\n"


def read_place(data: bytes | None) -> tuple[str | None, str | None]:
    """(replaces, after) of a held note; (None, None) when unreadable."""
    try:
        found = json.loads((data or b"{}").decode("utf-8", "replace"))
    except ValueError:
        return None, None
    if not isinstance(found, dict):
        return None, None
    rep, aft = found.get("replaces"), found.get("after")
    return (rep if isinstance(rep, str) else None, aft if isinstance(aft, str) else None)


def with_note(text: str, line: str, replaces: str | None, after: str | None) -> str:
    """The index with ``line`` in it: in place of ``replaces``, else after ``after``,
    else at the end (unchanged when it stands there already)."""
    lines = text.splitlines()
    if line in lines:
        return text
    if replaces is not None and replaces in lines:
        lines[lines.index(replaces)] = line
    elif after is not None and after in lines:
        lines.insert(lines.index(after) + 1, line)
    else:
        lines.append(line)
    return "\n".join(lines) + ("\n" if text.endswith("\n") or not text else "")


def without_note(text: str, line: str, replaces: str | None) -> str:
    """The index with ``line`` taken out, or ``replaces`` back in its place."""
    lines = text.splitlines()
    if line not in lines:
        return text
    at = lines.index(line)
    if replaces is not None and replaces not in lines:
        lines[at] = replaces
    else:
        del lines[at]
    return "\n".join(lines) + ("\n" if text.endswith("\n") and lines else "")
