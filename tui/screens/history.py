"""History: any memory's timeline from the event log and git, and its supersedes chain.

The list of memories is read in a worker (on mount and whenever the stores
change) and filtered on screen; each highlighted memory's timeline or evidence
is read in a worker too. The screen says so meanwhile."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Header, Input, Static

from core.api.reading import history
from core.api.review import evidence_for
from core.api.stores import Store, Workspace
from tui.messages import StoresChanged
from tui.render import clip, record_card, safe, status_text
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.moves import Moving, moves

#: one memory in the list: its store, id, what search looks in, and its status
Entry = tuple[Store, str, str, str]
#: the list's share of the screen at most, and its width at least (cells)
LIST_SHARE, LIST_MIN = 0.55, 30
#: a memory id cut to fit keeps this many cells at least (with its ellipsis)
ID_MIN = 12


def timeline(store: Store, memory_id: str) -> RenderableType:
    h = history(store, memory_id)
    parts: list[RenderableType] = []
    chain = Text()
    if h.older:
        chain.append("replaced: " + " ← ".join(h.older) + "\n", style="dim")
    chain.append(memory_id, style="bold")
    if h.newer:
        chain.append("\nreplaced by: " + " → ".join(h.newer), style="cyan")
    parts.append(chain)
    if not h.exists:
        parts.append(Text("erased: only its events remain (ids, key, content hash)", style="red"))
    events = Text()
    for ev in h.events:
        events.append(ev.ts[:16].replace("T", " "), style="dim")
        events.append(f"  {ev.action}", style="bold")
        if ev.to_status:
            events.append(f"  {ev.from_status or 'new'} → ")
            events.append_text(status_text(ev.to_status))
        events.append(f"\n   {ev.actor}", style="cyan")
        events.append(f": {safe(ev.reason)}\n")
        if ev.decision:
            events.append(f"   {ev.decision}\n", style="dim")
    parts.append(events)
    if h.commits:
        commits = Text("\ncommits\n", style="bold")
        for c in h.commits:
            commits.append(f"{c.sha[:8]} ", style="yellow")
            commits.append(f"{c.when[:10]} {c.author}: {c.message.splitlines()[0]}\n")
            if c.sha in h.untrusted:
                commits.append(f"         {safe(h.untrusted[c.sha])}\n", style="bold yellow")
        parts.append(commits)
    return Group(*parts)


def entries(workspace: Workspace) -> list[Entry]:
    """Every memory of every store, erased ones (from their events) included."""
    found: list[Entry] = []
    for store in workspace.stores:
        erased = {i for e in store.events()[0] if e.to_status == "deleted" for i in e.memory_ids}
        listed = store.memories.summaries()  # id, subject and status: no record built
        for memory_id in sorted(set(listed) | erased):
            subject, status = listed.get(memory_id, ("", "deleted"))
            text = f"{memory_id} {subject}".casefold()
            found.append((store, memory_id, text, status))
    return found


def store_name(store: Store) -> str:
    """The store as the list names it: its folder's name (``private``, ``team``)."""
    return store.root.name


def list_widths(
    rows: list[tuple[Store, str, str]], spans: bool, screen_width: int
) -> tuple[int, list[int]]:
    """The list's width and its columns' (memory, status, and store when the history
    spans stores): each as wide as its widest cell, the list at most
    :data:`LIST_SHARE` of the screen; when that is too narrow, the ids alone are cut
    (with an ellipsis), never the statuses or the stores."""
    ids = max((len(m) for _s, m, _t in rows), default=0)
    widths = [max(ids, len("Memory")), max([len("Status"), *(len(t) for *_x, t in rows)])]
    if spans:
        widths.append(max([len("Store"), *(len(store_name(s)) for s, _m, _t in rows)]))
    # each column's padding (one cell each side), the scroll bar's two cells
    chrome = 2 * len(widths) + 2
    most = max(LIST_MIN, int(screen_width * LIST_SHARE))
    widths[0] = max(min(widths[0], most - chrome - sum(widths[1:])), ID_MIN)
    return sum(widths) + chrome, widths


def detail(store: Store, memory_id: str, *, evidence: bool) -> RenderableType:
    """The memory's record with its evidence, or (erased, or asked for) its timeline."""
    memory = store.memories.get(memory_id)
    if evidence and memory is not None:
        return record_card(evidence_for(store, memory))
    return timeline(store, memory_id)


