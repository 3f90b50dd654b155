"""The recall index: the active rows of a subject prefix, or of an attribute, walked
by their static rank.

Recall (core.writing.decay) answers the heaviest active records of a key. Each row
keeps the record's static rank (:func:`core.store.index.combined_rank`: the order by
weight at any time after the record's own times), so the rows of a prefix come in
that order from two partial indexes on the active rows (subject then attribute, and
attribute alone), each holding the rank, id and file: the rows are read from the
index alone, and only the few records recall shows are built. What the rows say is
checked against the records built from them before it is trusted (the catalog is
derived: core.writing.decay falls back to reading every record of the key).

The indexes are the catalog's own migration step: a catalog of the current schema
made before them gets them when it opens (:data:`_RECALL_INDEXES`, ``IF NOT
EXISTS``, :mod:`core.store.catalog.schema`), a new one when it is created.
"""

from __future__ import annotations

import sqlite3

from core.store.catalog.connection import CatalogConnection
from core.store.catalog.schema import _RECALL_INDEXES

#: a row of :meth:`RecallRows.recall_rows`: (rel, id, rank)
RecallRow = tuple[str, str, "float | None"]


def prefix_range(prefix: str) -> tuple[str, str | None]:
    """[low, high) of the strings that start with ``prefix`` as sqlite compares text
    (UTF-8 bytes: code point order); ``high`` None when there is no next string."""
    last = ord(prefix[-1])
    if last < 0x10FFFF and not 0xD7FF <= last < 0xE000:
        return prefix, prefix[:-1] + chr(last + 1)
    return prefix, None


class RecallRows(CatalogConnection):
    """The questions recall asks of the memory rows (module docstring)."""

    def recall_rows(
        self, subject_prefix: str | None, attribute: str | None, limit: int
    ) -> list[RecallRow]:
        """The first ``limit`` readable active rows whose subject starts with
        ``subject_prefix`` and whose attribute is ``attribute`` (either may be None:
        any), the highest rank first: (rel, id, rank), from an index alone."""
        where = ["reason IS NULL", "status = 'active'"]
        args: list[object] = []
        index = "entries_recall_subject"
        if subject_prefix:
            low, high = prefix_range(subject_prefix)
            where.append("subject >= ?")
            args.append(low)
            if high is not None:
                where.append("subject < ?")
                args.append(high)
            else:  # no next string: the prefix itself, compared
                where.append("substr(subject, 1, ?) = ?")
                args += [len(subject_prefix), subject_prefix]
        elif attribute is not None:
            index = "entries_recall_attribute"
        if attribute is not None:
            where.append("attribute = ?")
            args.append(attribute)
        args.append(limit)
        sql = (
            f"SELECT rel, id, rank FROM entries INDEXED BY {index} "
            f"WHERE {' AND '.join(where)} ORDER BY rank DESC LIMIT ?"
        )
        try:
            found = self._query(sql, args)
        except sqlite3.OperationalError:  # the index dropped since this catalog opened
            with self._lock:
                for statement in _RECALL_INDEXES:
                    self.db.execute(statement)
            found = self._query(sql, args)
        return [(rel, memory_id, rank) for rel, memory_id, rank in found]

    def claimed_more_than_once(self, ids: list[str]) -> set[str]:
        """Of these ids, those more than one readable file claims (one look-up of the
        id index for each 500 of them)."""
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            found.update(
                i
                for (i,) in self._query(
                    "SELECT id FROM entries WHERE reason IS NULL "
                    f"AND id IN ({', '.join('?' * len(chunk))}) GROUP BY id HAVING count(*) > 1",
                    chunk,
                )
            )
        return found
