"""The queue's window over the items: the items read, the filters that choose the
items shown, the window of them the table holds, the cursor, the status line and the
preview. :class:`tui.screens.queue.screen.QueueScreen` adds the keys and the reads.

What every key costs is what it touches, not the queue:

- the table holds a window of at most :data:`WINDOW` rows of the items shown;
  moving past its edge (``j``/``k``, page keys, home and end) moves the window,
  and the status line says which rows of how many the table holds;
- search, kind and scope filter the items read (``core.review.view``) and change
  only the rows of the window that differ. What search looks in comes from the
  catalog's rows (:func:`core.review.queue.conflict_texts`: the records' ids,
  contents and values, redacted where the catalog flags a credential), from the
  outline on and with no record built; the matching itself is in memory, a pass
  over those texts (a few milliseconds for 20,000 items, casefolded as before),
  where the catalog's trigram search would cost a worker and a frame per key and
  match ASCII case only.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from core.api.review import Item, view
from core.domain.words import counted
from tui.screens.desk import DeskScreen
from tui.screens.queue.rows import preview, row_of
from tui.screens.queue.table import QueueTable

SCOPES = ("all", "private", "team")
#: the most rows the table holds; the items shown beyond are reached by moving
WINDOW = 120


class QueueWindow(DeskScreen):
    """The queue's items, the filters, and the window of the items shown."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[Item] = []
        #: each item's search text (core.review.view.search_text), by id, as prepared
        self.texts: dict[str, str] = {}
        self.shown: list[Item] = []
        self.counts: dict[str, int] = view.count_by_kind([])
        self.kinds_read: frozenset[str] = frozenset()
        self.kind = "all"
        self.scope = "all"
        self.query_text = ""
        #: the index in ``shown`` of the table's first row
        self.first_row = 0
        self.previewed: Item | None = None
        #: the marked items' ids, in the order marked (tui.screens.selection)
        self.marked: dict[str, None] = {}
        #: what ``shown`` was chosen from: the items, their search texts, the filters
        self.selected_by: tuple[list[Item], dict[str, str], str, str, str] | None = None
        #: the filters the window was last placed with
        self.placed_filters: tuple[str, str, str] | None = None
        self.reading = ""
        self.status_text = ""

    @property
    def table(self) -> QueueTable:
        return self.query_one("#queue", QueueTable)

    def shown_items(self) -> list[Item]:
        return self.shown

    @staticmethod
    def haystack(item: Item) -> str:
        """What search looks in: ids, title, subject, and each record's words."""
        return view.search_text(item)

    def fill(self) -> None:
        """Filter again and show the window. With the same filters (the items were read
        again) the cursor stays on its item, or when that one left on the item now at its
        place; a new filter keeps the cursor's row."""
        current = self.current()
        position = self.cursor_index()
        self.shown = self.select()
        target = position
        if current is not None and self.placed_filters == self.filters():
            found = self.index_of(current.id, position)
            target = position if found is None else found
        self.place(target)

    def select(self) -> list[Item]:
        """The items the filters choose. A search that only grew (a letter typed) looks
        among the items the last one chose: every one it finds is among them."""
        needle = self.query_text.casefold()
        last = self.selected_by
        grown = (
            last is not None
            and last[0] is self.items
            and last[1] is self.texts
            and last[2:4] == (self.kind, self.scope)
            and last[4] in needle
        )
        if grown:
            shown = view.select(self.shown, needle=needle, texts=self.texts)
        else:
            shown = view.select(
                self.items, kind=self.kind, scope=self.scope, needle=needle, texts=self.texts
            )
        self.selected_by = (self.items, self.texts, self.kind, self.scope, needle)
        return shown

    def filters(self) -> tuple[str, str, str]:
        return (self.kind, self.scope, self.query_text)

    def index_of(self, item_id: str, near: int) -> int | None:
        """Where ``item_id`` is in ``shown``: looked for near ``near`` first."""
        shown = self.shown
        for index in range(max(0, near - 2), min(len(shown), near + 3)):
            if shown[index].id == item_id:
                return index
        return next((n for n, i in enumerate(shown) if i.id == item_id), None)

    def cursor_index(self) -> int:
        """The cursor's index in ``shown``."""
        table = self.table
        return self.first_row + table.cursor_row if table.row_count else 0

    def current(self) -> Item | None:
        table = self.table
        if table.row_count == 0:
            return None
        index = self.cursor_index()
        return self.shown[index] if 0 <= index < len(self.shown) else None

    # ------------------------------------------------------------ the window
    def move_by(self, step: int) -> None:
        if self.shown:
            self.place(self.cursor_index() + step)

    def place(self, target: int) -> None:
        """Put the cursor on ``shown[target]``; the window moves when it must, keeping
        the cursor's line on screen where it was."""
        self.placed_filters = self.filters()
        table = self.table
        count = len(self.shown)
        target = max(0, min(target, count - 1))
        last_start = max(0, count - WINDOW)
        line = table.cursor_row - round(table.scroll_y)
        before = self.cursor_index()
        moved = False
        if not (self.first_row <= target < self.first_row + WINDOW) or self.first_row > last_start:
            self.first_row = max(0, min(target - WINDOW // 2, last_start))
            moved = True
        self.sync_rows(refill=moved)
        row = target - self.first_row
        if count:
            if moved:  # the rows are measured: the scroll lands now, in this frame
                height = table.page()
                line = max(0, min(line + target - before, height - 1))
                table.scroll_to(y=max(0, row - line), animate=False, immediate=True)
            table.move_cursor(row=row, animate=False)
        self.show_status()
        self.show_preview()

    def sync_rows(self, *, refill: bool = False) -> None:
        """Make the table hold the window's rows (``refill``: the window moved, or a
        new filter: :meth:`QueueTable.show_rows` puts them in at once)."""
        window = self.shown[self.first_row : self.first_row + WINDOW]
        self.table.show_rows([row_of(i, i.id in self.marked) for i in window], refill=refill)

    def show_status(self) -> None:
        filters = [
            f"kind {self.kind}" if self.kind != "all" else "",
            f"scope {self.scope}" if self.scope != "all" else "",
            f"search “{self.query_text}”" if self.query_text else "",
        ]
        active = ", ".join(f for f in filters if f)
        count, total = len(self.shown), len(self.items)
        waiting = (
            f"{count:,} of {counted(total, 'item')}"
            if active
            else f"{counted(total, 'item')} waiting, oldest first"
        )
        held = self.table.row_count
        rows = (
            f"rows {self.first_row + 1}–{self.first_row + held} of {count}" if held else "no rows"
        )
        marked = f"{len(self.marked)} marked: D decides them" if self.marked else ""
        parts = [waiting, active, rows, marked, self.reading, "? keys · ctrl+p commands"]
        text = " · ".join(p for p in parts if p)
        if text != self.status_text:  # an update lays the screen out again: only on a change
            self.status_text = text
            # one line of a fixed height: its text never changes the layout
            self.query_one("#status-line", Static).update(text, layout=False)

    def show_preview(self) -> None:
        item = self.current()
        if item is not None and item is self.previewed:
            return
        self.previewed = item
        # a column of a fixed size (it crops what does not fit): no layout of the screen
        self.query_one("#preview", Static).update(
            preview(item) if item else Text(self.nothing_shown(), style="dim"),
            layout=False,
        )

    def nothing_shown(self) -> str:
        """What the preview says when no item is shown: the queue is empty, or the
        filters leave out the items that wait (never "well done" while some wait)."""
        total = len(self.items)
        if not total:
            return "Nothing waiting. Well done."
        if self.kind != "all":
            others = sum(1 for i in self.items if i.kind != self.kind)
            if others == total:
                return f"Nothing of this kind; {others:,} waiting in other kinds."
        return f"Nothing matches the filters; {counted(total, 'item')} waiting in all."
