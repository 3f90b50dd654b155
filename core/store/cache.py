"""The derived cache of a store's memory files: ``.git/memgov/cache.json``.

It maps each memory file to its stat data and what was read from it, so that an
open reads only the files that changed. It is JSON, never executed, and every
entry is validated field by field like a memory file: a bad or planted cache is
only a slower open. An erasure deletes it (it held the erased content).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.domain.record import memory_from_mapping
from core.store.fsutil import atomic_write_bytes
from core.store.layout import MEMORY_DIR
from core.store.snapshot import Entry, Problem

CACHE_FILE = "cache.json"
CACHE_VERSION = 4


def _cached_item(rel: str, raw: Any) -> Entry | None:
    """One cache entry, validated field by field like a memory file; None when bad."""
    if not (isinstance(raw, list) and len(raw) == 4):
        return None
    stamp, item = raw[:3], raw[3]
    if not all(type(n) is int for n in stamp) or not isinstance(item, dict):
        return None
    try:
        if "problem" in item:
            reason, field_name = item["problem"]
            if not isinstance(reason, str) or not isinstance(field_name, str | None):
                return None
            return (stamp[0], stamp[1], stamp[2], Problem(rel, reason, field_name))
        meta, content = item["meta"], item["content"]
        if not isinstance(content, str):
            return None
        memory = memory_from_mapping(meta, content, path=rel, rel_path=rel)
    except (ValidationError, KeyError, TypeError, ValueError):
        return None
    return (stamp[0], stamp[1], stamp[2], memory)


def read_cache(path: Path) -> dict[str, Entry]:
    """The derived cache, or {} when there is none or it is not what memgov writes.
    Never executes anything: JSON, every entry validated as a memory file is."""
    try:
        if path.is_symlink() or not path.is_file():
            return {}
        stored = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(stored, dict) or stored.get("version") != CACHE_VERSION:
        return {}
    entries = stored.get("entries")
    if not isinstance(entries, dict):
        return {}
    cache = {}
    for rel, raw in entries.items():
        if isinstance(rel, str) and rel.startswith(f"{MEMORY_DIR}/"):
            item = _cached_item(rel, raw)
            if item is not None:
                cache[rel] = item
    return cache


def write_cache(path: Path, fresh: dict[str, Entry]) -> None:
    entries: dict[str, Any] = {}
    for rel, (mtime, size, ino, item) in fresh.items():
        if isinstance(item, Problem):
            shape: dict[str, Any] = {"problem": [item.reason, item.field]}
        else:
            shape = {"meta": item.front_matter(), "content": item.content}
        entries[rel] = [mtime, size, ino, shape]
    data = json.dumps({"version": CACHE_VERSION, "entries": entries}, ensure_ascii=False)
    with contextlib.suppress(OSError):
        atomic_write_bytes(path, data.encode("utf-8"))
