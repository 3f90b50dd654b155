"""One memory file's row: the file read (a problem, never an exception), the row
built from it, and a record built back from its row."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.domain.record import Memory, memory_from_mapping
from core.store.catalog.hints import _has_secret, steering_hint
from core.store.fsutil import HostileEntry, read_entry
from core.store.index import combined_rank, index_hook, rank_parts, shown_parts, type_order
from core.store.layout import MAX_FILE_BYTES, MEMORY_DIR
from core.store.snapshot import Problem


@dataclass
class SyncResult:
    """What one sync found: the files whose rows changed, killed writers' temporary
    files (only a folder that changed is listed, and a temporary file changes it)."""

    changed: set[str] = field(default_factory=set)
    temps: list[str] = field(default_factory=list)
    rebuilt: bool = False


def _read_file(path: str, rel: str, size: int) -> tuple[Memory | Problem, str]:
    """(what the file holds, its text): a Problem, never an exception."""
    data = _read_bytes(path, rel, size)
    return (data, "") if isinstance(data, Problem) else _parse_bytes(rel, data)


def _read_bytes(path: str, rel: str, size: int) -> bytes | Problem:
    """The file's bytes, or the Problem that kept them from being read."""
    if size > MAX_FILE_BYTES:
        return Problem(
            rel,
            f"file is {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
            f"KiB a memory file may have; it was not read. Split it or "
            f"move it out of {MEMORY_DIR}/",
        )
    try:
        data = read_entry(path, limit=MAX_FILE_BYTES)
    except HostileEntry as exc:
        return Problem(rel, exc.problem)
    if data is None:
        return Problem(rel, "cannot be read: it was removed while read")
    return data


def _parse_bytes(rel: str, data: bytes) -> tuple[Memory | Problem, str]:
    """(what the bytes hold, their text): a Problem, never an exception."""
    from core.domain.record import parse_memory

    if b"\0" in data:
        return Problem(rel, "is a binary file, not Markdown; move it out of the store"), ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(rel, f"is not UTF-8 (byte {exc.start}); re-save it as UTF-8"), ""
    try:
        return parse_memory(text, path=rel, rel_path=rel), text
    except ValidationError as exc:
        return Problem(rel, exc.message + (f" ({exc.hint})" if exc.hint else ""), exc.field), text


def _link_problem(root: Path, rel: str, path: str) -> Problem:
    target = os.path.realpath(path)
    where = "outside the store" if not target.startswith(str(root) + os.sep) else "inside the store"
    return Problem(
        rel,
        f"is a symbolic link to {where}; memgov does not follow links, replace it with the file",
    )


def _row(
    rel: str,
    stamp: tuple[int, int, int],
    item: Memory | Problem,
    text: str,
    taus: tuple[float, float],
    secret: int | None = None,
    steering: int | None = None,
) -> tuple[Any, ...]:
    """The row of one file. The file's text is scanned once (``secret``: already
    scanned): a record with no finding in it keeps its title and hook as they are;
    one with a finding has them redacted (what the index shows). ``taus``: the decay
    constants its rank is made with."""
    if secret is None:
        secret = _has_secret(text)
    blob = blob_id(text.encode("utf-8", "surrogateescape")) if text else None
    if isinstance(item, Problem):
        return (rel, *stamp, *(None,) * 12, item.reason, item.field, secret, *(None,) * 7, 0, blob)
    m = item
    parts = rank_parts(m)
    title, hook = shown_parts(m) if secret else (m.display_title, index_hook(m))
    kept_hook = None if hook == m.hook else hook  # None: the content's first line
    return (
        rel,
        *stamp,
        m.id,
        m.status,
        m.scope,
        m.subject,
        m.attribute,
        m.condition,
        type_order(m.type),
        m.supersedes,
        json.dumps(m.front_matter(), ensure_ascii=False, default=str),
        m.content,
        text,
        "\0".join(s.evidence for s in m.all_sources),
        None,
        None,
        secret,
        title,
        kept_hook,
        m.value,
        *parts,
        combined_rank(parts, taus),
        steering_hint(m) if steering is None else steering,
        blob,
    )


def blob_id(data: bytes) -> bytes:
    """The git blob id of ``data`` (what ``git hash-object`` prints, as 20 bytes): a
    row made from these bytes is the row of any file holding them at its path."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def memory_from_row(rel: str, meta: str, content: str) -> Memory:
    """A record from its row: validated again field by field, like the file was."""
    return memory_from_mapping(json.loads(meta), content, path=rel, rel_path=rel)
