"""The queue: the four kinds of item with counts, oldest first, filterable.

The queue is read in a worker (on mount, on ``r`` and whenever the stores change);
the desk then hands the items to every screen (:class:`QueueLoaded`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Input, Static, Tab, Tabs

from core.review.items import ConflictAnalysis, Item
from core.review.queue import build_queue
from tui.messages import QueueLoaded, StoresChanged
from tui.render import memory_header, safe
from tui.screens.about import AboutMeScreen
from tui.screens.desk import DeskScreen
from tui.screens.health import HealthScreen
from tui.screens.history import HistoryScreen
from tui.screens.items import screen_for
from tui.screens.problems import ProblemsScreen

KIND_TABS = (
    ("all", "All"),
    ("conflict", "Conflicts"),
    ("promotion", "Promotions"),
    ("deletion", "Deletions"),
    ("consolidation", "Batches"),
    ("secret", "Secrets"),
)
SCOPES = ("all", "private", "team")


def preview(item: Item) -> RenderableType:
    parts: list[RenderableType] = [
        Text(item.title, style="bold"),
        Text(f"{item.kind} · {item.scope} · opened {item.opened_at[:16]}", style="dim"),
    ]
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
    for rec in item.records:
        parts.append(Text(""))
        parts.append(memory_header(rec.memory))
        parts.append(Text(safe(rec.memory.content)))
        parts.append(
            Text(
                f"{len(rec.sources)} source(s) · confidence {rec.memory.confidence:.2f}",
                style="dim",
            )
        )
    parts.append(Text("\nenter: open with the evidence", style="dim"))
    return Group(*parts)


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
            tooltip="Filter by id, subject or title",
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
            "r", "reload", "Reload", show=False, id="queue.reload", tooltip="Read the stores again"
        ),
        Binding("escape", "clear_search", "Clear", show=False, id="queue.clear"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.items: list[Item] = []
        self.kind = "all"
        self.scope = "all"
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Tabs(*(Tab(label, id=f"tab-{kind}") for kind, label in KIND_TABS), id="kinds")
        search = Input(
            placeholder="search ids, subjects, contents (enter keeps it, esc clears)",
            id="search",
            classes="hidden",
        )
        search.cursor_blink = self.desk.cursor_blink
        yield search
        with Horizontal(id="queue-body"):
            table: DataTable[Any] = DataTable(id="queue", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static(id="preview")
        yield Static(id="status-line")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # enter in the search box keeps the search instead of opening an item
        return not (action == "open" and isinstance(self.focused, Input))

    def on_mount(self) -> None:
        table = self.query_one("#queue", DataTable)
        table.add_columns("Opened", "Kind", "Scope", "Item")
        self.reload()
        table.focus()

    def on_resize(self) -> None:
        self.query_one("#preview").set_class(self.size.width < 110, "hidden")

    # ----------------------------------------------------------------- data
    @on(StoresChanged)
    def reload(self) -> None:
        self.query_one("#status-line", Static).update("reading the stores…")
        self.in_worker(
            self.read_queue,
            self.desk.queue_loaded,
            failure="The queue could not be read",
            group="queue",
        )

    def read_queue(self) -> list[Item]:
        """In the worker: each store read again, then the queue built once."""
        workspace = self.desk.workspace
        for store in workspace.stores:
            store.refresh()
        return build_queue(workspace)

    @on(QueueLoaded)
    def loaded(self, message: QueueLoaded) -> None:
        self.items = message.items
        counts = {kind: sum(1 for i in self.items if i.kind == kind) for kind, _ in KIND_TABS}
        counts["all"] = len(self.items)
        for kind, label in KIND_TABS:
            self.query_one(f"#tab-{kind}", Tab).label = f"{label} {counts[kind]}"
        self.fill()

    def shown_items(self) -> list[Item]:
        needle = self.query_text.casefold()
        return [
            i
            for i in self.items
            if (self.kind == "all" or i.kind == self.kind)
            and (self.scope == "all" or i.scope == self.scope)
            and (not needle or needle in self.haystack(i))
        ]

    @staticmethod
    def haystack(item: Item) -> str:
        """What search looks in: ids, title, subject, and each record's words."""
        words = [item.id, item.title, item.subject]
        for rec in item.records:
            words += [rec.memory.id, safe(rec.memory.content), safe(rec.memory.value or "")]
        return " ".join(words).casefold()

    def fill(self) -> None:
        table = self.query_one("#queue", DataTable)
        current = self.current()
        table.clear()
        shown = self.shown_items()
        for item in shown:
            table.add_row(item.opened_at[:10], item.kind, item.scope, safe(item.title), key=item.id)
        if current is not None and current.id in {i.id for i in shown}:
            table.move_cursor(row=[i.id for i in shown].index(current.id))
        filters = [
            f"kind {self.kind}" if self.kind != "all" else "",
            f"scope {self.scope}" if self.scope != "all" else "",
            f"search “{self.query_text}”" if self.query_text else "",
        ]
        active = ", ".join(f for f in filters if f)
        waiting = (
            f"{len(shown)} of {len(self.items)} items"
            if active
            else f"{len(self.items)} items waiting, oldest first"
        )
        self.query_one("#status-line", Static).update(
            waiting + (f" · {active}" if active else "") + " · ? keys · ctrl+p commands"
        )
        self.show_preview()

    def current(self) -> Item | None:
        table = self.query_one("#queue", DataTable)
        if table.row_count == 0:
            return None
        shown = self.shown_items()
        row = table.cursor_row
        return shown[row] if 0 <= row < len(shown) else None

    def show_preview(self) -> None:
        item = self.current()
        self.query_one("#preview", Static).update(
            preview(item) if item else Text("Nothing waiting. Well done.", style="dim")
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
        self.query_one("#queue", DataTable).action_cursor_down()

    def action_up(self) -> None:
        self.query_one("#queue", DataTable).action_cursor_up()

    def action_kind(self, step: int) -> None:
        tabs = self.query_one("#kinds", Tabs)
        tabs.action_next_tab() if step > 0 else tabs.action_previous_tab()

    def action_scope(self) -> None:
        self.scope = SCOPES[(SCOPES.index(self.scope) + 1) % len(SCOPES)]
        self.fill()

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.remove_class("hidden")
        search.focus()

    @on(Input.Changed, "#search")
    def search_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self.fill()

    @on(Input.Submitted, "#search")
    def search_done(self) -> None:
        self.query_one("#queue", DataTable).focus()

    def action_clear_search(self) -> None:
        search = self.query_one("#search", Input)
        search.value = ""
        search.add_class("hidden")
        self.query_text = ""
        self.fill()
        self.query_one("#queue", DataTable).focus()

    def action_reload(self) -> None:
        self.reload()

    def action_open(self) -> None:
        item = self.current()
        if item is None:
            self.notify("Nothing selected", severity="warning")
            return
        self.app.push_screen(screen_for(item))

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
