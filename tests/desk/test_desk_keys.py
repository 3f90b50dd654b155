"""What the queue's keys leave on screen, now that each costs only what it changes:
the table's cells drawn as text (and as Rich draws them), content found by search
while the queue is in outline, the footer while the search box has the focus, the
kind tabs' underline, the window moved in one frame, the read queue kept out of the
collector's full passes."""

from __future__ import annotations

import gc
import itertools
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from support_conflicts import OWNER, Clock, conflict_desk, conflict_store, memory
from support_desk import settle, text_of
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.renderables.styled import Styled
from textual.widgets import DataTable, Input
from textual.widgets._footer import FooterKey
from textual.widgets._tabs import Underline

import tui.screens.queue.reading
import tui.screens.queue.window
from core.review.queue import build_queue
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import open_workspace
from tui.screens.desk import DeskFooter
from tui.screens.queue import QueueScreen
from tui.screens.queue.cells import draw_cell
from tui.screens.queue.table import QueueTable

CONFLICTS = 30


def table_of(screen: QueueScreen) -> QueueTable:
    return screen.query_one("#queue", QueueTable)


def line_text(table: QueueTable, y: int) -> str:
    return "".join(segment.text for segment in table.render_line(y))


def visible_keys(screen: QueueScreen) -> list[str]:
    footer = screen.query_one(DeskFooter)
    return [k.action for k in footer.query(FooterKey) if k.display]


def live_keys(screen: QueueScreen) -> list[str]:
    """The footer's keys shown and not dimmed (those a press acts on)."""
    footer = screen.query_one(DeskFooter)
    return [k.action for k in footer.query(FooterKey) if k.display and not k.has_class("-disabled")]


async def opened(pilot: Any, app: Any) -> QueueScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, QueueScreen)
    return screen


async def test_a_text_cell_is_drawn_as_rich_draws_it(tmp_path: Path) -> None:
    """The table's quick path for one-line cells, against Rich's layout of the same
    text (what Textual's table draws for a cell), for every cursor and hover state,
    both row stripes, and texts that are cut or padded (wide characters cut in the
    middle, combining marks, an exact fit)."""
    root = conflict_store(tmp_path / "s", 4)
    values = [
        "",
        "plain",
        "project:p01 #tool_1",
        "● marked title",
        "技术文章用中文写,多方案对比用表格",
        "e\u0301te\u0301 cafe\u0301",
        "x" * 200,
        "ab" * 9,
        "🙂 emoji 🙂",
    ]

    app = conflict_desk(root)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await opened(pilot, app)
        table = table_of(screen)
        styles = table.styles_now()
        cursor_colour = Style.from_color(color=styles["cursor"].color)
        looks = {
            (False, False): (Style(), Style()),
            (True, False): (styles["cursor"], cursor_colour),
            (False, True): (styles["hover"], Style()),
            (True, True): (styles["hover"] + styles["cursor"], cursor_colour),
        }
        for value in values:
            for row, stripe in ((1, styles["odd-row"]), (2, styles["even-row"])):
                meta = Style.from_meta({"row": row, "column": 3})
                for width, look in itertools.product((2, 3, 7, 18, 20, 40), looks.values()):
                    pre, post = stripe + meta + look[0], look[1]
                    quick = draw_cell(value, pre, post, width, 1, app)
                    options = app.console_options.update_dimensions(width, 1).update(no_wrap=True)
                    cell = Text(value, no_wrap=True, overflow="ellipsis", end="")
                    rich = app.console.render_lines(
                        Styled(Padding(cell, (0, 1)), pre_style=pre, post_style=post), options
                    )
                    assert [list(Segment.simplify(quick))] == [
                        list(Segment.simplify(line)) for line in rich
                    ], (value, width, look, row)


class TwoTables(App[None]):
    """The queue's table beside Textual's, holding the same rows."""

    CSS = "Horizontal > * { width: 1fr; height: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield QueueTable(lambda step: None, id="queue")
            yield DataTable(id="textual", cursor_type="row", zebra_stripes=True)


