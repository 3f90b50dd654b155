"""health's events, kept by shard under the digest of its bytes
(core.reports.health_events), are what parsing every event gives, field by field
as health reads them: after writes, a use and a citation, a refusal of a secret, a
label decision and its revert, a red-team run, an edit by hand of a shard (its size
and time kept), a checkout of older events, a second shard, and with the file
deleted, garbage or forged; health's report is the same."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from core.domain.data import to_data
from core.domain.record import Source
from core.reports.health_events import EVENTS_FILE, WHOLE, health_events
from core.reports.metrics import health
from core.review.decide import decide
from core.review.evidence import Evidence
from core.review.labels import label_items
from core.review.revert import revert
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.citing import cite_in
from core.writing.decay import recall
from core.writing.pipeline import Candidate, remember
from core.writing.redteam import replay
from tests.conftest import ACTOR, FakeClock, git

AGENT = "agent@example.com"


def _remember(store: Store, attribute: str, content: str) -> list[str]:
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
    return list(outcome.memory_ids)


def _fields(e: Any) -> tuple[Any, ...]:
    task = e.details.get("task")
    contributor = e.details.get("contributor")
    return (
        e.id,
        e.ts,
        e.actor,
        e.action,
        tuple(e.memory_ids),
        e.from_status,
        e.to_status,
        e.decision,
        task if isinstance(task, str) else None,
        bool(e.details.get("secret_rules")),
        contributor if isinstance(contributor, str) else None,
    )


def _same(store: Store) -> list[Any]:
    """health's events as a new process reads them, against every event parsed."""
    store = Store(store.root, clock=store.clock)
    got = health_events(store)
    events, _bad = store.events()
    counted = [e for e in got if e.action not in WHOLE]
    assert [_fields(e) for e in counted] == [_fields(e) for e in events if e.action not in WHOLE]
    whole = [e for e in got if e.action in WHOLE]
    for action in WHOLE:
        mine = [e for e in whole if e.action == action]
        assert mine == [e for e in events if e.action == action]  # whole, in log order
    kept = json.loads((store.state_dir / EVENTS_FILE).read_text("utf-8"))
    shards = {p.relative_to(store.root).as_posix() for p in _shards(store) if p.stat().st_size}
    assert set(kept["shards"]) == shards
    return got


def _shards(store: Store) -> list[Path]:
    return sorted((store.root / "events").glob("*.jsonl"))


def test_each_change_gives_what_parsing_every_event_gives(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    first = _remember(store, "db", "Postgres 16 is the database.")
    _same(store)
    clock.advance(hours=1)
    _remember(store, "cache", "Redis holds the sessions.")
    hits = recall(store, subject_prefix="project:shop", attribute="db", actor=AGENT, task="t-u")
    assert hits
    cite_in(ws, [first[0]], task="t-u", actor=AGENT)
    _remember(store, "key", "the deploy key is ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
    assert any(e.action == "refuse" and e.details.get("secret_rules") for e in _same(store))
    # a label decision, its revert, a red-team run
    clock.advance(hours=1)
    _remember(store, "db2", "I told you again, Postgres 16 is the database.")
    items = label_items(Evidence(store), store, measures=["precision"])
    assert items
    decision = decide(ws, items[0].id, approve=True, option="reusable", actor=ACTOR)
    revert(ws, decision.id, actor=ACTOR, reason="mislabelled")
    replay(store, actor=ACTOR)
    got = _same(store)
    assert {e.action for e in got} >= {"create", "use", "cite", "refuse", "decide", "redteam"}
    # an edit by hand of a shard, its size and time kept: an actor renamed
    shard = _shards(store)[-1]
    st = shard.stat()
    text = shard.read_text("utf-8")
    edited = text.replace(f'"actor":"{AGENT}"', f'"actor":"{AGENT[::-1]}"', 1)
    assert edited != text and len(edited) == len(text)
    shard.write_text(edited, "utf-8")
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert any(e.actor == AGENT[::-1] for e in _same(store))
    # a checkout of older events, and back; a second shard
    git(store.root, "checkout", "HEAD~6", "--", "events")
    assert len(_same(store)) < len(got)
    git(store.root, "checkout", "HEAD", "--", "events")
    assert len(_same(store)) == len(got)
    (store.root / "events" / "000099.jsonl").write_text(text.split("\n")[0] + "\n", "utf-8")
    _same(store)


@pytest.mark.parametrize(
    "forged",
    [
        None,
        b"",
        b"{",
        b"\xff",
        {"version": 2},
        {"events": {"a": 1}},
        {"row": ["ev-1", "t", "a", "decide", [], None, None, None, None, False, None]},
        {"row": ["ev-1", "t", "\x1b[2J", "create", [], None, None, None, None, False, None]},
        {"row": ["ev-1", "t", "a", "create", [], None, "gone", None, None, False, None]},
        {"row": ["ev-1", "t", "a", "create", ["x"], None, None, None, None, "yes", None]},
        {"row": ["ev-1", "t", "a", "create", "x", None, None, None, None, False, None]},
        {"row": ["ev-1", "t", "a", "create", [], None, None, None, 7, False, None]},
        {"row": ["ev-1", "t", "a" * 400, "create", [], None, None, None, None, False, None]},
        {"row": ["ev-1", "t", "a", "create"]},
    ],
)
def test_a_missing_or_forged_file_is_made_again(store: Store, forged: Any) -> None:
    _remember(store, "db", "Postgres 16 is the database.")
    expected = [_fields(e) for e in _same(store)]
    path = store.state_dir / EVENTS_FILE
    good = json.loads(path.read_text("utf-8"))
    if forged is None:
        path.unlink()
    elif isinstance(forged, bytes):
        path.write_bytes(forged)
    elif "version" in forged:
        path.write_text(json.dumps({**good, **forged}), "utf-8")
    else:
        shards = {}
        for rel, entry in good["shards"].items():
            rows = forged["events"] if "events" in forged else [*entry["events"], forged["row"]]
            shards[rel] = {**entry, "events": rows}
        path.write_text(json.dumps({**good, "shards": shards}), "utf-8")
    assert [_fields(e) for e in _same(store)] == expected
    assert json.loads(path.read_text("utf-8")) == good


def test_health_reports_the_same_with_and_without_the_file(store: Store, clock: FakeClock) -> None:
    _remember(store, "db", "Postgres 16 is the database.")
    clock.advance(days=1)
    _remember(store, "db", "Postgres 17 is the database now.")
    replay(store, actor=ACTOR)
    first = to_data(health(store))
    assert to_data(health(Store(store.root, clock=clock))) == first
    (store.state_dir / EVENTS_FILE).write_bytes(b"garbage")
    assert to_data(health(Store(store.root, clock=clock))) == first
