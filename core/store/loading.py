"""Reading a store's memory files into a :class:`~core.store.snapshot.Snapshot`.

Files are walked without following links; a link, a pipe, a file over
:data:`~core.store.layout.MAX_FILE_BYTES`, a binary or non-UTF-8 file, or one that
does not parse is a :class:`~core.store.snapshot.Problem`, never an exception.
Files unchanged since the derived cache (or the previous read) are not parsed
again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from core.domain.errors import ValidationError
from core.domain.record import LARGE_FILE_CHARS, Memory, parse_memory
from core.store.cache import CACHE_FILE, read_cache, write_cache
from core.store.fsutil import is_temp_name
from core.store.layout import MAX_FILE_BYTES, MEMORY_DIR
from core.store.snapshot import Entry, Problem, Snapshot


def read_memory_file(path: str, rel: str, size: int) -> Memory | Problem:
    if size > MAX_FILE_BYTES:
        return Problem(
            rel,
            f"file is {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
            f"KiB a memory file may have; it was not read. Split it or "
            f"move it out of {MEMORY_DIR}/",
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return Problem(rel, f"cannot be read: {exc.strerror}")
    if b"\0" in data:
        return Problem(rel, "is a binary file, not Markdown; move it out of the store")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(rel, f"is not UTF-8 (byte {exc.start}); re-save it as UTF-8")
    try:
        return parse_memory(text, path=rel, rel_path=rel)
    except ValidationError as exc:
        return Problem(rel, exc.message + (f" ({exc.hint})" if exc.hint else ""), exc.field)


def _walk(base: Path, temps: list[str]) -> Iterator[os.DirEntry[str]]:
    """The memory files under ``base`` (and links, to report); temporary files of a
    killed writer go to ``temps``."""
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                    temps.append(entry.path)
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(".md") or entry.is_symlink():
                yield entry


def load_snapshot(
    root: Path,
    state_dir: Path,
    *,
    use_cache: bool,
    previous: dict[str, Entry] | None = None,
) -> Snapshot:
    """Read the store's memory files. ``previous`` (what this process read last time)
    stands in for the on-disk cache; the cache file is then left for the next process
    to refresh, so a write does not pay for rewriting it."""
    cache_path = state_dir / CACHE_FILE
    refresh_cache = use_cache and previous is None
    cache = previous if previous is not None else (read_cache(cache_path) if use_cache else {})
    fresh: dict[str, Entry] = {}
    dirty = False
    snap = Snapshot()
    base = root / MEMORY_DIR
    prefix = len(str(root)) + 1
    if base.is_symlink():
        snap.problems.append(
            Problem(
                MEMORY_DIR,
                "is a symbolic link; memgov never follows links in a store (a link "
                "committed to a shared store could point anywhere): no memory was read. "
                "Replace it with the real folder",
            )
        )
        return snap
    for entry in _walk(base, snap.temps):
        rel = entry.path[prefix:].replace(os.sep, "/")
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            where = (
                "outside the store"
                if not target.startswith(str(root) + os.sep)
                else "inside the store"
            )
            snap.problems.append(
                Problem(
                    rel,
                    f"is a symbolic link to {where}; memgov does "
                    f"not follow links, replace it with the file",
                )
            )
            continue
        if not entry.is_file(follow_symlinks=False):
            snap.problems.append(
                Problem(
                    rel,
                    "is not a regular file (a pipe or a device?); memgov only reads plain files",
                )
            )
            continue
        st = entry.stat(follow_symlinks=False)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        hit = cache.get(rel)
        if hit is not None and hit[:3] == stamp:
            item = hit[3]
        else:
            item = read_memory_file(entry.path, rel, st.st_size)
            dirty = True
        fresh[rel] = (*stamp, item)
    snap.entries = fresh
    if refresh_cache and (dirty or len(fresh) != len(cache)):
        write_cache(cache_path, fresh)
    by_id: dict[str, list[Memory]] = {}
    for rel in sorted(fresh):
        item = fresh[rel][3]
        if isinstance(item, Problem):
            snap.problems.append(item)
        else:
            by_id.setdefault(item.id, []).append(item)
    for memory_id, found in by_id.items():
        keep = next((m for m in found if m.path.endswith(f"/{memory_id}.md")), found[0])
        snap.memories[memory_id] = keep
        for other in found:
            if other is not keep:
                snap.problems.append(
                    Problem(
                        other.path,
                        f"duplicate id {memory_id!r}, also in {keep.path}; give one a new id",
                        "id",
                    )
                )
        if len(keep.content) > LARGE_FILE_CHARS:
            snap.warnings.append(
                f"{keep.path}: {len(keep.content):,} characters, over "
                f"{LARGE_FILE_CHARS:,}: consider splitting it"
            )
    snap.problems.sort(key=lambda p: p.path)
    return snap
