"""Recall and list across a workspace's stores (core.reports.recall): merged,
ordered and cut the same way whatever the number of stores."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock, add_memories

from core.domain.record import Memory
from core.reports.recall import list_in, recall_in
from core.store.store import Store
from core.store.workspace import Workspace

MakeMemory = Callable[..., Memory]
OTHER = "someone@example.com"


@pytest.fixture
def two_stores(tmp_path: Path, clock: FakeClock, make_memory: MakeMemory) -> Workspace:
    """A private store (active at confidence 0.9 and 0.5, one in conflict) and a team
    store ACTOR maintains (0.7, 0.5, and one of ``user:bob``); the rest is of
    ``user:alice``."""
    private = Store.init(tmp_path / "private", owner=ACTOR, actor=ACTOR, clock=clock)
    team = Store.init(
        tmp_path / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR, clock=clock
    )
    add_memories(
        private,
        make_memory(id="p-high", attribute="a1", confidence=0.9),
        make_memory(id="p-held", attribute="a2", confidence=0.5, status="conflict"),
        make_memory(id="p-low", attribute="a3", confidence=0.5),
    )
    add_memories(
        team,
        make_memory(id="t-mid", scope="team", attribute="b1", confidence=0.7),
        make_memory(id="t-low", scope="team", attribute="b2", confidence=0.5),
        make_memory(id="t-other", scope="team", subject="user:bob", attribute="b3"),
    )
    return Workspace([private, team])


def test_recall_merges_the_stores_by_weight_and_cuts_to_the_limit(
    two_stores: Workspace,
) -> None:
    found = recall_in(two_stores, subject_prefix="user:alice", attribute=None, actor=ACTOR, limit=3)
    # equal weights: the earlier store first
    assert [r.memory.id for r in found] == ["p-high", "t-mid", "p-low"]
    assert [r.weight for r in found] == sorted((r.weight for r in found), reverse=True)


def test_recall_tells_which_store_does_not_record_the_use(two_stores: Workspace) -> None:
    told: list[Store] = []
    found = recall_in(
        two_stores, subject_prefix="user:", attribute=None, actor=OTHER, on_unrecorded=told.append
    )
    assert told == [two_stores.stores[1]]
    assert {r.memory.id for r in found} == {"p-high", "p-low", "t-mid", "t-low", "t-other"}
    team = Store(two_stores.stores[1].root)
    assert all(m.usage_count == 0 for m in team.memories.values())

    told.clear()
    recall_in(
        two_stores,
        subject_prefix="user:",
        attribute=None,
        actor=OTHER,
        record_usage=False,
        on_unrecorded=told.append,
    )
    assert told == []


def test_list_filters_and_keeps_each_store_in_key_order(two_stores: Workspace) -> None:
    assert [m.id for m in list_in(two_stores)] == [
        "p-high",
        "p-held",
        "p-low",
        "t-mid",
        "t-low",
        "t-other",
    ]
    assert [m.id for m in list_in(two_stores, statuses=["conflict"])] == ["p-held"]
    assert [m.id for m in list_in(two_stores, subject_prefix="user:bob")] == ["t-other"]
