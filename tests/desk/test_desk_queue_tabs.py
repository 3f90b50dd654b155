"""The queue's kind tabs: an empty tab says what waits elsewhere, never "well done"
while items wait."""

from __future__ import annotations

from pathlib import Path

from support_desk import OWNER, desk, settle, text_of, workspace
from textual.widgets import Static

from core.review.decide import decide
from core.review.queue import build_queue
from tui.screens.queue.table import QueueTable


async def test_an_empty_kind_tab_says_how_many_wait_in_other_kinds(demo: Path) -> None:
    ws = workspace(demo)
    deletion = next(i for i in build_queue(ws) if i.kind == "deletion")
    decide(ws, deletion.id, approve=True, actor=OWNER, reason="gone for good")
    waiting = len(build_queue(workspace(demo)))
    app = desk(demo)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        for _ in range(10):  # the kind tabs, one by one, to the deletions' (now empty)
            if screen.kind == "deletion":
                break
            await pilot.press("right_square_bracket")
            await pilot.pause()
        assert screen.kind == "deletion" and screen.shown_items() == []
        said = text_of(screen.query_one("#preview", Static))
        assert "Well done" not in said
        assert f"Nothing of this kind; {waiting} waiting in other kinds." in said


async def test_an_empty_queue_still_says_well_done(tmp_path: Path) -> None:
    from core.store.store import Store
    from core.store.workspace import open_workspace
    from tui.app import MemgovDesk

    Store.init(tmp_path / "s", owner=OWNER)
    app = MemgovDesk(open_workspace([tmp_path / "s"]), actor=OWNER, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert "Nothing waiting. Well done." in text_of(app.screen.query_one("#preview", Static))


async def test_the_queue_puts_the_batch_before_what_would_discard_it_and_says_so(
    demo: Path,
) -> None:
    """Top-down, the demo's queue never leads into the decision that discards its
    pending consolidation batch: the batch comes first, and the row that would
    discard it says so (the preview says which actions, and what to do)."""
    app = desk(demo)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        table = screen.query_one("#queue", QueueTable)
        kinds = [i.kind for i in screen.shown_items()]
        assert kinds[:3] == ["conflict", "consolidation", "secret"]
        batch, secret = screen.shown_items()[1:3]
        title = table.get_row(secret.id)[-1]
        assert title.startswith("⚠ erase discards the batch · ")
        assert "⚠" not in table.get_row(batch.id)[-1]
        for item in screen.shown_items():  # the deletion and the stale report say so too
            if item.kind == "deletion":
                assert table.get_row(item.id)[-1].startswith("⚠ approve discards the batch")
            if item.kind == "stale":
                assert table.get_row(item.id)[-1].startswith("⚠ expire leaves the batch stale")
        await pilot.press("j", "j")  # to the secret: its preview says what loses what
        await pilot.pause()
        said = text_of(screen.query_one("#preview", Static))
        assert f"erase or correct discards the batch {batch.id}: decide the batch first" in said
    # the batch decided, nothing is lost by anything any more: no row says so
    decide(workspace(demo), batch.id, approve=True, actor=OWNER, reason="looked at it")
    app = desk(demo)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one("#queue", QueueTable)
        assert not any("⚠" in cells[-1] for _key, cells in table.rows)
