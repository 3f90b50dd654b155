"""Each hinted record's steering verdict, kept beside its row, so the queue, ``doctor``
and the desk's queue ask the detector only about the records that changed.

The records the catalog hints (``entries.steering``, a quarter of a store whose
preferences all raise the provenance question) are asked at every build of the queue
whether the detector flags them (:func:`core.store.reaching.steering_flagged`). That
verdict is a pure function of the record's file, the daily log its source cites (the
role of the cited message), the store's known hosts and the detector's code. The
table ``assessed`` keeps it for each record id with what it was made of:

- the file's row: its path and the stat data the catalog keeps for it (``mtime``,
  ``size``, ``ino``: a row the catalog read again, after a write, an undo, an
  external edit or a checkout, has new ones) and its hint bits;
- ``context``: a digest of the detector's and this rule's code and the known hosts;
- ``log`` and ``log_stamp``: the daily log the verdict read and its stat data then
  (``*``: every log, for a source found by its task alone; none for a source that
  is a file or words from outside the user, whose role the record itself says).

A kept verdict is used only when every one of these is as it is now; anything else
(a missing table, a row of another shape, a value that is not 0 or 1) is assessed
again and kept anew. The table is derived and local like the rest of the catalog:
it holds ids, stat data and one bit, never a record's words, and it is never
trusted over the files (a row that does not match is ignored, and replaced by the
verdict made again). Writing it never waits for another writer of the catalog: a
verdict not kept is made again next time. Its migration step (:func:`prepare`) also
makes ``entries_hinted``, a covering index of the hinted rows' path, id, hint, stat
data and status, so the question never reads a row (which holds the file's text).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.store.catalog.connection import CatalogConnection
from core.store.catalog.hints import scanner_fingerprint

_TABLE = (
    "CREATE TABLE IF NOT EXISTS assessed (id TEXT PRIMARY KEY, rel TEXT NOT NULL, "
    "mtime INTEGER NOT NULL, size INTEGER NOT NULL, ino INTEGER NOT NULL, "
    "bits INTEGER NOT NULL, context TEXT NOT NULL, log TEXT, log_stamp TEXT, "
    "flagged INTEGER NOT NULL)"
)
#: the migration step of this table: a covering index of the hinted rows' columns the
#: question below reads, so it never reads a row itself (a row holds the file's text)
_INDEX = (
    "CREATE INDEX IF NOT EXISTS entries_hinted ON entries "
    "(rel, id, steering, mtime, size, ino, status, reason) WHERE steering != 0"
)
_WHERE = "WHERE e.steering != 0 AND e.reason IS NULL AND e.status IN ('active', 'conflict') "
#: the hinted active and conflicting rows (as core.store.reaching asks them), each with
#: how many files claim its id, whether the verdict kept for the id was made of this
#: very row (path, stat data, hint) and context, of the table's shape, and that verdict
_HINTED = (
    "SELECT e.id, e.rel, e.steering, e.mtime, e.size, e.ino, "
    "(SELECT COUNT(*) FROM entries x WHERE x.id = e.id), "
    "a.rel = e.rel AND a.mtime = e.mtime AND a.size = e.size AND a.ino = e.ino "
    "AND a.bits = e.steering AND a.context = ? AND typeof(a.flagged) = 'integer' "
    "AND a.flagged IN (0, 1) AND typeof(a.log) IN ('text', 'null') "
    "AND typeof(a.log_stamp) IN ('text', 'null'), "
    "a.log, a.log_stamp, a.flagged "
    "FROM entries e {} LEFT JOIN assessed a ON a.id = e.id " + _WHERE + "ORDER BY e.rel"
)
_PLAIN = (
    "SELECT e.id, e.rel, e.steering, e.mtime, e.size, e.ino, "
    "(SELECT COUNT(*) FROM entries x WHERE x.id = e.id), NULL, NULL, NULL, NULL "
    "FROM entries e " + _WHERE + "ORDER BY e.rel"
)
#: ``log`` of a verdict whose source names no log: every daily log was looked in
EVERY_LOG = "*"
#: the code a verdict depends on besides the detector's packages (scanner_fingerprint)
_CODE = ("core/domain/provenance.py", "core/store/reaching.py", "core/store/logs.py")


@dataclass(frozen=True)
class Kept:
    """A verdict and the daily log it read (module docstring)."""

    log: str | None
    log_stamp: str | None
    flagged: bool


@dataclass(frozen=True)
class Hinted:
    """A hinted row: its record id, file, hint bits, stat data, how many files claim
    the id, and the verdict kept for the id when it was made of this row and context."""

    id: str
    rel: str
    bits: int
    stamp: tuple[int, int, int]
    copies: int
    kept: Kept | None


@functools.cache
def _code_fingerprint() -> str:
    import core

    digest = hashlib.sha256(scanner_fingerprint().encode())
    base = Path(core.__file__).resolve().parent.parent
    for rel in _CODE:
        with contextlib.suppress(OSError):
            digest.update(rel.encode() + b"\0" + (base / rel).read_bytes())
    return digest.hexdigest()


def context_of(known_hosts: Sequence[str] | None) -> str:
    """The digest of what every verdict of a store depends on: the code that makes
    it and the store's known hosts (None kept apart from none)."""
    digest = hashlib.sha256(_code_fingerprint().encode())
    digest.update(b"\1" if known_hosts is None else b"\0" + "\n".join(known_hosts).encode())
    return digest.hexdigest()[:32]


