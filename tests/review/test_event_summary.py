"""doctor's summary of the event log, kept by shard under the digest of its bytes
(core.reports.event_summary), gives what parsing every event gives: after a write,
a recovery that rolls an event back, an undo by git, an edit by hand of a shard (a
line broken, its size and time kept), a checkout of older events, a shard sealed and
a new one begun, and with the file deleted, garbage or forged; doctor finds the same."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from core.api.doctor import diagnose
from core.domain.record import Source
from core.reports.event_summary import SUMMARY_FILE, event_summary
from core.store.store import Store
from core.writing.pipeline import Candidate, remember
from tests.conftest import FakeClock, git

AGENT = "agent@example.com"


def _remember(store: Store, attribute: str, content: str) -> str:
    task = f"t-{attribute}"
    rel, _ = store.log_message(task=task, index=1, role="user", text=content, actor=AGENT)
    outcome = remember(
        store,
        Candidate(
            content=content,
            type="semantic",
            scope="private",
            subject="project:shop",
            attribute=attribute,
            source=Source(task=task, message_index=1, evidence=content, log=rel),
            s1=0.9,
            s2=0.9,
        ),
        actor=AGENT,
    )
    assert outcome.memory_ids, outcome
    return outcome.memory_ids[0]


def _cold(store: Store) -> tuple[dict[str, str], set[str], list[tuple[Any, ...]]]:
    """What doctor computed from every event parsed (its code before the summary)."""
    events, bad = store.events()
    rolled_back = {
        i for e in events if e.action == "recover" for i in e.details.get("rolled_back_events", [])
    }
    last: dict[str, str] = {}
    for event in events:
        if event.id in rolled_back or event.to_status is None:
            continue
        for memory_id in event.memory_ids:
            last[memory_id] = event.to_status
    erased = {i for e in events if e.to_status == "deleted" for i in e.memory_ids}
    return last, erased, [(b.line, b.reason, b.last, b.file) for b in bad]


def _same(store: Store) -> None:
    got = event_summary(store)
    last, erased, bad = _cold(store)
    assert got.last_status == last
    assert got.erased == erased
    assert [(b.line, b.reason, b.last, b.file) for b in got.bad] == bad
    kept = json.loads((store.state_dir / SUMMARY_FILE).read_text("utf-8"))
    assert set(kept["shards"]) == {p.relative_to(store.root).as_posix() for p in _shards(store)}


def _shards(store: Store) -> list[Any]:
    return sorted((store.root / "events").glob("*.jsonl"))


def _append(store: Store, line: dict[str, Any]) -> None:
    with _shards(store)[-1].open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def test_each_change_gives_what_parsing_every_event_gives(store: Store, clock: FakeClock) -> None:
    first = _remember(store, "db", "Postgres 16 is the database.")
    _same(store)
    clock.advance(hours=1)
    second = _remember(store, "cache", "Redis holds the sessions.")
    _same(store)
    # a recovery that rolls the second record's creation back
    created = [
        json.loads(line)
        for line in _shards(store)[-1].read_text("utf-8").splitlines()
        if second in line
    ]
    _append(
        store,
        {
            "id": "ev-20990101T000000000000-aaaaaa",
            "ts": clock().isoformat(),
            "actor": AGENT,
            "action": "recover",
            "memory_ids": [],
            "from": None,
            "to": None,
            "reason": "rolled back by hand",
            "details": {"rolled_back_events": [created[0]["id"]]},
        },
    )
    assert second not in event_summary(store).last_status
    _same(store)
    # an erasure's event: the id erased
    _append(store, {**created[0], "id": "ev-20990101T000000000001-bbbbbb", "to": "deleted"})
    assert second in event_summary(store).erased
    _same(store)
    # an edit by hand that breaks a line, the shard's size and time kept
    shard = _shards(store)[-1]
    st = shard.stat()
    text = shard.read_text("utf-8")
    broken = text.replace('"action":"create"', '"action":"create"'.replace(":", ";"), 1)
    assert len(broken) == len(text) and broken != text
    shard.write_text(broken, "utf-8")
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert event_summary(store).bad
    _same(store)
    # an undo by git of that edit and of the appended lines; a checkout of older events
    git(store.root, "checkout", "--", "events")
    _same(store)
    git(store.root, "checkout", "HEAD~2", "--", "events")
    assert first in event_summary(store).last_status
    assert second not in event_summary(store).last_status
    _same(store)
    git(store.root, "checkout", "HEAD", "--", "events")
    _same(store)
    # a torn last line, then a second shard
    with shard.open("a", encoding="utf-8") as f:
        f.write('{"id": "ev-torn')
    _same(store)
    (store.root / "events" / "000099.jsonl").write_text(
        shard.read_text("utf-8").split("\n")[0] + "\n", "utf-8"
    )
    _same(store)


@pytest.mark.parametrize(
    "forged",
    [
        None,
        b"",
        b"{",
        b"\x00\xfe",
        b"[]",
        {"version": 0},
        {"moves": "x"},
        {"moves": [["ev-1", "gone", ["a"]]]},
        {"moves": [["ev-1", "active", ["a b/../c"]]]},
        {"moves": [["ev-1", "active", "a"]]},
        {"rolled_back": [1]},
        {"bad": [[1, "\x1b[2Jcleared", False]]},
        {"bad": [[True, "r", False]]},
        {"bad": [[-1, "r", False]]},
        {"bad": [[1, "r", "no"]]},
        {"bad": [[1, "r"]]},
    ],
)
def test_a_missing_or_forged_summary_is_made_again(store: Store, forged: Any) -> None:
    memory_id = _remember(store, "db", "Postgres 16 is the database.")
    _same(store)
    path = store.state_dir / SUMMARY_FILE
    good = json.loads(path.read_text("utf-8"))
    if forged is None:
        path.unlink()
    elif isinstance(forged, bytes):
        path.write_bytes(forged)
    elif "version" in forged:
        path.write_text(json.dumps({**good, **forged}), "utf-8")
    else:
        shards = {rel: {**entry, **forged} for rel, entry in good["shards"].items()}
        path.write_text(json.dumps({**good, "shards": shards}), "utf-8")
    got = event_summary(store)
    assert got.last_status == {memory_id: "active"} and not got.bad
    _same(store)
    assert json.loads(path.read_text("utf-8")) == good


def test_doctor_finds_the_same_with_and_without_the_summary(store: Store) -> None:
    memory_id = _remember(store, "db", "Postgres 16 is the database.")
    shard = _shards(store)[-1]
    with shard.open("a", encoding="utf-8") as f:
        f.write("not json\n")
    record = next(store.root.glob(f"memories/*/{memory_id}.md"))
    record.write_text(
        record.read_text("utf-8").replace("status: active", "status: expired"), "utf-8"
    )
    first = [f.render() for f in diagnose(store)]
    assert any("unreadable event line" in line for line in first)
    assert any("the last event says active" in line for line in first)
    assert [f.render() for f in diagnose(store)] == first  # from the summary
    (store.state_dir / SUMMARY_FILE).unlink()
    assert [f.render() for f in diagnose(store)] == first
