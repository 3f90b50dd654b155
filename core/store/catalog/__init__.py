"""The catalog: a persistent index of a store's memory files, in sqlite.

``.git/memgov/catalog.sqlite`` is derived and local (inside ``.git``, so no clone,
pull or push carries it; a committed ``.memgov/`` is never read). The files and
git stay the truth: the catalog can be deleted at any time and is rebuilt from
them, and one that does not open or has another schema version is rebuilt, never
trusted.

**Blob ids.** Each row keeps the git blob id of the bytes it was made from. A file
whose stat data changed is read again, and when its bytes have the row's blob id
the row is kept with the new stat data (a ``touch``, a checkout that wrote the
same bytes); only new bytes are parsed, scanned and hinted again. A catalog made
for another folder (the store copied with its ``.git``) is kept the same way: its
folders' stat data and its commit are dropped, so the next sync checks every file,
and a row stays only where the file's bytes prove it. A copy opens at the cost of
reading its bytes; a clone (no catalog: ``.git/memgov`` is never cloned) reads and
indexes every file. The catalog is trusted no further than ``.git`` itself, whose
config and hooks git runs.

It holds one row per memory file: its stat data (mtime, size, inode), the key
columns (id, status, scope, subject, attribute, condition, type), the front
matter as JSON and the content (what :func:`~core.domain.record.parse_memory`
validated when the file was read), the file's text, or the problem that made it
unreadable. Records by id, by key, by status or by subject are one indexed
query; a write changes the rows of the files it wrote.

**What an open costs.** :meth:`Catalog.sync` does not stat every file. It checks
the folders' own stat data (a file created, removed or replaced by a rename,
which is how memgov, editors, ``sed -i`` and git write, changes its folder's
mtime and gives the file a new inode): only a folder that changed is listed
again (names and inodes, from one ``scandir``), and only files with a new
inode, a new name or a missing name are read. When the repository's ``HEAD``
moved since the catalog was written (a commit, ``git pull``, a checkout), the
files git says changed between the two commits are checked too. An edit that
rewrites a file in place, keeps its inode and is not committed is seen by a
full check (:meth:`Catalog.sync` with ``full=True``), which ``memgov doctor`` and
the desk's reload key run: it stats every file like ``git status`` does. A write
never misses one: a transaction checks the stat data of every record it changes
before changing it (:class:`core.store.records.View`).

**Requests.** The request files (``requests/*.yaml``, :mod:`core.store.requests`)
have rows too, read on the first question about requests and kept the same way
(the folder's stat data, the files git says changed, every file with a full sync),
with two more checks since a request question is small: every request a question
returns, and every file that could not be read, is checked against its stat data
first (an edit in place is read again). A folder listed within two seconds of its
last change is listed again next time (two changes in one tick of the file
system's clock leave its mtime alone).

**Text search.** Three FTS5 tables of trigrams (the file text, the joined source
quotes, and the searched fields: id, subject, attribute, shown title, value,
content) answer :meth:`Catalog.text_holders` and :meth:`Catalog.search` for a text
of three characters or more; the rows they find are checked against the text, so
the answer is a scan's. They are built on the first search (not at the first
open) and kept by triggers in the rows' own transaction.

**The index's order.** Each row keeps the record's type order and its static rank
(:func:`core.store.index.combined_rank` of its confidence, last use and
verification under the store's decay constants), and a partial index walks the
active rows in the order ``MEMORY.md`` keeps them (type, then weight): a write reads
the first rows, never all of them. The constants the ranks were made with are in
``meta.rank_taus``; a catalog opened with others ranks every row again (a change of
``tau1_days`` or ``tau2_days`` in ``memgov.yaml``), from the parts each row keeps.

**Recall.** Two covering partial indexes on the active rows, (subject, attribute,
rank) and (attribute, rank), give the rows of a subject prefix or an attribute in
rank order from the index alone (:mod:`core.store.catalog.recall_rows`): recall
builds only the records it shows, and checks them against their rows
(core.writing.decay.by_rank). A catalog made before them gets them when it opens.

**The active count.** ``meta.active`` is the number of active rows, kept by
triggers in the transaction that changes the rows and checked by a full sync, so
:meth:`Catalog.count_active` reads one row. A first build adds the triggers after
its rows.

An erasure deletes its rows with ``secure_delete`` on, drops every remembered
steering verdict (:mod:`core.store.catalog.verdicts`), merges the search tables
(the deleted rows' trigrams leave their segments) and truncates the WAL, so no
page of the catalog keeps the erased content; a crash recovery of an erasure
deletes the whole catalog.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable

from core.domain.errors import ValidationError
from core.domain.record import Memory
from core.store.catalog.connection import _immediate
from core.store.catalog.event_index import EventIndex
from core.store.catalog.hints import (
    _SCAN_CHUNK,
    STEERING_EXTERNAL,
    STEERING_LINK,
    STEERING_ORDER,
    STEERING_PREFERENCE,
    STEERING_RULES,
    KnownHints,
    _has_secret,
    hint_inputs,
    known_hints,
    scanner_fingerprint,
    secret_flags,
    steering_hint,
    steering_hints,
)
from core.store.catalog.memory_queries import IndexRow, MemoryQueries
from core.store.catalog.memory_sync import MemorySync
from core.store.catalog.recall_rows import RecallRow, RecallRows
from core.store.catalog.request_rows import RequestRows, _is_request_rel
from core.store.catalog.rows import SyncResult, _row, memory_from_row
from core.store.catalog.schema import (
    _INSERT,
    _SEARCH_TABLES,
    _TRIGGERS,
    CATALOG_FILE,
    SCHEMA_VERSION,
)
from core.store.catalog.search import SEARCHED, TextSearch, fold, searchable
from core.store.catalog.verdicts import Verdicts, verdict_key
from core.store.gitstore.plumbing import head_commit
from core.store.layout import MEMORY_DIR

__all__ = [
    "CATALOG_FILE",
    "SCHEMA_VERSION",
    "SEARCHED",
    "STEERING_EXTERNAL",
    "STEERING_LINK",
    "STEERING_ORDER",
    "STEERING_PREFERENCE",
    "STEERING_RULES",
    "_SCAN_CHUNK",
    "_TRIGGERS",
    "Catalog",
    "IndexRow",
    "KnownHints",
    "RecallRow",
    "SyncResult",
    "_has_secret",
    "fold",
    "hint_inputs",
    "known_hints",
    "memory_from_row",
    "scanner_fingerprint",
    "searchable",
    "secret_flags",
    "steering_hint",
    "steering_hints",
    "verdict_key",
]


class Catalog(MemorySync, RequestRows, EventIndex, TextSearch, MemoryQueries, RecallRows, Verdicts):
    """One store's catalog: each part holds one index of the one sqlite file
    (:class:`MemorySync` the memory rows, :class:`RequestRows` the requests,
    :class:`EventIndex` the event log, :class:`TextSearch` the text search,
    :class:`MemoryQueries` the questions the memory rows answer, :class:`RecallRows`
    the rows recall walks by rank, :class:`Verdicts` the
    steering detector's remembered verdicts); this class holds
    what spans them: a sync of both kinds of rows, and a write's rows."""

    # ------------------------------------------------------------------ sync
    def sync(self, *, full: bool = False, reparse: bool = False) -> SyncResult:
        """Bring the rows up to date with the files (module docstring: what it costs).
        ``full``: stat every file; ``reparse``: read every file again."""
        with self._lock:
            try:
                result = self._sync(full=full or reparse, reparse=reparse)
                if full or reparse:  # the request files too (else read when asked for)
                    self._sync_requests(full=True, reparse=reparse)
                return result
            except sqlite3.DatabaseError:
                return self._rebuild()

    # ----------------------------------------------------------- after a write
    @staticmethod
    def _kept_hint(db: sqlite3.Connection, rel: str, memory: Memory) -> int | None:
        """The steering hint of ``rel``'s row when the record written there says what
        the row's record said (:func:`hint_inputs`: a status changed, a use recorded),
        so a decision runs no detector; None: the hint is made again."""
        row = db.execute(
            "SELECT meta, content, steering FROM entries WHERE rel=?", (rel,)
        ).fetchone()
        if row is None or row[0] is None or row[2] is None:
            return None
        try:
            before = memory_from_row(rel, row[0], row[1])
        except (ValidationError, ValueError, TypeError):
            return None
        return int(row[2]) if hint_inputs(before) == hint_inputs(memory) else None

    def record(
        self,
        written: dict[str, tuple[Memory, str]],
        removed: Iterable[str],
        *,
        erased: bool = False,
        files: Iterable[str] = (),
        hints: KnownHints | None = None,
    ) -> set[str]:
        """After a transaction wrote ``written`` (rel -> the record and the text written),
        removed files and wrote other ``files``: their rows, with the new stat data, and
        the folders' new stat data. ``hints``: steering hints the transaction already
        made (:func:`known_hints`). The caller holds the store lock."""
        with self._lock:
            return self._record(written, removed, erased=erased, files=files, hints=hints)

    def _record(
        self,
        written: dict[str, tuple[Memory, str]],
        removed: Iterable[str],
        *,
        erased: bool = False,
        files: Iterable[str] = (),
        hints: KnownHints | None = None,
    ) -> set[str]:
        """After a transaction wrote ``written`` (rel -> the record and the text written),
        removed files and wrote other ``files`` (a request, a memory file an erasure
        scrubbed): their rows, with the new stat data, and the folders' new stat data.
        The caller holds the store lock. The request folder's stat data stay: a file
        someone else put there since it was listed is found when it is listed again.

        The written texts are scanned for credentials in chunks (:func:`secret_flags`)
        and the records' steering hints made in chunks too (those ``hints`` lacks,
        :func:`known_hints`), as a cold build makes them: scanned one by one, an import
        of thousands of records spent a fifth of its time here."""
        db = self.db
        changed: set[str] = set()
        with _immediate(db):
            for rel in removed:
                db.execute("DELETE FROM entries WHERE rel=?", (rel,))
                changed.add(rel)
            result = SyncResult()
            for rel in files:
                if _is_request_rel(rel):
                    self._check_request(db, rel, None, reparse=True)
                elif (
                    rel.startswith(f"{MEMORY_DIR}/") and rel.endswith(".md") and rel not in written
                ):
                    path = self.root / rel
                    self._check(
                        db, rel, path.is_symlink(), path.is_file(), None, result, reparse=True
                    )
            changed |= result.changed
            present: list[tuple[str, tuple[int, int, int], Memory, str, int | None]] = []
            for rel, (memory, text) in written.items():
                try:
                    st = os.lstat(self.root / rel)
                except OSError:
                    continue
                kept = self._kept_hint(db, rel, memory)
                present.append((rel, (st.st_mtime_ns, st.st_size, st.st_ino), memory, text, kept))
            flags = secret_flags([text for _rel, _at, _memory, text, _kept in present])
            made = known_hints(
                (memory for _rel, _at, memory, _text, kept in present if kept is None),
                dict(hints or {}),
            )
            rows = []
            for (rel, written_at, memory, text, kept), flag in zip(present, flags, strict=True):
                hint = made[hint_inputs(memory)] if kept is None else kept
                rows.append(
                    _row(rel, written_at, memory, text, self.taus, secret=flag, steering=hint)
                )
                changed.add(rel)
            db.executemany(_INSERT, rows)
            for folder in {rel.rpartition("/")[0] for rel in changed}:
                if folder == MEMORY_DIR or folder.startswith(f"{MEMORY_DIR}/"):
                    stamp = self._dir_stamp(folder)
                    # a folder not listed yet (new) is found when its parent is listed again
                    if (
                        stamp is not None
                        and db.execute("SELECT 1 FROM dirs WHERE rel=?", (folder,)).fetchone()
                    ):
                        db.execute("INSERT OR REPLACE INTO dirs VALUES (?, ?, ?)", (folder, *stamp))
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head_commit(self.root) or "",)
            )
            if erased:  # a verdict's key is a digest of the erased words too
                db.execute("DELETE FROM verdicts")
            if erased and self._meta(db, "fts") == "1":
                # a deleted row's trigrams stay in the search tables' older segments until
                # they are merged: merged now, their freed pages zeroed (secure_delete)
                for table, _columns in _SEARCH_TABLES:
                    db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        if erased:  # the WAL still holds the old pages: copy back and truncate it
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return changed
