"""Writing into an agent's folder, the one way both syncs do it.

An agent may be writing its folder while a sync runs, and the folder is not memgov's:
a file is written to a temporary name beside it, synced to disk and renamed over
it, only while its bytes are still the ones the sync read (``expected``: their hash;
None: the file must not exist, and a file that appears meanwhile is never written
over), and never through a symbolic link anywhere on the way. What was not written
is said in ``notes``, for the sync's report.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from pathlib import Path

from core.importers.held import file_hash

#: the name of a temporary file :func:`write_agent_file` makes (``mkstemp``'s 8 characters)
_TEMP = re.compile(r"\A\..+\.[a-z0-9_]{8}\.memgov\Z")
#: the most entries of an agent's folder a sweep looks at
_SWEEP_LIMIT = 20_000


def sweep_temps(folder: Path, notes: list[str]) -> int:
    """Remove what a sync killed mid-write left in the agent's folder: its temporary
    files (only memgov makes names like ``.project_x.md.k3j9a0qz.memgov``; a plain file,
    never a link). Called at the start of each sync, which holds the store's lock; the
    number removed (``notes`` names them)."""
    removed = 0
    seen = 0
    for top, dirs, names in os.walk(folder, followlinks=False):
        seen += len(dirs) + len(names)
        if seen > _SWEEP_LIMIT:
            break
        for name in names:
            if not _TEMP.match(name):
                continue
            path = Path(top) / name
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.lstat(path).st_mode):
                    path.unlink()
                    removed += 1
                    notes.append(f"{path.relative_to(folder)}: a write cut short earlier; removed")
    return removed


def write_agent_file(
    folder: Path, rel: str, data: bytes | str, expected: str | None, notes: list[str]
) -> bool:
    """Write ``rel`` of ``folder`` (this module's docstring); whether it was written."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    path = folder / rel
    steps = [folder / p for p in reversed(Path(rel).parents) if str(p) != "."]
    if any(p.is_symlink() for p in (*steps, path)):
        notes.append(f"{rel}: a symbolic link on the way; memgov does not write through it")
        return False
    try:
        now = file_hash(path.read_bytes()) if path.exists() else None
    except OSError:
        now = "unreadable"
    if now != expected:
        notes.append(f"{rel}: changed while the sync ran; the next sync takes it")
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    if any(p.is_symlink() for p in steps):  # made meanwhile
        return False
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".memgov", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        if expected is None:
            os.link(tmp, path)  # created, never over a file that appeared meanwhile
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except FileExistsError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        notes.append(f"{rel}: appeared while the sync ran; not written")
        return False
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return True
