"""The queue: the six kinds of item with counts, oldest first, filterable.

The queue is read in a worker (on mount, on ``r`` and whenever the stores change);
the desk then hands the items to every screen (:class:`QueueLoaded`). What every
key costs is what it touches, not the queue:

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
  match ASCII case only;
- after a decision its item leaves at once, the worker reads again only the
  items the decision touched (:func:`core.review.queue.find_items`) and the
  items that opened or closed besides (the open ids, :func:`core.review.queue.open_ids`,
  against the ids shown): the queue is not built again (``r`` does that, and
  shows an item someone else changed in place); no queue is built on the UI thread.

The first read shows the queue in outline at once (its conflict sets from the
catalog's columns, no record built: :func:`core.review.queue.outline_queue`; such an
item opens once its records are read), then every kind but secrets with their
records and evidence, then scans the record files for secrets (the slow part of a
first read) and adds those items.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache, partial
from typing import Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.console import Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual._two_way_dict import TwoWayDict
from textual._types import SegmentLines
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import DataTable, Header, Input, Static, Tab, Tabs
from textual.widgets._data_table import RowRenderables
from textual.widgets.data_table import ColumnKey, RowKey
from textual.widgets.data_table import Row as DataRow
from textual.worker import get_current_worker

from core.api.review import (
    KINDS,
    ConflictAnalysis,
    Decision,
    Item,
    Kind,
    QuarantineAnalysis,
    build_queue,
    conflict_texts,
    find_items,
    is_outline,
    open_ids,
    outline_queue,
    view,
)
from core.api.stores import Store, Workspace, scan_file
from core.domain.errors import MemgovError
from core.domain.policy import shown
from core.domain.words import counted
from tui.messages import ItemsChanged, NextItem, QueueLoaded, StoresChanged, WorkerDone
from tui.render import failure_text, memory_header, safe
from tui.screens.about import AboutMeScreen
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.health import HealthScreen
from tui.screens.history import HistoryScreen
from tui.screens.items import screen_for
from tui.screens.problems import ProblemsScreen
from tui.screens.selection import decide_selection, mark_refusal

KIND_TABS = (
    ("all", "All"),
    ("conflict", "Conflicts"),
    ("promotion", "Promotions"),
    ("deletion", "Deletions"),
    ("consolidation", "Batches"),
    ("secret", "Secrets"),
    ("stale", "Stale"),
    ("held", "Held"),
    ("quarantine", "Quarantine"),
    ("untrusted", "Untrusted"),
)
SCOPES = ("all", "private", "team")
#: the most rows the table holds; the items shown beyond are reached by moving
WINDOW = 120
#: rows leaving the window one by one at most (each removal renumbers every row
#: after it); more, and the window's rows are put in again at once
FEW_GONE = 8
#: what the first read shows before the secret scan of every record file
FIRST_KINDS = tuple(k for k in KINDS if k != Kind.SECRET)
#: what enter on an item in outline says (its records are not read yet)
STILL_READING = "Its records are being read: a moment, then enter opens it"
#: files scanned between two checks whether the read was replaced
SCAN_CHUNK = 500

Row = tuple[str, tuple[str, str, str, str]]
#: a worker's description, given: Textual's default is the repr of its callable, here
#: with every item of the queue (20,000 items: 3 s of the UI thread per read)
WORKER_DESCRIPTION = "the queue read again"


@lru_cache(maxsize=100_000)
def shown_title(title: str) -> str:
    return safe(title)


#: before the title of an item someone deferred (looked at and left open)
DEFERRED_MARK = "↷ "


def row_of(item: Item, marked: bool = False) -> Row:
    title = shown_title(item.title)
    if item.deferred is not None:
        title = DEFERRED_MARK + title
    return item.id, (item.opened_at[:10], item.kind, item.scope, f"● {title}" if marked else title)


def preview(item: Item) -> RenderableType:
    parts: list[RenderableType] = [
        Text(item.title, style="bold"),
        Text(f"{item.kind} · {item.scope} · opened {item.opened_at[:16]}", style="dim"),
    ]
    if item.deferred is not None:
        last = item.deferred
        parts.append(
            Text(
                f"{DEFERRED_MARK}deferred by {shown(last.actor)} on {last.ts[:10]}: "
                f"{safe(last.reason)}",
                style="yellow",
            )
        )
    if is_outline(item):
        return Group(*parts, Text("\nreading its records…", style="dim"))
    if item.request is not None:
        parts.append(
            Text(f"{item.request.requested_by}: {safe(item.request.reason)}", style="italic")
        )
    if isinstance(item.analysis, ConflictAnalysis) and item.analysis.favoured:
        parts.append(
            Text(
                f"sources favour {item.analysis.favoured}: " + ", ".join(item.analysis.why),
                style="cyan",
            )
        )
    if item.kind in ("promotion", "secret"):
        rules = sorted({h.rule for h in item.scan})
        parts.append(
            Text(
                "secret scan: " + (", ".join(rules) or "clean"),
                style="bold red" if rules else "green",
            )
        )
    if isinstance(item.analysis, QuarantineAnalysis):
        found = item.analysis
        parts.append(
            Text(
                "tries to steer the agent: "
                + ", ".join(dict.fromkeys(f.rule for f in found.flags)),
                style="bold red",
            )
        )
        if found.origin == "candidate":
            parts.append(Text("\nnot written: held for you to release or discard", style="yellow"))
            parts.append(Text(safe(found.text[:600])))
    for rec in item.records:
        parts.append(Text(""))
        parts.append(memory_header(rec.memory))
        parts.append(Text(safe(rec.memory.content)))
        parts.append(
            Text(
                f"{counted(len(rec.sources), 'source')} · confidence {rec.memory.confidence:.2f}",
                style="dim",
            )
        )
    parts.append(Text("\nenter: open with the evidence", style="dim"))
    return Group(*parts)


def plain_cell(value: str) -> bool:
    """Whether a cell's text is drawn as one plain line (no tab, newline or control
    character, no space but the ASCII one: :class:`QueueTable`'s quick path)."""
    return value.isprintable()


