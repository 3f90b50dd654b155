"""Which store of a workspace tells a memory's history (core.reports.history):
the one holding it, else, once it is erased, the one whose events name it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock, add_memories

from core.domain.errors import NotFoundError
from core.domain.record import Memory
from core.reports.history import history_in, store_of_history
from core.store.store import Store
from core.store.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path, clock: FakeClock, make_memory: Callable[..., Memory]) -> Workspace:
    """An empty team store first, then a private store with ``kept`` and an erased
    ``gone``."""
    team = Store.init(tmp_path / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    private = Store.init(tmp_path / "private", owner=ACTOR, actor=ACTOR, clock=clock)
    add_memories(private, make_memory(id="kept"), make_memory(id="gone", attribute="lang"))
    with private.transaction(actor=ACTOR, message="erase gone") as tx:
        tx.erase("gone", action="erase", reason="user asked")
    return Workspace([team, private])


def test_the_store_holding_the_memory(workspace: Workspace) -> None:
    assert store_of_history(workspace, "kept") is workspace.stores[1]
    assert history_in(workspace, "kept").exists


def test_an_erased_memory_is_found_through_its_events(workspace: Workspace) -> None:
    assert store_of_history(workspace, "gone") is workspace.stores[1]
    result = history_in(workspace, "gone")
    assert not result.exists
    assert [e.action for e in result.events] == ["create", "erase"]


def test_an_unknown_id_is_not_found(workspace: Workspace) -> None:
    with pytest.raises(NotFoundError, match="no memory and no events with id"):
        store_of_history(workspace, "never")
