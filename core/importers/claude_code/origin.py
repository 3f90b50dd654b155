"""Where an imported record came from, exactly: what an export needs to give it back.

A record imported from a Claude Code folder keeps an ``origin`` (a field of the
record, :attr:`core.domain.record.Memory.origin`): the file it came from, the
file's front matter as written, the whitespace around the statement, the
line the folder's ``MEMORY.md`` listed it with, and a signature of the fields
memgov derived from the file (:mod:`core.importers.signature`). An export
(:mod:`core.importers.claude_code.export`) then writes

- the file exactly as it was, when the record's signature is unchanged
  (memgov changed nothing);
- the same front matter around the new statement, when only the content
  changed (a correction);
- front matter written again (its own fields kept, ``name``, ``description``
  and ``type`` from the record, and a ``memgov:`` block with the exact key),
  when a decision changed what the front matter says (a condition, a type).

The origin lives in the record, so an erasure removes it with the record: no
copy of an erased memory's words stays behind. A record that is promoted to the
team store leaves its origin behind (the file is the private folder's), and a
record whose secret is redacted keeps only where it came from.

The other half, which lines of ``MEMORY.md`` are not records (headings, prose,
blank lines) and where each record's line stands, is the folder's state
(:mod:`core.importers.folder_state`).
"""

from __future__ import annotations

from collections.abc import Mapping

from core.domain import secrets

FORMAT = "claude-code"


def topic_origin(
    *,
    folder: str,
    rel: str,
    text: str,
    lines: list[str],
    body_start: int,
    content: str,
    from_description: bool,
    index_line: str | None,
) -> dict[str, str]:
    """The origin of a topic file's record. ``text``: the file as read; ``lines``: its
    lines; ``body_start``: the first body line; ``content``: the record's content.
    Where the file cannot be rebuilt exactly from the pieces (a front matter closed
    by '...', a body around more than the statement), only where it came from is
    kept, and an export writes the file anew."""
    origin = {"format": FORMAT, "folder": folder, "slot": rel, "file": rel}
    if index_line is not None and not secrets.scan(index_line):
        origin["index"] = index_line
    plain = text.replace("\r\n", "\n")
    if plain != text:
        origin["newline"] = "crlf"
    front = ""
    if body_start:
        if lines[0] != "---" or lines[body_start - 1] != "---":
            return origin
        front = "".join(line + "\n" for line in lines[1 : body_start - 1])
        if secrets.scan(front):
            return origin  # never kept: the export writes what the record says instead
    prefix = f"---\n{front}---\n" if body_start else ""
    if not plain.startswith(prefix):
        return origin
    rest = plain[len(prefix) :]
    if from_description:
        if rest.strip():
            return origin
        head, tail = rest, ""
        origin["body"] = "description"
    else:
        at = rest.find(content.strip()) if content.strip() else -1
        if at < 0:
            return origin
        head, tail = rest[:at], rest[at + len(content.strip()) :]
        if head.strip() or tail.strip():
            return origin
    if body_start:
        origin["front"] = front
    origin["head"] = head
    origin["tail"] = tail
    return origin


def note_origin(*, folder: str, index: str, line: int, text: str) -> dict[str, str]:
    """The origin of a note written straight into MEMORY.md: its line as it stands."""
    origin = {"format": FORMAT, "folder": folder, "slot": f"{index}:{line}", "file": index}
    if not secrets.scan(text):
        origin["note"] = text
    return origin


def exact(origin: Mapping[str, str]) -> bool:
    """Whether the origin holds what rebuilding the file exactly needs."""
    return "head" in origin and "tail" in origin


def rebuilt(origin: Mapping[str, str], content: str) -> str:
    """The file from its origin around ``content`` (the record's, or the original's)."""
    body = "" if origin.get("body") == "description" else content.strip()
    text = origin["head"] + body + origin["tail"]
    if "front" in origin:
        text = f"---\n{origin['front']}---\n{text}"
    return text.replace("\n", "\r\n") if origin.get("newline") == "crlf" else text
