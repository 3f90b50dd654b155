"""The ``MEMORY.md`` index (SPEC section 2, seed 5.1): one line per active memory.

``- [Title](memories/id.md) — hook``. The index is an index: content never goes
in. Limits: about 150 characters a line, 200 lines, 25,000 bytes; by design the
byte cap fires first. memgov writes the index within them (:func:`fit_index`): the
first active memories in the index's order, then one line saying how many more
there are. A hand-edited index over them warns, never refuses.

The file on disk is untrusted input (a hand edit, a push to a team store): read it
with :func:`read_index_text`, which never raises for what the file holds (not
UTF-8, binary, huge, a link) but says what is wrong; the parse helpers take any text.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.domain.record import TYPES, Memory
from core.domain.words import counted
from core.store.config import Config

INDEX_FILE = "MEMORY.md"
#: an index over this is not read at all (its cap is 25,000 bytes; this is far past it)
MAX_INDEX_READ_BYTES = 4 * 1024 * 1024
LINE_RE = re.compile(
    r"^\s*[-*]\s+\[(?P<title>[^\]]*)\]\((?P<target>[^)]+)\)\s*(?:[—–-]+\s*(?P<hook>.*))?$"
)


@dataclass(frozen=True)
class IndexLine:
    number: int
    title: str
    target: str
    hook: str


def read_index_text(root: Path) -> tuple[str | None, str | None]:
    """``(text, problem)`` for the store's ``MEMORY.md``, never raising for what the
    file holds: ``(text, None)`` when it reads; ``(None, None)`` when there is none;
    ``(None, reason)`` when it is a symbolic link, not a regular file, over
    :data:`MAX_INDEX_READ_BYTES`, binary or not UTF-8 (the reason names no content
    and says what to do; 'memgov reindex' rewrites the file from the records)."""
    path = root / INDEX_FILE
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or type(exc).__name__})"
    fix = "run 'memgov reindex' to write it again from the records"
    if stat.S_ISLNK(info.st_mode):
        return None, f"is a symbolic link; memgov reads no store file through a link: {fix}"
    if not stat.S_ISREG(info.st_mode):
        return None, f"is not a regular file: {fix}"
    if info.st_size > MAX_INDEX_READ_BYTES:
        return None, (
            f"is {info.st_size / 1e6:.1f} MB, over the {MAX_INDEX_READ_BYTES // (1024 * 1024)} MiB "
            f"memgov reads: {fix}"
        )
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            data = os.read(fd, MAX_INDEX_READ_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or type(exc).__name__})"
    if len(data) > MAX_INDEX_READ_BYTES:
        return None, f"grew past {MAX_INDEX_READ_BYTES // (1024 * 1024)} MiB while read: {fix}"
    if b"\0" in data:
        return None, f"is a binary file, not Markdown: {fix}"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"is not UTF-8 (byte {exc.start + 1:,}): {fix}"


def index_line(memory: Memory, max_chars: int) -> str:
    """The record's line. A credential in its title or hook (written before scanning,
    or by hand) never reaches the index an agent reads: ``[secret: rule-id]`` instead,
    put in before the line is cut, so a cut never leaves part of one."""
    title, hook = shown_parts(memory)
    return _line(title, memory.path, hook, max_chars)


def shown_parts(memory: Memory) -> tuple[str, str]:
    """The title and hook of the record's index line, redacted (the catalog keeps them)."""
    from core.domain import secrets  # the scanner compiles its rules on first use

    return secrets.redact(memory.display_title), secrets.redact(memory.hook)


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


def render_lines(rows: Iterable[tuple[str, str, str]], max_chars: int) -> str:
    """The index from (redacted title, path, redacted hook) rows already in order."""
    return "".join(_line(title, path, hook, max_chars) + "\n" for title, path, hook in rows)


def sort_key(memory: Memory) -> tuple[int, str, str, str]:
    """The index's order: type (as SPEC lists them), subject, attribute, id."""
    return (_TYPE_ORDER.get(memory.type, 99), memory.subject, memory.attribute, memory.id)


_TYPE_ORDER = {name: i for i, name in enumerate(TYPES)}


def render_index(memories: Iterable[Memory], config: Config) -> str:
    """The index of these records: their active ones in order, within the caps."""
    active = sorted((m for m in memories if m.status == "active"), key=sort_key)
    width = config.index_line_chars
    return fit_index((index_line(m, width) + "\n" for m in active), len(active), config)


def overflow_line(omitted: int, config: Config) -> str:
    """The index's last line when it cannot list every active memory. It is no index
    line (no link): an agent reads it as a note, :func:`parse_index` skips it."""
    return (
        f"- … and {omitted:,} more active memor{'y' if omitted == 1 else 'ies'}, not "
        f"listed: this index keeps within {config.index_max_lines} lines and "
        f"{config.index_max_bytes:,} bytes ('memgov list' shows them all)\n"
    )


def fit_index(lines: Iterable[str], total: int, config: Config) -> str:
    """The index from its lines in order (each ending in a newline; ``total`` of them
    in all), within the caps an agent loads (SPEC 2, seed 5.1: lines and bytes, the
    byte cap first): as many lines as fit, then :func:`overflow_line` for the rest.
    Reads no more of ``lines`` than fit, so a store of any size writes an index of
    at most ``index_max_bytes``."""
    max_lines, max_bytes = config.index_max_lines, config.index_max_bytes
    kept: list[str] = []
    sizes: list[int] = []
    size = 0
    for line in lines:
        kept.append(line)
        sizes.append(len(line.encode("utf-8")))
        size += sizes[-1]
        if len(kept) > max_lines or size > max_bytes:
            break
    if len(kept) >= total and len(kept) <= max_lines and size <= max_bytes:
        return "".join(kept)
    count = len(kept)
    while count and (
        count + 1 > max_lines
        or size + len(overflow_line(total - count, config).encode("utf-8")) > max_bytes
    ):
        count -= 1
        size -= sizes[count]
    return "".join(kept[:count]) + overflow_line(total - count, config)


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


def line_span(text: str, path: str) -> tuple[int, int] | None:
    """(start, end) of the index line of ``text`` that points at ``path``, its newline
    included: a search for ``](path)``, each hit checked by parsing its one line (a
    hook may quote a path too), never a parse of every line."""
    marker = f"]({path})"
    pos = text.find(marker)
    while pos != -1:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        match = LINE_RE.match(text[start:end])
        if match and match["target"].strip() == path:
            return start, min(end + 1, len(text))
        pos = text.find(marker, pos + 1)
    return None


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
            f"{INDEX_FILE}: {counted(len(long), 'line')} over {config.index_line_chars} "
            f"characters (line {shown}): an index line is a pointer, not content"
        )
    return warnings