def hinted(catalog: CatalogConnection, context: str) -> list[Hinted]:
    """Every hinted active and conflicting row with the verdict kept for it in this
    ``context`` (none when the table is missing or cannot be read)."""
    rows = None
    # the index named (the planner, with no statistics, would read every active row),
    # then without it (a catalog that cannot be written to make it), then no table
    for how in ("INDEXED BY entries_hinted", ""):
        with contextlib.suppress(sqlite3.Error):
            rows = catalog._query(_HINTED.format(how), (context,))
            break
    if rows is None:
        rows = catalog._query(_PLAIN)
    return [
        Hinted(
            memory_id,
            rel,
            int(bits),
            (mtime, size, ino),
            int(copies),
            Kept(log, log_stamp, flagged == 1) if same else None,
        )
        for memory_id, rel, bits, mtime, size, ino, copies, same, log, log_stamp, flagged in rows
    ]


class LogStamps:
    """The stat data of the daily logs a verdict read, each looked at once: a log
    reached through a symbolic link, or missing, has a stamp that says so."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._stamps: dict[str, str] = {}

    def of(self, log: str | None) -> str | None:
        if log is None:
            return None
        found = self._stamps.get(log)
        if found is None:
            found = self._every() if log == EVERY_LOG else self._one(log)
            self._stamps[log] = found
        return found

    def _one(self, log: str) -> str:
        from core.store.fsutil import UnsafePath, confined

        try:
            path = confined(self.root, log, final_may_be_missing=False)
            st = os.lstat(path)
        except (UnsafePath, OSError, ValueError):
            return "unreadable"
        if not stat.S_ISREG(st.st_mode):
            return "not-a-file"
        return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"

    def _every(self) -> str:
        """A digest of every daily log's path and stat data (a log added, removed or
        changed anywhere is a new one)."""
        from core.store.logs import LOG_DIR

        digest = hashlib.sha256()
        base = self.root / LOG_DIR
        try:
            st = os.lstat(base)
        except OSError:
            return "none"
        if not stat.S_ISDIR(st.st_mode):
            return "not-a-folder"
        for folder, dirs, files in os.walk(base):
            dirs.sort()
            for name in sorted(files):
                with contextlib.suppress(OSError):
                    fs = os.lstat(os.path.join(folder, name))
                    rel = os.path.relpath(os.path.join(folder, name), self.root)
                    digest.update(
                        f"{rel}\0{fs.st_mode}:{fs.st_mtime_ns}:{fs.st_size}:{fs.st_ino}\n".encode(
                            "utf-8", "surrogateescape"
                        )
                    )
        return digest.hexdigest()[:32]


def usable(row: Hinted, logs: LogStamps) -> bool:
    """Whether the verdict kept for ``row`` was made of what is there now: the row and
    the context (:func:`hinted`), the one file of its id, and the log it read."""
    kept = row.kept
    return kept is not None and row.copies == 1 and kept.log_stamp == logs.of(kept.log)


def prepare(catalog: CatalogConnection) -> None:
    """The migration step: the table and its index made when either is missing (a
    catalog made before them, or one whose table was dropped); never waited for."""
    try:
        found = catalog._query(
            "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('assessed', 'entries_hinted')"
        )
    except sqlite3.Error:
        return
    if found[0][0] != 2:
        _write(catalog, [])


def keep(
    catalog: CatalogConnection,
    context: str,
    verdicts: Iterable[tuple[Hinted, Kept]],
    *,
    prune: bool = False,
) -> None:
    """Keep these verdicts (each of the row it was made for, in ``context``); ``prune``:
    and drop those of ids no longer hinted."""
    values = [
        (
            row.id,
            row.rel,
            *row.stamp,
            row.bits,
            context,
            kept.log,
            kept.log_stamp,
            int(kept.flagged),
        )
        for row, kept in verdicts
    ]
    if values:
        _write(catalog, values, prune=prune)


def _write(
    catalog: CatalogConnection, values: Sequence[tuple[object, ...]], *, prune: bool = False
) -> None:
    """One write of the table (made with its index when missing), never waited for
    (:meth:`CatalogConnection.write_unwaited`): the verdicts are made again next time."""

    def write(db: sqlite3.Connection) -> None:
        db.execute(_TABLE)
        db.execute(_INDEX)
        db.executemany(
            "INSERT OR REPLACE INTO assessed VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values
        )
        if prune:
            db.execute(
                "DELETE FROM assessed WHERE id NOT IN "
                "(SELECT id FROM entries WHERE steering != 0 AND id IS NOT NULL)"
            )

    catalog.write_unwaited(write)


def forget(catalog: CatalogConnection) -> None:
    """Drop every kept verdict (the next build assesses every hinted record again)."""
    with contextlib.suppress(sqlite3.Error), catalog._lock:
        catalog.db.execute("DELETE FROM assessed")
