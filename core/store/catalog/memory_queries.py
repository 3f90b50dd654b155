"""Questions about the memory rows: by id, key and status, the problems, and the
active records in the order the index keeps them (type, then rank)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from core.store.catalog.connection import CatalogConnection
from core.store.snapshot import Problem

#: a row of :meth:`Catalog.active_index_rows`
IndexRow = tuple[int, float, str, str, str, str, "str | None", str, str, int]


class MemoryQueries(CatalogConnection):
    """What the memory rows answer from their columns: one indexed query each, no
    record built unless asked for."""

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
            "SELECT type_order, rank, id, rel, subject, attribute, condition, title, "
            "COALESCE(hook, memgov_first_line(content)), secret "
            "FROM entries INDEXED BY entries_active "  # the planner would sort instead
            "WHERE reason IS NULL AND status = 'active' "
            "ORDER BY type_order, rank DESC, id, rel" + (" LIMIT ?" if limit is not None else ""),
            [limit + len(skip)] if limit is not None else [],
        )
        yield from (row for row in rows if row[2] not in skip)
