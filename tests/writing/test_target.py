"""The store a single-store command works on (core.writing.target.home_store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock

from core.domain.errors import StoreError
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.target import home_store


def test_the_private_store_first_else_the_first_given(tmp_path: Path, clock: FakeClock) -> None:
    team = Store.init(tmp_path / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    other = Store.init(tmp_path / "other", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    private = Store.init(tmp_path / "private", owner=ACTOR, actor=ACTOR, clock=clock)
    assert home_store(Workspace([team, private])) is private
    assert home_store(Workspace([other, team])) is other
    assert home_store(Workspace([team])) is team


def test_no_store_is_refused() -> None:
    with pytest.raises(StoreError, match="no store given"):
        home_store(Workspace([]))
