"""Movement, the same on every screen of the desk that shows a list or a scrolling body.

``j``/``k`` go down and up (as the arrows do), ``g``/``G`` to the first and the last
row (the top and the bottom of a scrolling view); escape goes back (on the queue it
clears the filters). None of these keys is ever a decision (docs/desk.md, "Keys";
``tests/desk/test_key_map.py`` checks every screen's bindings). :func:`moves` makes a
screen's four bindings, each with its id (``<screen>.down``, ...), so a store's
``keymap:`` remaps them as any other; :class:`Moving` moves what has the focus: a list's
cursor, or a scrolling view (the first column of an item when nothing scrolls has it).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, OptionList


def moves(screen: str) -> list[Binding]:
    """The four movement bindings of ``screen``: ids ``<screen>.down``, ``.up``,
    ``.first`` and ``.last`` (every item view shares ``item.*``)."""
    return [
        Binding("j", "down", "Down", show=False, id=f"{screen}.down", tooltip="Next, or scroll"),
        Binding("k", "up", "Up", show=False, id=f"{screen}.up", tooltip="Previous, or scroll"),
        Binding("g", "first", "First", show=False, id=f"{screen}.first", tooltip="First, or top"),
        Binding("G", "last", "Last", show=False, id=f"{screen}.last", tooltip="Last, or bottom"),
    ]


class Moving(Screen[None]):
    """The movement actions: on the focused list or scrolling view."""

    def move_target(self) -> Widget | None:
        """What the keys move: the focused widget when it moves, else the screen's first
        scrolling view (an item's first column)."""
        focused = self.focused
        if isinstance(focused, DataTable | OptionList | ScrollableContainer):
            return focused
        if focused is not None:
            # a widget inside a scrolling column (a record card): that column
            for ancestor in focused.ancestors:
                if isinstance(ancestor, ScrollableContainer):
                    return ancestor
        return next(iter(self.query(ScrollableContainer)), None)

    def action_down(self) -> None:
        self.step(1)

    def action_up(self) -> None:
        self.step(-1)

    def step(self, by: int) -> None:
        target = self.move_target()
        if isinstance(target, OptionList):
            step_options(target, by)
        elif isinstance(target, DataTable):
            target.action_cursor_down() if by > 0 else target.action_cursor_up()
        elif target is not None:
            if by > 0:
                target.scroll_down(animate=False)
            else:
                target.scroll_up(animate=False)

    def action_first(self) -> None:
        target = self.move_target()
        if isinstance(target, DataTable):
            target.move_cursor(row=0, animate=False)
        elif isinstance(target, OptionList):
            target.action_first()
        elif target is not None:
            target.scroll_home(animate=False)

    def action_last(self) -> None:
        target = self.move_target()
        if isinstance(target, DataTable):
            target.move_cursor(row=max(target.row_count - 1, 0), animate=False)
        elif isinstance(target, OptionList):
            target.action_last()
        elif target is not None:
            target.scroll_end(animate=False)


def step_options(listing: OptionList, by: int) -> None:
    """The next enabled option ``by`` (1 or -1) from the highlighted one; at an end the
    highlight stays (as in a table: Textual's option list would wrap round)."""
    start = listing.highlighted
    index = (-1 if by > 0 else listing.option_count) if start is None else start
    index += by
    while 0 <= index < listing.option_count:
        if not listing.get_option_at_index(index).disabled:
            listing.highlighted = index
            return
        index += by
