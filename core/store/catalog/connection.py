"""The catalog's sqlite connection: opened, created, ranked again, deleted.

A catalog file that does not open or has another schema version is deleted and
built again; one made for another folder is kept, each of its rows checked against
its file's bytes (:meth:`CatalogConnection._adopt`); the connection is one per catalog,
shared by threads under one lock. Each part of the catalog
(:mod:`core.store.catalog`) builds on :class:`CatalogConnection`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from core.domain.record import Memory
from core.domain.record.model import first_line
from core.store.catalog.schema import (
    _CONFLICT_INDEX,
    _RECALL_INDEXES,
    _SCHEMA,
    _VERDICTS_TABLE,
    CATALOG_FILE,
    SCHEMA_VERSION,
    _conflict_id,
)
from core.store.config import Config
from core.store.fsutil import escaped_name
from core.store.index import combined_rank
from core.store.layout import MEMORY_DIR
from core.store.request_files import Request
from core.store.snapshot import Problem


def _first_line(content: str | None) -> str | None:
    return None if content is None else first_line(content)


@contextlib.contextmanager
def _immediate(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction of the catalog: committed when the block ends, rolled
    back on any exception (a kill in between leaves sqlite's journal to undo it)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


#: how long a write that must not wait waits for another writer of the catalog (ms), and
#: the connection's own wait, restored after (the ``timeout`` it is opened with)
_WAIT_MS, _TIMEOUT_MS = 20, 30_000


class CatalogConnection:
    """One store's catalog file and its connection. Every method may be called from
    any process; sqlite serialises the writers, and a sync only ever records what it
    saw on disk."""

    def __init__(self, root: Path, state_dir: Path, config: Config | None = None) -> None:
        self.root = root
        self.path = state_dir / CATALOG_FILE
        #: the decay constants the rows' ranks are made with (the store's config)
        config = config or Config()
        self.taus = (float(config.tau1_days), float(config.tau2_days))
        self._db: sqlite3.Connection | None = None
        #: rows a sync has read and not yet written (None: write each at once)
        self._pending: list[tuple[str, tuple[int, int, int], Memory | Problem, str]] | None = None
        #: files a sync has to read (rel, stat data, path, size): read when it flushes
        self._unread: list[tuple[str, tuple[int, int, int], str, int]] = []
        #: rows a sync keeps with new stat data, not yet written: (mtime, size, ino, rel)
        self._restamped: list[tuple[int, int, int, str]] = []
        # one connection per Store, shared by the desk's worker threads: every use of
        # it holds this lock (a transaction of one thread never meets another's)
        self._lock = threading.RLock()
        #: rel -> (its row's stat data, the request built from the row)
        self._request_memo: dict[str, tuple[tuple[int, int, int], Request]] = {}

    # ------------------------------------------------------------ connection
    @property
    def db(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                self._db = self._open()
            return self._db

    def write_unwaited(self, write: Callable[[sqlite3.Connection], None]) -> None:
        """One write transaction that is never waited for: a catalog that cannot be
        written at once (read-only, another process writing) is left as it is, and so is
        one inside a transaction of this connection (its rollback must not take this
        write with it, nor the reverse). For what is made again next time when it is not
        kept (a verdict)."""
        with contextlib.suppress(sqlite3.Error), self._lock:
            db = self.db
            if db.in_transaction:
                return
            db.execute(f"PRAGMA busy_timeout={_WAIT_MS}")
            try:
                with _immediate(db):
                    write(db)
            finally:
                db.execute(f"PRAGMA busy_timeout={_TIMEOUT_MS}")

    def _query(self, sql: str, args: Iterable[Any] = ()) -> list[Any]:
        with self._lock:
            return self.db.execute(sql, tuple(args)).fetchall()

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_symlink():  # local state is never read through a link
            self.path.unlink()
        for attempt in range(2):
            try:
                db = sqlite3.connect(
                    self.path, timeout=30, isolation_level=None, check_same_thread=False
                )
                # a new file's pages (an old one keeps its own): rows of about 2 KB fill
                # a 4 KB page one at a time, a 16 KB page seven
                db.execute("PRAGMA page_size=16384")
                # the conflict id of a key, for the index that finds a set by its id:
                # every connection to the catalog has it (the index needs it to write)
                db.create_function("memgov_conflict_id", 4, _conflict_id, deterministic=True)
                # a row's hook when it is its content's first line (kept once, in content)
                db.create_function("memgov_first_line", 1, _first_line, deterministic=True)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA secure_delete=ON")  # a deleted row's bytes are zeroed
                version = db.execute("PRAGMA user_version").fetchone()[0]
                root = self._meta(db, "root")
                if version == SCHEMA_VERSION and root is not None and root != str(self.root):
                    self._adopt(db)
                    root = str(self.root)
                if version == SCHEMA_VERSION and root == str(self.root):
                    db.execute(_CONFLICT_INDEX)  # a catalog of this schema made before it
                    db.execute(_VERDICTS_TABLE)  # the same
                    for statement in _RECALL_INDEXES:  # the same
                        db.execute(statement)
                    if self._meta(db, "rank_taus") != json.dumps(self.taus):
                        self._rerank(db)
                    return db
                if version == 0 and not db.execute("SELECT 1 FROM sqlite_master").fetchone():
                    self._create(db)
                    return db
                db.close()
            except sqlite3.DatabaseError:
                if attempt:
                    raise
            self.delete()  # another version, another folder, or not a database: rebuilt
        raise AssertionError("unreachable")

    def _adopt(self, db: sqlite3.Connection) -> None:
        """A catalog made for another folder (the store copied, ``.git`` and all): kept
        as this folder's, with nothing of it trusted but what each file's bytes prove.
        Its folders' stat data go and its commit is forgotten, so the next sync checks
        every file (a full sync); a file is read, and a row is kept only when the bytes
        have its blob id (:meth:`MemorySync._check`): a copy opens at the cost of reading
        its bytes. The other tables check their files' stat data (new in a copy)."""
        with _immediate(db):
            db.execute("DELETE FROM dirs")
            # the detector's kept verdicts: no file proves them; made again when asked
            db.execute("DELETE FROM verdicts")
            if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'assessed'").fetchone():
                db.execute("DELETE FROM assessed")
            db.execute("DELETE FROM meta WHERE k = 'head'")
            db.execute("UPDATE meta SET v = ? WHERE k = 'root'", (str(self.root),))

    def _create(self, db: sqlite3.Connection) -> None:
        """The tables, the folder and the schema version, in one transaction."""
        db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}")  # the transaction stays open
        db.execute(_CONFLICT_INDEX)
        for statement in _RECALL_INDEXES:
            db.execute(statement)
        db.execute("INSERT INTO meta VALUES ('root', ?)", (str(self.root),))
        db.execute("INSERT INTO meta VALUES ('active', '0')")
        db.execute("INSERT INTO meta VALUES ('fts', '0')")
        db.execute("INSERT INTO meta VALUES ('rank_taus', ?)", (json.dumps(self.taus),))
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")

    def _rerank(self, db: sqlite3.Connection) -> None:
        """Every row's rank made again under this catalog's decay constants (the
        store's config changed them), from the parts the row keeps; one transaction."""
        with _immediate(db):
            rows = db.execute(
                "SELECT n, rank_conf, rank_t1, rank_t2 FROM entries WHERE rank IS NOT NULL"
            ).fetchall()
            db.executemany(
                "UPDATE entries SET rank = ? WHERE n = ?",
                [(combined_rank((conf, t1, t2), self.taus), n) for n, conf, t1, t2 in rows],
            )
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('rank_taus', ?)", (json.dumps(self.taus),)
            )

    @staticmethod
    def _meta(db: sqlite3.Connection, key: str) -> str | None:
        try:
            row = db.execute("SELECT v FROM meta WHERE k=?", (key,)).fetchone()
        except sqlite3.DatabaseError:
            return None
        return row[0] if row else None

    def delete(self) -> None:
        """Drop the catalog (an erasure: it held the erased content); rebuilt on use."""
        self._request_memo.clear()
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    def _changed_between(
        self, old: str | None, new: str | None, folder: str = MEMORY_DIR
    ) -> set[str] | None:
        """The files under ``folder`` that differ between two commits (None: cannot say)."""
        if not old or not new:
            return None
        from core.store.gitstore.run import GitFailed, run

        try:  # an old commit an erasure rewrote away: cannot say, so a full check
            out = run(
                self.root,
                *("diff", "--name-only", "-z", "--no-renames", old, new, "--", folder),
            )
        except (GitFailed, OSError):
            return None
        return {escaped_name(p.decode("utf-8", "surrogateescape")) for p in out.split(b"\0") if p}
