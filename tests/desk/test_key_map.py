"""The desk's key map holds across its screens (docs/desk.md, "Keys").

Read from every screen's ``BINDINGS`` (as ``tui.keymap.binding_ids`` walks them):
movement is bound the same on every screen that shows a list or a scrolling body;
``j``/``k``/``g``/``G`` are never a decision; a key that lets a flagged, held,
quarantined or unsigned memory into effect is a capital that means nothing else on
any screen, and never a key that rejects, reloads or keeps nothing elsewhere; no two
bindings of one screen share a key. Then the new movement, pressed, as the screen
shows it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from support_desk import desk, settle, text_of
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, OptionList, Static, Tabs

import tui.screens
from tui.app import MemgovDesk
from tui.screens.about import AboutMeScreen
from tui.screens.history import HistoryScreen
from tui.screens.item import ItemScreen
from tui.screens.queue import QueueScreen

#: decisions that write a flagged, held, quarantined or unsigned memory into effect
ADMITS = {
    "quarantine.release",  # a candidate the gate held as steering: written
    "quarantine.keep",  # a flagged record: vouched for
    "held.keep",  # an internal address, or a memory waiting for consent: imported
    "held.redact",  # imported, the addresses masked
    "held.learn",  # a memory erased before: learned again
    "held.agent",  # a file changed on both sides: the agent's version taken
    "untrusted.ratify",  # an unsigned commit's changes: taken
    "stale.keep",  # a record reported stale: verified now
    "deletion.reject",  # a record someone asked to erase: kept
}
#: keys that reject, reload, or keep nothing
REFUSALS = {
    "promotion.reject",
    "untrusted.reject",
    "batch.reject",
    "quarantine.discard",
    "quarantine.erase",
    "held.drop",
    "held.forget",
    "conflict.neither",
    "deletion.approve",  # erase
    "secret.erase",
    "stale.expire",
    "queue.reload",
    "health.reload",
    "problems.reload",
}
#: the other decisions of the item views (a new one must be sorted into a set here)
OTHER_DECISIONS = {
    "conflict.newer",
    "conflict.older",
    "conflict.parallel",
    "conflict.defer",
    "promotion.approve",
    "promotion.withdraw",
    "promotion.rerequest",
    "secret.correct",
    "secret.defer",
    "stale.correct",
    "quarantine.correct",
    "held.memgov",
    "batch.approve",
    "batch.toggle",
    "batch.wider",
    "batch.narrower",
}
#: movement, by action: its key on every screen
MOVES = {"down": "j", "up": "k", "first": "g", "last": "G"}


def desk_classes() -> list[type]:
    """Every class of the desk's screens' modules (and the app's) that binds keys."""
    names = [m.name for m in pkgutil.walk_packages(tui.screens.__path__, "tui.screens.")]
    found: list[type] = []
    for name in [*names, "tui.app"]:
        module = importlib.import_module(name)
        found += [
            c
            for c in vars(module).values()
            if inspect.isclass(c) and c.__module__ == module.__name__ and "BINDINGS" in c.__dict__
        ]
    return found


def screens() -> list[type[Screen[object]]]:
    """Every screen the desk shows (not the bases the others are made of)."""
    return [
        c
        for c in desk_classes()
        if issubclass(c, Screen) and not issubclass(c, ModalScreen) and not c.__subclasses__()
    ]


def own_bindings(cls: type) -> list[Binding]:
    """The memgov bindings a class has, its bases' included (Textual's own have no id)."""
    found: list[Binding] = []
    for base in reversed(cls.__mro__):
        found += [b for b in base.__dict__.get("BINDINGS", []) if isinstance(b, Binding) and b.id]
    return found


def by_key(bindings: list[Binding]) -> dict[str, list[Binding]]:
    keys: dict[str, list[Binding]] = {}
    for binding in bindings:
        for key in binding.key.split(","):
            keys.setdefault(key.strip(), []).append(binding)
    return keys


def every_binding() -> list[Binding]:
    return [b for c in desk_classes() for b in own_bindings(c)]


def test_the_walk_finds_every_screen() -> None:
    names = {c.__name__ for c in screens()}
    assert {"QueueScreen", "AboutMeScreen", "HistoryScreen", "HealthScreen"} <= names
    assert {"ProblemsScreen", "LabelScreen", "BatchScreen", "QuarantineScreen"} <= names
    items = [c for c in screens() if issubclass(c, ItemScreen)]
    assert len(items) == 9  # every kind of item the queue opens
    ids = {b.id for b in every_binding()}
    assert ids >= ADMITS | REFUSALS | OTHER_DECISIONS  # named here, bound there


def test_movement_is_bound_the_same_on_every_screen() -> None:
    wrong = []
    for screen in screens():
        keys = by_key(own_bindings(screen))
        for action, key in MOVES.items():
            bound = [b.action for b in keys.get(key, [])]
            if bound != [action]:
                wrong.append(f"{screen.__name__}: {key!r} is {bound}, not {action!r}")
        back = [b.action for b in keys.get("escape", [])]
        if back not in (["back"], ["clear_search"]):  # the queue: escape clears its filters
            wrong.append(f"{screen.__name__}: escape is {back}")
    assert wrong == []


def test_movement_keys_are_never_a_decision() -> None:
    keys = by_key(every_binding())
    for action, key in MOVES.items():
        assert {b.action for b in keys.get(key, [])} == {action}, key


def test_every_decision_of_an_item_is_sorted_into_admits_refusals_or_others() -> None:
    base = {b.id for b in own_bindings(ItemScreen)} | {f"item.{a}" for a in MOVES}
    decisions = {
        b.id
        for c in screens()
        if issubclass(c, ItemScreen)
        for b in own_bindings(c)
        if b.id not in base and b.action not in MOVES
    }
    assert decisions - (ADMITS | REFUSALS | OTHER_DECISIONS) == set()


def test_a_key_that_lets_a_flagged_memory_in_means_nothing_else_anywhere() -> None:
    keys = by_key(every_binding())
    admit_keys = {k for k, bs in keys.items() if any(b.id in ADMITS for b in bs)}
    refusal_keys = {k for k, bs in keys.items() if any(b.id in REFUSALS for b in bs)}
    assert admit_keys & refusal_keys == set()
    for key in sorted(admit_keys):
        # needs intent: a capital, and no screen binds it to anything but letting in
        assert len(key) == 1 and key.isupper(), key
        others = {b.id for b in keys[key] if b.id not in ADMITS}
        assert others == set(), (key, others)


def test_no_two_bindings_of_one_screen_share_a_key() -> None:
    app = own_bindings(MemgovDesk)
    shared = []
    for cls in [c for c in desk_classes() if issubclass(c, Screen)]:
        mine = own_bindings(cls)
        # a dialog takes the desk's keys over on purpose (q closes the key list)
        everything = mine if issubclass(cls, ModalScreen) else [*mine, *app]
        for key, bindings in by_key(everything).items():
            if len({b.id for b in bindings}) > 1:
                shared.append(f"{cls.__name__}: {key!r} is {sorted(b.id for b in bindings)}")
    assert shared == []


# ------------------------------------------------------------ pressed, as shown
async def test_j_and_k_move_in_about_me(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, AboutMeScreen)
        listing = screen.query_one("#about-list", OptionList)
        detail = screen.query_one("#about-detail", Static)
        first = screen.selected()
        assert first is not None and first[1].id in text_of(detail)
        await pilot.press("j")
        await settle(pilot, app)
        second = screen.selected()
        assert second is not None and second[1].id != first[1].id
        assert second[1].id in text_of(detail)  # the evidence shown is the one moved to
        await pilot.press("G")
        await settle(pilot, app)
        last = screen.selected()
        assert listing.highlighted == listing.option_count - 1
        assert last is not None and last[1].id in text_of(detail)
        await pilot.press("g", "k")  # on the first: k stays there
        await settle(pilot, app)
        again = screen.selected()
        assert again is not None and again[1].id == first[1].id
        assert first[1].id in text_of(detail)


async def test_g_and_G_go_to_the_first_and_the_last_memory_in_history(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one("#history-list", DataTable)
        detail = screen.query_one("#history-detail", Static)
        assert table.row_count > 5
        await pilot.press("G")
        await settle(pilot, app)
        last_id = screen.rows[-1][1]
        assert table.cursor_row == table.row_count - 1
        assert last_id in text_of(detail)  # the timeline shown is the last memory's
        await pilot.press("g")
        await settle(pilot, app)
        assert table.cursor_row == 0
        assert screen.rows[0][1] in text_of(detail)
        await pilot.press("j")
        await settle(pilot, app)
        assert table.cursor_row == 1 and screen.rows[1][1] in text_of(detail)


async def test_escape_clears_the_kind_tab_after_the_search(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        tabs = screen.query_one("#kinds", Tabs)
        status = screen.query_one("#status-line", Static)
        everything = len(screen.shown_items())
        await pilot.press("right_square_bracket")  # Conflicts
        await pilot.press("slash", *"deploy", "enter")
        await pilot.pause()
        assert tabs.active == "tab-conflict"
        assert "kind conflict" in text_of(status) and "search" in text_of(status)
        conflicts = len(screen.shown_items())
        await pilot.press("escape")  # the search goes first
        await pilot.pause()
        assert "search" not in text_of(status) and "kind conflict" in text_of(status)
        assert tabs.active == "tab-conflict"
        assert conflicts <= len(screen.shown_items()) < everything
        await pilot.press("escape")  # then the kind tab
        await pilot.pause()
        assert tabs.active == "tab-all"
        assert "kind" not in text_of(status)
        assert len(screen.shown_items()) == everything
        await pilot.press("escape")  # then nothing: still the queue, all of it
        await pilot.pause()
        assert app.screen is screen and len(screen.shown_items()) == everything


async def test_g_and_G_go_to_the_ends_of_the_queue_and_of_an_items_evidence(
    demo: Path,
) -> None:
    app = desk(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        await pilot.press("G")
        await pilot.pause()
        assert screen.current() is screen.shown_items()[-1]
        await pilot.press("g")
        await pilot.pause()
        assert screen.current() is screen.shown_items()[0]
        await pilot.press("enter")  # the first item, its records in scrolling columns
        await settle(pilot, app)
        item = app.screen
        assert isinstance(item, ItemScreen)
        column = item.move_target()
        assert column is not None and column.max_scroll_y > 0
        await pilot.press("G")
        await pilot.pause()
        assert column.scroll_y == column.max_scroll_y
        await pilot.press("k")
        await pilot.pause()
        assert 0 < column.scroll_y < column.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert column.scroll_y == 0


async def test_j_k_g_and_G_scroll_health_and_move_in_problems(demo: Path) -> None:
    for name in ("broken-1", "broken-2"):  # two files doctor cannot read: three problems
        (demo / "private" / "memories" / f"{name}.md").write_text("---\nid: [\n", "utf-8")
    app = desk(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("m")
        await settle(pilot, app)
        body = app.screen.query_one(VerticalScroll)
        assert body.max_scroll_y > 0 and body.scroll_y == 0
        await pilot.press("j", "j")
        await pilot.pause()
        assert body.scroll_y == 2
        await pilot.press("G")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("k")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y - 1
        await pilot.press("g")
        await pilot.pause()
        assert body.scroll_y == 0
        await pilot.press("escape", "p")  # back to the queue, then problems
        await settle(pilot, app)
        table = app.screen.query_one("#problems", DataTable)
        assert table.row_count >= 2 and table.cursor_row == 0
        await pilot.press("G")
        await pilot.pause()
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        await pilot.pause()
        assert table.cursor_row == 0
