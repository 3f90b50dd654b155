"""The queue's table: a window of rows of text, drawn line by line.

A Line API widget (:class:`textual.scroll_view.ScrollView` and :meth:`render_line`,
as Textual's guide describes for widgets with many lines) instead of Textual's
``DataTable``: what it draws is what a ``DataTable`` with a row cursor and zebra
stripes draws (the same styles, cell by cell: the snapshots and a test check it), but
every row is one line of text and every cell is drawn as one segment, without Rich's
layout, and the rows the queue shows are put in at once, measured as they arrive. A
window of 120 rows costs some milliseconds; ``DataTable`` took 40 or more, and more
for each row added one at a time.

Its cells are text, drawn as they are: never read as Rich markup, so a title such as
``… [env=production]`` shows its brackets and ``[/x]`` in a title cannot stop the
table. The cursor keys ask ``move`` (the screen) to go that many items up or down
through every item shown: the table holds only a window of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.screens.queue.cells import Column, draw_cell, text_width

#: a row: its key (the item's id) and its cells' texts
Row = tuple[str, tuple[str, ...]]
#: rows leaving one by one at most, the cursor and the scroll kept; more (or any
#: other change of order), and the rows are put in anew, the cursor on the first
FEW_GONE = 8
#: the header's row index, as the cells' mouse meta gives it
HEADER = -1


class QueueTable(ScrollView, can_focus=True):
    """A table of one-line text rows with a row cursor and zebra stripes."""

    ALLOW_SELECT = False

    #: the keys of Textual's table (the keys help lists them under "Moving around")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Select", show=False),
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("right", "cursor_right", "Cursor right", show=False),
        Binding("left", "cursor_left", "Cursor left", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("ctrl+home", "scroll_top", "Top", show=False),
        Binding("ctrl+end", "scroll_bottom", "Bottom", show=False),
        Binding("home", "scroll_home", "Home", show=False),
        Binding("end", "scroll_end", "End", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "queue-table--header",
        "queue-table--header-hover",
        "queue-table--cursor",
        "queue-table--hover",
        "queue-table--even-row",
        "queue-table--odd-row",
    }

    # the look of Textual's table, so the desk looks as it did
    DEFAULT_CSS = """
    QueueTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .queue-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .queue-table--header {
                background-tint: $foreground 5%;
            }
        }
        &:dark > .queue-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .queue-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .queue-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .queue-table--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .queue-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .queue-table--header-hover {
            background: $accent 30%;
        }
        & > .queue-table--hover {
            background: $block-hover-background;
        }
    }
    """

    class RowHighlighted(Message):
        """The cursor is on another row (or on the rows put in anew)."""

        def __init__(self, table: QueueTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

    class RowSelected(Message):
        """The row under the cursor was chosen (a click on it)."""

        def __init__(self, table: QueueTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

    def __init__(self, move: Callable[[int], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.move = move
        self.columns: list[Column] = []
        self.rows: list[Row] = []
        self.cursor_row = 0
        #: the row under the mouse, and whether its hover is shown (keys hide it)
        self.hover_row = 0
        self.hover_shown = False
        self.cell_padding = 1
        self.header_height = 1
        #: the styles of one frame: each is a walk up the widget's ancestors
        self.frame: dict[str, Style] | None = None
        #: False while rows put in place await their scroll (see :meth:`move_cursor`)
        self.laid_out = True

    # ------------------------------------------------------------ the rows
    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def row_keys(self) -> list[str]:
        return [key for key, _ in self.rows]

    def get_row(self, key: str) -> tuple[str, ...]:
        return next(cells for k, cells in self.rows if k == key)

    def add_columns(self, *labels: str) -> None:
        self.columns += [Column(label, cell_len(label)) for label in labels]
        self.update_dimensions()

    def show_rows(self, rows: Sequence[Row], *, refill: bool = False) -> None:
        """Hold ``rows``. A few rows gone, cells changed, rows new at the end: the
        cursor and the scroll stay where they are; any other change (``refill``: a
        new window or filter) puts the rows in anew, the cursor on the first."""
        if list(rows) == self.rows:
            return
        before = dict(self.rows)
        wanted = {key for key, _ in rows}
        kept = [key for key in before if key in wanted]
        in_place = (
            not refill
            and bool(kept)
            and len(before) - len(kept) <= FEW_GONE
            and kept == [key for key, _ in rows[: len(kept)]]
        )
        self.rows = list(rows)
        # the columns grow to the rows new (a changed cell is not measured again,
        # as Textual's table does not; nor does a column shrink with rows gone)
        new = [(key, cells) for key, cells in rows if key not in before] if in_place else rows
        for index, column in enumerate(self.columns):
            column.content = max([column.content, *self.widths(index, new)])
        if in_place:
            # Textual's table scrolls to the cursor once rows added or gone are laid out
            self.laid_out = len(kept) == len(before) == len(rows)
        else:
            self.cursor_row = self.hover_row = 0
            self.scroll_x = self.scroll_y = 0
            self.scroll_target_x = self.scroll_target_y = 0
        self.update_dimensions()
        self.set_cursor(self.cursor_row, scroll=self.laid_out)
        if rows and not in_place:
            self.post_message(self.RowHighlighted(self, self.cursor_row))
        self.refresh()

    def widths(self, index: int, rows: Iterable[Row]) -> list[int]:
        console = self.app.console
        return [text_width(console, cells[index]) for _key, cells in rows]

    # ------------------------------------------------------------ the sizes
    def width_of(self, column: Column) -> int:
        return 2 * self.cell_padding + (column.content if column.fixed is None else column.fixed)

    def page(self) -> int:
        return max(1, self.scrollable_content_region.height - self.header_height)

    def on_resize(self) -> None:
        self.update_dimensions()

    def update_dimensions(self) -> None:
        """The last column (the item's title) takes the width the others leave, at
        least 12 cells: a longer title is cut with an ellipsis instead of running off
        the table's edge, where nothing said it was cut."""
        columns = self.columns
        # the room beside the vertical scroll bar, shown or not: it comes and goes
        # with the rows, and a width measured without it would need a horizontal one
        room = self.size.width - self.styles.scrollbar_size_vertical
        if columns and room > 0:
            others = sum(self.width_of(c) for c in columns[:-1])
            columns[-1].fixed = max(12, room - others - 2 * self.cell_padding)
        size = Size(sum(self.width_of(c) for c in columns), len(self.rows) + self.header_height)
        if size != self.virtual_size:
            self.virtual_size = size
            self.refresh()

    # ------------------------------------------------------------ the cursor
    def move_cursor(self, *, row: int, animate: bool = False, scroll: bool = True) -> None:
        """Put the cursor on ``row`` (kept within the rows). As Textual's table does,
        ``scroll`` brings the cursor's row into view first, then a cursor that moved
        brings its new row into view; rows just put in place are scrolled to once,
        to where the cursor ends."""
        if scroll and self.laid_out:
            self.scroll_to_row(self.cursor_row, animate=animate)
        moved = self.set_cursor(row, scroll=self.laid_out)
        if not self.laid_out and (scroll or moved):
            self.scroll_to_row(self.cursor_row)
        self.laid_out = True

    def set_cursor(self, row: int, *, scroll: bool) -> bool:
        """The cursor on ``row`` (kept within the rows): whether it moved."""
        row = max(0, min(row, len(self.rows) - 1))
        old, self.cursor_row = self.cursor_row, row
        if old == row:
            return False
        self.refresh_row(old)
        self.refresh_row(row)
        self.post_message(self.RowHighlighted(self, row))
        if scroll:
            self.scroll_to_row(row)
        return True

    def scroll_to_row(self, row: int, *, animate: bool = False) -> None:
        if not self.rows:
            return
        width = max(self.size.width, self.virtual_size.width)
        region = Region(int(self.scroll_x), row + self.header_height, width, 1)
        spacing = Spacing(self.header_height, 0, 0, 0)
        self.scroll_to_region(region, animate=animate, spacing=spacing, force=True)

    def refresh_row(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self.refresh_line(row + self.header_height)

    def show_hover(self, shown: bool) -> None:
        self.hover_shown = shown
        self.refresh_row(self.hover_row)

    # ------------------------------------------------------------ drawing
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()  # the cursor's look follows the focus

    def styles_now(self) -> dict[str, Style]:
        """The widget's style and its parts' (each a walk up the widget's ancestors)."""
        parts = ("header", "header-hover", "cursor", "hover", "even-row", "odd-row")
        style = self.get_component_rich_style
        return {"base": self.rich_style, **{p: style(f"queue-table--{p}") for p in parts}}

    def render_lines(self, crop: Region) -> list[Strip]:
        # the styles once a frame, not once a line
        self.frame = self.styles_now()
        try:
            return super().render_lines(crop)
        finally:
            self.frame = None

    def render_line(self, y: int) -> Strip:
        styles = self.frame or self.styles_now()
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        row = HEADER if y < self.header_height else y + scroll_y - self.header_height
        if row >= len(self.rows):
            return Strip.blank(width, styles["base"])
        if row == HEADER:
            texts = [c.label for c in self.columns]
            row_style = styles["header"]
        else:
            texts = list(self.rows[row][1])
            row_style = styles["odd-row" if row % 2 else "even-row"]
        cursor = row == self.cursor_row
        hover = self.hover_shown and row == self.hover_row
        look = Style()
        if hover:
            look += styles["hover"]
            if row == HEADER:
                look += styles["header-hover"]
        if cursor:
            look += styles["cursor"]
        post = Style.from_color(color=look.color)
        segments: list[Segment] = []
        app = self.app
        for index, (column, text) in enumerate(zip(self.columns, texts, strict=False)):
            pre = row_style + Style.from_meta({"row": row, "column": index}) + look
            segments += draw_cell(text, pre, post, self.width_of(column), self.cell_padding, app)
        table_width = sum(self.width_of(c) for c in self.columns)
        out_of_bounds = Style.from_meta({"row": row, "column": 0, "out_of_bounds": True})
        segments.append(
            Segment(" " * max(0, width - table_width), row_style + look + out_of_bounds)
        )
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.adjust_cell_length(width, styles["base"]).simplify()

    # ------------------------------------------------------------ the mouse
    def on_mouse_move(self, event: events.MouseMove) -> None:
        meta = event.style.meta
        if "row" not in meta:
            self.show_hover(False)
            return
        self.refresh_row(self.hover_row)
        self.hover_row = meta["row"]
        self.show_hover(True)

    def on_leave(self) -> None:
        self.show_hover(False)

    def on_click(self, event: events.Click) -> None:
        self.show_hover(True)
        row = event.style.meta.get("row")
        if row is None or row == HEADER:
            return
        event.stop()
        if not self.set_cursor(row, scroll=True):  # a click on the cursor's row chooses it
            self.post_message(self.RowSelected(self, row))
        self.scroll_to_row(row, animate=True)

    # ------------------------------------------------------------ the keys
    def action_select_cursor(self) -> None:
        self.show_hover(False)
        if self.rows:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def action_cursor_down(self) -> None:
        self.show_hover(False)
        self.move(1)

    def action_cursor_up(self) -> None:
        self.show_hover(False)
        self.move(-1)

    def action_cursor_right(self) -> None:
        self.show_hover(False)
        super().action_scroll_right()

    def action_cursor_left(self) -> None:
        self.show_hover(False)
        super().action_scroll_left()

    def action_page_down(self) -> None:
        self.show_hover(False)
        self.move(self.page())

    def action_page_up(self) -> None:
        self.show_hover(False)
        self.move(-self.page())

    def action_page_left(self) -> None:
        self.show_hover(False)
        self.scroll_page_left()

    def action_page_right(self) -> None:
        self.show_hover(False)
        self.scroll_page_right()

    def action_scroll_top(self) -> None:
        self.move(-(1 << 40))

    def action_scroll_bottom(self) -> None:
        self.move(1 << 40)

    action_scroll_home = action_scroll_top
    action_scroll_end = action_scroll_bottom
