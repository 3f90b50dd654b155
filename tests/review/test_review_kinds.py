"""Every kind of review item has one home (core.review.kinds): the registry lists each
kind once, its prefixes name its items and no other kind's, and each face has what
it needs of every kind (a desk view, the CLI's lines, actions and options)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support_desk import workspace

from core.review.items import KINDS, Kind
from core.review.kinds import REGISTRY, kind_of, queue_kinds, review_kind
from core.review.labels import workspace_label_items
from core.review.queue import build_queue, find_items
from tui.cli.arguments import ITEM_KINDS
from tui.cli.review import KIND_LINES, render_item
from tui.screens.item import ItemScreen
from tui.screens.views import SCREENS, screen_for


def test_the_registry_holds_every_kind_once_in_the_order_of_kind() -> None:
    assert list(REGISTRY) == list(Kind)
    assert all(review_kind(name).kind == name for name in Kind)
    assert tuple(k.kind for k in queue_kinds()) == KINDS == ITEM_KINDS


def test_the_prefixes_are_unique_and_none_begins_another() -> None:
    prefixes = [p for k in REGISTRY.values() for p in k.prefixes]
    assert len(prefixes) == len(set(prefixes))
    for one in prefixes:
        assert all(one == other or not other.startswith(one) for other in prefixes), one
    # a batch's id is its branch's name: a branch made by hand may have any
    assert kind_of("b-0001") is review_kind(Kind.CONSOLIDATION)


def test_every_kind_has_actions_and_its_options_among_them() -> None:
    for kind in REGISTRY.values():
        assert kind.actions, kind.kind
        assert set(kind.approve_options) <= set(kind.actions), kind.kind


def test_every_kind_of_the_queue_has_a_desk_view_and_every_view_a_kind() -> None:
    assert set(SCREENS) == {k.kind for k in queue_kinds()}
    assert all(issubclass(view, ItemScreen) for view in SCREENS.values())


def test_an_item_of_a_kind_no_view_shows_is_an_error_not_another_view(demo: Path) -> None:
    item = build_queue(workspace(demo), kinds=[Kind.CONFLICT])[0]
    with pytest.raises(LookupError, match="no desk view shows a nokind item"):
        screen_for(replace(item, kind="nokind"))


def test_every_kind_has_its_lines_in_memgov_show() -> None:
    assert set(KIND_LINES) == set(REGISTRY)


def test_every_open_item_resolves_to_exactly_its_own_kind(demo: Path) -> None:
    space = workspace(demo)
    items = build_queue(space) + workspace_label_items(space)
    # every kind but an untrusted change (a team commit: tests/store/test_untrusted.py)
    assert {i.kind for i in items} == set(Kind) - {Kind.UNTRUSTED}
    for item in items:
        owners = [k for k in REGISTRY.values() if item.id.startswith(k.prefixes)]
        assert [k.kind for k in owners] == [item.kind], item.id
        assert kind_of(item.id) is review_kind(item.kind)
        assert render_item(item).startswith(f"{item.kind} {item.id}: ")
    found = find_items(space, [i.id for i in items], marks=False)
    assert {i: f.kind for i, f in found.items()} == {i.id: i.kind for i in items}
