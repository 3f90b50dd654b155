"""Credentials in the files of stored records: found by scanning, never shown.

A record written before scanning existed, or pasted into ``memories/`` by hand,
can hold a token the write gate never saw. :func:`record_hits` scans the file of
every record (any status: superseded and expired files are still on disk) and
returns the rule ids, lines and columns, never the value; :func:`file_hits` adds
the files of ``memories/`` that are not readable records. Doctor reports each;
the review queue opens a "secret in a record" item per record (``secret-<id>``,
decided in core.review.secret).

Scanning is cached by each file's stat data (mtime, size, inode): a queue
built again scans only the files that changed since.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.domain import secrets
from core.domain.record import Memory
from core.store.store import MAX_FILE_BYTES, MEMORY_DIR, Store

if TYPE_CHECKING:
    from core.store.snapshot import Snapshot

ITEM_PREFIX = "secret-"
_CACHE_LIMIT = 100_000
#: absolute path -> ((mtime_ns, size, inode), findings)
_SCANNED: dict[str, tuple[tuple[int, int, int], tuple[secrets.Finding, ...]]] = {}


@dataclass(frozen=True)
class Hit:
    """A file of a store's ``memories/`` that holds a credential."""

    path: str  # relative to the store root
    findings: tuple[secrets.Finding, ...]
    memory: Memory | None = None  # None: the file is not a readable record

    @property
    def rules(self) -> list[str]:
        return sorted({f.rule_id for f in self.findings})

    def where(self) -> str:
        """``github-pat at line 12, column 20; ...``: never the value."""
        return "; ".join(f"{f.rule_id} at line {f.line}, column {f.column}" for f in self.findings)


# ------------------------------------------------------------------------- scanning
def scan_file(path: Path) -> tuple[secrets.Finding, ...]:
    """The findings in one file's text (lines and columns of the file), cached by its
    stat data. A missing file, a link or anything but a plain file has none: memgov
    does not read through links. Only the first ``MAX_FILE_BYTES`` are read."""
    key = str(path)
    try:
        st = os.lstat(path)
    except OSError:
        _SCANNED.pop(key, None)
        return ()
    if not stat.S_ISREG(st.st_mode):
        return ()
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    cached = _SCANNED.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES)
    except OSError:
        return ()
    findings = tuple(secrets.scan(data.decode("utf-8", "replace")))
    if len(_SCANNED) >= _CACHE_LIMIT:
        _SCANNED.clear()
    _SCANNED[key] = (stamp, findings)
    return findings


def record_hits(store: Store) -> list[Hit]:
    """Every record of the store, whatever its status, whose file holds a credential."""
    hits = []
    for memory in sorted(store.memories.with_secrets(), key=lambda m: m.id):
        findings = scan_file(store.root / memory.path)
        if findings and not _kept_likely(store, memory, findings):
            hits.append(Hit(memory.path, findings, memory))
    return hits


def _kept_likely(store: Store, memory: Memory, findings: tuple[secrets.Finding, ...]) -> bool:
    """Whether a person said the credentials the record holds are none: every finding
    likely, and an event of its writing keeps their rules and the hash of these very
    words (core.writing.pipeline: ``memgov remember --keep-likely``, a held item kept)."""
    if any(f.tier != "likely" for f in findings):
        return False
    from core.store.quarantine import text_hash

    mine, _recoveries = store.memories.catalog.events_of(memory.id)
    wanted = text_hash(memory.content)
    rules = {f.rule_id for f in findings}
    for event in mine:
        kept = (getattr(event, "details", None) or {}).get("kept_likely")
        if (
            isinstance(kept, dict)
            and kept.get("hash") == wanted
            and rules <= set(kept.get("rules") or ())
        ):
            return True
    return False


def file_hits(store: Store, snapshot: Snapshot | None = None) -> list[Hit]:
    """:func:`record_hits`, and the files of ``memories/`` that are not readable
    records (a duplicate id, bad front matter) but hold a credential too.
    ``snapshot``: the store's as the caller has it already (doctor's)."""
    hits = record_hits(store)
    snap = snapshot if snapshot is not None else store.load()
    seen = {h.path for h in hits} | {m.path for m in snap.memories.values()}
    for problem in snap.problems:
        if problem.path in seen or not problem.path.startswith(f"{MEMORY_DIR}/"):
            continue
        seen.add(problem.path)
        findings = scan_file(store.root / problem.path)
        if findings:
            hits.append(Hit(problem.path, findings))
    return sorted(hits, key=lambda h: h.path)


def item_id(memory_id: str) -> str:
    return f"{ITEM_PREFIX}{memory_id}"


def how_to_fix(memory_id: str) -> str:
    """What doctor and errors say to do about a record that holds a credential."""
    item = item_id(memory_id)
    return (
        f"erase it or correct it in the desk ('secret in a record' item {item}) or with "
        f"memgov decide {item} --approve --option erase|correct"
    )