class QueueTable(DataTable[Any]):
    """The queue's table: a window of the items shown. Every cursor key asks ``move``
    (the screen) to go that many items up or down through all of them; the screen
    moves the window when the cursor leaves it.

    Its cells are text, drawn as it is: never read as Rich markup, so a title such as
    ``… [env=production]`` shows its brackets, and ``[/x]`` in a title cannot stop the
    table (Textual's table reads a ``str`` cell as markup). A one-line cell is drawn
    without Rich's layout (:meth:`_render_cell`: a test checks it draws what the
    table's own path draws), and the widths of new rows are measured by their length
    (:meth:`_update_dimensions`): a page of new rows costs some milliseconds, not the
    40 or more Rich took, and :meth:`show_rows` puts a whole window in at once. The
    widget's style and its stripes' are taken once a frame, not once a line."""

    def __init__(self, move: Callable[[int], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.move = move
        #: while a frame is drawn: the widget's style, and each stripe's
        self.frame_style: Style | None = None
        self.frame_styles: dict[tuple[int, Style], Style] = {}

    def page(self) -> int:
        return max(1, self.scrollable_content_region.height - self.header_height)

    # ------------------------------------------------------------- drawing
    def render_lines(self, crop: Region) -> list[Strip]:
        # the widget's style and the stripes' styles, once a frame: Textual's table
        # asks for each of them every line, each a walk up the widget's ancestors
        self.frame_styles = {}
        self.frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self.frame_style = None

    def render_line(self, y: int) -> Strip:
        style = self.frame_style
        if style is None or self.fixed_rows:
            return super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        if y >= (self.header_height if self.show_header else 0):
            y += scroll_y
        return self._render_line(y, scroll_x, scroll_x + self.size.width, style)

    def _get_row_style(self, row_index: int, base_style: Style) -> Style:
        if self.frame_style is None or row_index < 0:
            return super()._get_row_style(row_index, base_style)
        key = (row_index % 2, base_style)
        style = self.frame_styles.get(key)
        if style is None:
            style = self.frame_styles[key] = super()._get_row_style(row_index, base_style)
        return style

    def _compute_row_renderables(self, row_index: int) -> RowRenderables:
        if row_index < 0 or self._should_render_row_labels:
            return super()._compute_row_renderables(row_index)
        row_key = self._row_locations.get_key(row_index)
        data = self._data.get(row_key) if row_key is not None else None
        if data is None:
            return super()._compute_row_renderables(row_index)
        return RowRenderables(
            None,
            [
                Text(value, no_wrap=True, overflow="ellipsis", end="")
                if isinstance(value, str)
                else Text(end="")
                for value in (data.get(column.key) for column in self.ordered_columns)
            ],
        )

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        """A one-line text cell as Rich would draw it (padding, the text cut or padded
        to the width, the row's and the cursor's styles), as one segment."""
        padding = self.cell_padding
        if row_index < 0 or column_index < 0 or width < 2 * padding:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = self.rows.get(row_key) if row_key is not None else None
        data = self._data.get(row_key) if row_key is not None else None
        value = data.get(column_key) if data is not None and column_key is not None else None
        if row is None or row.height != 1 or not isinstance(value, str) or not plain_cell(value):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        component, post = self._get_styles_to_render_cell(
            False,
            False,
            row_index < self.fixed_rows or column_index < self.fixed_columns,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )
        style = base_style + Style.from_meta({"row": row_index, "column": column_index})
        style = style + component
        if post:
            style = style + post
        space = " " * padding
        room = width - 2 * padding
        if cell_len(value) > room >= 1:  # cut: an ellipsis says so (enter shows it whole)
            value = set_cell_size(value, room - 1) + "…"
        return [[Segment(space + set_cell_size(value, room) + space, style)]]

    def on_resize(self) -> None:
        self.fit_last_column()

    def fit_last_column(self) -> None:
        """The last column (the item's title) takes the width the others leave, at
        least 12 cells: a longer title is cut with an ellipsis instead of running off
        the table's edge, where nothing said it was cut."""
        columns = self.ordered_columns
        # the room beside the vertical scroll bar, shown or not: it comes and goes
        # with the rows, and a width measured without it would need a horizontal one
        room = self.size.width - self.styles.scrollbar_size_vertical
        if not columns or room <= 0:
            return
        last = columns[-1]
        others = sum(c.get_render_width(self) for c in columns[:-1])
        width = max(12, room - others - 2 * self.cell_padding)
        if last.auto_width or last.width != width:
            last.auto_width = False
            last.width = width
            self._clear_caches()
            self._update_count += 1
            self.virtual_size = Size(others + last.get_render_width(self), self.virtual_size.height)
            self.refresh()

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """The columns widened to the new rows' cells: a one-line text cell by its
        length (what Rich measures it), anything else by Rich."""
        others: list[RowKey] = []
        columns = self.ordered_columns
        for row_key in new_rows:
            row, data = self.rows.get(row_key), self._data.get(row_key)
            if row is None or data is None or row.label is not None or row.auto_height:
                others.append(row_key)
                continue
            values = [data.get(column.key) for column in columns]
            texts = [v for v in values if isinstance(v, str) and plain_cell(v)]
            if len(texts) != len(values):
                others.append(row_key)
                continue
            for column, text in zip(columns, texts, strict=True):
                column.content_width = max(column.content_width, cell_len(text))
        super()._update_dimensions(others)
        self.fit_last_column()  # the other columns may have grown

    def show_rows(self, rows: Sequence[Row]) -> None:
        """The table's rows replaced by ``rows`` (what clear() and one add_row each
        do, in one go: add_row sets the cursor and asks for an idle pass every row),
        measured at once so the table can scroll to any of them now."""
        self.clear()
        keys = [column.key for column in self.ordered_columns]
        locations: dict[RowKey, int] = {}
        for index, (key, cells) in enumerate(rows):
            row_key = RowKey(key)
            locations[row_key] = index
            self._data[row_key] = dict(zip(keys, cells, strict=True))
            self.rows[row_key] = DataRow(row_key, 1)
        self._row_locations = TwoWayDict(locations)
        self._update_count += 1
        self._new_rows.clear()
        self._require_update_dimensions = False
        self._update_dimensions(locations)
        self.cursor_coordinate = self.cursor_coordinate  # the cursor within the rows
        if rows and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()
        self.refresh(layout=True)

    # ---------------------------------------------------------------- keys
    def action_cursor_down(self) -> None:
        self._set_hover_cursor(False)
        self.move(1)

    def action_cursor_up(self) -> None:
        self._set_hover_cursor(False)
        self.move(-1)

    def action_page_down(self) -> None:
        self._set_hover_cursor(False)
        self.move(self.page())

    def action_page_up(self) -> None:
        self._set_hover_cursor(False)
        self.move(-self.page())

    def action_scroll_top(self) -> None:
        self.move(-(1 << 40))

    def action_scroll_bottom(self) -> None:
        self.move(1 << 40)

    action_scroll_home = action_scroll_top
    action_scroll_end = action_scroll_bottom


class KindTabs(Tabs):
    """The kinds' tabs, the underline moved at once: Textual slides it for 0.3 s,
    some twenty frames of the screen while the next keys wait."""

    def _highlight_active(self, animate: bool = True) -> None:
        super()._highlight_active(animate=False)


class QueueScreen(DeskScreen):
    """Everything waiting for a person, oldest first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "open",
            "Open",
            priority=True,
            id="queue.open",
            tooltip="Open the item with its evidence side by side",
        ),
        Binding("j", "down", "Down", show=False, id="queue.down", tooltip="Next item"),
        Binding("k", "up", "Up", show=False, id="queue.up", tooltip="Previous item"),
        Binding(
            "left_square_bracket",
            "kind(-1)",
            "Prev kind",
            key_display="[",
            id="queue.prev_kind",
            tooltip="Previous kind of item",
        ),
        Binding(
            "right_square_bracket",
            "kind(1)",
            "Next kind",
            key_display="]",
            id="queue.next_kind",
            tooltip="Next kind of item",
        ),
        Binding(
            "slash",
            "search",
            "Search",
            key_display="/",
            id="queue.search",
            tooltip="Filter by ids, titles, subjects and contents",
        ),
        Binding(
            "s",
            "scope",
            "Scope",
            id="queue.scope",
            tooltip="Show all scopes, only private, or only team items",
        ),
        Binding(
            "a", "about", "About me", id="queue.about", tooltip="Everything remembered about you"
        ),
        Binding(
            "h",
            "history",
            "History",
            id="queue.history",
            tooltip="Any memory's timeline and supersedes chain",
        ),
        Binding("m", "health", "Health", id="queue.health", tooltip="Counts and signals"),
        Binding(
            "p",
            "problems",
            "Problems",
            id="queue.problems",
            tooltip="Files the store could not read",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            show=False,  # in ? and the palette; the status line says what marks do
            id="queue.mark",
            tooltip="Mark the item, to decide several conflicts, deletions or secrets at once",
        ),
        Binding(
            "D",
            "decide_marked",
            "Decide marked",
            show=False,
            key_display="D",
            id="queue.decide_marked",
            tooltip="Decide every marked item the same way, in one commit",
        ),
        Binding(
            "r", "reload", "Reload", show=False, id="queue.reload", tooltip="Read the stores again"
        ),
        Binding(
            "S",
            "sync",
            "Sync",
            show=False,
            key_display="S",
            id="queue.sync",
            tooltip="Sync the team stores with their remotes: fetch, merge, push",
        ),
        Binding("escape", "clear_search", "Clear", show=False, id="queue.clear"),
    ]

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
        #: the index in ``shown`` of the table's first row, and the rows it holds
        self.first_row = 0
        self.window_rows: list[Row] = []
        self.column_keys: list[ColumnKey] = []
        self.previewed: Item | None = None
        #: the marked items' ids, in the order marked (tui.screens.selection)
        self.marked: dict[str, None] = {}
        #: what ``shown`` was chosen from: the items, their search texts, the filters
        self.selected_by: tuple[list[Item], dict[str, str], str, str, str] | None = None
        #: the filters the window was last placed with
        self.placed_filters: tuple[str, str, str] | None = None
        self.reading = ""
        self.status_text = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield KindTabs(*(Tab(label, id=f"tab-{kind}") for kind, label in KIND_TABS), id="kinds")
        search = Input(
            placeholder="search ids, subjects, contents (enter keeps it, esc clears)",
            id="search",
            classes="closed",
        )
        search.can_focus = False  # closed: out of the focus chain (tab skips it)
        search.cursor_blink = self.desk.cursor_blink
        yield search
        with Horizontal(id="queue-body"):
            yield QueueTable(self.move_by, id="queue", cursor_type="row", zebra_stripes=True)
            yield Static(id="preview")
        yield Static(id="status-line")
        yield DeskFooter()

    @property
    def table(self) -> QueueTable:
        return self.query_one("#queue", QueueTable)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # enter in the search box keeps the search instead of opening an item
        return not (action == "open" and isinstance(self.focused, Input))

    def on_mount(self) -> None:
        table = self.table
        self.column_keys = table.add_columns("Opened", "Kind", "Scope", "Item")
        self.reload()
        table.focus()

    def on_unmount(self) -> None:
        gc.unfreeze()  # the desk closes: what its reads kept is the collector's again

    def on_resize(self) -> None:
        self.query_one("#preview").set_class(self.size.width < 110, "hidden")

    # ----------------------------------------------------------------- data
    @on(StoresChanged)
    def stores_changed(self, message: StoresChanged) -> None:
        for decision in message.decisions:  # decided (a deferred one too): unmarked
            self.marked.pop(decision.item, None)
        self.reload(message.decisions)

    def reload(self, decisions: Sequence[Decision] = (), *, full: bool = False) -> None:
        """Read the queue again in a worker (a read under way is replaced). After
        decisions, first the items they touched, then the whole queue. ``full`` (the
        reload key): every file's stat data is checked."""
        self.reading = "reading the stores…"
        self.show_status()
        self.run_worker(
            partial(self.read_queue, self.items if decisions else None, decisions, full),
            thread=True,
            exclusive=True,
            group="queue",
            description=WORKER_DESCRIPTION,
        )

    def read_queue(  # noqa: C901
        self, items: list[Item] | None, decisions: Sequence[Decision], full: bool = False
    ) -> None:
        """In the worker: the stores read again (what changed on disk), then the items
        the decision touched, then the queue; each shown as soon as it is read. The
        first read shows all but secrets first, then scans the files for those."""
        worker = get_current_worker()
        desk = self.desk
        workspace = desk.workspace

        def show(then: Callable[[], None]) -> bool:
            if worker.is_cancelled:
                return False
            self.post_message(WorkerDone(then))
            return True

        first = not self.kinds_read
        every_kind = self.kinds_read >= set(KINDS)
        try:
            with desk.store_lock:
                if worker.is_cancelled:  # replaced while it waited
                    return
                reread(workspace, full=full)
                if first:  # at once: the queue in outline, while the records are read
                    outline = outline_queue(workspace)
                    show(partial(self.queue_read, outline, {}, (), "reading the records…"))
                if not (decisions and every_kind):
                    # what search looks in, from the catalog's rows: contents are found
                    # from the outline on, and no record is built for it
                    catalog_texts = conflict_texts(workspace)
                    if first:
                        outline_texts = {
                            i.id: catalog_texts.get(i.id) or view.search_text(i) for i in outline
                        }
                        show(partial(self.texts_read, outline_texts))
                if decisions and items is not None:
                    changed = refetch(workspace, items, decisions)
                    if every_kind:  # the rest as it was: only what opened or closed besides
                        changed |= opened_or_closed(workspace, items, changed)
                    show(partial(desk.items_changed, changed))
                    if every_kind:
                        show(partial(self.done_reading, ""))
                        return
                queue = (
                    build_queue(workspace, kinds=FIRST_KINDS) if first else build_queue(workspace)
                )
            texts = {i.id: catalog_texts.get(i.id) or view.search_text(i) for i in queue}
            kinds = FIRST_KINDS if first else KINDS
            if not show(
                partial(
                    self.queue_read,
                    queue,
                    texts,
                    kinds,
                    "scanning files for secrets…" if first else "",
                )
            ):
                return
            if not first:
                return
            if not warm_secret_scan(workspace, desk.store_lock, lambda: worker.is_cancelled):
                return
            with desk.store_lock:
                if worker.is_cancelled:
                    return
                secrets = build_queue(workspace, kinds=[Kind.SECRET])
            texts.update((i.id, view.search_text(i)) for i in secrets)
            merged = view.merge(queue, {i.id: i for i in secrets})
            show(partial(self.queue_read, merged, texts, KINDS, ""))
        except MemgovError as exc:
            self.read_failed(str(exc), worker.is_cancelled)
        except Exception as exc:  # a git error, an OSError: a notification, never an exit
            self.read_failed(failure_text(exc), worker.is_cancelled)

    def read_failed(self, message: str, cancelled: bool) -> None:
        self.app.notify(message, title="The queue could not be read", severity="error", timeout=12)
        if not cancelled:
            self.post_message(WorkerDone(partial(self.done_reading, "")))

    def done_reading(self, note: str) -> None:
        self.reading = note
        self.show_status()

    def texts_read(self, texts: dict[str, str]) -> None:
        """On the UI thread: what search looks in, for the items in outline too."""
        self.texts = {**texts, **self.texts}  # a text read meanwhile is newer
        if self.query_text:
            self.fill()

    def queue_read(
        self, items: list[Item], texts: dict[str, str], kinds: Sequence[str], note: str
    ) -> None:
        """On the UI thread: the read queue, handed to every screen."""
        self.texts = texts
        self.reading = note
        self.desk.queue_loaded(items, kinds)

    @on(QueueLoaded)
    def loaded(self, message: QueueLoaded) -> None:
        self.kinds_read = self.kinds_read | message.kinds
        self.set_items(message.items)
        if message.kinds >= set(KINDS):
            # what was read stays: out of the collector's full passes, each of which
            # walked every object of the queue (0.3 to 0.7 s at 20,000 items, at any
            # key); ``r`` gives them back to it before reading again
            gc.freeze()

    @on(ItemsChanged)
    def items_changed(self, message: ItemsChanged) -> None:
        for item_id, item in message.changed.items():
            if item is None:
                self.texts.pop(item_id, None)
            else:
                self.texts[item_id] = view.search_text(item)
        self.set_items(view.merge(self.items, message.changed))

    def set_items(self, items: list[Item]) -> None:
        self.items = items
        if self.marked:  # a marked item closed meanwhile is no longer marked
            open_ids = {i.id for i in items}
            self.marked = {i: None for i in self.marked if i in open_ids}
        counts = view.count_by_kind(items)
        if counts != self.counts:
            self.counts = counts
            for kind, label in KIND_TABS:
                self.query_one(f"#tab-{kind}", Tab).label = f"{label} {counts[kind]}"
        self.fill()

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
        """Make the table hold the window's rows, touching only the rows that differ:
        a few rows gone are removed, changed cells updated, rows new at the end added;
        any other change (the window moved, a new filter: ``refill``) puts the window's
        rows in at once (:meth:`QueueTable.show_rows`)."""
        table = self.table
        window = self.shown[self.first_row : self.first_row + WINDOW]
        target = [row_of(i, i.id in self.marked) for i in window]
        if target == self.window_rows:
            return
        wanted = dict(target)
        old_keys = [key for key, _ in self.window_rows]
        kept = [key for key in old_keys if key in wanted]
        few_gone = len(old_keys) - len(kept) <= FEW_GONE
        if not refill and kept and few_gone and kept == [key for key, _ in target[: len(kept)]]:
            cells = dict(self.window_rows)
            for key in old_keys:
                if key not in wanted:
                    table.remove_row(key)
            for key in kept:
                if cells[key] != wanted[key]:
                    changes = zip(self.column_keys, cells[key], wanted[key], strict=True)
                    for column, old, new in changes:
                        if old != new:
                            table.update_cell(key, column, new)
            for key, row in target[len(kept) :]:
                table.add_row(*row, key=key)
        else:
            table.show_rows(target)
        self.window_rows = target

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
        rows = (
            f"rows {self.first_row + 1}–{self.first_row + len(self.window_rows)} of {count}"
            if self.window_rows
            else "no rows"
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
            preview(item) if item else Text("Nothing waiting. Well done.", style="dim"),
            layout=False,
        )

    @on(DataTable.RowHighlighted)
    def highlighted(self) -> None:
        self.show_preview()

    @on(DataTable.RowSelected)
    def selected(self) -> None:
        self.action_open()

    @on(Tabs.TabActivated)
    def tab_changed(self, event: Tabs.TabActivated) -> None:
        kind = (event.tab.id or "tab-all").removeprefix("tab-")
        if kind != self.kind:  # the first tab activates itself on mount: nothing to redo
            self.kind = kind
            self.fill()

    # -------------------------------------------------------------- actions
    def action_down(self) -> None:
        self.move_by(1)

    def action_up(self) -> None:
        self.move_by(-1)

    def action_kind(self, step: int) -> None:
        tabs = self.query_one("#kinds", Tabs)
        tabs.action_next_tab() if step > 0 else tabs.action_previous_tab()

    def action_scope(self) -> None:
        self.scope = SCOPES[(SCOPES.index(self.scope) + 1) % len(SCOPES)]
        self.fill()

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.remove_class("closed")
        search.can_focus = True
        search.focus()

    @on(Input.Changed, "#search")
    def search_changed(self, event: Input.Changed) -> None:
        query = event.value.strip()
        if query == self.query_text:  # a space typed, or the clear that has filled already
            return
        self.query_text = query
        self.fill()

    @on(Input.Submitted, "#search")
    def search_done(self) -> None:
        self.table.focus()

    def action_clear_search(self) -> None:
        search = self.query_one("#search", Input)
        search.value = ""  # its Changed message finds the query cleared: one fill, here
        search.add_class("closed")
        search.can_focus = False
        if self.query_text:
            self.query_text = ""
            self.fill()
        self.table.focus()

    def action_reload(self) -> None:
        gc.unfreeze()  # what the last read kept may go once this one replaces it
        self.reload(full=True)

    def action_sync(self) -> None:
        from core.api.team import is_team_clone

        teams = [s for s in self.desk.workspace.stores if is_team_clone(s)]
        if not teams:
            self.notify(
                "No team store with a remote here: 'memgov team clone URL PATH' makes one",
                severity="warning",
            )
            return
        self.sync_progress("syncing…")
        self.sync_teams(teams)

    def sync_progress(self, text: str) -> None:
        self.reading = text
        self.show_status()

    @work(thread=True, exclusive=True, group="sync", description="a team sync")
    def sync_teams(self, teams: list[Store]) -> None:
        """In a worker: each team store synced in turn (the steps and git's transfer
        counters on the status line), each result a notification, then the queue read
        again."""
        from core.api.team import sync_team

        desk = self.desk
        for store in teams:

            def progress(text: str, name: str = store.root.name) -> None:
                self.app.call_from_thread(self.sync_progress, f"sync {name}: {text}")

            try:
                with desk.store_lock:
                    report = sync_team(
                        store, actor=desk.actor, progress=progress, private=desk.workspace.private
                    )
            except MemgovError as exc:
                self.app.call_from_thread(
                    self.notify, str(exc), title="Sync stopped", severity="error", timeout=15
                )
                continue
            except Exception as exc:  # a git failure: a notification, never an exit
                self.app.call_from_thread(
                    self.notify, failure_text(exc), title="Sync failed", severity="error"
                )
                continue
            severity = "warning" if report.untrusted else "information"
            self.app.call_from_thread(
                self.notify, report.render(), title="Synced", severity=severity, timeout=12
            )
        self.app.call_from_thread(self.sync_progress, "")
        self.app.call_from_thread(desk.stores_changed)

    @on(NextItem)
    def next_item(self, message: NextItem) -> None:
        """An item view deferred ``after``: the cursor goes to the item after it, in the
        order and filters on screen, and that one opens (none after it: the cursor
        stays on the deferred one)."""
        index = self.index_of(message.after, self.cursor_index())
        if index is None:
            return
        if index + 1 >= len(self.shown):
            self.place(index)
            self.notify("That was the last item here", timeout=4)
            return
        self.place(index + 1)
        self.action_open()

    def action_open(self) -> None:
        item = self.current()
        if item is None:
            self.notify("Nothing selected", severity="warning")
            return
        if is_outline(item):
            self.notify(STILL_READING, severity="warning")
            return
        self.app.push_screen(screen_for(item))

    def marked_items(self) -> list[Item]:
        by_id = {i.id: i for i in self.items}
        return [by_id[i] for i in self.marked if i in by_id]

    def action_mark(self) -> None:
        item = self.current()
        if item is None:
            self.notify("Nothing selected", severity="warning")
            return
        if item.id in self.marked:
            del self.marked[item.id]
        else:
            refusal = mark_refusal(self.marked_items(), item)
            if refusal is not None:
                self.notify(refusal, title="Not marked", severity="warning")
                return
            self.marked[item.id] = None
        self.sync_rows()
        self.show_status()
        self.move_by(1)

    def action_decide_marked(self) -> None:
        items = self.marked_items()
        if not items:
            self.notify("Mark items with space first", severity="warning")
            return
        if any(is_outline(i) for i in items):
            self.notify(STILL_READING, severity="warning")
            return
        decide_selection(self, items)

    def action_about(self) -> None:
        self.app.push_screen(AboutMeScreen())

    def action_history(self) -> None:
        item = self.current()
        first = item.records[0].memory.id if item and item.records else None
        self.app.push_screen(HistoryScreen(first))

    def action_health(self) -> None:
        self.app.push_screen(HealthScreen())

    def action_problems(self) -> None:
        self.app.push_screen(ProblemsScreen())


# ------------------------------------------------------------ in the worker
def reread(workspace: Workspace, *, full: bool = False) -> None:
    """Each store as it is on disk now: under its lock, a crash finished or undone,
    and only the files changed since the last read parsed again (``full``: every
    file's stat data checked, so an edit in place is seen: core.store.catalog)."""
    for store in workspace.stores:
        try:
            with store.locked():
                store.reread(full=full)
        except Exception:
            store.forget()  # what it held is not the store as it is: read it again next time
            raise


def refetch(
    workspace: Workspace, items: Sequence[Item], decisions: Sequence[Decision]
) -> dict[str, Item | None]:
    """The decisions' items and every item showing a record they changed, each built
    alone as it is now (None: closed)."""
    touched: set[str] = set()
    for d in decisions:
        touched |= set(d.before) | set(d.after) | set(d.erased)
        touched |= {c["id"] for c in d.created} | {t["id"] for t in d.touched}
    decided = dict.fromkeys(d.item for d in decisions)
    ids = [*decided, *(i.id for i in items if i.id not in decided and view.memory_ids(i) & touched)]
    found = find_items(workspace, ids)
    return {item_id: found.get(item_id) for item_id in ids}


def opened_or_closed(
    workspace: Workspace, items: Sequence[Item], known: Mapping[str, Item | None]
) -> dict[str, Item | None]:
    """Besides the items ``known`` (read again): the items open now that ``items`` does
    not hold, each built, and those it holds that are no longer open (None). The open
    ids come from the catalog and the request files (core.review.queue.open_ids): no
    other item is built."""
    now = open_ids(workspace)
    held = {i.id for i in items}
    new = [i for i in sorted(now - held) if i not in known]
    changed: dict[str, Item | None] = dict(find_items(workspace, new))
    changed.update((i, None) for i in held - now if i not in known)
    return changed


def warm_secret_scan(workspace: Workspace, lock: Any, cancelled: Callable[[], bool]) -> bool:
    """Scan every record file for secrets, a chunk at a time and without holding the
    store lock while scanning (the scan remembers each file by its stat data, so the
    queue's own scan afterwards costs a look-up per file). False: replaced meanwhile."""
    with lock:  # the catalog flags the files whose text holds a credential
        paths = [s.root / m.path for s in workspace.stores for m in s.memories.with_secrets()]
    for start in range(0, len(paths), SCAN_CHUNK):
        if cancelled():
            return False
        for path in paths[start : start + SCAN_CHUNK]:
            scan_file(path)
    return not cancelled()
