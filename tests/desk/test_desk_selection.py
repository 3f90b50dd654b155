"""Deciding a selection in the desk: space marks, D decides every marked item the same
way (the core's preview of the whole list first), one commit; what may not be marked
is said and not marked. The store is checked afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import commit_count, git_status
from support_conflicts import conflict_desk, conflict_store
from support_desk import desk as demo_desk
from support_desk import settle, text_of
from textual.widgets import Button, Static, Tab

from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import open_workspace
from tui.screens.dialogs import ReasonDialog
from tui.screens.queue import QueueScreen
from tui.screens.selection import OutcomeDialog

CONFLICTS = 5


@pytest.fixture
def conflicts(tmp_path: Path) -> Path:
    return conflict_store(tmp_path / "store", CONFLICTS)


def _status_line(screen: QueueScreen) -> str:
    return text_of(screen.query_one("#status-line", Static))


async def test_marking_three_and_deciding_them_is_one_commit(conflicts: Path) -> None:
    commits = commit_count(conflicts)
    app = conflict_desk(conflicts)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        ids = [i.id for i in queue.shown]
        # space marks and moves down; a second space on an item unmarks it
        await pilot.press("space", "space", "space", "space")
        await pilot.press("k", "space")  # the fourth unmarked again
        assert list(queue.marked) == ids[:3]
        assert "3 marked: D decides them" in _status_line(queue)
        cells = [queue.table.get_row(i)[3] for i in ids[:4]]
        assert [c.startswith("● ") for c in cells] == [True, True, True, False]

        await pilot.press("D")
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, OutcomeDialog)
        assert [str(b.label) for b in dialog.query(Button)] == [
            "Newer wins",
            "Older wins",
            "Defer",
            "Cancel",
        ]
        await pilot.press("enter")  # the first outcome, focused: newer wins
        await settle(pilot, app)
        reason = app.screen
        assert isinstance(reason, ReasonDialog)
        # the dialog lists the core's preview of the whole list
        changes = text_of(reason.query_one("#dialog-changes", Static))
        marked = [i for i in queue.items if i.id in ids[:3]]
        for item in marked:
            older, newer = sorted(item.records, key=lambda r: r.memory.created_at)
            assert f"{newer.memory.id}: conflict -> active" in changes
            assert f"{older.memory.id}: active -> superseded" in changes
        assert changes.count("-> superseded") == 3
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen is queue
        assert queue.marked == {}
        assert [i.id for i in queue.items] == ids[3:]
        label = str(queue.query_one("#tab-conflict", Tab).label)
        assert label == f"Conflicts {CONFLICTS - 3}"

    # on disk: one commit, three decisions, the newer record of each won
    assert commit_count(conflicts) == commits + 1
    assert git_status(conflicts) == []
    memories = Store(conflicts).memories
    decided = {m.subject for m in memories.values() if m.status == "superseded"}
    assert len(decided) == 3
    for subject in decided:
        i = int(subject.removeprefix("project:p"))
        assert memories[f"tool-{i:04d}-1"].status == "active"
        assert memories[f"tool-{i:04d}-0"].status == "superseded"
    open_now = [i.id for i in build_queue(open_workspace([conflicts]))]
    assert sorted(open_now) == sorted(ids[3:])


async def test_cancel_at_either_dialog_decides_nothing(conflicts: Path) -> None:
    commits = commit_count(conflicts)
    app = conflict_desk(conflicts)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await pilot.press("space", "space")
        await pilot.press("D")
        await settle(pilot, app)
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.screen is queue and len(queue.marked) == 2
        await pilot.press("D")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.screen is queue and len(queue.marked) == 2
    assert commit_count(conflicts) == commits


async def test_d_without_marks_and_a_promotion_are_refused(demo: Path) -> None:
    app = demo_desk(demo)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await pilot.press("D")
        await settle(pilot, app)
        assert app.screen is queue
        assert any("Mark items with space first" in n.message for n in app._notifications)
        promotion = next(n for n, i in enumerate(queue.shown) if i.kind == "promotion")
        conflict = next(n for n, i in enumerate(queue.shown) if i.kind == "conflict")
        queue.place(promotion)
        await pilot.press("space")
        assert queue.marked == {}
        assert any("decided on its own" in n.message for n in app._notifications)
        # a conflict is marked; a deletion then is not (a selection holds one kind)
        deletion = next(n for n, i in enumerate(queue.shown) if i.kind == "deletion")
        queue.place(conflict)
        await pilot.press("space")
        assert list(queue.marked) == [queue.shown[conflict].id]
        queue.place(deletion)
        await pilot.press("space")
        assert list(queue.marked) == [queue.shown[conflict].id]
        assert any("holds one kind" in n.message for n in app._notifications)
