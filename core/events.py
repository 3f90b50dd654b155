"""The append-only event log (SPEC section 4): JSON Lines, never edited in place.

Every change to a memory is an event. A torn last line (a crash mid-append) is
reported by :func:`read_events` and isolated on the next append by starting a
fresh line, so nothing after it is ever lost and nothing is rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets as _random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

EVENTS_FILE = "events.jsonl"


@dataclass(frozen=True)
class Event:
    """One transition or decision. Content never goes in here, only ids and hashes."""

    id: str
    ts: str
    actor: str
    action: str
    memory_ids: tuple[str, ...] = ()
    from_status: str | None = None
    to_status: str | None = None
    reason: str = ""
    request: str | None = None
    decision: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "ts": self.ts,
            "actor": self.actor,
            "action": self.action,
            "memory_ids": list(self.memory_ids),
            "from": self.from_status,
            "to": self.to_status,
            "reason": self.reason,
        }
        if self.request:
            out["request"] = self.request
        if self.decision:
            out["decision"] = self.decision
        if self.details:
            out["details"] = self.details
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        ids = data.get("memory_ids") or []
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            # a bare string would otherwise become one id per character
            raise ValueError("memory_ids must be a list of ids")
        for name in ("from", "to"):
            if data.get(name) is not None and not isinstance(data[name], str):
                raise ValueError(f"{name!r} must be a status or null")
        return cls(
            id=str(data["id"]),
            ts=str(data["ts"]),
            actor=str(data.get("actor", "")),
            action=str(data["action"]),
            memory_ids=tuple(ids),
            from_status=data.get("from"),
            to_status=data.get("to"),
            reason=str(data.get("reason") or ""),
            request=data.get("request"),
            decision=data.get("decision"),
            details=dict(data.get("details") or {}),
        )

    def line(self) -> bytes:
        return (
            json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=False, separators=(",", ":"))
            + "\n"
        ).encode("utf-8")


@dataclass(frozen=True)
class BadLine:
    """A line of the log that could not be read (torn by a crash, or edited by hand)."""

    line: int
    reason: str
    last: bool


def new_event_id(now: datetime, basis: str = "") -> str:
    """Sortable and unique: UTC time to the microsecond plus a digest of what the
    event is about (``basis``), so a replay with a pinned clock gives the same ids;
    random bits when no basis is given."""
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%S%f")
    tail = hashlib.sha256(basis.encode("utf-8")).hexdigest()[:6] if basis else _random.token_hex(3)
    return f"ev-{stamp}-{tail}"


def append_events(path: Path, events: Iterable[Event]) -> int:
    """Append events in one write; return the byte offset where they start.

    The caller holds the store lock. If the file's last line is torn (no final
    newline), a newline is written first so the fragment stays a line of its
    own, reported, and never glued to a new event.
    """
    payload = b"".join(event.line() for event in events)
    if not payload:
        return path.stat().st_size if path.exists() else 0
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size:
            last = os.pread(fd, 1, size - 1)
            if last != b"\n":
                payload = b"\n" + payload
        os.write(fd, payload)
        os.fsync(fd)
        return size
    finally:
        os.close(fd)


def read_events(path: Path) -> tuple[list[Event], list[BadLine]]:
    """Every readable event in order, and the lines that could not be read."""
    if not path.exists():
        return [], []
    data = path.read_bytes()
    events: list[Event] = []
    bad: list[BadLine] = []
    lines = data.split(b"\n")
    torn_tail = bool(data) and not data.endswith(b"\n")
    count = len(lines)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        is_last = number == count
        try:
            item = json.loads(raw)
            if not isinstance(item, dict):
                raise ValueError("not a JSON object")
            events.append(Event.from_dict(item))
        except (ValueError, KeyError, TypeError) as exc:
            if is_last and torn_tail:
                reason = "torn last line (a crash during an append); kept, not replayed"
            else:
                reason = f"unreadable event line ({type(exc).__name__}); kept, not replayed"
            bad.append(BadLine(line=number, reason=reason, last=is_last))
    return events, bad
