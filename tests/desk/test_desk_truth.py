"""The desk says what is true of the person at it."""

from __future__ import annotations

from pathlib import Path

from support_desk import OWNER, desk, settle, text_of

from tui.screens.about import AboutMeScreen


async def test_about_me_is_about_the_actor_not_the_private_stores_owner(demo: Path) -> None:
    app = desk(demo, actor="wang.fang")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, AboutMeScreen)
        head = text_of(screen.query_one("#about-head"))
        assert "what agents remember about wang.fang" in head
        assert f"the private store is {OWNER}'s" in head
        assert f"about {OWNER}" not in head
        # nothing of the owner's private store, nothing about the owner
        assert all(m.subject.startswith("user:wang.fang") for _s, m in screen.rows)
        assert all(s.config.scope != "private" for s, _m in screen.rows)


async def test_about_me_for_the_owner_lists_the_private_store(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, AboutMeScreen)
        head = text_of(screen.query_one("#about-head"))
        assert f"what agents remember about {OWNER}:" in head
        assert "private store is" not in head
        assert any(s.config.scope == "private" for s, _m in screen.rows)
        assert f"{len(screen.rows)} memories" in head


def footer_text(screen: object) -> str:
    from tui.screens.desk import DeskFooter

    footer = screen.query_one(DeskFooter)  # type: ignore[attr-defined]
    return "".join(segment.text for segment in footer.render_line(0)) if footer else ""


def shown_keys(screen: object) -> list[str]:
    from textual.widgets._footer import FooterKey

    from tui.screens.desk import DeskFooter

    footer = screen.query_one(DeskFooter)  # type: ignore[attr-defined]
    return [k.description for k in footer.query(FooterKey) if k.display]


async def test_at_80_columns_a_conflicts_footer_shows_every_decision_whole(demo: Path) -> None:
    from tui.screens.conflict import ConflictScreen

    app = desk(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("right_square_bracket")  # conflicts
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, ConflictScreen)
        keys = shown_keys(screen)
        for decision in ("Newer wins", "Older wins", "Parallel", "Neither", "Defer"):
            assert decision in keys
        # what is shown fits: the keys' cells and the palette's within 80 columns
        from textual.widgets._footer import FooterKey

        footer_keys = [k for k in screen.query(FooterKey) if k.display]
        assert all(k.region.right <= 80 for k in footer_keys)
        assert max(k.region.right for k in footer_keys if k.action != "command_palette") <= min(
            k.region.x for k in footer_keys if k.action == "command_palette"
        )
    app = desk(demo)
    async with app.run_test(size=(200, 50)) as pilot:  # wide: every key, the desk's too
        await settle(pilot, app)
        await pilot.press("right_square_bracket")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert {"Back", "History", "Quit", "Undo", "Keys"} <= set(shown_keys(app.screen))


async def test_a_title_too_long_for_the_queue_is_cut_with_an_ellipsis(demo: Path) -> None:
    from tui.screens.queue import QueueScreen
    from tui.screens.queue.table import QueueTable

    app = desk(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        table = screen.query_one("#queue", QueueTable)
        assert table.virtual_size.width <= table.size.width  # no horizontal scroll
        lines = ["".join(s.text for s in table.render_line(y)) for y in range(1, 10)]
        titles = [i.title for i in screen.shown_items()]
        cut = [line for line, title in zip(lines, titles, strict=False) if title not in line]
        assert cut, "the demo has titles longer than 80 columns leave room for"
        assert all("…" in line for line in cut)


async def test_asking_again_to_delete_says_it_was_already_asked_and_files_nothing(
    demo: Path,
) -> None:
    from support_desk import decide_key, workspace

    from core.store.requests import load_requests

    before = [r for r in load_requests(workspace(demo).private) if r.kind == "delete"]
    app = desk(demo)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, AboutMeScreen)
        city = next(i for i, (_s, m) in enumerate(screen.rows) if m.attribute == "home_city")
        listing = screen.query_one("#about-list")
        listing.highlighted = next(i for i, o in enumerate(listing.options) if o.id == str(city))
        await pilot.pause()
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
        messages = [n.message for n in app._notifications]
        assert any("Already requested by" in m and "nothing filed" in m for m in messages)
        assert not any(m.startswith("Deletion requested") for m in messages)
    after = [r for r in load_requests(workspace(demo).private) if r.kind == "delete"]
    assert after == before


async def test_a_deferral_marks_its_row_and_the_desk_opens_the_next_item(demo: Path) -> None:
    from support_desk import decide_key

    from tui.screens.conflict import ConflictScreen
    from tui.screens.queue import QueueScreen
    from tui.screens.queue.rows import DEFERRED_MARK
    from tui.screens.queue.table import QueueTable

    app = desk(demo)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await pilot.press("right_square_bracket")  # conflicts: two of them
        await settle(pilot, app)
        first, second = (i.id for i in queue.shown_items()[:2])
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ConflictScreen) and app.screen.item.id == first
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
        # the next conflict is open, and the deferred one's row says it was looked at
        assert isinstance(app.screen, ConflictScreen) and app.screen.item.id == second
        table = queue.query_one("#queue", QueueTable)
        cells = {key: table.get_row(key)[-1] for key in table.row_keys}
        assert cells[first].startswith(DEFERRED_MARK)
        assert not cells[second].startswith(DEFERRED_MARK)
        await pilot.press("escape")
        await settle(pilot, app)
        await pilot.press("k")  # back on the deferred one: its preview says who and why
        await settle(pilot, app)
        preview = text_of(queue.query_one("#preview"))
        assert f"deferred by {OWNER}" in preview and "needs more evidence" in preview


async def test_a_dialog_opens_clear_of_the_notifications_before_it(demo: Path) -> None:
    from textual.screen import ModalScreen

    app = desk(demo)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, app)
        await pilot.press("right_square_bracket", "enter")  # the first conflict
        await settle(pilot, app)
        app.notify("an earlier decision's notification")
        await pilot.pause()
        assert len(app._notifications) == 1
        await pilot.press("n")  # newer wins: its confirmation
        await settle(pilot, app)
        assert isinstance(app.screen, ModalScreen)
        assert len(app._notifications) == 0  # nothing covers the dialog
        app.notify("raised while the dialog is open")
        await pilot.pause()
        assert len(app._notifications) == 1  # news still shows
