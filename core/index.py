"""The ``MEMORY.md`` index (SPEC section 2, seed 5.1): one line per active memory.

``- [Title](memories/id.md) — hook``. The index is an index: content never goes
in. Limits: about 150 characters a line, 200 lines, 25,000 bytes; by design the
byte cap fires first. Exceeding them warns, never refuses.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.config import Config
from core.record import TYPES, Memory

INDEX_FILE = "MEMORY.md"
LINE_RE = re.compile(
    r"^\s*[-*]\s+\[(?P<title>[^\]]*)\]\((?P<target>[^)]+)\)\s*(?:[—–-]+\s*(?P<hook>.*))?$"
)


@dataclass(frozen=True)
class IndexLine:
    number: int
    title: str
    target: str
    hook: str


def index_line(memory: Memory, max_chars: int) -> str:
    return _line(memory.display_title, memory.path, memory.hook, max_chars)


@functools.lru_cache(maxsize=65_536)
def _line(display_title: str, path: str, first_line: str, max_chars: int) -> str:
    """The index line; cached, since every write regenerates the whole index."""
    # one line, whatever the title holds; a long title is cut like the hook
    title = " ".join(display_title.split()).replace("[", "(").replace("]", ")")
    title_room = max_chars - len(f"- []({path})")
    if len(title) > title_room:
        title = title[: max(title_room - 1, 1)].rstrip() + "…"
    head = f"- [{title}]({path}) — "
    hook = " ".join(first_line.split())
    room = max(max_chars - len(head), 0)
    if len(hook) > room:
        hook = hook[: max(room - 1, 0)].rstrip() + "…" if room else ""
    return head + hook if hook else head.rstrip(" —")


def render_index(memories: Iterable[Memory], config: Config) -> str:
    order = {name: i for i, name in enumerate(TYPES)}
    active = sorted(
        (m for m in memories if m.status == "active"),
        key=lambda m: (order.get(m.type, 99), m.subject, m.attribute, m.id),
    )
    return "".join(index_line(m, config.index_line_chars) + "\n" for m in active)


def parse_index(text: str) -> list[IndexLine]:
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = LINE_RE.match(line)
        if match:
            lines.append(
                IndexLine(
                    number, match["title"], match["target"].strip(), (match["hook"] or "").strip()
                )
            )
    return lines


def check_index(text: str, config: Config) -> list[str]:
    """Warnings for an index over its limits, the byte cap first."""
    warnings = []
    size = len(text.encode("utf-8"))
    if size > config.index_max_bytes:
        warnings.append(
            f"{INDEX_FILE} is {size:,} bytes, over the {config.index_max_bytes:,}"
            f"-byte cap: consolidate, or move content back into the memory files"
        )
    lines = text.splitlines()
    if len(lines) > config.index_max_lines:
        warnings.append(
            f"{INDEX_FILE} has {len(lines):,} lines, over the {config.index_max_lines}-line cap"
        )
    long = [i for i, line in enumerate(lines, start=1) if len(line) > config.index_line_chars]
    if long:
        shown = ", ".join(str(n) for n in long[:5]) + (" ..." if len(long) > 5 else "")
        warnings.append(
            f"{INDEX_FILE}: {len(long)} line(s) over {config.index_line_chars} "
            f"characters (line {shown}): an index line is a pointer, not content"
        )
    return warnings
