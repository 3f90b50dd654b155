"""The catalog: a persistent index of a store's memory files, in sqlite.

``.git/memgov/catalog.sqlite`` is derived and local (inside ``.git``, so no clone,
pull or push carries it; a committed ``.memgov/`` is never read). The files and
git stay the truth: the catalog can be deleted at any time and is rebuilt from
them, and one that does not open, has another schema version or was made for
another folder is rebuilt, never trusted.

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

**The active count.** ``meta.active`` is the number of active rows, kept by
triggers in the transaction that changes the rows and checked by a full sync, so
:meth:`Catalog.count_active` reads one row. A first build adds the triggers after
its rows.

An erasure deletes its rows with ``secure_delete`` on, merges the search tables
(the deleted rows' trigrams leave their segments) and truncates the WAL, so no
page of the catalog keeps the erased content; a crash recovery of an erasure
deletes the whole catalog.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.domain.keys import conflict_item_id
from core.domain.record import Memory, memory_from_mapping
from core.store.config import Config
from core.store.fsutil import (
    HostileEntry,
    entry_problem,
    escaped_name,
    is_temp_name,
    name_problem,
    read_entry,
    unescaped_name,
)
from core.store.gitstore.plumbing import head_commit
from core.store.index import combined_rank, rank_parts, shown_parts, type_order
from core.store.layout import MAX_FILE_BYTES, MEMORY_DIR
from core.store.request_files import REQUEST_DIR, Request, read_request_file, request_from_mapping
from core.store.snapshot import Problem

CATALOG_FILE = "catalog.sqlite"
#: 3: the active records' index (MEMORY.md); 4: the readable ids'; 5: the requests,
#: the text search and the count of active rows; 6: the index's order (type as the
#: index lists them, and the static rank by weight); 7: the steering hints
SCHEMA_VERSION = 7

#: the text search's tables: (table, the entries' columns it indexes). Trigrams, case
#: folded, no positions (``detail=none``: a third of the size, a quarter of the build
#: time): a query finds the rows holding every trigram of the text, and the rows
#: found are checked against the text itself, so a result is exact
_SEARCH_TABLES = (
    ("entries_text", ("text",)),
    ("entries_evidence", ("evidence",)),
    ("entries_search", ("id", "subject", "attribute", "title", "value", "content")),
)
#: what :meth:`Catalog.search` looks in, each a column of ``entries``
SEARCHED = ("id", "subject", "attribute", "title", "value", "content")
#: the shortest text a trigram holds; a shorter one is looked for row by row
_TRIGRAM = 3


def _search_tables() -> str:
    return "".join(
        f"CREATE VIRTUAL TABLE {table} USING fts5({', '.join(columns)}, content='entries', "
        f"content_rowid='n', tokenize='trigram', detail=none, columnsize=0);\n"
        for table, columns in _SEARCH_TABLES
    )


#: a readable active row: what the active index holds and ``meta.active`` counts
_ACTIVE = "{0}.reason IS NULL AND {0}.status IS 'active'"


def _triggers() -> dict[str, str]:
    """{name: statement} of the triggers that keep ``meta.active`` and the search tables
    in step with ``entries``, in the rows' own transaction (the search tables while
    ``meta.fts`` is '1': they are built on the first search, not at the first open).
    A catalog's first build adds them once its rows are in (a trigger, any trigger,
    doubles what sqlite pays per row written), with the count taken then."""
    built = "(SELECT v FROM meta WHERE k = 'fts') = '1'"
    found = {
        "entries_active_ai": f"AFTER INSERT ON entries WHEN {_ACTIVE.format('new')} BEGIN "
        "UPDATE meta SET v = CAST(v AS INTEGER) + 1 WHERE k = 'active'; END",
        "entries_active_ad": f"AFTER DELETE ON entries WHEN {_ACTIVE.format('old')} BEGIN "
        "UPDATE meta SET v = CAST(v AS INTEGER) - 1 WHERE k = 'active'; END",
        "entries_active_au": "AFTER UPDATE OF status, reason ON entries BEGIN "
        f"UPDATE meta SET v = CAST(v AS INTEGER) + ({_ACTIVE.format('new')}) "
        f"- ({_ACTIVE.format('old')}) WHERE k = 'active'; END",
    }
    for table, columns in _SEARCH_TABLES:
        cols = ", ".join(columns)
        new = ", ".join(f"new.{c}" for c in columns)
        old = ", ".join(f"old.{c}" for c in columns)
        insert = f"INSERT INTO {table} (rowid, {cols}) VALUES (new.n, {new});"
        delete = f"INSERT INTO {table} ({table}, rowid, {cols}) VALUES ('delete', old.n, {old});"
        found[f"{table}_ai"] = f"AFTER INSERT ON entries WHEN {built} BEGIN {insert} END"
        found[f"{table}_ad"] = f"AFTER DELETE ON entries WHEN {built} BEGIN {delete} END"
        found[f"{table}_au"] = (
            f"AFTER UPDATE OF {cols} ON entries WHEN {built} BEGIN {delete} {insert} END"
        )
    return {name: f"CREATE TRIGGER IF NOT EXISTS {name} {body}" for name, body in found.items()}


_TRIGGERS = _triggers()

_SCHEMA = """
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE dirs (rel TEXT PRIMARY KEY, mtime INTEGER NOT NULL, ino INTEGER NOT NULL);
CREATE TABLE entries (
    n INTEGER PRIMARY KEY,  -- the search tables' rowid (a VACUUM keeps it)
    rel TEXT NOT NULL UNIQUE,
    mtime INTEGER NOT NULL, size INTEGER NOT NULL, ino INTEGER NOT NULL,
    id TEXT, status TEXT, scope TEXT, subject TEXT, attribute TEXT, condition TEXT,
    type_order INTEGER, supersedes TEXT,
    meta TEXT, content TEXT, text TEXT, evidence TEXT,
    reason TEXT, field TEXT, secret INTEGER NOT NULL DEFAULT 0,
    title TEXT, hook TEXT, value TEXT,
    rank_conf REAL, rank_t1 REAL, rank_t2 REAL, rank REAL,
    steering INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_secret ON entries (secret) WHERE secret = 1;
CREATE INDEX entries_steering ON entries (steering) WHERE steering != 0;
CREATE TABLE event_logs (rel TEXT PRIMARY KEY, mtime INTEGER, size INTEGER, ino INTEGER);
CREATE TABLE events (
    rel TEXT NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
    id TEXT NOT NULL, action TEXT NOT NULL, memory_id TEXT
);
CREATE INDEX events_memory ON events (memory_id);
CREATE INDEX events_action ON events (action);
CREATE INDEX events_rel ON events (rel, offset);
CREATE INDEX entries_id ON entries (id);
CREATE INDEX entries_key ON entries (subject, attribute);
CREATE INDEX entries_status ON entries (status, type_order, subject, attribute, id);
CREATE INDEX entries_supersedes ON entries (supersedes) WHERE supersedes IS NOT NULL;
CREATE INDEX entries_active ON entries (type_order, rank DESC, id, rel)
    WHERE reason IS NULL AND status = 'active';
CREATE INDEX entries_readable ON entries (id) WHERE reason IS NULL;
CREATE TABLE requests (
    rel TEXT PRIMARY KEY,
    mtime INTEGER NOT NULL, size INTEGER NOT NULL, ino INTEGER NOT NULL,
    id TEXT, kind TEXT, memory_id TEXT, status TEXT, data TEXT, reason TEXT
);
CREATE INDEX requests_status ON requests (status, memory_id, kind) WHERE reason IS NULL;
""" + _search_tables()

_COLUMNS = (
    "rel, mtime, size, ino, id, status, scope, subject, attribute, condition, type_order, "
    "supersedes, meta, content, text, evidence, reason, field, secret, title, hook, value, "
    "rank_conf, rank_t1, rank_t2, rank, steering"
)
# an upsert, not INSERT OR REPLACE: a replaced row would leave the search tables and
# the active count behind (REPLACE's delete fires no trigger); an update keeps the rowid
_INSERT = (
    f"INSERT INTO entries ({_COLUMNS}) VALUES ({', '.join('?' * 27)}) ON CONFLICT (rel) DO UPDATE "
    "SET " + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.split(", ")[1:])
)
_REQUEST_COLUMNS = "rel, mtime, size, ino, id, kind, memory_id, status, data, reason"
_REQUEST_INSERT = (
    f"INSERT OR REPLACE INTO requests ({_REQUEST_COLUMNS}) VALUES ({', '.join('?' * 10)})"
)
#: a folder listed within this long of its last change is listed again next time: a
#: change in the same tick of the file system's clock would leave its mtime alone
_RACY_NS = 2_000_000_000
_LINKED_FOLDER = "is a symbolic link; memgov reads no store file through a link"


def _is_request_rel(rel: str) -> bool:
    return rel.startswith(f"{REQUEST_DIR}/") and rel.endswith(".yaml") and rel.count("/") == 1


def _trigrams(text: str) -> str:
    """An FTS5 query for the rows holding every trigram of ``text`` (at least three
    characters): trigrams every third character and the last, which cover it."""
    starts = sorted({*range(0, len(text) - _TRIGRAM + 1, _TRIGRAM), len(text) - _TRIGRAM})
    return " AND ".join('"' + text[i : i + _TRIGRAM].replace('"', '""') + '"' for i in starts)


def _like(text: str) -> str:
    """A LIKE pattern for rows holding ``text`` (ASCII letters in any case)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """``text`` with its ASCII letters in lower case (what LIKE ignores)."""
    return text.translate(_ASCII_FOLD)


def searchable(needle: str) -> bool:
    """Whether the search tables can answer ``needle``: three characters or more,
    none of them a NUL (a file never holds one)."""
    return len(needle) >= _TRIGRAM and "\0" not in needle


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


_CONFLICT_INDEX = """CREATE INDEX IF NOT EXISTS entries_conflict_item
    ON entries (memgov_conflict_id(scope, subject, attribute, condition))
    WHERE status = 'conflict' AND reason IS NULL"""


def _conflict_id(scope: str, subject: str, attribute: str, condition: str | None) -> str:
    return conflict_item_id((scope, subject, attribute, condition))


@functools.cache
def scanner_fingerprint() -> str:
    """A digest of the secret scanner's own source: a catalog whose flags another
    scanner set is scanned again. Read from its files, not imported (the scanner
    compiles its rules on import; most commands never scan)."""
    import hashlib

    import core.domain

    digest = hashlib.sha256()
    folder = Path(core.domain.__file__).parent / "secrets"
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            digest.update(name.encode() + b"\0" + (folder / name).read_bytes())
    digest.update(b"steering\0" + (folder.parent / "steering.py").read_bytes())
    return digest.hexdigest()[:16]


#: what :func:`steering_hint` sets: the detector's content rules fired on a text of
#: the record; it links somewhere; it is a preference (whose source must be the user's);
#: its content gives the agent an order (whose source must be the user's too)
STEERING_RULES, STEERING_LINK, STEERING_PREFERENCE, STEERING_ORDER = 1, 2, 4, 8


def steering_hint(memory: Memory) -> int:
    """Which of the steering detector's questions a record raises, as bits: what the
    queue and doctor assess in full (with the source's role and the config's known
    hosts, core.review.quarantine), so that they read the few records that may be
    flagged, not all of them. A superset of what the full assessment flags."""
    from core.domain import steering

    fired = any(steering.detect(t) for t in _hint_texts(memory))
    return (STEERING_RULES if fired else 0) | _shape_hint(memory)


def _hint_texts(memory: Memory) -> list[str]:
    return [t for t in (memory.content, memory.title, memory.value) if t]


def steering_hints(memories: list[Memory | None]) -> list[int]:
    """:func:`steering_hint` of each record (None: not a record, 0), the detector run
    on chunks of records first: a regex that matches one record's text matches the
    texts joined by blank lines too, so a chunk where no rule fires holds no record
    a rule fires on, and only a chunk with a hit is read record by record (a test
    checks this against the record-by-record hints on every corpus)."""
    from core.domain import steering

    hints = [0] * len(memories)
    for start in range(0, len(memories), _SCAN_CHUNK):
        chunk = memories[start : start + _SCAN_CHUNK]
        joined = "\n\n".join(t for m in chunk if m is not None for t in _hint_texts(m))
        fired = bool(joined) and bool(steering.detect(joined))
        for offset, memory in enumerate(chunk):
            if memory is None:
                continue
            hint = steering_hint(memory) if fired else _shape_hint(memory)
            hints[start + offset] = hint
    return hints


def _shape_hint(memory: Memory) -> int:
    """The bits of :func:`steering_hint` that no content rule sets: a link, a
    preference, an order for the agent (each needs the source's role or the config;
    the order is looked for record by record: nearly every chunk holds one)."""
    from core.domain import steering

    hint = STEERING_LINK if any("://" in t for t in _hint_texts(memory)) else 0
    if memory.type in steering.PREFERENCE_TYPES:
        hint |= STEERING_PREFERENCE
    if any(steering.FOREIGN_RULE.find(memory.content)):
        hint |= STEERING_ORDER
    return hint


def _has_secret(text: str) -> int:
    from core.domain import secrets

    return 1 if text and secrets.scan(text) else 0


#: texts scanned together first: a chunk with no finding is clean as a whole
_SCAN_CHUNK = 64


def secret_flags(texts: list[str]) -> list[int]:
    """:func:`_has_secret` of each text, scanning them in chunks first: the scanner's
    cost is mostly per call, and a finding in any text is a finding in the texts
    joined (a span across two texts can only add findings, and one finding hiding
    another still leaves one), so a clean chunk is clean text by text and only a
    chunk with a finding is scanned again text by text."""
    from core.domain import secrets

    flags = [0] * len(texts)
    for start in range(0, len(texts), _SCAN_CHUNK):
        chunk = texts[start : start + _SCAN_CHUNK]
        if secrets.scan("\n\n".join(chunk)):
            for offset, text in enumerate(chunk):
                flags[start + offset] = _has_secret(text)
    return flags


@dataclass
class SyncResult:
    """What one sync found: the files whose rows changed, killed writers' temporary
    files (only a folder that changed is listed, and a temporary file changes it)."""

    changed: set[str] = field(default_factory=set)
    temps: list[str] = field(default_factory=list)
    rebuilt: bool = False


def _read_file(path: str, rel: str, size: int) -> tuple[Memory | Problem, str]:
    """(what the file holds, its text): a Problem, never an exception."""
    from core.domain.record import parse_memory

    if size > MAX_FILE_BYTES:
        return (
            Problem(
                rel,
                f"file is {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
                f"KiB a memory file may have; it was not read. Split it or "
                f"move it out of {MEMORY_DIR}/",
            ),
            "",
        )
    try:
        data = read_entry(path, limit=MAX_FILE_BYTES)
    except HostileEntry as exc:
        return Problem(rel, exc.problem), ""
    if data is None:
        return Problem(rel, "cannot be read: it was removed while read"), ""
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
    if isinstance(item, Problem):
        return (rel, *stamp, *(None,) * 12, item.reason, item.field, secret, *(None,) * 7, 0)
    m = item
    parts = rank_parts(m)
    title, hook = shown_parts(m) if secret else (m.display_title, m.hook)
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
        hook,
        m.value,
        *parts,
        combined_rank(parts, taus),
        steering_hint(m) if steering is None else steering,
    )


