"""The catalog's tables, indexes and triggers (:mod:`core.store.catalog`).

The schema version says which layout a catalog file has: one of another version
is rebuilt, never migrated (the files are the truth).
"""

from __future__ import annotations

from core.domain.keys import conflict_item_id

CATALOG_FILE = "catalog.sqlite"
#: 3: the active records' index (MEMORY.md); 4: the readable ids'; 5: the requests,
#: the text search and the count of active rows; 6: the index's order (type as the
#: index lists them, and the static rank by weight); 7: the steering hints; 8: each
#: row's git blob id (a file whose stat data changed and whose bytes did not keeps its row)
SCHEMA_VERSION = 8

#: the text search's tables: (table, the entries' columns it indexes). Trigrams, case
#: folded, no positions (``detail=none``: a third of the size, a quarter of the build
#: time): a query finds the rows holding every trigram of the text, and the rows
#: found are checked against the text itself, so a result is exact
_SEARCH_TABLES = (
    ("entries_text", ("text",)),
    ("entries_evidence", ("evidence",)),
    ("entries_search", ("id", "subject", "attribute", "title", "value", "content")),
)


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
    steering INTEGER NOT NULL DEFAULT 0,
    blob BLOB  -- the git blob id of the bytes the row was made from (NULL: none read)
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
CREATE TABLE verdicts (key TEXT PRIMARY KEY, flagged INTEGER NOT NULL);
""" + _search_tables()

_COLUMNS = (
    "rel, mtime, size, ino, id, status, scope, subject, attribute, condition, type_order, "
    "supersedes, meta, content, text, evidence, reason, field, secret, title, hook, value, "
    "rank_conf, rank_t1, rank_t2, rank, steering, blob"
)
# an upsert, not INSERT OR REPLACE: a replaced row would leave the search tables and
# the active count behind (REPLACE's delete fires no trigger); an update keeps the rowid
_INSERT = (
    f"INSERT INTO entries ({_COLUMNS}) VALUES ({', '.join('?' * 28)}) ON CONFLICT (rel) DO UPDATE "
    "SET " + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.split(", ")[1:])
)
_REQUEST_COLUMNS = "rel, mtime, size, ino, id, kind, memory_id, status, data, reason"
_REQUEST_INSERT = (
    f"INSERT OR REPLACE INTO requests ({_REQUEST_COLUMNS}) VALUES ({', '.join('?' * 10)})"
)

_VERDICTS_TABLE = (
    "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, flagged INTEGER NOT NULL)"
)
_CONFLICT_INDEX = """CREATE INDEX IF NOT EXISTS entries_conflict_item
    ON entries (memgov_conflict_id(scope, subject, attribute, condition))
    WHERE status = 'conflict' AND reason IS NULL"""


#: the partial indexes recall walks by rank (core.store.catalog.recall_rows): a
#: migration step of their own, run when a catalog opens (one made before them gets
#: them then) and when one is created
_RECALL_INDEXES = (
    "CREATE INDEX IF NOT EXISTS entries_recall_subject "
    "ON entries (subject, attribute, rank, id, rel, status, reason) "
    "WHERE reason IS NULL AND status = 'active'",
    "CREATE INDEX IF NOT EXISTS entries_recall_attribute "
    "ON entries (attribute, rank, id, rel, status, reason) "
    "WHERE reason IS NULL AND status = 'active'",
)


def _conflict_id(scope: str, subject: str, attribute: str, condition: str | None) -> str:
    return conflict_item_id((scope, subject, attribute, condition))
