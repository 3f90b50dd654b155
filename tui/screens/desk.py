"""What every screen may use of the desk: the :class:`Desk` app base and :class:`DeskScreen`.

:class:`Desk` holds the workspace, the actor and the two ways a change starts:
:meth:`Desk.apply` runs a decision through core in a thread worker (it comes
back as :class:`DecisionApplied` or :class:`DecisionFailed`), and
:meth:`Desk.stores_changed` tells every screen to read the stores again (after a
decision, with the decision: the queue then reads again only the items it touched,
and its item leaves at once).
``tui.app.MemgovDesk`` is the one desk; screens reach it, typed, through
:attr:`DeskScreen.desk`, so no screen imports the app (no import cycle). Every
screen's footer is a :class:`DeskFooter`.

:meth:`DeskScreen.in_worker` is how a screen reads or writes a store: off the
UI thread, the result shown on it; any failure becomes a notification. A store
(its snapshot, its git repository) is not safe to share between threads, so
every worker of the desk holds :attr:`Desk.store_lock` while it works: one
store job at a time, and a job replaced while it waited does not run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import TypeVar

from rich.cells import cell_len
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey
from textual.worker import get_current_worker

from core.api.review import KINDS, NOT_CLOSING, Decision, Item
from core.api.stores import Workspace
from core.domain.errors import ItemChanged, MemgovError
from tui.messages import (
    DecisionApplied,
    DecisionFailed,
    DecisionsApplied,
    ItemsChanged,
    QueueLoaded,
    StoresChanged,
    WorkerDone,
)
from tui.render import failure_text

T = TypeVar("T")


class Desk(App[None]):
    """The desk's state and its changes; the chrome (keys, undo) is ``tui.app``'s."""

    def __init__(self, workspace: Workspace, *, actor: str, cursor_blink: bool = True) -> None:
        super().__init__()
        self.workspace = workspace
        self.actor = actor
        self.cursor_blink = cursor_blink
        self.store_lock = threading.Lock()

    def apply(self, label: str, run: Callable[[], Decision | list[Decision]]) -> None:
        """Run a decision (or a list, one commit) through core in a thread; report
        back as a message."""
        self.decide_in_worker(label, run)

    @work(thread=True, exclusive=True, group="decide", description="a decision")
    def decide_in_worker(self, label: str, run: Callable[[], Decision | list[Decision]]) -> None:
        try:
            with self.store_lock:
                decision = run()
        except ItemChanged as exc:  # the failure reads the stores again: shown as it is now
            self.post_message(DecisionFailed(changed_here(exc), label))
            return
        except MemgovError as exc:
            self.post_message(DecisionFailed(str(exc), label))
            return
        except Exception as exc:  # a git failure, a full disk: a notification, never an exit
            self.post_message(
                DecisionFailed(
                    f"{failure_text(exc)} (nothing half-written: the next command finishes "
                    f"or undoes the change; 'memgov doctor' checks)",
                    label,
                )
            )
            return
        if isinstance(decision, list):
            self.post_message(DecisionsApplied(decision, label))
        else:
            self.post_message(DecisionApplied(decision, label))

    def stores_changed(self, *decisions: Decision) -> None:
        """After any change: every screen that shows store data reads it again. After
        decisions that closed their items, the items leave every screen first, at once."""
        closed = {d.item: None for d in decisions if d.option not in NOT_CLOSING}
        if closed:
            self.items_changed(closed)
        for screen in self.screen_stack:
            screen.post_message(StoresChanged(decisions))

    def items_changed(self, changed: Mapping[str, Item | None]) -> None:
        """Some items were read again (or closed): every screen shows them as they are."""
        for screen in self.screen_stack:
            screen.post_message(ItemsChanged(changed))

    def queue_loaded(self, items: list[Item], kinds: Iterable[str] = KINDS) -> None:
        """The queue was read again: every screen shows what it holds now."""
        for screen in self.screen_stack:
            screen.post_message(QueueLoaded(items, kinds))


def changed_here(exc: ItemChanged) -> str:
    """An item changed since it was shown, as the desk says it: what changed, and what to
    do here (the desk shows it again as it is now; the core's words name a command)."""
    what = "; ".join(exc.changes[:4]) + ("; …" if len(exc.changes) > 4 else "")
    return (
        f"{exc.item} changed while you looked" + (f" ({what})" if what else "") + ": nothing "
        "was decided. It is shown again as it is now: read it, then press the key again."
    )


def cursor_blinks(app: App[object]) -> bool:
    """Whether text cursors blink (the desk may switch it off, e.g. for snapshots)."""
    return app.cursor_blink if isinstance(app, Desk) else True


class DeskScreen(Screen[None]):
    """A screen of the desk: typed access to it, and store work off the UI thread."""

    #: Textual's screen repaints all of itself at every change of focus (its
    #: ``focused`` is a reactive that repaints); the widgets whose look depends on the
    #: focus restyle and repaint themselves, so the screen need not: ``/`` and escape
    #: on the queue then draw the search line and the table, not every widget
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    @property
    def desk(self) -> Desk:
        app = self.app
        if not isinstance(app, Desk):
            raise TypeError(f"{type(self).__name__} runs only in the memgov desk")
        return app

    def in_worker(
        self,
        job: Callable[[], T],
        then: Callable[[T], None],
        *,
        failure: str,
        group: str,
        write: bool = False,
    ) -> None:
        """Run ``job`` in a thread worker, then ``then`` with its result on the UI thread
        unless the screen has closed. Any failure is a notification titled ``failure``.

        A read is replaced by a newer read of the same ``group`` (and dropped when the
        screen closes) before it runs; a ``write`` always runs, once."""
        self.run_worker(
            partial(self.run_job, job, then, failure, write),
            thread=True,
            exclusive=not write,
            group=group,
            # not Textual's default, the repr of the callable: that of every item it holds
            description=failure,
        )

    def run_job(
        self, job: Callable[[], T], then: Callable[[T], None], failure: str, write: bool
    ) -> None:
        worker = get_current_worker()
        try:
            with self.desk.store_lock:
                if worker.is_cancelled and not write:  # replaced while it waited
                    return
                result = job()
        except ItemChanged as exc:  # not what is on screen: every screen shows it as it is
            self.app.notify(changed_here(exc), title=failure, severity="error", timeout=12)
            self.post_message(WorkerDone(self.desk.stores_changed))
            return
        except MemgovError as exc:
            self.app.notify(str(exc), title=failure, severity="error", timeout=12)
            return
        except Exception as exc:  # a git error, an OSError: a notification, never an exit
            self.app.notify(failure_text(exc), title=failure, severity="error", timeout=12)
            return
        if write or not worker.is_cancelled:
            self.post_message(WorkerDone(partial(then, result)))

    @on(WorkerDone)
    def worker_done(self, message: WorkerDone) -> None:
        message.show()


FooterKeyId = tuple[str, str, str, str, bool, object]


class DeskFooter(Footer):
    """Textual's footer, composed again only when what it shows changed. Textual's
    composes it anew on every refresh of the bindings (each change of focus, each
    return to the screen), and each key it shows is a widget styled again (the queue's
    footer: some 0.3 s of the UI thread each time). When the keys to show now are some
    of those it holds, in their order, it hides the others instead (dims them while a
    text box has the focus: the keys it types), and shows them again after; keys that
    do not fit the width are left out by :data:`LEFT_OUT_FIRST` (:meth:`fit`)."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: tuple[object, ...] | None = None
        #: the keys composed, in order, each with what it shows
        self.composed: list[tuple[FooterKeyId, FooterKey]] = []
        #: the indexes of the keys to show, and whether the others show dimmed
        #: (None: every key, as composed)
        self.kept: tuple[set[int], bool] | None = None

    def compose(self) -> ComposeResult:
        self.composed = []
        self.kept = None
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                self.composed.append((footer_key_id(widget), widget))
            yield widget
        self.call_after_refresh(self.fit)

    def bindings_changed(self, screen: Screen[object]) -> None:
        if not (screen.app.app_focus and self.is_attached and screen is self.screen):
            super().bindings_changed(screen)  # nothing composed: nothing remembered
            return
        app = self.app
        shown = tuple(
            (b.key, b.action, b.description, b.group, app.get_key_display(b), enabled, tooltip)
            for _node, b, enabled, tooltip in screen.active_bindings.values()
            if b.show or b.key == app.COMMAND_PALETTE_BINDING
        )
        if shown == self.shown:
            self._bindings_ready = True
            return
        self.shown = shown
        wanted = self.keys_for(screen)
        # a text box has the focus: the keys it takes are dimmed, not removed (the
        # footer's layout stays, and with it the screen's: no reflow when typing
        # starts or ends, half the cost of ``/`` and escape)
        typing = isinstance(screen.focused, Input)
        if wanted is not None and self.show_only(wanted, dim_others=typing):
            self._bindings_ready = True
            return
        super().bindings_changed(screen)

    def keys_for(self, screen: Screen[object]) -> list[FooterKeyId] | None:
        """The keys Textual's compose would show for these bindings (None: grouped
        keys, which only a compose shows)."""
        app = self.app
        first: dict[str, tuple[Binding, bool, str]] = {}
        for _node, binding, enabled, tooltip in screen.active_bindings.values():
            if binding.show:
                first.setdefault(binding.action, (binding, enabled, tooltip))
        if any(binding.group is not None for binding, _, _ in first.values()):
            return None
        keys: list[FooterKeyId] = [
            (b.key, app.get_key_display(b), b.description, b.action, not enabled, tooltip or None)
            for b, enabled, tooltip in first.values()
        ]
        palette = screen.active_bindings.get(app.COMMAND_PALETTE_BINDING)
        if palette is not None and self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            _node, b, enabled, _tooltip = palette
            tip = b.tooltip or b.description or None
            keys.append((b.key, app.get_key_display(b), b.description, b.action, not enabled, tip))
        return keys

    def show_only(self, wanted: list[FooterKeyId], *, dim_others: bool = False) -> bool:
        """Show exactly ``wanted`` of the keys composed, when they are some of them in
        their order; False (nothing changed) otherwise. ``dim_others``: the others stay,
        dimmed (they do nothing now), instead of hidden."""
        keep: set[int] = set()
        position = 0
        for key in wanted:
            while position < len(self.composed) and self.composed[position][0] != key:
                position += 1
            if position == len(self.composed):
                return False
            keep.add(position)
            position += 1
        self.kept = (keep, dim_others)
        self.fit()
        return True

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Show the keys kept; when they are wider than the footer, leave out first
        those of the whole desk and the way back (``?`` lists them all), so that the
        screen's own keys, its decisions, stay whole (at 80 columns a conflict's
        "x Neither" was cut and "d Defer" gone)."""
        if not self.composed:
            return
        if self.kept is None:  # as composed: every key
            keep, dim_others = set(range(len(self.composed))), False
        else:
            keep, dim_others = self.kept
        shown = {i for i in range(len(self.composed)) if i in keep or dim_others}
        room = self.size.width
        need = sum(key_width(self.composed[i][0]) for i in shown)
        for action in LEFT_OUT_FIRST:
            if not room or need <= room:
                break
            for index in sorted(shown):
                if self.composed[index][0][3] == action:
                    shown.discard(index)
                    need -= key_width(self.composed[index][0])
        for index, (key, widget) in enumerate(self.composed):
            dimmed = key[4] or (index not in keep)  # disabled when composed, or now
            if widget.display != (index in shown):
                widget.display = index in shown
            if widget.has_class("-disabled") != dimmed:
                widget.set_class(dimmed, "-disabled")
                widget._disabled = dimmed  # a click on it rings the bell, as Textual's


#: the footer's keys left out first when they do not all fit, by action: the desk's,
#: the way back, then the queue's other screens and filters; ``?`` last of all
LEFT_OUT_FIRST = (
    *("toggle_theme", "quit", "undo", "back", "history"),
    *("problems", "health", "about", "kind(-1)", "kind(1)", "scope", "context(-1)", "context(1)"),
    "keys",
)


def key_width(key: FooterKeyId) -> int:
    """The cells a footer key takes: `` k `` and ``Description ``."""
    _key, display, description, *_ = key
    return cell_len(display) + 2 + (cell_len(description) + 1 if description else 0)


def footer_key_id(widget: FooterKey) -> FooterKeyId:
    tooltip = widget.tooltip if isinstance(widget.tooltip, str) and widget.tooltip else None
    return (
        widget.key,
        widget.key_display,
        widget.description,
        widget.action,
        widget.has_class("-disabled"),
        tooltip,
    )