class Catalog:
    """One store's catalog. Every method may be called from any process; sqlite
    serialises the writers, and a sync only ever records what it saw on disk."""

    def __init__(self, root: Path, state_dir: Path, config: Config | None = None) -> None:
        self.root = root
        self.path = state_dir / CATALOG_FILE
        #: the decay constants the rows' ranks are made with (the store's config)
        config = config or Config()
        self.taus = (float(config.tau1_days), float(config.tau2_days))
        self._db: sqlite3.Connection | None = None
        #: rows a sync has read and not yet written (None: write each at once)
        self._pending: list[tuple[str, tuple[int, int, int], Memory | Problem, str]] | None = None
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
                # the conflict id of a key, for the index that finds a set by its id:
                # every connection to the catalog has it (the index needs it to write)
                db.create_function("memgov_conflict_id", 4, _conflict_id, deterministic=True)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA secure_delete=ON")  # a deleted row's bytes are zeroed
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version == SCHEMA_VERSION and self._meta(db, "root") == str(self.root):
                    db.execute(_CONFLICT_INDEX)  # a catalog of this schema made before it
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

    def _create(self, db: sqlite3.Connection) -> None:
        """The tables, the folder and the schema version, in one transaction."""
        db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}")  # the transaction stays open
        db.execute(_CONFLICT_INDEX)
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
                            parts = shown_parts(m) if secret else (m.display_title, m.hook)
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
            self._pending = None
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
            rel: (mtime, size, ino)
            for rel, mtime, size, ino in db.execute("SELECT rel, mtime, size, ino FROM entries")
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
                rel: (mtime, size, ino)
                for rel, mtime, size, ino in db.execute(
                    "SELECT rel, mtime, size, ino FROM entries WHERE rel >= ? AND rel < ?",
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
                    "SELECT mtime, size, ino FROM entries WHERE rel=?", (rel,)
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
        known: tuple[int, int, int] | None,
        result: SyncResult,
        *,
        reparse: bool,
    ) -> None:
        """One file against its row: re-read when its stat data differ."""
        path = str(self.root / unescaped_name(rel))
        try:
            st = os.lstat(path)
        except OSError:
            if known is not None:
                db.execute("DELETE FROM entries WHERE rel=?", (rel,))
                result.changed.add(rel)
            return
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if known == stamp and not reparse and not link:
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
        else:
            item, text = _read_file(path, rel, st.st_size)
        result.changed.add(rel)
        if self._pending is not None:  # a sync: rows written together, texts scanned in chunks
            self._pending.append((rel, stamp, item, text))
            return
        db.execute(_INSERT, _row(rel, stamp, item, text, self.taus))

    def _flush(self, db: sqlite3.Connection) -> None:
        """The rows a sync read, their texts scanned for secrets in chunks."""
        pending, self._pending = self._pending or [], None
        flags = secret_flags([text for _rel, _stamp, _item, text in pending])
        hints = steering_hints(
            [item if isinstance(item, Memory) else None for _rel, _stamp, item, _text in pending]
        )
        db.executemany(
            _INSERT,
            [
                _row(*entry, self.taus, secret=flag, steering=hint)
                for entry, flag, hint in zip(pending, flags, hints, strict=True)
            ],
        )

    # ----------------------------------------------------------- after a write
    def record(
        self,
        written: dict[str, tuple[Memory, str]],
        removed: Iterable[str],
        *,
        erased: bool = False,
        files: Iterable[str] = (),
    ) -> set[str]:
        """After a transaction wrote ``written`` (rel -> the record and the text written),
        removed files and wrote other ``files``: their rows, with the new stat data, and
        the folders' new stat data. The caller holds the store lock."""
        with self._lock:
            return self._record(written, removed, erased=erased, files=files)

    def _record(
        self,
        written: dict[str, tuple[Memory, str]],
        removed: Iterable[str],
        *,
        erased: bool = False,
        files: Iterable[str] = (),
    ) -> set[str]:
        """After a transaction wrote ``written`` (rel -> the record and the text written),
        removed files and wrote other ``files`` (a request, a memory file an erasure
        scrubbed): their rows, with the new stat data, and the folders' new stat data.
        The caller holds the store lock. The request folder's stat data stay: a file
        someone else put there since it was listed is found when it is listed again."""
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
            for rel, (memory, text) in written.items():
                try:
                    st = os.lstat(self.root / rel)
                except OSError:
                    continue
                db.execute(
                    _INSERT,
                    _row(rel, (st.st_mtime_ns, st.st_size, st.st_ino), memory, text, self.taus),
                )
                changed.add(rel)
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
            if erased and self._meta(db, "fts") == "1":
                # a deleted row's trigrams stay in the search tables' older segments until
                # they are merged: merged now, their freed pages zeroed (secure_delete)
                for table, _columns in _SEARCH_TABLES:
                    db.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
        if erased:  # the WAL still holds the old pages: copy back and truncate it
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return changed

    # --------------------------------------------------------------- requests
    def sync_requests(self, *, full: bool = False) -> None:
        """Bring the request rows up to date with ``requests/``, as :meth:`sync` does
        the memory files: the folder listed again when its stat data changed (names
        and inodes; only a new or replaced file is read), the files git says changed
        since the rows' commit checked, every file's stat data with ``full``."""
        with self._lock:
            try:
                self._sync_requests(full=full)
            except sqlite3.DatabaseError:
                self._rebuild()
                self._sync_requests(full=True)

    def _sync_requests(self, *, full: bool, reparse: bool = False) -> None:
        db = self.db
        folder = self.root / REQUEST_DIR
        try:
            st = os.lstat(folder)
        except OSError:
            st = None
        if st is None or not (stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            state = "none"
        elif stat.S_ISLNK(st.st_mode):
            state = "link"
        else:
            state = f"{st.st_mtime_ns}:{st.st_ino}"
        head = head_commit(self.root) or ""
        known_head = self._meta(db, "requests_head")
        known = self._meta(db, "requests_dir")
        if not full and known == state and known_head == head:
            return
        suspects: set[str] = set()
        if not full and known is not None and known_head != head:
            changed = self._changed_between(known_head, head, REQUEST_DIR)
            if changed is None:
                full = True
            else:
                suspects = changed
        full = full or known is None  # never listed: every file read
        with _immediate(db):
            if state == "none":
                db.execute("DELETE FROM requests")
            elif state == "link":
                db.execute("DELETE FROM requests")
                db.execute(
                    _REQUEST_INSERT,
                    (REQUEST_DIR, 0, 0, 0, *(None,) * 5, _LINKED_FOLDER),
                )
            else:
                db.execute("DELETE FROM requests WHERE rel = ?", (REQUEST_DIR,))
                self._list_requests(
                    db, full=full, reparse=reparse, suspects=suspects, listed=full or known != state
                )
            if (
                st is not None
                and state not in ("none", "link")
                and time.time_ns() - st.st_mtime_ns < _RACY_NS
            ):
                state = "racy"  # changed within the clock's tick, maybe: listed again
            db.execute("INSERT OR REPLACE INTO meta VALUES ('requests_dir', ?)", (state,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('requests_head', ?)", (head,))

    def _list_requests(
        self,
        db: sqlite3.Connection,
        *,
        full: bool,
        reparse: bool,
        suspects: set[str],
        listed: bool,
    ) -> None:
        """The rows against the folder (``listed``: its names and inodes, every file's
        stat data with ``full``) and against the ``suspects`` git named."""
        rows = {
            rel: (mtime, size, ino)
            for rel, mtime, size, ino in db.execute("SELECT rel, mtime, size, ino FROM requests")
        }
        if listed:
            try:
                entries = list(os.scandir(self.root / REQUEST_DIR))
            except OSError:
                entries = []
            names = {}
            for entry in entries:
                if entry.name.endswith(".yaml"):
                    try:
                        names[f"{REQUEST_DIR}/{escaped_name(entry.name)}"] = (
                            entry.inode(),
                            entry.is_file(follow_symlinks=False),
                        )
                    except OSError:
                        continue
            for rel in set(rows) - set(names):
                db.execute("DELETE FROM requests WHERE rel = ?", (rel,))
                self._request_memo.pop(rel, None)
            for rel, (ino, is_file) in names.items():
                row = rows.get(rel)
                if (
                    full
                    or reparse
                    or row is None
                    or row[2] != ino
                    or not is_file
                    or rel in suspects
                ):
                    self._check_request(db, rel, row, reparse=reparse)
                suspects.discard(rel)
        for rel in suspects:  # git says these changed; their folder did not
            if _is_request_rel(rel):
                self._check_request(db, rel, rows.get(rel), reparse=False)

    def _check_request(
        self,
        db: sqlite3.Connection,
        rel: str,
        known: tuple[int, int, int] | None,
        *,
        reparse: bool,
    ) -> None:
        """One request file against its row: read again when its stat data differ."""
        path = self.root / unescaped_name(rel)
        try:
            st = os.lstat(path)
        except OSError:
            db.execute("DELETE FROM requests WHERE rel = ?", (rel,))
            self._request_memo.pop(rel, None)
            return
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if known == stamp and not reparse:
            return
        outcome = read_request_file(path, rel)
        self._request_memo.pop(rel, None)
        row: tuple[str | None, ...]
        if isinstance(outcome, Request):
            data = json.dumps(asdict(outcome), ensure_ascii=False)
            row = (outcome.id, outcome.kind, outcome.memory_id, outcome.status, data, None)
        else:
            row = (None, None, None, None, None, outcome)
        db.execute(_REQUEST_INSERT, (rel, *stamp, *row))

    # ---------------------------------------------------------------- queries
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
                    "SELECT mtime, size, ino FROM entries WHERE rel=?", (rel,)
                ).fetchone()
                self._check(
                    db, rel, path.is_symlink(), path.is_file(), row, result, reparse=reparse
                )
        return result.changed

    def requests(
        self,
        *,
        status: str | None = None,
        memory_id: str | None = None,
        kind: str | None = None,
    ) -> list[Request]:
        """The readable requests (of ``status``, about ``memory_id``, of ``kind``: one
        indexed query), by file name. The folder is checked first (:meth:`sync_requests`)
        and each request found against its file's stat data: one edited in place is read
        again. A row is validated field by field as the file was."""
        where, args = ["reason IS NULL"], []
        for column, value in (("status", status), ("memory_id", memory_id), ("kind", kind)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = (
            "SELECT rel, mtime, size, ino, data FROM requests "
            f"WHERE {' AND '.join(where)} ORDER BY rel"
        )
        with self._lock:
            self.sync_requests()
            # the files that could not be read, checked too (few: one fixed in place is
            # a request again)
            self._fresh_requests(
                "SELECT rel, mtime, size, ino FROM requests WHERE reason IS NOT NULL AND rel != ?",
                [REQUEST_DIR],
            )
            rows = self._fresh_requests(sql, args)
            return [
                found
                for rel, mtime, size, ino, data in rows
                if (found := self._request(rel, (mtime, size, ino), data)) is not None
            ]

    def request_at(self, rel: str) -> Request | None:
        """The request in file ``rel`` (None: none, or the file cannot be read): that
        file checked against its row, whatever the folder says."""
        with self._lock:
            self.sync_requests()
            if not _is_request_rel(rel) or self._meta(self.db, "requests_dir") == "link":
                return None
            sql = "SELECT mtime, size, ino, reason, data FROM requests WHERE rel = ?"
            rows = self._query(sql, (rel,))
            now = _stamp(self.root / rel)
            if not rows and now is None:
                return None
            if not rows or tuple(rows[0][:3]) != now:
                self._recheck_requests([rel])  # new, changed or gone since its row
                rows = self._query(sql, (rel,))
            if not rows or rows[0][3] is not None:
                return None
            mtime, size, ino, _reason, data = rows[0]
            return self._request(rel, (mtime, size, ino), data)

    def request_problems(self) -> list[tuple[str, str]]:
        """(rel, reason) of each request file that cannot be read, by file name."""
        sql = (
            "SELECT rel, mtime, size, ino, reason FROM requests "
            "WHERE reason IS NOT NULL ORDER BY rel"
        )
        with self._lock:
            self.sync_requests()
            rows = self._fresh_requests(sql, [], skip=(REQUEST_DIR,))
            return [(rel, reason) for rel, _mtime, _size, _ino, reason in rows]

    def _fresh_requests(
        self, sql: str, args: list[Any], *, skip: tuple[str, ...] = ()
    ) -> list[Any]:
        """The rows ``sql`` selects (rel, mtime, size, ino first), the files whose stat
        data differ from their rows read again first (then selected again)."""
        rows = self._query(sql, args)
        stale = [
            row[0]
            for row in rows
            if row[0] not in skip and _stamp(self.root / row[0]) != tuple(row[1:4])
        ]
        if not stale:
            return rows
        self._recheck_requests(stale)
        return self._query(sql, args)

    def _recheck_requests(self, rels: Iterable[str]) -> None:
        db = self.db
        with _immediate(db):
            for rel in rels:
                row = db.execute(
                    "SELECT mtime, size, ino FROM requests WHERE rel = ?", (rel,)
                ).fetchone()
                self._check_request(db, rel, row, reparse=False)

    def _request(self, rel: str, stamp: tuple[int, int, int], data: str) -> Request | None:
        """The request of a row, validated as its file was (kept while the row's stat
        data stay); a row that does not validate is never trusted: the file is read
        again."""
        hit = self._request_memo.get(rel)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        stem = rel[len(REQUEST_DIR) + 1 : -len(".yaml")]
        found: Request | None
        try:
            found = request_from_mapping(json.loads(data), path=rel, stem=stem)
        except (ValidationError, ValueError, TypeError, RecursionError):
            db = self.db
            with _immediate(db):
                self._check_request(db, rel, None, reparse=True)
            row = db.execute(
                "SELECT data FROM requests WHERE rel = ? AND reason IS NULL", (rel,)
            ).fetchone()
            try:
                found = (
                    request_from_mapping(json.loads(row[0]), path=rel, stem=stem) if row else None
                )
            except (ValidationError, ValueError, TypeError, RecursionError):
                found = None
        if found is None:
            return None
        if len(self._request_memo) >= 100_000:
            self._request_memo.clear()
        self._request_memo[rel] = (stamp, found)
        return found

    # ----------------------------------------------------------------- events
    def events_of(self, memory_id: str) -> tuple[list[Any], list[Any]]:
        """(this memory's events, every recovery event) in log order, each read from
        its line: the log is indexed first where it changed (a shard's stat data: an
        append is read from where the index stopped, anything else read again)."""
        from core.store.events import read_lines

        with self._lock:
            self._index_events()
            mine = self._query(
                "SELECT rel, offset, length FROM events WHERE memory_id = ? ORDER BY rel, offset",
                (memory_id,),
            )
            recover = self._query(
                "SELECT rel, offset, length FROM events WHERE action = 'recover' "
                "GROUP BY rel, offset ORDER BY rel, offset"
            )
        return read_lines(self.root, mine), read_lines(self.root, recover)

    def events_with_action(self, action: str) -> list[Any]:
        """Every event of ``action`` in log order, each read from its line (the log
        indexed first where it changed, as :meth:`events_of` does)."""
        from core.store.events import read_lines

        with self._lock:
            self._index_events()
            spans = self._query(
                "SELECT rel, offset, length FROM events WHERE action = ? "
                "GROUP BY rel, offset ORDER BY rel, offset",
                (action,),
            )
        return read_lines(self.root, spans)

    def names_in_events(self, memory_id: str) -> bool:
        with self._lock:
            self._index_events()
            return bool(
                self._query("SELECT 1 FROM events WHERE memory_id = ? LIMIT 1", (memory_id,))
            )

    def _index_events(self) -> None:
        from core.store.events import event_logs, index_log

        db = self.db
        known = {
            rel: (mtime, size, ino)
            for rel, mtime, size, ino in db.execute("SELECT rel, mtime, size, ino FROM event_logs")
        }
        logs = event_logs(self.root)
        with _immediate(db):
            for rel in set(known) - set(logs):
                db.execute("DELETE FROM events WHERE rel = ?", (rel,))
                db.execute("DELETE FROM event_logs WHERE rel = ?", (rel,))
            for rel in logs:
                try:
                    st = os.lstat(self.root / rel)
                except OSError:
                    continue
                stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
                old = known.get(rel)
                if old == stamp:
                    continue
                start = (
                    old[1]
                    if old is not None and old[2] == st.st_ino and old[1] <= st.st_size
                    else 0
                )
                if start == 0:
                    db.execute("DELETE FROM events WHERE rel = ?", (rel,))
                else:
                    db.execute("DELETE FROM events WHERE rel = ? AND offset >= ?", (rel, start))
                rows = index_log(self.root, rel, start)
                db.executemany(
                    "INSERT INTO events (rel, offset, length, id, action, memory_id) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    rows,
                )
                db.execute("INSERT OR REPLACE INTO event_logs VALUES (?, ?, ?, ?)", (rel, *stamp))

    def memory_rows(
        self, where: str = "", args: Iterable[Any] = ()
    ) -> Iterator[tuple[str, str, str, str, int, int, int]]:
        """(rel, id, meta, content, mtime, size, inode) of readable files matching
        ``where``, in path order (whatever index the query takes: what lists them
        shows the same order every time)."""
        sql = "SELECT rel, id, meta, content, mtime, size, ino FROM entries WHERE reason IS NULL"
        if where:
            sql += f" AND ({where})"
        yield from self._query(sql + " ORDER BY rel", tuple(args))

    def rels_of(self, memory_id: str) -> list[str]:
        return [
            r
            for (r,) in self._query(
                "SELECT rel FROM entries WHERE id=? AND reason IS NULL ORDER BY rel", (memory_id,)
            )
        ]

    def ids(self) -> list[str]:
        return [i for (i,) in self._query("SELECT DISTINCT id FROM entries WHERE reason IS NULL")]

    def count(self) -> int:
        """How many records (each id once): a walk of the readable rows' id index."""
        return int(
            self._query(
                "SELECT count(DISTINCT id) FROM entries INDEXED BY entries_readable "
                "WHERE reason IS NULL"
            )[0][0]
        )

    def problems(self) -> list[Problem]:
        return [
            Problem(rel, reason, fld)
            for rel, reason, fld in self._query(
                "SELECT rel, reason, field FROM entries WHERE reason IS NOT NULL ORDER BY rel"
            )
        ]

    def duplicate_ids(self) -> list[str]:
        return [
            i
            for (i,) in self._query(
                "SELECT id FROM entries WHERE reason IS NULL GROUP BY id HAVING count(*) > 1"
            )
        ]

    def text_holders(self, needle: str, *, column: str = "text") -> set[str]:
        """The ids of records whose file text (or joined evidence, or content) holds
        ``needle``, exactly (case and all). The search tables find the rows holding
        its trigrams, each then checked; a needle under three characters is looked
        for in every row."""
        assert column in ("text", "evidence", "content")
        table = {"text": "entries_text", "evidence": "entries_evidence"}.get(column)
        with self._lock:
            if table is None or not searchable(needle):
                sql = f"SELECT id FROM entries WHERE reason IS NULL AND instr({column}, ?) > 0"
                return {i for (i,) in self._query(sql, (needle,))}
            self._ensure_search()
            return {
                i
                for (i,) in self._query(
                    f"SELECT e.id FROM {table} JOIN entries AS e ON e.n = {table}.rowid "
                    f"WHERE {table} MATCH ? AND e.reason IS NULL AND instr(e.{column}, ?) > 0",
                    (_trigrams(needle), needle),
                )
            }

    def search(self, text: str, *, limit: int | None = None) -> list[tuple[str, str]]:
        """(id, rel) of the readable records whose id, subject, attribute, shown title,
        value or content holds ``text``, ASCII letters in either case (what LIKE
        matches), in path order, the first ``limit``. A record holding a credential is
        searched redacted (a search never matches a credential's characters). The
        search tables answer three characters or more; a shorter text is looked for
        row by row."""
        cond = " OR ".join(f"e.{c} LIKE ? ESCAPE '\\'" for c in SEARCHED)
        args: list[Any] = [_like(text)] * len(SEARCHED)
        tail = " ORDER BY e.rel" + (" LIMIT ?" if limit is not None else "")
        if limit is not None:
            args.append(limit)
        with self._lock:
            if searchable(text):
                self._ensure_search()
                found = self._query(
                    "SELECT e.id, e.rel FROM entries_search JOIN entries AS e "
                    "ON e.n = entries_search.rowid WHERE entries_search MATCH ? "
                    f"AND e.reason IS NULL AND e.secret = 0 AND ({cond}){tail}",
                    [_trigrams(text), *args],
                )
            else:
                found = self._query(
                    f"SELECT e.id, e.rel FROM entries AS e WHERE e.reason IS NULL "
                    f"AND e.secret = 0 AND ({cond}){tail}",
                    args,
                )
            secret = self._query(
                f"SELECT {', '.join(('rel', *SEARCHED))} FROM entries "
                "WHERE secret = 1 AND reason IS NULL ORDER BY rel"
            )
        rows = [(memory_id, rel) for memory_id, rel in found]
        if secret:
            from core.domain.secrets import redact

            wanted = fold(text)
            for rel, *fields in secret:
                memory_id, *_rest, value, content = fields
                shown = [*fields[:4], redact(value or ""), redact(content or "")]
                if any(wanted in fold(f or "") for f in shown):
                    rows.append((memory_id, rel))
            rows.sort(key=lambda row: row[1])
        return rows if limit is None else rows[:limit]

    def _ensure_search(self) -> None:
        """The search tables built from the rows, once (then the triggers keep them)."""
        db = self.db
        if self._meta(db, "fts") == "1":
            return
        with _immediate(db):
            if self._meta(db, "fts") != "1":
                for table, _columns in _SEARCH_TABLES:
                    db.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('fts', '1')")

    def summaries(self) -> dict[str, tuple[str, str]]:
        """{id: (subject, status)} of every readable record, from the columns alone."""
        return {
            i: (subject, status)
            for i, subject, status in self._query(
                "SELECT id, subject, status FROM entries WHERE reason IS NULL ORDER BY rel DESC"
            )
        }

    def conflict_key(self, item_id: str) -> tuple[str, str, str, str | None] | None:
        """The key of the open conflict set named ``item_id``: one indexed lookup."""
        rows = self._query(
            "SELECT scope, subject, attribute, condition FROM entries "
            "WHERE memgov_conflict_id(scope, subject, attribute, condition) = ? "
            "AND status = 'conflict' AND reason IS NULL LIMIT 1",
            (item_id,),
        )
        return tuple(rows[0]) if rows else None

    def keys_with_status(self, status: str) -> set[tuple[str, str, str, str | None]]:
        """The keys (scope, subject, attribute, condition) of records in ``status``,
        from the key columns alone (no record is built)."""
        return set(
            self._query(
                "SELECT DISTINCT scope, subject, attribute, condition FROM entries "
                "WHERE reason IS NULL AND status = ?",
                (status,),
            )
        )

    def key_rows(
        self, status: str
    ) -> list[tuple[str, str, str, str, str | None, object, str, str | None, int]]:
        """(id, scope, subject, attribute, condition, created_at as the row holds it,
        content, value, secret flag) of the readable records in ``status``, in path
        order: from the row's columns and front matter, no record built (the desk's
        outline of the queue, and what its search looks in)."""
        return self._query(
            "SELECT id, scope, subject, attribute, condition, json_extract(meta, '$.created_at'), "
            "content, value, secret FROM entries WHERE reason IS NULL AND status = ? ORDER BY rel",
            (status,),
        )

    def steering_ids(self, statuses: tuple[str, ...] = ("active", "conflict")) -> list[str]:
        """The ids of the readable records in ``statuses`` with a steering hint
        (:func:`steering_hint`): the only ones the steering detector may flag."""
        marks = ", ".join("?" * len(statuses))
        return [
            r
            for (r,) in self._query(
                f"SELECT id FROM entries WHERE steering != 0 AND reason IS NULL "
                f"AND status IN ({marks}) ORDER BY rel",
                statuses,
            )
        ]

    def secret_rels(self) -> list[str]:
        """The memory files (readable or not) whose text holds a credential."""
        return [r for (r,) in self._query("SELECT rel FROM entries WHERE secret = 1 ORDER BY rel")]

    def placed(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """{id: (rel, status)} of these records' files (every file claiming the id)."""
        found: dict[str, tuple[str, str]] = {}
        wanted = list(ids)
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            for memory_id, rel, status in self._query(
                "SELECT id, rel, status FROM entries WHERE reason IS NULL "
                f"AND id IN ({', '.join('?' * len(chunk))})",
                chunk,
            ):
                found.setdefault(memory_id, (rel, status))
        return found

    def count_active(self, besides: Iterable[str] = ()) -> int:
        """How many records are active, not counting ``besides`` (the active rows, as
        ``meta.active`` counts them: a file claiming an id another file holds counts
        too, and doctor reports it). One row read, and ``besides`` looked up."""
        counted = self._query("SELECT v FROM meta WHERE k = 'active'")
        if counted:  # kept by the triggers in the rows' own transaction
            total = int(counted[0][0])
        else:
            ((total,),) = self._query(
                "SELECT COUNT(*) FROM entries INDEXED BY entries_active "
                "WHERE reason IS NULL AND status = 'active'"
            )
        skipped = sum(1 for _rel, status in self.placed(besides).values() if status == "active")
        return int(total) - skipped

    def active_index_rows(
        self, *, besides: Iterable[str] = (), limit: int | None = None
    ) -> Iterator[IndexRow]:
        """The active records in the order the index keeps them (type order, then rank,
        the highest first, then id and file), the first ``limit`` of them (an ordered
        walk of one index), not ``besides``: (type order, rank, id, rel, subject,
        attribute, condition, shown title, shown hook, secret flag)."""
        skip = set(besides)
        rows = self._query(
            "SELECT type_order, rank, id, rel, subject, attribute, condition, title, hook, secret "
            "FROM entries INDEXED BY entries_active "  # the planner would sort instead
            "WHERE reason IS NULL AND status = 'active' "
            "ORDER BY type_order, rank DESC, id, rel" + (" LIMIT ?" if limit is not None else ""),
            [limit + len(skip)] if limit is not None else [],
        )
        yield from (row for row in rows if row[2] not in skip)


#: a row of :meth:`Catalog.active_index_rows`
IndexRow = tuple[int, float, str, str, str, str, "str | None", str, str, int]


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def memory_from_row(rel: str, meta: str, content: str) -> Memory:
    """A record from its row: validated again field by field, like the file was."""
    return memory_from_mapping(json.loads(meta), content, path=rel, rel_path=rel)
