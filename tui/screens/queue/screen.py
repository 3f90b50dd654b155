"""The queue screen: everything waiting for a person, oldest first, by kind and
scope, searchable; enter opens an item beside its evidence, space marks items to
decide at once, ``S`` syncs the team stores.

The queue is read in a worker (:mod:`tui.screens.queue.reading`: on mount, on ``R``
and whenever the stores change); the desk then hands the items to every screen
(:class:`tui.messages.QueueLoaded`). After a decision its item leaves at once and
the worker reads again only what the decision touched.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from functools import partial
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.widgets import Header, Input, Static, Tab, Tabs

from core.api.review import KINDS, Decision, Item, is_outline, view
from tui.messages import ItemsChanged, NextItem, QueueLoaded, StoresChanged, WorkerDone
from tui.screens.about import AboutMeScreen
from tui.screens.desk import DeskFooter
from tui.screens.health import HealthScreen
from tui.screens.history import HistoryScreen
from tui.screens.problems import ProblemsScreen
from tui.screens.queue.keys import QUEUE_BINDINGS
from tui.screens.queue.reading import WORKER_DESCRIPTION, read_queue
from tui.screens.queue.sync import sync_teams
from tui.screens.queue.table import QueueTable
from tui.screens.queue.window import SCOPES, QueueWindow
from tui.screens.selection import decide_selection, mark_refusal
from tui.screens.views import screen_for

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
#: each kind's tab when the full labels do not fit the screen's width (at 80 columns):
#: every kind stays in sight, none behind the edge
SHORT_LABELS = {
    "all": "All",
    "conflict": "Confl",
    "promotion": "Promo",
    "deletion": "Del",
    "consolidation": "Batch",
    "secret": "Secret",
    "stale": "Stale",
    "held": "Held",
    "quarantine": "Quar",
    "untrusted": "Untr",
}


def tab_labels(counts: dict[str, int], width: int) -> tuple[list[str], bool]:
    """The kind tabs' labels with their counts, and whether they are the short ones:
    the full labels when they fit ``width`` (each tab's padding counted), else the
    short ones (the bar, compact, pads each with one cell). Should even those not fit,
    the bar scrolls to keep the active tab in view."""
    full = [f"{label} {counts[kind]}" for kind, label in KIND_TABS]
    if sum(len(label) + 2 for label in full) <= width:
        return full, False
    return [f"{SHORT_LABELS[kind]} {counts[kind]}" for kind, _label in KIND_TABS], True


#: what enter on an item in outline says (its records are not read yet)
STILL_READING = "Its records are being read: a moment, then enter opens it"


class KindTabs(Tabs):
    """The kinds' tabs, the underline moved at once: Textual slides it for 0.3 s,
    some twenty frames of the screen while the next keys wait."""

    def _highlight_active(self, animate: bool = True) -> None:
        super()._highlight_active(animate=False)


class QueueScreen(QueueWindow):
    """Everything waiting for a person, oldest first."""

    BINDINGS: ClassVar[list[BindingType]] = QUEUE_BINDINGS

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
            yield QueueTable(self.move_by, id="queue")
            yield Static(id="preview")
        yield Static(id="status-line")
        yield DeskFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # enter in the search box keeps the search instead of opening an item
        return not (action == "open" and isinstance(self.focused, Input))

    def on_mount(self) -> None:
        table = self.table
        table.add_columns("Opened", "Kind", "Scope", "Item")
        self.reload()
        table.focus()

    def on_unmount(self) -> None:
        gc.unfreeze()  # the desk closes: what its reads kept is the collector's again

    def on_resize(self) -> None:
        self.query_one("#preview").set_class(self.size.width < 110, "hidden")
        self.label_tabs()

    def label_tabs(self) -> None:
        """Each kind's tab labelled with its count, short when the screen is narrow."""
        labels, short = tab_labels(self.counts, self.size.width)
        tabs = self.query_one("#kinds", Tabs)
        tabs.set_class(short, "short")
        for (kind, _label), label in zip(KIND_TABS, labels, strict=True):
            tab = self.query_one(f"#tab-{kind}", Tab)
            if str(tab.label) != label:
                tab.label = label

    # ----------------------------------------------------------------- data
    @on(StoresChanged)
    def stores_changed(self, message: StoresChanged) -> None:
        for decision in message.decisions:  # decided (a deferred one too): unmarked
            self.marked.pop(decision.item, None)
        if any(d.option == "revert" for d in message.decisions):
            # an undo: every item read again, not only those its record names (a revert
            # names what it put back, not what it took out), so the next key finds
            # each item as it is and is not refused as changed
            self.reload()
            return
        self.reload(message.decisions)

    def reload(self, decisions: Sequence[Decision] = (), *, full: bool = False) -> None:
        """Read the queue again in a worker (a read under way is replaced). After
        decisions, first the items they touched, then the whole queue. ``full`` (the
        reload key): every file's stat data is checked."""
        self.reading = "reading the stores…"
        self.show_status()
        self.run_worker(
            partial(
                read_queue, self, self.desk, self.items if decisions else None, decisions, full
            ),
            thread=True,
            exclusive=True,
            group="queue",
            description=WORKER_DESCRIPTION,
        )

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
            # key); ``R`` gives them back to it before reading again
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
            self.label_tabs()
        self.fill()

    @on(QueueTable.RowHighlighted)
    def highlighted(self) -> None:
        self.show_preview()

    @on(QueueTable.RowSelected)
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

    def action_first(self) -> None:
        self.move_by(-len(self.shown))

    def action_last(self) -> None:
        self.move_by(len(self.shown))

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
        """Escape: the search goes first; with none (or the box only open), the kind and
        scope filters; with none of them, nothing."""
        search = self.query_one("#search", Input)
        searching = bool(self.query_text) or search.has_focus
        search.value = ""  # its Changed message finds the query cleared: one fill, here
        search.add_class("closed")
        search.can_focus = False
        if self.query_text:
            self.query_text = ""
            self.fill()
        elif not searching and (self.kind != "all" or self.scope != "all"):
            self.scope = "all"
            if self.kind != "all":
                self.query_one("#kinds", Tabs).active = "tab-all"  # its message fills
            else:
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
        self.run_worker(
            partial(sync_teams, self.desk, teams, self.sync_progress),
            thread=True,
            exclusive=True,
            group="sync",
            description="a team sync",
        )

    def sync_progress(self, text: str) -> None:
        self.reading = text
        self.show_status()

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
