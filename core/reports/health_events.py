"""The events as health counts them, kept by shard under the digest of its bytes.

health reads what every event did (its action, when, by whom, which records, the
statuses it moved between, its decision) and, of its details, only a use's or a
citation's task, whether a refusal named secret rules, and a record's contributor;
a decision's and a red-team run's details whole. It parsed every event (every field
of every line checked) at every run. Now each shard's events but the decisions and
the red-team runs are kept, those fields only, in the store's local state
(``health-events.json``) by the shard's path and the BLAKE2b digest of its bytes: a
run reads every shard (the floor) and parses only one whose bytes changed (appended
to, edited by hand, undone, checked out). The decisions and the red-team runs, whose
details matter whole, are read from their lines through the catalog's index of the
log (core.store.catalog.event_index), as the labels are.

The file is derived and untrusted: of another version or shape, garbage or missing,
and every shard is parsed again; a shard's events are used only if every field is
of its form (printable text of bounded length, statuses memgov knows, no decision or
red-team run among them), and the file is written whole in its place.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from core.domain.errors import StoreError
from core.domain.record import STATUSES
from core.reports.event_summary import kept_shards
from core.store.events import MAX_SHARD_READ_BYTES, Event, event_logs
from core.store.fsutil import UnsafePath, atomic_write_bytes, read_confined
from core.store.store import Store

#: the store's local-state file of the shards' events as health counts them
EVENTS_FILE = "health-events.json"
VERSION = 1
_MAX_BYTES = 256 << 20
#: the actions whose details health reads whole: read from their lines, never kept
WHOLE = ("decide", "redteam")
_MAX_TEXT = 320
_STATUSES = frozenset(STATUSES)


class Happened(Protocol):
    """What health and the measures read of an event (an :class:`Event` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def ts(self) -> str: ...
    @property
    def actor(self) -> str: ...
    @property
    def action(self) -> str: ...
    @property
    def memory_ids(self) -> tuple[str, ...]: ...
    @property
    def from_status(self) -> str | None: ...
    @property
    def to_status(self) -> str | None: ...
    @property
    def decision(self) -> str | None: ...
    @property
    def details(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class Counted:
    """An event as health counts it (see the module)."""

    id: str
    ts: str
    actor: str
    action: str
    memory_ids: tuple[str, ...] = ()
    from_status: str | None = None
    to_status: str | None = None
    decision: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


def health_events(store: Store) -> list[Happened]:
    """Every event health counts: the kept ones of each shard in log order, a shard
    parsed only when its bytes changed, then the decisions and the red-team runs, each
    in log order, read from their lines."""
    root = store.root
    path = store.state_dir / EVENTS_FILE
    kept = _read(path)
    out: list[Happened] = []
    fresh: dict[str, dict[str, Any]] = {}
    for rel in event_logs(root):
        try:
            data = read_confined(root, rel, limit=MAX_SHARD_READ_BYTES)
        except UnsafePath:
            continue  # doctor names it; health counts what it can read
        if not data:
            continue
        digest = hashlib.blake2b(data, digest_size=20).hexdigest()
        entry = kept.get(rel)
        rows = entry.get("events") if entry is not None and entry.get("digest") == digest else None
        counted = _counted(rows) if rows is not None else None
        if counted is None:
            counted = _parse(root, rel, data)
        out += counted
        fresh[rel] = {"digest": digest, "events": [_row(e) for e in counted]}
    if fresh != kept:
        with contextlib.suppress(OSError, StoreError):  # a cache: parsed again next time
            text = json.dumps({"version": VERSION, "shards": fresh}, sort_keys=True)
            atomic_write_bytes(path, text.encode("utf-8"))
    for action in WHOLE:
        out += store.catalog.events_with_action(action)
    return out


def _parse(root: Path, rel: str, data: bytes) -> list[Counted]:
    from core.store.events import _parsed_shard

    events, _bad = _parsed_shard(root, rel, data)
    return [_counted_of(e) for e in events if e.action not in WHOLE]


def _counted_of(event: Event) -> Counted:
    details: dict[str, Any] = {}
    task = event.details.get("task")
    if isinstance(task, str):
        details["task"] = task
    if event.details.get("secret_rules"):
        details["secret_rules"] = True
    contributor = event.details.get("contributor")
    if isinstance(contributor, str):
        details["contributor"] = contributor
    return Counted(
        event.id,
        event.ts,
        event.actor,
        event.action,
        tuple(event.memory_ids),
        event.from_status,
        event.to_status,
        event.decision,
        details,
    )


def _row(event: Counted) -> list[Any]:
    d = event.details
    return [
        event.id,
        event.ts,
        event.actor,
        event.action,
        list(event.memory_ids),
        event.from_status,
        event.to_status,
        event.decision,
        d.get("task"),
        bool(d.get("secret_rules")),
        d.get("contributor"),
    ]


def _read(path: Path) -> dict[str, dict[str, Any]]:
    return kept_shards(path, VERSION, _MAX_BYTES)


def _counted(rows: object) -> list[Counted] | None:
    """A shard's kept events, if every field is of its form (else None)."""
    if not isinstance(rows, list):
        return None
    out = []
    for row in rows:
        if not isinstance(row, list) or len(row) != 11:
            return None
        ident, ts, actor, action, ids, from_s, to_s, decision, task, secret, contributor = row
        if not all(_text(v) for v in (ident, ts, actor, action)) or action in WHOLE:
            return None
        if not isinstance(ids, list) or not all(_text(i) for i in ids):
            return None
        if not all(s is None or s in _STATUSES for s in (from_s, to_s)):
            return None
        if not all(v is None or _text(v) for v in (decision, task, contributor)):
            return None
        if not isinstance(secret, bool):
            return None
        details: dict[str, Any] = {}
        if task is not None:
            details["task"] = task
        if secret:
            details["secret_rules"] = True
        if contributor is not None:
            details["contributor"] = contributor
        out.append(Counted(ident, ts, actor, action, tuple(ids), from_s, to_s, decision, details))
    return out


def _text(value: object) -> bool:
    return isinstance(value, str) and len(value) <= _MAX_TEXT and value.isprintable()
