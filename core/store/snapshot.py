"""What one read of a store's memory files found: records, problems, warnings.

A :class:`Snapshot` is built by :func:`core.store.loading.load_snapshot`; its
``entries`` keep each file's stat data beside what was read, so that the next
read (or the derived cache) parses again only the files that changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.domain.data import AsData
from core.domain.record import Memory


@dataclass(frozen=True)
class Problem(AsData):
    """A file the store could not read. It is skipped, never rewritten."""

    path: str
    reason: str
    field: str | None = None


#: (mtime_ns, size, inode, what was read) of one memory file
Entry = tuple[int, int, int, Memory | Problem]


@dataclass
class Snapshot:
    memories: dict[str, Memory] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: relative path -> (mtime_ns, size, inode, what was read): lets a writer re-check
    #: every file by its stat data alone and re-read only the ones that changed
    entries: dict[str, Entry] = field(default_factory=dict)
    #: temporary files a killed writer left in memories/ (found by the same walk)
    temps: list[str] = field(default_factory=list)
