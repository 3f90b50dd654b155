"""The event log's index: where each event's line is, by memory and by action.

A shard is indexed again where it changed (its stat data: an append is read from
where the index stopped, anything else read again); a question reads the lines
the index names from the log itself.
"""

from __future__ import annotations

import os
from typing import Any

from core.store.catalog.connection import CatalogConnection, _immediate


class EventIndex(CatalogConnection):
    """The questions about the event log the catalog answers from its index."""

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
