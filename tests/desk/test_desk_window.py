"""The queue table on a queue longer than its window: moving through every item,
searching, and deciding an item past the first window (the store afterwards, the
table's rows, and only the touched items read again)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support_conflicts import conflict_desk as desk
from support_conflicts import conflict_store
from support_desk import decide_key, settle, text_of
from textual.widgets import Tab

import tui.screens.queue.reading
import tui.screens.queue.window
from core.review.queue import build_queue, find_items
from core.store.store import Store
from core.store.workspace import open_workspace
from tui.screens.conflict import ConflictScreen
from tui.screens.queue import QueueScreen
from tui.screens.queue.table import QueueTable

CONFLICTS = 45
WINDOW = 20


@pytest.fixture
def many(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private store with CONFLICTS open conflicts; the table's window is WINDOW rows."""
    monkeypatch.setattr(tui.screens.queue.window, "WINDOW", WINDOW)
    return conflict_store(
        tmp_path / "many", CONFLICTS, lambda i: ("npm", "pnpm" if i % 3 else "yarn")
    )


def rows(screen: QueueScreen) -> list[str]:
    return screen.query_one("#queue", QueueTable).row_keys


def status(screen: QueueScreen) -> str:
    return text_of(screen.query_one("#status-line"))


async def test_the_table_holds_a_window_and_the_keys_move_through_every_item(
    many: Path,
) -> None:
    app = desk(many)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        ids = [i.id for i in screen.items]
        assert len(ids) == CONFLICTS
        assert rows(screen) == ids[:WINDOW]
        assert f"rows 1–{WINDOW} of {CONFLICTS}" in status(screen)
        assert str(screen.query_one("#tab-conflict", Tab).label) == f"Conflicts {CONFLICTS}"
        for _ in range(WINDOW + 5):  # past the first window, one row at a time
            await pilot.press("j")
        assert screen.current() is not None and screen.current().id == ids[WINDOW + 5]
        assert len(rows(screen)) == WINDOW and ids[WINDOW + 5] in rows(screen)
        assert rows(screen) == ids[screen.first_row : screen.first_row + WINDOW]
        await pilot.press("end")
        assert screen.current().id == ids[-1]
        assert rows(screen) == ids[-WINDOW:]
        assert f"rows {CONFLICTS - WINDOW + 1}–{CONFLICTS} of {CONFLICTS}" in status(screen)
        await pilot.press("j")  # the last item stays the last
        assert screen.current().id == ids[-1]
        await pilot.press("home")
        assert screen.current().id == ids[0] and rows(screen) == ids[:WINDOW]
        await pilot.press("pagedown", "pagedown", "pagedown")
        down = screen.cursor_index()
        assert down > 20
        await pilot.press("k")
        assert screen.current().id == ids[down - 1]
        await pilot.press("pageup", "pageup", "pageup", "pageup")
        assert screen.current().id == ids[0]
        # enter opens the item under the cursor, wherever the window is
        await pilot.press("end", "enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ConflictScreen) and app.screen.item.id == ids[-1]


async def test_search_filters_what_was_read_and_fills_only_the_window(many: Path) -> None:
    app = desk(many)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        yarn = [
            i.id for i in screen.items if "yarn" in " ".join(r.memory.content for r in i.records)
        ]
        assert 0 < len(yarn) < CONFLICTS
        await pilot.press("slash", *"yarn")
        await pilot.pause()
        assert [i.id for i in screen.shown_items()] == yarn
        assert rows(screen) == yarn[:WINDOW]
        assert f"{len(yarn)} of {CONFLICTS} items" in status(screen)
        await pilot.press("backspace", "backspace", "backspace", "backspace", *"p4")
        await pilot.pause()
        p4 = [i.id for i in screen.items if i.subject.startswith("project:p4")]
        assert [i.id for i in screen.shown_items()] == p4 and rows(screen) == p4
        await pilot.press("escape")
        await pilot.pause()
        assert len(screen.shown_items()) == CONFLICTS and len(rows(screen)) == WINDOW


async def test_deciding_past_the_first_window_reads_only_what_it_touched(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[Any] = []
    fetched: list[str] = []

    def counted(ws: Any, **kinds: Any) -> Any:
        builds.append(kinds)
        return build_queue(ws, **kinds)

    def fetched_these(ws: Any, item_ids: Any) -> Any:
        fetched.extend(item_ids)
        return find_items(ws, item_ids)

    monkeypatch.setattr(tui.screens.queue.reading, "build_queue", counted)
    monkeypatch.setattr(tui.screens.queue.reading, "find_items", fetched_these)
    app = desk(many)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        ids = [i.id for i in queue.items]
        target = WINDOW + 3
        for _ in range(target):
            await pilot.press("j")
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ConflictScreen)
        decided = app.screen.item
        assert decided.id == ids[target]
        builds.clear()
        await decide_key(pilot, app, "n")  # newer wins
        await settle(pilot, app)
        assert app.screen is queue
        # read again: the decided item alone, and the open ids (nothing else opened):
        # no queue built
        assert fetched == [decided.id]
        assert builds == []
        # on disk: the newer record won
        store = Store(many)
        older, newer = sorted(decided.records, key=lambda r: r.memory.created_at)
        assert store.memories[newer.memory.id].status == "active"
        assert store.memories[older.memory.id].status == "superseded"
        on_disk = [i.id for i in build_queue(open_workspace([many]))]
        assert decided.id not in on_disk and len(on_disk) == CONFLICTS - 1
        # on screen: the queue as on disk, the window where it was, the cursor on the next item
        assert [i.id for i in queue.items] == on_disk
        assert rows(queue) == on_disk[queue.first_row : queue.first_row + WINDOW]
        assert queue.current().id == ids[target + 1]
        assert str(queue.query_one("#tab-conflict", Tab).label) == f"Conflicts {CONFLICTS - 1}"
