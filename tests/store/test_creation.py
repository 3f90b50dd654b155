"""Creating a store (core.store.creation): a private store's owner defaults to
its creator; a team store's does not, and a team store needs a maintainer."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.domain.errors import ValidationError
from core.store.creation import create_store

ARGS = {"maintainers": (), "team_store": None, "actor": "ann@example.com"}


def test_a_private_store_with_no_owner_is_its_creators(tmp_path: Path) -> None:
    store = create_store(tmp_path / "p", scope="private", owner=None, **ARGS)
    assert store.config.owner == "ann@example.com"
    given = create_store(tmp_path / "q", scope="private", owner="bo@example.com", **ARGS)
    assert given.config.owner == "bo@example.com"


def test_a_team_store_gets_no_owner_from_its_creator(tmp_path: Path) -> None:
    store = create_store(
        tmp_path / "t", scope="team", owner=None, **{**ARGS, "maintainers": ("lead@x.org",)}
    )
    assert store.config.owner is None
    assert store.config.scope == "team"
    assert store.config.maintainers == ("lead@x.org",)


def test_a_team_store_needs_a_maintainer_named(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="at least one maintainer"):
        create_store(tmp_path / "t", scope="team", owner=None, **ARGS)
    assert not (tmp_path / "t").exists()
