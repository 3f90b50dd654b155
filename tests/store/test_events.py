"""The append-only event log (SPEC section 4)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from core.store.events import (
    BadLine,
    Event,
    append_events,
    new_event_id,
    read_events,
    read_log,
)
from core.store.store import Store

TZ = timezone(timedelta(hours=8))
WHEN = datetime(2027, 3, 14, 10, 20, tzinfo=TZ)


def make_event(n: int, **overrides: object) -> Event:
    values: dict[str, object] = {
        "id": f"ev-{n:04d}",
        "ts": (WHEN + timedelta(minutes=n)).isoformat(),
        "actor": "alice@example.com",
        "action": "create",
        "memory_ids": (f"mem-{n}",),
        "from_status": None,
        "to_status": "active",
        "reason": f"reason {n}",
    }
    values.update(overrides)
    return Event(**values)  # type: ignore[arg-type]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "events.jsonl"


def test_append_and_read_round_trip(log: Path) -> None:
    events = [
        make_event(1),
        make_event(
            2,
            action="adjudicate",
            memory_ids=("mem-1", "mem-2"),
            from_status="conflict",
            to_status="active",
            reason="维护者裁决: the newer one wins",
            request="req-7",
            decision="dec-3",
            details={"key": {"scope": "team"}, "content_hash": "sha256:ab"},
        ),
        make_event(3, action="usage", to_status=None, details={}),
    ]
    assert append_events(log, events[:1]) == 0
    offset = log.stat().st_size
    assert append_events(log, events[1:]) == offset
    back, bad = read_events(log)
    assert back == events
    assert bad == []
    # one JSON object per line, every line terminated
    raw = log.read_bytes()
    assert raw.endswith(b"\n") and raw.count(b"\n") == 3
    first = json.loads(raw.splitlines()[1])
    assert first["from"] == "conflict" and first["to"] == "active"
    assert first["memory_ids"] == ["mem-1", "mem-2"]


def test_reading_a_missing_log_is_empty(log: Path) -> None:
    assert read_events(log) == ([], [])


def test_appending_nothing_writes_nothing(log: Path) -> None:
    assert append_events(log, []) == 0
    assert not log.exists()
    append_events(log, [make_event(1)])
    size = log.stat().st_size
    assert append_events(log, []) == size
    assert log.stat().st_size == size


def test_appending_never_rewrites_earlier_bytes(log: Path) -> None:
    append_events(log, [make_event(1), make_event(2)])
    before = log.read_bytes()
    append_events(log, [make_event(3)])
    assert log.read_bytes().startswith(before)


def test_torn_last_line_is_reported_and_earlier_events_kept(log: Path) -> None:
    append_events(log, [make_event(1), make_event(2)])
    fragment = make_event(3).line()[:40]  # half a JSON line, no newline: a crash mid-append
    with log.open("ab") as handle:
        handle.write(fragment)
    events, bad = read_events(log)
    assert [e.id for e in events] == ["ev-0001", "ev-0002"]
    assert bad == [BadLine(line=3, reason=bad[0].reason, last=True)]
    assert "torn" in bad[0].reason


def test_append_after_a_torn_line_starts_a_fresh_line(log: Path) -> None:
    append_events(log, [make_event(1)])
    fragment = make_event(2).line()[:30]
    with log.open("ab") as handle:
        handle.write(fragment)
    append_events(log, [make_event(3)])
    events, bad = read_events(log)
    # the new event is readable: not glued onto the fragment
    assert [e.id for e in events] == ["ev-0001", "ev-0003"]
    # and the fragment is still reported, never silently dropped
    assert len(bad) == 1
    assert bad[0].line == 2 and bad[0].last is False
    assert "unreadable" in bad[0].reason
    assert log.read_bytes().splitlines()[1] == fragment
    # a second append adds no extra blank line
    append_events(log, [make_event(4)])
    assert b"\n\n" not in log.read_bytes()
    assert [e.id for e in read_events(log)[0]] == ["ev-0001", "ev-0003", "ev-0004"]


def test_a_bad_line_in_the_middle_does_not_lose_the_lines_after_it(log: Path) -> None:
    append_events(log, [make_event(1)])
    with log.open("ab") as handle:
        handle.write(b"{this is not json}\n")
        handle.write(b"[1, 2, 3]\n")  # JSON, but not an event
        handle.write(b'{"id": "ev-x"}\n')  # an object without action or ts
        handle.write(b'{"id": "ev-y", "ts": "t", "action": "a", "details": 5}\n')
        handle.write(b"\xff\xfe not utf-8\n")
        handle.write(b'{"id": "ev-z", "ts": "t", "action": "a", "memory_ids": "mem-1"}\n')
        handle.write(b'{"id": "ev-w", "ts": "t", "action": "a", "to": 5}\n')
        handle.write(b"\n   \n")  # blank lines are not events and not errors
    append_events(log, [make_event(2), make_event(3)])
    events, bad = read_events(log)
    assert [e.id for e in events] == ["ev-0001", "ev-0002", "ev-0003"]
    assert [b.line for b in bad] == [2, 3, 4, 5, 6, 7, 8]
    assert all(not b.last and "unreadable" in b.reason for b in bad)


def test_event_line_is_compact_utf8_json(log: Path) -> None:
    line = make_event(1, reason="中文 reason").line()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert "中文".encode() in line  # not \\u-escaped
    assert Event.from_dict(json.loads(line)) == make_event(1, reason="中文 reason")


def test_optional_fields_stay_out_of_the_line() -> None:
    data = make_event(1).to_dict()
    assert "request" not in data and "decision" not in data and "details" not in data


def test_event_ids_are_unique_and_carry_utc_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # whatever the machine's zone is, the stamp in the id is UTC
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    try:
        ids = {new_event_id(WHEN) for _ in range(200)}
        assert len(ids) == 200
        assert all(i.startswith("ev-20270314T022000000000-") for i in ids)
        same_instant = WHEN.astimezone(timezone(timedelta(hours=-5)))
        assert new_event_id(same_instant).startswith("ev-20270314T022000000000-")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_event_ids_sort_by_time_across_offsets() -> None:
    earlier = datetime(2027, 3, 14, 9, 0, tzinfo=TZ)  # 01:00 UTC
    later = datetime(2027, 3, 14, 2, 0, tzinfo=UTC)  # 02:00 UTC, smaller wall-clock hour
    assert new_event_id(earlier) < new_event_id(later)


def test_a_shard_changed_on_disk_is_read_again(store: Store, make_memory: Any, add: Any) -> None:
    """The store's event log is parsed once while its bytes stay the same; a shard
    changed behind memgov's back (a pull, an edit: the same length, other bytes) is
    parsed again, never answered from what it said before."""
    from core.store.events import event_logs

    add(store, make_memory(id="one"), make_memory(id="two", attribute="tone"))
    first, bad = read_log(store.root)
    assert first and not bad
    again, _ = read_log(store.root)
    assert again == first and again is not first
    again.clear()  # a caller's list is its own
    assert read_log(store.root)[0] == first
    shard = store.root / event_logs(store.root)[0]
    data = shard.read_bytes()
    assert first[0].actor == "tester@example.com"
    shard.write_bytes(data.replace(b"tester@example.com", b"intrud@example.com", 1))
    assert shard.stat().st_size == len(data)  # the same length, other bytes
    changed, bad = read_log(store.root)
    assert changed[0].actor == "intrud@example.com" and changed[1:] == first[1:] and not bad
