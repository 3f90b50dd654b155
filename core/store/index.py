"""The ``MEMORY.md`` index (SPEC section 2, seed 5.1): one line per active memory.

``- [Title (condition)](memories/xx/id.md) — hook``. The index is an index: content
never goes in. Limits: about 150 characters a line, 200 lines, 25,000 bytes; by
design the byte cap fires first. memgov writes the index within them
(:func:`fit_index`). When the active records do not all fit, it keeps the ones that
matter most (:func:`pick_key`: by type, preferences first, then by decay weight) and
ends with one line saying how many more there are and how to recall them; the lines
it keeps are listed in a readable order (:func:`sort_key`: type, subject, attribute,
condition). A hand-edited index over the caps warns, never refuses.

The file on disk is untrusted input (a hand edit, a push to a team store): read it
with :func:`read_index_text`, which never raises for what the file holds (not
UTF-8, binary, huge, a link) but says what is wrong; the parse helpers take any text.
"""

from __future__ import annotations

import functools
import math
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.domain.provenance import caution
from core.domain.record import Memory
from core.domain.shown import titled
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
    """The record's line. A credential in its title, condition or hook (written
    before scanning, or by hand) never reaches the index an agent reads:
    ``[secret: rule-id]`` instead, put in before the line is cut, so a cut never
    leaves part of one."""
    title, hook = shown_parts(memory)
    return _line(title, shown_condition(memory), memory.path, hook, max_chars)


def shown_parts(memory: Memory) -> tuple[str, str]:
    """The title and hook of the record's index line, redacted (the catalog keeps them)."""
    from core.domain import secrets  # the scanner compiles its rules on first use

    return secrets.redact(memory.display_title), index_hook(memory, secrets.redact(memory.hook))


def index_hook(memory: Memory, hook: str | None = None) -> str:
    """What the index line shows after the title: the content's first line, said to
    come from outside the user first when it did (core.domain.provenance.caution)."""
    hook = memory.hook if hook is None else hook
    warned = caution(memory.provenance)
    return f"({warned}) {hook}" if warned else hook


def shown_condition(memory: Memory) -> str | None:
    """The record's condition, redacted (None: it has none)."""
    if not memory.condition:
        return None
    from core.domain import secrets

    return secrets.redact(memory.condition)


@functools.lru_cache(maxsize=65_536)
def _line(title: str, condition: str | None, path: str, first_line: str, max_chars: int) -> str:
    """The index line; cached, since every write regenerates the whole index. The
    title with its condition (:func:`core.domain.shown.titled`), on one line, cut like
    the hook when long: the condition stays whole."""

    def plain(text: str) -> str:
        return " ".join(text.split()).replace("[", "(").replace("]", ")")

    room = max_chars - len(f"- []({path})")
    shown = titled(plain(title), plain(condition) if condition else None, max(room, 2))
    head = f"- [{shown}]({path}) — "
    hook = " ".join(first_line.split())
    room = max(max_chars - len(head), 0)
    if len(hook) > room:
        hook = hook[: max(room - 1, 0)].rstrip() + "…" if room else ""
    return head + hook if hook else head.rstrip(" —")


def render_lines(rows: Iterable[tuple[str, str | None, str, str]], max_chars: int) -> str:
    """The index lines of (redacted title, redacted condition, path, redacted hook) rows."""
    return "".join(_line(*row, max_chars) + "\n" for row in rows)


# --------------------------------------------------------------------- the order
#: The types in the index's order, which is also what it keeps first when it cannot
#: list every active record. The index is what an agent loads into every session
#: without asking, so the types go in the order of how far an agent may act on them
#: unchecked (core.domain.record.TRUST): a preference goes into the system prompt and
#: may change behaviour directly (high trust); a semantic fact is checked against the
#: current state and holds across tasks; an episodic record (medium trust too) tells
#: of one event, and a reflection is advice only (low trust). Working memory is never
#: written. Recall (memgov recall, the MCP tool) finds every record the index leaves out.
INDEX_TYPES = ("preference", "semantic", "episodic", "reflection", "working")
_TYPE_ORDER = {name: i for i, name in enumerate(INDEX_TYPES)}
DAY = 86_400.0


def type_order(kind: str) -> int:
    """The type's place in :data:`INDEX_TYPES` (an unknown type goes last)."""
    return _TYPE_ORDER.get(kind, 99)


def rank_parts(memory: Memory) -> tuple[float, float, float]:
    """(ln confidence, t1, t2) of the record: t1 its last use (its creation when never
    used) and t2 its verification, in days since the epoch. What :func:`combined_rank`
    makes a rank of; the catalog keeps them per row."""
    confidence = float(memory.confidence)
    used = memory.last_used_at or memory.created_at
    return (
        math.log(confidence) if confidence > 0 else -math.inf,
        used.timestamp() / DAY,
        memory.verified_at.timestamp() / DAY,
    )