async def test_the_table_draws_what_textuals_table_draws() -> None:
    """Line by line and style by style (the cells' mouse meta too), with the cursor on
    each row, focused or not, under the mouse or not, scrolled: what the desk looked
    like when its queue was Textual's table."""
    labels = ("Opened", "Kind", "Scope", "Item")
    rows = [
        (
            f"id{n}",
            (
                "2026-01-0" + str(n % 9 + 1),
                "conflict" if n % 3 else "secret",
                "team",
                f"title {n} " + "long words " * (n % 7) + "[bold]x[/b] 技术",
            ),
        )
        for n in range(40)
    ]
    app = TwoTables()
    async with app.run_test(size=(160, 20)) as pilot:
        ours = app.query_one(QueueTable)
        theirs = app.query_one(DataTable)
        ours.add_columns(*labels)
        ours.show_rows(rows, refill=True)
        await pilot.pause()
        for label in labels[:-1]:
            theirs.add_column(label)
        theirs.add_column(labels[-1], width=ours.columns[-1].fixed)
        for key, cells in rows:
            theirs.add_row(
                *(Text(c, no_wrap=True, overflow="ellipsis", end="") for c in cells), key=key
            )
        await pilot.pause()

        def lines(table: Any) -> list[list[tuple[str, Style | None]]]:
            return [list(table.render_line(y)) for y in range(table.size.height)]

        assert ours.size == theirs.size
        for row, hovered, focused in itertools.product(
            (0, 1, 7, 25, 39, 3), (False, True), (True, False)
        ):
            drawn = []
            for table in (ours, theirs):
                table.move_cursor(row=row)
                app.set_focus(table if focused else None)
                await pilot.hover(table, offset=(3, 4) if hovered else (3, 0))
                await pilot.pause()
                drawn.append((table.scroll_offset, lines(table)))
            assert drawn[0] == drawn[1], (row, hovered, focused)


async def test_titles_show_as_text_never_as_markup(tmp_path: Path) -> None:
    root = tmp_path / "s"
    store = Store.init(root, owner=OWNER, actor=OWNER, clock=Clock())
    with transaction(store, actor=OWNER, message="test: conflicts") as tx:
        for side, value in enumerate(("npm", "pnpm")):
            tx.create(
                replace(memory(1, side, value), condition="env=[/prod] [bold]x"),
                action="conflict",
                reason="test",
            )
        for side, value in enumerate(("a", "b")):
            tx.create(
                replace(memory(2, side, value), condition="env=production"),
                action="conflict",
                reason="test",
            )
    app = conflict_desk(root)
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await opened(pilot, app)
        table = table_of(screen)
        shown = [line_text(table, y) for y in range(1, 3)]
        # Textual reads a str cell as markup: "[/prod]" stopped the table, and
        # "[env=production]" was a style, not text
        assert any("project:p01 #tool_1 [env=[/prod] [bold]x]" in line for line in shown)
        assert any("project:p02 #tool_2 [env=production]" in line for line in shown)


async def test_search_finds_contents_while_the_queue_is_in_outline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = conflict_store(
        tmp_path / "s", CONFLICTS, lambda i: ("npm", "yarn" if i % 3 == 0 else "pnpm")
    )
    gate = threading.Event()

    def gated(ws: Any, **kinds: Any) -> Any:
        gate.wait(timeout=60)  # the records are read only once the test has searched
        return build_queue(ws, **kinds)

    monkeypatch.setattr(tui.screens.queue.reading, "build_queue", gated)
    yarn = [
        i.id
        for i in build_queue(open_workspace([root]))
        if any("yarn" in r.memory.content for r in i.records)
    ]
    app = conflict_desk(root)
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            screen = app.screen
            assert isinstance(screen, QueueScreen)
            for _ in range(300):
                await pilot.pause(0.02)
                if screen.items and screen.texts:
                    break
            assert screen.items and not any(i.records for i in screen.items)  # in outline
            await pilot.press("slash", *"yarn")
            await pilot.pause()
            # "yarn" is in no id, title or subject: only in the records' contents, which
            # the catalog's rows gave before any record was built
            assert [i.id for i in screen.shown_items()] == yarn
            assert table_of(screen).row_keys == yarn
            gate.set()
            await settle(pilot, app)
            assert all(i.records for i in screen.items)
            assert [i.id for i in screen.shown_items()] == yarn  # the same once built
    finally:
        gate.set()


