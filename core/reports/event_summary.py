"""What doctor needs of the event log, kept by shard: each shard's status moves, the
events its recoveries rolled back, and its unreadable lines, under the digest of the
shard's bytes.

doctor checks each record's status against the last transition that was not rolled
back, and a record's ``supersedes`` against the erased; for that it parsed every
event (every field of every line checked) at every run. A shard but the last is never
written again, so its summary is kept in the store's local state
(``event-summary.json``) by its path and the BLAKE2b digest of its bytes: a run reads
every shard (the floor) and parses only one whose bytes are not those of its summary
(appended to, edited by hand, undone, checked out). The file is derived and
untrusted: one of another version or shape, garbage or missing, and every shard is
parsed again; a summary is used only if every field is of its form (ids of id
characters, statuses memgov knows, reasons of printable text, line numbers), and the
file is written whole in its place (a kill leaves the old file or the new one).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.domain.errors import StoreError
from core.domain.record import STATUSES
from core.store.events import EVENTS_DIR, MAX_SHARD_READ_BYTES, BadLine, event_logs
from core.store.fsutil import UnsafePath, atomic_write_bytes, read_confined
from core.store.store import Store

#: the store's local-state file of the shards' summaries
SUMMARY_FILE = "event-summary.json"
#: the summaries' form; another is read as none
VERSION = 1
_MAX_BYTES = 64 << 20
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}\Z")
_MAX_REASON = 400


@dataclass
class Shard:
    """One shard's part: (event id, status it moved to, memory ids) for each event that
    moved a status, in order; the ids its recoveries rolled back; its bad lines."""

    moves: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    rolled_back: list[str] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)


@dataclass
class Summary:
    """The log's: the last status of each memory (transitions rolled back aside), the
    ids erased (any ``-> deleted``), and every bad line in log order."""

    last_status: dict[str, str]
    erased: set[str]
    bad: list[BadLine]


def event_summary(store: Store) -> Summary:
    """The log's summary (see the module), a shard parsed only when its bytes changed."""
    root = store.root
    path = store.state_dir / SUMMARY_FILE
    kept = _read(path)
    parts: list[Shard] = []
    fresh: dict[str, dict[str, Any]] = {}
    if (root / EVENTS_DIR).is_symlink():
        reason = "a symbolic link; not read (memgov never follows one)"
        parts.append(Shard(bad=[BadLine(0, reason, True, EVENTS_DIR)]))
    for rel in event_logs(root):
        try:
            data = read_confined(root, rel, limit=MAX_SHARD_READ_BYTES)
        except UnsafePath as exc:
            parts.append(Shard(bad=[BadLine(0, f"not read: {exc}", True, rel)]))
            continue
        if not data:
            continue
        digest = hashlib.blake2b(data, digest_size=20).hexdigest()
        entry = kept.get(rel)
        part = _shard(entry, rel) if entry is not None and entry.get("digest") == digest else None
        if part is None:
            part = _parse(root, rel, data)
        parts.append(part)
        fresh[rel] = {"digest": digest, **_as_data(part)}
    if fresh != kept:
        # a cache: not written (a folder in its place, a full disk), the next doctor
        # parses every shard again
        with contextlib.suppress(OSError, StoreError):
            text = json.dumps({"version": VERSION, "shards": fresh}, sort_keys=True)
            atomic_write_bytes(path, text.encode("utf-8"))
    return _summed(parts)


def _parse(root: Path, rel: str, data: bytes) -> Shard:
    from core.store.events import _parsed_shard

    events, bad = _parsed_shard(root, rel, data)
    part = Shard(bad=bad)
    for event in events:
        if event.action == "recover":
            rolled = event.details.get("rolled_back_events", [])
            if isinstance(rolled, list):  # an id is a string: nothing else matches one
                part.rolled_back += [i for i in rolled if isinstance(i, str)]
        if event.to_status is not None:
            part.moves.append((event.id, event.to_status, tuple(event.memory_ids)))
    return part


def _summed(parts: list[Shard]) -> Summary:
    rolled_back = {i for part in parts for i in part.rolled_back}
    last_status: dict[str, str] = {}
    erased: set[str] = set()
    for part in parts:
        for event_id, to_status, memory_ids in part.moves:
            if to_status == "deleted":
                erased.update(memory_ids)
            if event_id in rolled_back:
                continue
            for memory_id in memory_ids:
                last_status[memory_id] = to_status
    return Summary(last_status, erased, [b for part in parts for b in part.bad])


def _as_data(part: Shard) -> dict[str, Any]:
    return {
        "moves": [[i, s, list(m)] for i, s, m in part.moves],
        "rolled_back": part.rolled_back,
        "bad": [[b.line, b.reason, b.last] for b in part.bad],
    }


def _read(path: Path) -> dict[str, dict[str, Any]]:
    """The kept summaries by shard (none when the file is missing, unreadable or of
    another version)."""
    return kept_shards(path, VERSION, _MAX_BYTES)


def kept_shards(path: Path, version: int, limit: int) -> dict[str, dict[str, Any]]:
    """What a derived file kept by event shard (``{"version": .., "shards": {rel: {..}}}``,
    at most ``limit`` bytes read): none when the file is missing, unreadable, of another
    version or of another shape (each entry is checked by its reader)."""
    try:
        raw = json.loads(path.read_bytes()[:limit])
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict) or raw.get("version") != version:
        return {}
    shards = raw.get("shards")
    if not isinstance(shards, dict):
        return {}
    return {k: v for k, v in shards.items() if isinstance(k, str) and isinstance(v, dict)}


def _shard(entry: dict[str, Any], rel: str) -> Shard | None:
    """A kept summary, if every field is of its form (else None: parsed again)."""
    moves, rolled, bad = entry.get("moves"), entry.get("rolled_back"), entry.get("bad")
    if not isinstance(moves, list) or not isinstance(rolled, list) or not isinstance(bad, list):
        return None
    part = Shard()
    for move in moves:
        if not (isinstance(move, list) and len(move) == 3 and isinstance(move[2], list)):
            return None
        event_id, to_status, memory_ids = move
        if not _is_id(event_id) or to_status not in STATUSES:
            return None
        if not all(_is_id(i) for i in memory_ids):
            return None
        part.moves.append((event_id, to_status, tuple(memory_ids)))
    if not all(isinstance(i, str) for i in rolled):
        return None
    part.rolled_back = list(rolled)
    for line in bad:
        if not (isinstance(line, list) and len(line) == 3):
            return None
        number, reason, last = line
        if not (isinstance(number, int) and not isinstance(number, bool) and number >= 0):
            return None
        if not (isinstance(reason, str) and len(reason) <= _MAX_REASON and reason.isprintable()):
            return None
        if not isinstance(last, bool):
            return None
        part.bad.append(BadLine(number, reason, last, rel))
    return part


def _is_id(value: object) -> bool:
    return isinstance(value, str) and _ID.match(value) is not None
