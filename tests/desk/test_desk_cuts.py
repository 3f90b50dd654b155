"""What the desk cuts and what covers it, at 80x24: a cut text says so with an
ellipsis, history's and problems' tables fit the screen with nothing cut that matters,
every kind tab with items shows, and a notification neither covers half a card nor
outlives its item."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from support_desk import decide_key, desk, settle, text_of
from textual.widgets import DataTable, OptionList, Tab, Tabs
from textual.widgets._toast import Toast

from core.api.doctor import diagnose
from tui.screens.about import AboutMeScreen
from tui.screens.history import HistoryScreen
from tui.screens.item import ItemScreen
from tui.screens.problems import ProblemsScreen
from tui.screens.queue import QueueScreen

SMALL = (80, 24)


def cells(table: DataTable[object]) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(n)] for n in range(table.row_count)]


def test_clip_marks_a_cut_with_an_ellipsis_and_counts_cells() -> None:
    from tui.render import clip

    assert clip("short", 10) == "short"
    assert clip("exactly10!", 10) == "exactly10!"
    assert clip("a summary of what was done", 21) == "a summary of what wa…"
    assert cell_len(clip("a summary of what was done", 21)) <= 21
    cut = clip("部署命令在生产环境中使用", 9)  # two cells a character
    assert cut.endswith("…") and cell_len(cut) <= 9
    assert clip("anything", 0) == ""


async def test_about_me_cuts_a_long_memory_with_an_ellipsis(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, AboutMeScreen)
        listing = app.screen.query_one("#about-list", OptionList)
        labels = [str(listing.get_option_at_index(n).prompt) for n in range(listing.option_count)]
        style = next(label for label in labels if "Keep answers terse" in label)
        # the record says "... a summary of what was done.": cut, and the cut shows
        assert style.rstrip().endswith("…"), style
        assert "a summary of what wa…" in style


async def test_history_shows_whole_statuses_a_store_column_and_fits_at_80x24(
    demo: Path,
) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one("#history-list", DataTable)
        first = cells(table)
        widths = [c.width for c in table.columns.values()]
        labels = [str(c.label) for c in table.columns.values()]
        assert labels == ["Memory", "Status", "Store"]  # the history spans two stores
        statuses = {"active", "superseded", "conflict", "expired", "deleted"}
        assert {row[1] for row in first} <= statuses
        assert {row[2] for row in first} == {"private", "team"}
        for (store, memory_id), row in zip(screen.rows, first, strict=True):
            assert row[2] == store.root.name
            # whole, or cut with an ellipsis (80 columns are too narrow for the longest)
            assert row[0] == memory_id or (
                row[0].endswith("…") and memory_id.startswith(row[0][:-1])
            ), row
        pairs = zip(screen.rows, first, strict=True)
        assert any(row[0] == memory_id for (_s, memory_id), row in pairs)  # some whole
        # every column as wide as its cells, and the table within its column: no
        # status or store cut at the table's edge
        for n, column in enumerate(table.columns.values()):
            assert column.width >= max(cell_len(row[n]) for row in first)
        assert table.virtual_size.width <= table.size.width
        # a later render (a search typed and cleared) is the first one again
        await pilot.press("slash", "d", "o", "c")
        await settle(pilot, app)
        await pilot.press("backspace", "backspace", "backspace", "enter")
        await settle(pilot, app)
        assert cells(table) == first
        assert [c.width for c in table.columns.values()] == widths


async def test_history_at_a_wide_screen_shows_every_id_whole(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        table = screen.query_one("#history-list", DataTable)
        assert [row[0] for row in cells(table)] == [m for _s, m in screen.rows]
        assert table.virtual_size.width <= table.size.width


async def test_problems_show_the_highlighted_reason_whole_at_80x24(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        await pilot.press("p")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, ProblemsScreen)
        table = screen.query_one("#problems", DataTable)
        assert table.row_count >= 1  # the demo's old note holds a (fake) token
        row = cells(table)[table.cursor_row]
        finding = next(
            f
            for store in app.workspace.stores
            for f in diagnose(store)
            if f.path == row[2] and store.root.name == row[1]
        )
        reason = row[4]
        assert len(finding.reason) > 60  # too long for 80 columns beside the path
        assert reason.endswith("…") and finding.reason.startswith(reason[:-1])
        detail = screen.query_one("#problems-detail")
        assert " ".join(finding.reason.split()) in " ".join(text_of(detail).split())
        assert detail.region.bottom <= SMALL[1] - 1  # on screen, above the footer
        assert table.virtual_size.width <= table.size.width


async def test_every_kind_tab_with_items_shows_at_80x24(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, QueueScreen)
        bar = screen.query_one("#kinds", Tabs).region
        waiting = [kind for kind, count in screen.counts.items() if count]
        assert {"held", "quarantine"} <= set(waiting)
        for kind in waiting:
            tab = screen.query_one(f"#tab-{kind}", Tab)
            assert tab.region.width and bar.contains_region(tab.region), kind
            assert str(tab.label).endswith(f" {screen.counts[kind]}")
        # and reached with ]: the active one in view
        for _ in range(len(waiting)):
            await pilot.press("right_square_bracket")
            await pilot.pause()
            active = screen.query_one("#kinds", Tabs).active_tab
            assert active is not None and bar.contains_region(active.region)
    wide = desk(demo)
    async with wide.run_test(size=(160, 40)) as pilot:
        await settle(pilot, wide)
        assert str(wide.screen.query_one("#tab-quarantine", Tab).label) == "Quarantine 1"


def toasts(app: object) -> list[Toast]:
    """The notifications on screen (a toast in a hidden rack takes no room)."""
    return [t for t in app.screen.query(Toast) if t.region.area]  # type: ignore[attr-defined]


async def test_a_decisions_notification_sits_at_the_foot_and_goes_when_the_next_opens(
    demo: Path,
) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        while queue.current() is None or queue.current().kind != "stale":  # type: ignore[union-attr]
            await pilot.press("j")
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("e")  # expire: its confirmation
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen is queue
        assert [n.title for n in app._notifications] == ["Decided"]  # it outlived the item
        shown = toasts(app)
        assert len(shown) == 1
        toast = shown[0].region
        # short, at the foot, the screen's width: not half a card
        assert toast.height <= 7 and toast.bottom >= SMALL[1] - 2
        assert toast.width >= SMALL[0] - 2
        await pilot.press("enter")  # the next item opens
        await settle(pilot, app)
        assert isinstance(app.screen, ItemScreen)
        assert list(app._notifications) == [] and toasts(app) == []


async def test_what_is_said_of_an_item_goes_when_it_closes(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(pilot, app)
        await pilot.press("j", "enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ItemScreen)
        app.screen.notify("said of this item")
        await pilot.pause()
        assert len(app._notifications) == 1
        await pilot.press("escape")
        await settle(pilot, app)
        assert isinstance(app.screen, QueueScreen)
        assert list(app._notifications) == []


async def test_a_deferrals_notification_does_not_follow_onto_the_next_card(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        first = queue.current()
        assert first is not None and first.kind == "conflict"
        await pilot.press("enter")
        await settle(pilot, app)
        await decide_key(pilot, app, "d")  # defer: the view goes on to the next item
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, ItemScreen) and screen.item.id != first.id
        assert list(app._notifications) == [] and toasts(app) == []