async def test_the_footer_dims_the_keys_the_search_box_types_and_lights_them_again(
    tmp_path: Path,
) -> None:
    root = conflict_store(tmp_path / "s", 3)
    app = conflict_desk(root)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await opened(pilot, app)
        footer = screen.query_one(DeskFooter)
        before = list(footer.query(FooterKey))
        keys = live_keys(screen)
        assert {"open", "scope", "quit", "search"} <= set(keys)
        assert visible_keys(screen) == keys
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(screen.focused, Input)
        typing = live_keys(screen)
        # the letters type into the box: their keys are dimmed, in their places (the
        # footer keeps its layout: nothing of the screen is laid out again)
        assert "scope" not in typing and "quit" not in typing and "open" not in typing
        assert typing and set(typing) < set(keys)
        assert visible_keys(screen) == keys
        await pilot.press("a")  # typed into the box, not an action
        await pilot.pause()
        assert screen.query_one("#search", Input).value == "a"
        await pilot.press("escape")
        await pilot.pause()
        assert live_keys(screen) == keys
        # dimmed and lit again, not composed again (each key a widget styled anew)
        assert list(footer.query(FooterKey)) == before
        assert "? keys" in text_of(screen.query_one("#status-line"))
        # closed, the search box is out of the focus chain
        await pilot.press("tab")
        await pilot.pause()
        assert not isinstance(screen.focused, Input)


async def test_the_kind_tabs_move_their_underline_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slides: list[str] = []
    monkeypatch.setattr(Underline, "animate", lambda self, name, *a, **k: slides.append(name))
    root = conflict_store(tmp_path / "s", 3)
    app = conflict_desk(root)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await opened(pilot, app)
        for kind in ("conflict", "promotion", "all"):
            while screen.kind != kind:
                await pilot.press("right_square_bracket")
            await pilot.pause(0.1)
            tab = screen.query_one(f"#tab-{kind}")
            underline = screen.query_one(Underline)
            span = tab.virtual_region.shrink(tab.styles.gutter).column_span
            assert (underline.highlight_start, underline.highlight_end) == span
        assert slides == []  # no slide: some twenty frames each


async def test_a_moved_window_is_scrolled_in_the_same_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tui.screens.queue.window, "WINDOW", 20)
    root = conflict_store(tmp_path / "s", CONFLICTS)
    app = conflict_desk(root)
    async with app.run_test(size=(120, 20)) as pilot:
        screen = await opened(pilot, app)
        table = table_of(screen)
        ids = [i.id for i in screen.items]
        table.action_scroll_bottom()  # end, and no refresh yet
        assert screen.current() is not None and screen.current().id == ids[-1]
        # before any refresh: the cursor's row is on screen, the window's rows measured
        page = table.page()
        assert 0 <= table.cursor_row - round(table.scroll_y) < page
        assert table.virtual_size.height == table.row_count + table.header_height
        await pilot.pause()
        assert 0 <= table.cursor_row - round(table.scroll_y) < page
        drawn = [line_text(table, y) for y in range(1, page + 1)]
        assert sum(screen.current().title in line for line in drawn) == 1


async def test_the_read_queue_is_kept_out_of_full_collections_until_read_again(
    tmp_path: Path,
) -> None:
    root = conflict_store(tmp_path / "s", 3)
    app = conflict_desk(root)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await opened(pilot, app)
        assert gc.get_freeze_count() > 0
        frozen = gc.get_freeze_count()
        screen.action_reload()  # r: what was kept goes back to the collector, then read
        assert gc.get_freeze_count() == 0
        await settle(pilot, app)
        assert gc.get_freeze_count() > 0 and len(screen.items) == 3
        del frozen
    assert gc.get_freeze_count() == 0  # the desk gone: nothing kept
