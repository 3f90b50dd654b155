"""The memory files' rows kept in step with the files (:meth:`MemorySync._sync`).

Only a folder whose stat data changed is listed again, only a new, replaced or
missing file is read, and the files git says changed since the rows' commit are
checked (the package's docstring, :mod:`core.store.catalog`: what an open costs).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator

from core.domain.errors import ValidationError
from core.domain.record import Memory
from core.store.catalog.build_rows import PARALLEL_MIN, made_rows
from core.store.catalog.connection import CatalogConnection, _immediate
from core.store.catalog.hints import (
    _has_secret,
    scanner_fingerprint,
    steering_hint,
)
from core.store.catalog.rows import (
    SyncResult,
    _link_problem,
    _read_bytes,
    _read_file,
    _row,
    blob_id,
    memory_from_row,
)
from core.store.catalog.schema import _INSERT, _TRIGGERS
from core.store.fsutil import (
    entry_problem,
    escaped_name,
    is_temp_name,
    name_problem,
    unescaped_name,
)
from core.store.gitstore.plumbing import head_commit
from core.store.index import index_hook, shown_parts
from core.store.layout import MEMORY_DIR
from core.store.snapshot import Problem

#: sqlite's page cache while many rows go in at once (negative: KiB), 64 MB
_BUILD_CACHE_KIB = -65536


@contextlib.contextmanager
def _build_cache(db: sqlite3.Connection) -> Iterator[None]:
    """sqlite's page cache at :data:`_BUILD_CACHE_KIB` while many rows go in (its 2 MB
    default makes the insert of a first build at 100,000 twice as slow), then back."""
    ((cache,),) = db.execute("PRAGMA cache_size")
    db.execute(f"PRAGMA cache_size={_BUILD_CACHE_KIB}")
    try:
        yield
    finally:
        db.execute(f"PRAGMA cache_size={int(cache)}")


def _insert(db: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    db.executemany(_INSERT, rows)


class MemorySync(CatalogConnection):
    """The memory files' rows: a sync, a rebuild, a recheck of the files a writer is
    about to change."""

    def _rebuild(self) -> SyncResult:
        """The catalog deleted (corrupt under us) and built again from the files."""
        self.delete()
        result = self._sync(full=True, reparse=True)
        result.rebuilt = True
        return result

    def _sync(self, *, full: bool, reparse: bool) -> SyncResult:
        db = self.db
        result = SyncResult()
        base = self.root / MEMORY_DIR
        head = head_commit(self.root)
        known_head = self._meta(db, "head")
        fresh = self._meta(db, "complete") != "1"
        full = full or fresh
        scanner = scanner_fingerprint()
        rescan = not fresh and self._meta(db, "scanner") != scanner
        suspects: set[str] = set()
        if not full and head != known_head:
            changed = self._changed_between(known_head, head)
            if changed is None:
                full = True
            else:
                suspects = changed
        db.execute("BEGIN IMMEDIATE")
        try:
            if base.is_symlink() or not base.is_dir():
                result.changed |= {r for (r,) in db.execute("SELECT rel FROM entries")}
                db.execute("DELETE FROM entries")
                db.execute("DELETE FROM dirs")
            elif full:
                self._pending = []
                self._full(db, result, reparse=reparse)
                self._flush(db)
            else:
                self._pending = []
                self._quick(db, suspects, result)
                self._flush(db)
            if rescan:  # a scanner of another version set the flags and redacted the lines
                rows = db.execute("SELECT rel, meta, content, text FROM entries").fetchall()
                for rel, meta, content, text in rows:
                    secret = _has_secret(text or "")
                    parts: tuple[str | None, str | None] = (None, None)
                    hint = 0
                    if meta is not None:
                        with contextlib.suppress(ValidationError, ValueError, TypeError):
                            m = memory_from_row(rel, meta, content)
                            title, hook = (
                                shown_parts(m) if secret else (m.display_title, index_hook(m))
                            )
                            parts = (title, None if hook == m.hook else hook)
                            hint = steering_hint(m)
                    db.execute(
                        "UPDATE entries SET secret=?, title=?, hook=?, steering=? WHERE rel=?",
                        (secret, *parts, hint, rel),
                    )
            if full:  # the triggers (a first build adds them now) and the count they keep
                self._arm(db)
                self._recount(db)
            if result.changed or rescan or fresh or full or head != known_head:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head or "",))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('scanner', ?)", (scanner,))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '1')")
            db.execute("COMMIT")
        except BaseException:
            self._pending, self._restamped, self._unread = None, [], []
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return result

    @staticmethod
    def _arm(db: sqlite3.Connection) -> None:
        """The triggers any is missing of (all of them after a first build, whose rows
        went in without them); the search tables built again when theirs were."""
        present = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
        missing = [name for name in _TRIGGERS if name not in present]
        for name in missing:
            db.execute(_TRIGGERS[name])
        if any(not name.startswith("entries_active") for name in missing):
            db.execute("INSERT OR REPLACE INTO meta VALUES ('fts', '0')")

    @staticmethod
    def _recount(db: sqlite3.Connection) -> None:
        """``meta.active`` set to the active rows' count (the triggers keep it; a full
        sync checks it: nothing but another program writing the file could move it)."""
        ((total,),) = db.execute(
            "SELECT COUNT(*) FROM entries INDEXED BY entries_active "
            "WHERE reason IS NULL AND status = 'active'"
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('active', ?)", (str(total),))

    def _scan(
        self, folder: str, result: SyncResult
    ) -> tuple[dict[str, tuple[int, bool, bool]], list[str]]:
        """One folder listed: {rel: (inode, is link, is file)} of its .md files and
        links, and its subfolders. Killed writers' temporary files go to ``result``."""
        found: dict[str, tuple[int, bool, bool]] = {}
        subdirs: list[str] = []
        try:
            entries = list(os.scandir(self.root / folder))
        except OSError:
            return found, subdirs
        for entry in entries:
            rel = f"{folder}/{escaped_name(entry.name)}"  # a name not UTF-8: escaped
            if entry.name.startswith("."):
                if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                    result.temps.append(entry.path)
                continue
            link = entry.is_symlink()
            if name_problem(entry.name) is not None:  # a problem row, never read or entered
                found[rel] = (entry.inode(), link, entry.is_file(follow_symlinks=False))
                continue
            if not link and entry.is_dir(follow_symlinks=False):
                subdirs.append(rel)
            elif entry.name.endswith(".md") or link:
                found[rel] = (entry.inode(), link, entry.is_file(follow_symlinks=False))
        return found, subdirs

    def _dir_stamp(self, folder: str) -> tuple[int, int] | None:
        try:  # a str path: a sync stats every folder, and pathlib costs more than lstat
            st = os.lstat(f"{self.root}/{folder}")
        except OSError:
            return None
        return st.st_mtime_ns, st.st_ino

    def _full(self, db: sqlite3.Connection, result: SyncResult, *, reparse: bool) -> None:
        known = {
            rel: (mtime, size, ino, blob)
            for rel, mtime, size, ino, blob in db.execute(
                "SELECT rel, mtime, size, ino, blob FROM entries"
            )
        }
        seen: set[str] = set()
        db.execute("DELETE FROM dirs")
        stack = [MEMORY_DIR]
        while stack:
            folder = stack.pop()
            stamp = self._dir_stamp(folder)
            files, subdirs = self._scan(folder, result)
            stack += subdirs
            if stamp is not None:
                db.execute("INSERT INTO dirs VALUES (?, ?, ?)", (folder, *stamp))
            for rel, (_ino, link, is_file) in files.items():
                seen.add(rel)
                self._check(db, rel, link, is_file, known.get(rel), result, reparse=reparse)
        gone = set(known) - seen
        for rel in gone:
            db.execute("DELETE FROM entries WHERE rel=?", (rel,))
        result.changed |= gone

    def _quick(self, db: sqlite3.Connection, suspects: set[str], result: SyncResult) -> None:
        dirs = {
            rel: (mtime, ino) for rel, mtime, ino in db.execute("SELECT rel, mtime, ino FROM dirs")
        }
        if MEMORY_DIR not in dirs:
            dirs[MEMORY_DIR] = (-1, -1)
        children: dict[str, list[str]] = {}  # each known folder's known subfolders
        for d in dirs:
            children.setdefault(d.rpartition("/")[0], []).append(d)
        stack = [MEMORY_DIR]
        visited: set[str] = set()
        while stack:
            folder = stack.pop()
            visited.add(folder)
            stamp = self._dir_stamp(folder)
            if stamp is not None and dirs.get(folder) == stamp:
                stack += [d for d in children.get(folder, ()) if d not in visited]
                continue
            # this folder changed: list it, compare names and inodes with the rows
            files, subdirs = self._scan(folder, result)
            stack += [d for d in subdirs if d not in visited]
            known = {
                rel: (mtime, size, ino, blob)
                for rel, mtime, size, ino, blob in db.execute(
                    "SELECT rel, mtime, size, ino, blob FROM entries WHERE rel >= ? AND rel < ?",
                    (folder + "/", folder + "0"),  # '0' sorts right after '/'
                )
                if "/" not in rel[len(folder) + 1 :]
            }
            for rel, (ino, link, is_file) in files.items():
                row = known.get(rel)
                if row is None or row[2] != ino or link or not is_file or rel in suspects:
                    self._check(db, rel, link, is_file, row, result, reparse=False)
                suspects.discard(rel)
            gone = set(known) - set(files)
            for rel in gone:
                db.execute("DELETE FROM entries WHERE rel=?", (rel,))
            result.changed |= gone
            for sub in [d for d in children.get(folder, ()) if d not in subdirs]:
                self._drop_folder(db, sub, result)
            if stamp is None:
                db.execute("DELETE FROM dirs WHERE rel=?", (folder,))
            else:
                db.execute("INSERT OR REPLACE INTO dirs VALUES (?, ?, ?)", (folder, *stamp))
        for rel in suspects:  # git says these changed; their folder did not
            if rel.startswith(f"{MEMORY_DIR}/") and rel.endswith(".md"):
                path = self.root / unescaped_name(rel)
                link = path.is_symlink()
                row = db.execute(
                    "SELECT mtime, size, ino, blob FROM entries WHERE rel=?", (rel,)
                ).fetchone()
                if not path.exists() and not link:
                    if row is not None:
                        db.execute("DELETE FROM entries WHERE rel=?", (rel,))
                        result.changed.add(rel)
                    continue
                self._check(db, rel, link, path.is_file(), row, result, reparse=False)

    def _drop_folder(self, db: sqlite3.Connection, folder: str, result: SyncResult) -> None:
        rows = db.execute(
            "SELECT rel FROM entries WHERE rel >= ? AND rel < ?", (folder + "/", folder + "0")
        ).fetchall()
        result.changed |= {r for (r,) in rows}
        db.execute("DELETE FROM entries WHERE rel >= ? AND rel < ?", (folder + "/", folder + "0"))
        db.execute(
            "DELETE FROM dirs WHERE rel = ? OR (rel >= ? AND rel < ?)",
            (folder, folder + "/", folder + "0"),
        )

    def _check(
        self,
        db: sqlite3.Connection,
        rel: str,
        link: bool,
        is_file: bool,
        known: tuple[int, int, int, bytes | None] | None,
        result: SyncResult,
        *,
        reparse: bool,
    ) -> None:
        """One file against its row: read again when its stat data differ; a row made
        from the same bytes (its git blob id) is kept, with the new stat data (a copy
        of the store, a checkout that wrote the same bytes, a ``touch``)."""
        path = f"{self.root}/{unescaped_name(rel)}"  # a str: pathlib costs more than the lstat
        try:
            st = os.lstat(path)
        except OSError:
            if known is not None:
                db.execute("DELETE FROM entries WHERE rel=?", (rel,))
                result.changed.add(rel)
            return
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if known is not None and known[:3] == stamp and not reparse and not link:
            return
        item: Memory | Problem
        text = ""
        hostile = name_problem(os.path.basename(path))
        if hostile is not None:
            item = Problem(
                rel, f"{hostile}: memgov reads no such file; rename it (git mv) or remove it"
            )
        elif link:
            item = _link_problem(self.root, rel, path)
        elif not is_file:
            item = Problem(rel, entry_problem(path, st.st_mode) or "is not a regular file")
        elif known is not None and known[3] is not None and not reparse:
            data = _read_bytes(path, rel, st.st_size)
            if isinstance(data, bytes) and blob_id(data) == known[3]:
                self._restamp(db, rel, stamp)
                return
            item, text = _read_file(path, rel, st.st_size)  # read again: what it holds
        elif self._pending is not None:  # a sync: read with the others when it flushes
            self._unread.append((rel, stamp, path, st.st_size))
            result.changed.add(rel)
            return
        else:
            item, text = _read_file(path, rel, st.st_size)
        result.changed.add(rel)
        if self._pending is not None:  # a sync: rows written together, texts scanned in chunks
            self._pending.append((rel, stamp, item, text))
            return
        db.execute(_INSERT, _row(rel, stamp, item, text, self.taus))

    def _restamp(self, db: sqlite3.Connection, rel: str, stamp: tuple[int, int, int]) -> None:
        """``rel``'s row kept with new stat data (its bytes are the row's): at once, or
        with a sync's other rows."""
        if self._pending is None:
            db.execute("UPDATE entries SET mtime=?, size=?, ino=? WHERE rel=?", (*stamp, rel))
        else:
            self._restamped.append((*stamp, rel))

    def _flush(self, db: sqlite3.Connection) -> None:
        """The rows a sync read or has to read (on two cores when there are many:
        :mod:`core.store.catalog.build_rows`), their texts scanned in chunks."""
        restamped, self._restamped = self._restamped, []
        db.executemany("UPDATE entries SET mtime=?, size=?, ino=? WHERE rel=?", restamped)
        pending, self._pending = self._pending or [], None
        unread, self._unread = self._unread, []
        if not pending and not unread:  # nothing read: neither detector is imported
            return
        many = len(unread) + len(pending) >= PARALLEL_MIN
        with _build_cache(db) if many else contextlib.nullcontext():
            made_rows(unread, pending, self.taus, _read_file, lambda rows: _insert(db, rows))

    def recheck(self, rels: Iterable[str], *, reparse: bool = False) -> set[str]:
        """These files against their rows, by their stat data (a writer checks what it
        is about to change: an edit in place since the last sync is read first)."""
        with self._lock:
            return self._recheck(rels, reparse=reparse)

    def _recheck(self, rels: Iterable[str], *, reparse: bool = False) -> set[str]:
        """These files against their rows, by their stat data (a writer checks what it
        is about to change: an edit in place since the last sync is read first)."""
        db = self.db
        result = SyncResult()
        with _immediate(db):
            for rel in rels:
                path = self.root / rel
                row = db.execute(
                    "SELECT mtime, size, ino, blob FROM entries WHERE rel=?", (rel,)
                ).fetchone()
                self._check(
                    db, rel, path.is_symlink(), path.is_file(), row, result, reparse=reparse
                )
        return result.changed