def combined_rank(parts: tuple[float, float, float], taus: tuple[float, float]) -> float:
    """The static rank of :func:`rank_parts` under decay constants (tau1, tau2), in days.

    Decay (core.writing.decay.weight) is ``w0 * confidence * exp(-d1/tau1) *
    exp(-d2/tau2)`` with d1 = now - t1 and d2 = now - t2, so ``ln(weight) = ln(w0) +
    ln(confidence) + t1/tau1 + t2/tau2 - now * (1/tau1 + 1/tau2)``: ``now`` and w0
    shift every record alike, and the order by weight is the order by this rank, at
    any time after the records' own times (decay counts a time in the future as now).
    It never underflows, where a weight of a record years old is 0.0."""
    ln_confidence, t1, t2 = parts
    return ln_confidence + t1 / taus[0] + t2 / taus[1]


def rank_taus(config: Config) -> tuple[float, float]:
    return (float(config.tau1_days), float(config.tau2_days))


def index_rank(memory: Memory, config: Config) -> float:
    """The record's static rank under the store's decay constants: higher weighs more."""
    return combined_rank(rank_parts(memory), rank_taus(config))


PickKey = tuple[int, float, str, str]
ListKey = tuple[int, str, str, str, str]


def pick_key(memory: Memory, config: Config) -> PickKey:
    """What the index keeps first: type (:data:`INDEX_TYPES`), then weight (the
    heaviest first), then id and file. The catalog's ordered index walks the same order."""
    return (type_order(memory.type), -index_rank(memory, config), memory.id, memory.path)


def sort_key(memory: Memory) -> ListKey:
    """How the index lists the lines it keeps: type (:data:`INDEX_TYPES`), subject,
    attribute, condition, id (so records of one subject stand together)."""
    return list_key(
        type_order(memory.type), memory.subject, memory.attribute, memory.condition, memory.id
    )


def list_key(
    order: int, subject: str, attribute: str, condition: str | None, memory_id: str
) -> ListKey:
    """:func:`sort_key` from a row's columns (``order``: :func:`type_order`)."""
    return (order, subject, attribute, condition or "", memory_id)


def render_index(memories: Iterable[Memory], config: Config) -> str:
    """The index of these records: their active ones, within the caps."""
    active = sorted(
        (m for m in memories if m.status == "active"), key=lambda m: pick_key(m, config)
    )
    width = config.index_line_chars
    return fit_index(
        ((sort_key(m), index_line(m, width) + "\n") for m in active), len(active), config
    )


def overflow_line(omitted: int, config: Config) -> str:
    """The index's last line when it cannot list every active memory. It is no index
    line (no link): an agent reads it as a note, :func:`parse_index` skips it, and
    :func:`check_index` does not count it as a long line (memgov wrote it)."""
    return (
        f"- … and {omitted:,} more active memor{'y' if omitted == 1 else 'ies'} not listed "
        f"(this index keeps within {config.index_max_lines} lines and "
        f"{config.index_max_bytes:,} bytes): recall them by subject with "
        f"'memgov recall SUBJECT' or the MCP tool recall\n"
    )


OVERFLOW_RE = re.compile(
    r"^- … and [\d,]+ more active memor(?:y|ies) not listed \(this index keeps within "
    r"[\d,]+ lines and [\d,]+ bytes\): recall them by subject with 'memgov recall SUBJECT' "
    r"or the MCP tool recall$"
)


def fit_index(entries: Iterable[str | tuple[ListKey, str]], total: int, config: Config) -> str:
    """The index from its entries in the order they are kept in (``total`` of them in
    all), within the caps an agent loads (SPEC 2, seed 5.1: lines and bytes, the byte
    cap first): as many lines as fit, then :func:`overflow_line` for the rest. An entry
    is ``(list key, line)``, and the lines kept are listed in the order of their keys
    (:func:`sort_key`); a plain line is listed where it comes. Each line ends in a
    newline. Reads no more of ``entries`` than fit, so a store of any size writes an
    index of at most ``index_max_bytes``."""
    max_lines, max_bytes = config.index_max_lines, config.index_max_bytes
    kept: list[tuple[ListKey | int, str]] = []
    sizes: list[int] = []
    size = 0
    for entry in entries:
        kept.append((len(kept), entry) if isinstance(entry, str) else entry)
        sizes.append(len(kept[-1][1].encode("utf-8")))
        size += sizes[-1]
        if len(kept) > max_lines or size > max_bytes:
            break
    if len(kept) >= total and len(kept) <= max_lines and size <= max_bytes:
        return _listed(kept)
    count = len(kept)
    while count and (
        count + 1 > max_lines
        or size + len(overflow_line(total - count, config).encode("utf-8")) > max_bytes
    ):
        count -= 1
        size -= sizes[count]
    return _listed(kept[:count]) + overflow_line(total - count, config)


def _listed(kept: list[tuple[ListKey | int, str]]) -> str:
    """The lines kept, in the order of their keys (one kind of key: all plain lines'
    positions, or all list keys)."""
    return "".join(line for _key, line in sorted(kept, key=lambda entry: entry[0]))


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
    long = [
        i
        for i, line in enumerate(lines, start=1)
        if len(line) > config.index_line_chars and not OVERFLOW_RE.match(line)
    ]
    if long:
        shown = ", ".join(str(n) for n in long[:5]) + (" ..." if len(long) > 5 else "")
        warnings.append(
            f"{INDEX_FILE}: {counted(len(long), 'line')} over {config.index_line_chars} "
            f"characters (line {shown}): an index line is a pointer, not content"
        )
    return warnings