class HistoryScreen(Moving, DeskScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="history.back"),
        Binding("slash", "search", "Search", key_display="/", id="history.search"),
        Binding(
            "e",
            "evidence",
            "Evidence",
            id="history.evidence",
            tooltip="Switch between the timeline and the record with its evidence",
        ),
        *moves("history"),
    ]

    def __init__(self, memory_id: str | None = None) -> None:
        super().__init__()
        self.start = memory_id
        self.entries: list[Entry] = []
        self.rows: list[tuple[Store, str]] = []
        self.show_evidence = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="columns"):
            with Vertical(id="history-left"):
                search = Input(placeholder="filter memories", id="history-search", classes="hidden")
                search.cursor_blink = self.desk.cursor_blink
                yield search
                yield DataTable(id="history-list", cursor_type="row")
            yield VerticalScroll(
                Static(id="history-detail"), id="history-detail-column", classes="record-column"
            )
        yield DeskFooter()

    def on_mount(self) -> None:
        self.reload()
        self.query_one("#history-list", DataTable).focus()

    def on_resize(self) -> None:
        if self.entries:
            self.fill(self.query_one("#history-search", Input).value, keep_cursor=True)

    @on(StoresChanged)
    def reload(self) -> None:
        self.query_one("#history-detail", Static).update(Text("reading the stores…", style="dim"))
        self.in_worker(
            lambda: entries(self.desk.workspace),
            self.loaded,
            failure="History could not be read",
            group="history-list",
        )

    def loaded(self, found: list[Entry]) -> None:
        self.entries = found
        self.fill(self.query_one("#history-search", Input).value)

    def fill(self, needle: str, *, keep_cursor: bool = False) -> None:
        """The list, its columns measured from every memory (a search does not change
        them): the same at the first render as at every later one."""
        table = self.query_one("#history-list", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        spans = len({store.root for store, *_rest in self.entries}) > 1
        width, widths = list_widths(
            [(store, m, status) for store, m, _t, status in self.entries], spans, self.size.width
        )
        self.query_one("#history-left").styles.width = width
        for label, size in zip(("Memory", "Status", "Store"), widths, strict=False):
            table.add_column(label, width=size)
        self.rows = []
        needle = needle.casefold()
        for store, memory_id, text, status in self.entries:
            if needle and needle not in text:
                continue
            self.rows.append((store, memory_id))
            cells: list[RenderableType] = [clip(memory_id, widths[0]), status_text(status)]
            if spans:
                cells.append(Text(store_name(store), style="dim"))
            table.add_row(*cells, key=f"{store.root}:{memory_id}")
        if keep_cursor and self.rows:
            table.move_cursor(row=min(cursor, len(self.rows) - 1))
        if self.start is not None and self.entries:
            ids = [m for _s, m in self.rows]
            if self.start in ids:
                table.move_cursor(row=ids.index(self.start))
            self.start = None
        self.show()

    def show(self) -> None:
        table = self.query_one("#history-list", DataTable)
        view = self.query_one("#history-detail", Static)
        if not self.rows or not 0 <= table.cursor_row < len(self.rows):
            view.update(Text("no memory", style="dim"))
            return
        store, memory_id = self.rows[table.cursor_row]
        view.update(Text(f"reading {memory_id}…", style="dim"))
        evidence = self.show_evidence
        self.in_worker(
            lambda: detail(store, memory_id, evidence=evidence),
            view.update,
            failure=f"The history of {memory_id} could not be read",
            group="history-detail",
        )

    @on(DataTable.RowHighlighted)
    def highlighted(self) -> None:
        self.show()

    def action_evidence(self) -> None:
        self.show_evidence = not self.show_evidence
        self.show()

    def action_search(self) -> None:
        search = self.query_one("#history-search", Input)
        search.remove_class("hidden")
        search.focus()

    @on(Input.Changed, "#history-search")
    def search_changed(self, event: Input.Changed) -> None:
        self.fill(event.value.strip())

    @on(Input.Submitted, "#history-search")
    def search_done(self) -> None:
        self.query_one("#history-list", DataTable).focus()

    def action_back(self) -> None:
        self.dismiss(None)
