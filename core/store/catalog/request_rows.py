"""The request files' rows (``requests/*.yaml``, :mod:`core.store.requests`).

Read on the first question about requests and kept as the memory rows are (the
folder's stat data, the files git says changed, every file with a full sync); a
request question is small, so every request it returns, and every file that could
not be read, is checked against its stat data first.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from core.domain.errors import ValidationError
from core.store.catalog.connection import CatalogConnection, _immediate
from core.store.catalog.rows import SyncResult, _stamp
from core.store.catalog.schema import _REQUEST_INSERT
from core.store.fsutil import escaped_name, unescaped_name
from core.store.gitstore.plumbing import head_commit
from core.store.request_files import REQUEST_DIR, Request, read_request_file, request_from_mapping

#: a folder listed within this long of its last change is listed again next time: a
#: change in the same tick of the file system's clock would leave its mtime alone
_RACY_NS = 2_000_000_000
_LINKED_FOLDER = "is a symbolic link; memgov reads no store file through a link"


def _is_request_rel(rel: str) -> bool:
    return rel.startswith(f"{REQUEST_DIR}/") and rel.endswith(".yaml") and rel.count("/") == 1


class RequestRows(CatalogConnection):
    """The requests: their rows kept in step with the files, and the questions about
    them."""

    if TYPE_CHECKING:  # another part's (MemorySync): a corrupt catalog built again

        def _rebuild(self) -> SyncResult: ...

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
