"""A cell of the queue's table, measured and drawn as Rich lays out a one-line text
(what Textual's table does for each cell), without Rich's layout for plain text: a
window of rows costs some milliseconds, not the 40 or more Rich took."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App


@dataclass
class Column:
    """A column: its label, the widest text it held (``content``), and its width when
    fixed (the last column's: the room the others leave)."""

    label: str
    content: int
    fixed: int | None = None


def plain_cell(value: str) -> bool:
    """Whether a cell's text is drawn as one plain line (no tab, newline or control
    character, no space but the ASCII one): one segment, no Rich layout."""
    return value.isprintable()


def cell_text(value: str) -> Text:
    """A cell as Rich lays it out: one line, cut with an ellipsis."""
    return Text(value, no_wrap=True, overflow="ellipsis", end="")


def text_width(console: Console, value: str) -> int:
    """The cells ``value`` takes in the table: its length when plain, else Rich's."""
    if plain_cell(value):
        return cell_len(value)
    return max(0, cell_text(value).__rich_measure__(console, console.options).maximum)


def draw_cell(
    value: str, pre: Style, post: Style, width: int, padding: int, app: App[object]
) -> list[Segment]:
    """A cell as Rich draws it: the padding, the text cut with an ellipsis or padded
    to the width, the row's and the cursor's styles before the text's and the cursor's
    colour after (``pre``, ``post``). Plain text is one segment; any other text is
    drawn by Rich."""
    room = width - 2 * padding
    if not plain_cell(value) or room < 0:
        options = app.console_options.update_dimensions(width, 1).update(no_wrap=True)
        line = app.console.render_lines(Padding(cell_text(value), (0, padding)), options)[0]
        return list(Segment.apply_style(line, style=pre, post_style=post))
    if cell_len(value) > room >= 1:  # cut: an ellipsis says so (enter shows it whole)
        value = set_cell_size(value, room - 1) + "…"
    space = " " * padding
    return [Segment(space + set_cell_size(value, room) + space, pre + post)]
