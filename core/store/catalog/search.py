"""Text search over the memory rows: three FTS5 tables of trigrams.

The file text, the joined source quotes and the searched fields (id, subject,
attribute, shown title, value, content) answer a text of three characters or
more; the rows they find are checked against the text, so the answer is a scan's.
They are built on the first search (not at the first open) and kept by triggers
in the rows' own transaction.
"""

from __future__ import annotations

from typing import Any

from core.store.catalog.connection import CatalogConnection, _immediate
from core.store.catalog.schema import _SEARCH_TABLES

#: what :meth:`Catalog.search` looks in, each a column of ``entries``
SEARCHED = ("id", "subject", "attribute", "title", "value", "content")
#: the shortest text a trigram holds; a shorter one is looked for row by row
_TRIGRAM = 3


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


class TextSearch(CatalogConnection):
    """Which records hold a text: exactly (:meth:`text_holders`) or as a person
    searches (:meth:`search`)."""

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
