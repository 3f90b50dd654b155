"""The steering detector's verdicts, remembered by what they were made of.

The full assessment of a hinted record (:func:`core.store.reaching.steering_flagged`)
is a pure function of the record's texts, its type, the role of its source message,
the store's known hosts and the detector itself. Its answer is kept here under a
digest of all of them, so a later command (a SessionStart hook, a recall, the queue)
reads one row instead of importing the detector, whose rules compile on import.

The table is derived like the rest of the catalog: a key names its inputs, so a
record, a role, a host list or a detector that changed is a new key (the old row is
never read again); rows of another detector are dropped when the catalog opens
(``meta.verdicts``: the detector's fingerprint) when the next one is kept, and an
erasure drops them all (a digest holds no text, but could confirm a guess of the
erased words).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable

from core.store.catalog.connection import CatalogConnection


def verdict_key(fingerprint: str, parts: Iterable[str | None]) -> str:
    """The digest of a verdict's inputs (None kept apart from the empty text)."""
    digest = hashlib.sha256(fingerprint.encode())
    for part in parts:
        digest.update(b"\1" if part is None else b"\0" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class Verdicts(CatalogConnection):
    """The remembered verdicts (module docstring)."""

    def verdict(self, key: str) -> bool | None:
        """The verdict kept under ``key``; None when there is none (or the catalog
        cannot be read: the caller assesses)."""
        try:
            rows = self._query("SELECT flagged FROM verdicts WHERE key = ?", (key,))
        except sqlite3.Error:
            return None
        return bool(rows[0][0]) if rows else None

    def keep_verdict(self, key: str, flagged: bool, fingerprint: str) -> None:
        """Remember a verdict. A catalog that cannot be written at once (read-only, or
        another process writing it) is left as it is, never waited for: the verdict is
        made again next time. Inside a transaction of this connection, nothing is kept
        (the transaction's rollback must not take a verdict with it, nor the reverse)."""

        def write(db: sqlite3.Connection) -> None:
            if self._meta(db, "verdicts") != fingerprint:
                db.execute("DELETE FROM verdicts")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('verdicts', ?)", (fingerprint,))
            db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)", (key, int(flagged)))

        self.write_unwaited(write)
