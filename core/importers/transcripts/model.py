"""What a transcript reader gives: the session, its entries with their roles, and the
lines it could not read (each with its line number and why).

A transcript is untrusted input. A reader never opens a path it names, never runs
anything it holds, and never raises on a bad line: the line is counted as skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from core.store.logs import excerpt_line

#: the roles an entry may have in the daily log
ROLES = ("user", "assistant", "tool", "web", "file", "agent", "system")
#: the longest line read from a transcript; a longer one is skipped (counted)
MAX_LINE_BYTES = 8 * 1024 * 1024
#: what of a long entry is logged: its first characters, with the size and a hash
EXCERPT_CHARS = {"user": 8000, "assistant": 8000, "system": 2000}
EXCERPT_OTHER = 1500


@dataclass(frozen=True)
class Entry:
    """One message for the daily log: who said it, what, when (None: unknown), and
    what it counts as (``turn``: a prompt, ``call``: a tool call, ``result``: a tool's
    result, ``""``: none of these)."""

    role: str
    text: str
    when: datetime | None = None
    counts_as: str = ""
    task_suffix: str = ""  # a sidechain's own task beside its session's
    #: a tool's result: how the post-tool hook heads it (the tool and its target, not
    #: redacted: never written, only hashed after redaction), so that a result the
    #: hook logged live is recognised (core.writing.hook_events.said_keys)
    head: str = ""


@dataclass
class Reading:
    """A transcript read: its session id (None: not named in it), entries in order,
    the lines skipped (``file:line: why``) and the lines that are no message (kept
    by count: progress, snapshots, token counts ...)."""

    source: str = ""  # the file, as the skipped lines name it
    session: str | None = None
    entries: list[Entry] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    ignored: int = 0

    def skip(self, number: int, why: str) -> None:
        self.skipped.append(f"{self.source}:{number}: {why}")


class TranscriptFormat(Protocol):
    """A reader of one transcript format."""

    name: str

    def claims(self, first: dict[str, Any]) -> bool:
        """Whether a transcript whose first readable line is ``first`` is this format."""
        ...

    def read(self, lines: list[tuple[int, dict[str, Any]]], reading: Reading) -> None:
        """Fill ``reading`` from the transcript's parsed lines (line number, object)."""
        ...


def json_lines(path: Path, shown: str, reading: Reading) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line of a JSONL file that is a JSON object, with its 1-based number; every
    other line (too long, not UTF-8, not JSON, not an object) is counted as skipped."""
    with path.open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                while raw and not raw.endswith(b"\n"):  # drop the rest of the line
                    raw = handle.readline(1024 * 1024)
                reading.skipped.append(
                    f"{shown}:{number}: over {MAX_LINE_BYTES // (1024 * 1024)} MiB"
                )
                continue
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                if raw.endswith(b"\n"):
                    reading.skipped.append(f"{shown}:{number}: not JSON")
                else:  # the last line, still being written: read the next time
                    reading.skipped.append(f"{shown}:{number}: not JSON (an unfinished line)")
                continue
            if not isinstance(value, dict):
                reading.skipped.append(f"{shown}:{number}: not a JSON object")
                continue
            yield number, value


def when_of(value: object) -> datetime | None:
    """An ISO 8601 time with its offset, or None."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo is not None else None


def excerpt(role: str, text: str) -> str:
    """The text as logged: whole when short, else its start with its size and a hash
    (the daily log's one excerpt, :func:`core.store.logs.excerpt_line`)."""
    return excerpt_line(text, EXCERPT_CHARS.get(role, EXCERPT_OTHER))


def text_of(content: object, *, depth: int = 0) -> str:
    """The text of a message's content: a string, or a list of blocks (``text``,
    ``input_text``, ``output_text``, a tool result's ``content``); images and other
    blocks are named, never read."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or depth > 4:
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif "content" in block:
                parts.append(text_of(block["content"], depth=depth + 1))
            elif isinstance(kind, str) and kind:
                parts.append(f"[{kind[:40]}]")
    return "\n".join(p for p in parts if p)


def brief(value: object, limit: int = 600) -> str:
    """A tool call's input, shortened: its command or path when it has one."""
    if isinstance(value, dict):
        for key in ("command", "cmd", "file_path", "path", "url", "query", "pattern", "prompt"):
            if key in value and isinstance(value[key], (str, list)):
                shown = (
                    value[key] if isinstance(value[key], str) else " ".join(map(str, value[key]))
                )
                return f"{key}={shown[:limit]}"
    try:
        dumped = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""
    return dumped[:limit]
