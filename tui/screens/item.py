"""What every item view shares: the item, its banner (who decides, and what the actor
may do here and why not), back with esc, a decision's confirmation (the core's
preview with the reason), and the item as the queue holds it after each change.

An item view reads no store itself: after a change the queue screen's worker reads
again the items the change touched (:class:`ItemsChanged`), then the queue
(:class:`QueueLoaded`); either brings the item as it is now, or without it
(decided) the view goes back to the queue. After a deferral (the item stays open,
marked as looked at) the view goes back too and asks the queue for the next item
(:class:`tui.messages.NextItem`).

What the actor may do comes from the core (core.review.actions): each view maps its
decision keys to the core's actions (:meth:`ItemScreen.core_action`); a key the
actor may not use is shown greyed out, and pressing it says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events, on
from textual.actions import parse
from textual.binding import Binding, BindingType
from textual.widgets import Static

from core.api.review import (
    Action,
    Decision,
    Item,
    Preview,
    actions_for,
    changes_between,
    decide,
    preview,
    shown_hash,
)
from core.api.stores import Workspace
from core.domain import policy
from tui.messages import ItemsChanged, NextItem, QueueLoaded, StoresChanged
from tui.screens.desk import DeskScreen
from tui.screens.dialogs import Proposal, ReasonDialog
from tui.screens.history import HistoryScreen
from tui.screens.moves import Moving


def decided_notice(label: str, decision: Decision) -> str:
    """What the desk's notification says of a decision (or an undo) that landed: what
    it decided, what else it changed or discarded (core.review.consequences), its note,
    and whether ``u`` undoes it."""
    undo = "  (u to undo)" if decision.revertible else ""
    lines = [f"{label}: {decision.id}{undo}"]
    if decision.option == "defer":
        lines.append("left open in the queue, marked as looked at")
    lines += [f"• {c.text}" for c in decision.consequences]
    if decision.note:
        lines.append(decision.note)
    return "\n".join(lines)


def decided_list_notice(label: str, decisions: Sequence[Decision]) -> str:
    """What the notification says of a list decided in one commit: its decisions, and
    what else they changed or discarded, each fact once."""
    shown = ", ".join(d.id for d in decisions[:3]) + (
        f" and {len(decisions) - 3} more" if len(decisions) > 3 else ""
    )
    lines = [
        f"{label}: {len(decisions)} decisions in one commit ({shown}); "
        "undo any of them with memgov revert ID"
    ]
    lines += [f"• {c.text}" for c in dict.fromkeys(c for d in decisions for c in d.consequences)]
    return "\n".join(lines)


def list_undo_refusal(decisions: Sequence[Decision]) -> str:
    """Why ``u`` undoes nothing after a list: each of its decisions is reverted alone."""
    shown = ", ".join(d.id for d in decisions[:3]) + (" …" if len(decisions) > 3 else "")
    return (
        f"The last change was {len(decisions)} decisions in one commit: u undoes one "
        f"decision, so revert each with memgov revert ID ({shown})"
    )


def decided_title(decision: Decision) -> str:
    """The notification's title: an undo is "Undone", anything else "Decided"."""
    return "Undone" if decision.option == "revert" else "Decided"


class ItemScreen(Moving, DeskScreen):
    """Shared by every item view: the item, back with esc, reload after decisions.
    Each view names the kind of item it shows (``KIND``, one of core.review.kinds);
    :func:`tui.screens.views.screen_for` opens an item in the view of its kind."""

    #: the kind of item the view shows (None: this base, which shows none)
    KIND: ClassVar[str | None] = None

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="item.back", tooltip="Back to the queue"),
        Binding("tab", "focus_next", "Next column", show=False, id="item.next_column"),
        Binding(
            "h", "history", "History", id="item.history", tooltip="Timeline of the first record"
        ),
    ]

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self._actions: tuple[Action, ...] | None = None
        #: what changed in the item since it was first shown (core.review.seen)
        self.changed_note: str | None = None
        #: a decision's preview is being computed (its dialog is not up yet)
        self.previewing = False
        #: enter was pressed while it was: meant for the dialog (a slow terminal, the
        #: browser: the dialog opens a moment after the key), kept for it
        self.enter_ahead = False

    @property
    def actions(self) -> tuple[Action, ...]:
        """What the actor may do with this item, and why not (core.review.actions)."""
        if self._actions is None:
            self._actions = actions_for(self.item, self.actor, self.workspace)
        return self._actions

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """The core's action a screen action decides (None: it decides nothing): a
        ``decide('<option>')`` binding decides that option; a screen with other actions
        names its own."""
        if action == "decide" and parameters and isinstance(parameters[0], str):
            return parameters[0]
        return None

    def refusal(self, name: str) -> str | None:
        """Why the actor may not take the core's action ``name`` here (None: they may)."""
        return next((a.refused for a in self.actions if a.name == name), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        name = self.core_action(action, parameters)
        if name is None:
            return True
        if not any(a.name == name for a in self.actions):
            return False  # no action of this item (ask again, before a replacement)
        if self.refusal(name) is not None:
            return None  # shown, greyed out; pressing it says why (on_key)
        return True

    def label_of(self, name: str) -> str:
        """The core's action ``name`` as this view's key for it says it ("Erase (e)")."""
        for active in self.active_bindings.values():
            binding = active.binding
            _namespace, action, parameters = parse(binding.action)
            if active.node is self and self.core_action(action, parameters) == name:
                return f"{binding.description} ({self.app.get_key_display(binding)})"
        return name

    def on_key(self, event: events.Key) -> None:
        """A decision key the actor may not use here says why, instead of nothing.
        Enter pressed while a decision's preview is computed is kept for its dialog."""
        if event.key == "enter" and self.previewing:
            event.stop()
            self.enter_ahead = True
            return
        active = self.active_bindings.get(event.key)
        if active is None or active.enabled:
            return
        _namespace, name, parameters = parse(active.binding.action)
        core = self.core_action(name, parameters)
        refusal = self.refusal(core) if core is not None else None
        if refusal is not None:
            event.stop()
            self.notify(
                refusal, title=f"{active.binding.description}: not here", severity="warning"
            )

    @property
    def workspace(self) -> Workspace:
        return self.desk.workspace

    @property
    def actor(self) -> str:
        return self.desk.actor

    def action_back(self) -> None:
        self.dismiss(None)

    def action_history(self) -> None:
        self.app.push_screen(HistoryScreen(self.item.records[0].memory.id))

    @on(QueueLoaded)
    def queue_loaded(self, message: QueueLoaded) -> None:
        """After a change: the item is gone (back to the queue) or as it is now."""
        if self.item.kind not in message.kinds:  # its kind was not read (yet)
            return
        self.show_item(next((i for i in message.items if i.id == self.item.id), None))

    @on(ItemsChanged)
    def items_changed(self, message: ItemsChanged) -> None:
        if self.item.id in message.changed:
            self.show_item(message.changed[self.item.id])

    @on(StoresChanged)
    def stores_changed(self, message: StoresChanged) -> None:
        """Deferred here: the item stays open (marked as looked at in the queue); the
        view goes back and asks the queue for the next item."""
        deferred = any(d.item == self.item.id and d.option == "defer" for d in message.decisions)
        if not deferred or self is not self.app.screen:
            return
        stack = self.app.screen_stack
        if len(stack) > 1:
            stack[-2].post_message(NextItem(self.item.id))
        self.dismiss(None)

    def show_item(self, item: Item | None) -> None:
        if self is not self.app.screen:
            return
        if item is None:  # decided (here or elsewhere): back to the queue
            self.dismiss(None)
            return
        if item != self.item:
            changes = changes_between(self.item, item)
            self.changed_note = (
                "changed while you looked: " + "; ".join(changes[:4]) if changes else None
            )
            self.item = item
            self._actions = None
            self.refresh_view()
            self.refresh_bindings()
            self.query_one("#item-head", Static).update(self.banner())

    def refresh_view(self) -> None:  # pragma: no cover - each view overrides
        pass

    def propose(self, proposal: Proposal, label: str, run: Callable[[str], Decision]) -> None:
        def chosen(reason: str | None) -> None:
            if reason is not None:
                self.desk.apply(label, lambda: run(reason))

        ahead, self.enter_ahead = self.enter_ahead, False
        if routine(proposal) and (ahead or self.item.store.config.desk_reason == "prefilled"):
            chosen(proposal.reason)  # the prefilled reason, recorded with the actor
            return
        self.app.push_screen(ReasonDialog(proposal), chosen)

    def decide_with(self, proposal: Proposal, label: str, *, approve: bool, **options: Any) -> None:
        """Ask the core what the decision will change (a dry run, in a worker), show
        that in the dialog with the reason, then decide this item in a worker. The
        desk writes no change list of its own: what the dialog lists is the core's
        preview. A decision the core would refuse is a notification, no dialog.

        Both are bound to the item as it is on screen (core.review.seen): if it
        changed since, the core refuses, and the view shows it again with what
        changed."""
        item_id = self.item.id
        options = {**options, "shown": shown_hash(self.item), "was": self.item}

        def shown(outcome: Preview) -> None:
            changes = tuple(line.strip() for line in outcome.lines(besides=False)[1:])
            also = tuple(c.text for c in outcome.consequences)
            self.propose(
                replace(proposal, changes=changes, also=also),
                label,
                lambda reason: decide(
                    self.workspace,
                    item_id,
                    approve=approve,
                    actor=self.actor,
                    reason=reason,
                    decision_id=outcome.decision,  # the ids the dialog showed
                    **options,
                ),
            )

        def previewed(outcome: Preview) -> None:
            self.previewing = False
            shown(outcome)

        def previewing() -> Preview:
            try:
                return preview(
                    self.workspace, item_id, approve=approve, actor=self.actor, **options
                )
            except BaseException:  # a refusal: its notification, no dialog, no enter kept
                self.app.call_from_thread(self.preview_over)
                raise

        self.previewing, self.enter_ahead = True, False
        self.in_worker(previewing, previewed, failure=f"Cannot {label}", group="preview")

    def preview_over(self) -> None:
        """A refused preview opens no dialog: an enter kept for it is dropped."""
        if not self.previewing:
            return
        self.previewing = False
        self.enter_ahead = False

    def banner(self) -> RenderableType:
        store = self.item.store
        team_decides = self.item.scope == "team" or self.item.kind == "promotion"
        deciders = self.workspace.team if self.item.kind == "promotion" else store
        if team_decides:
            maintainers = (
                ", ".join(policy.shown(m) for m in deciders.config.maintainers)
                if deciders
                else "none configured"
            )
            who = f"maintainers decide ({maintainers})"
            may = deciders is not None and policy.is_maintainer(deciders, self.actor)
        else:
            who = f"{store.config.owner or 'the owner'} decides"
            may = policy.is_owner(store, self.actor)
        title = self.item.title
        head = Text(
            title if title.startswith(self.item.kind) else f"{self.item.kind} · {title}",
            style="bold",
        )
        head.append(
            f"\n{store.root.name} store · {who} · opened {self.item.opened_at[:10]}", style="dim"
        )
        if not may:
            head.append(f" · {policy.shown(self.actor)} may not decide it", style="yellow")
        if self.changed_note:
            head.append(f"\n{self.changed_note}", style="bold magenta")
        head.append("\n")
        head.append_text(self.may_text())
        return head

    def may_text(self) -> Text:
        """What the actor may do here, and why not the rest (the core's actions)."""
        who = policy.shown(self.actor)
        allowed = [self.label_of(a.name) for a in self.actions if a.allowed]
        refused: dict[str, list[str]] = {}
        for a in self.actions:
            if a.refused is not None:
                refused.setdefault(a.refused, []).append(self.label_of(a.name))
        text = Text()
        if allowed and not refused:
            text.append(f"you ({who}) may take any of its decisions", style="green")
        elif allowed:
            text.append(f"you ({who}) may: {', '.join(allowed)}", style="green")
        else:
            text.append(f"you ({who}) may not decide it", style="bold yellow")
        for reason, names in refused.items():
            if allowed:
                text.append(f"\nnot {', '.join(names)}: ", style="yellow")
            else:
                text.append(
                    ": " if len(refused) == 1 else f"\n{', '.join(names)}: ", style="yellow"
                )
            text.append(reason, style="yellow")
        return text


def routine(proposal: Proposal) -> bool:
    """Whether a decision may be taken with its prefilled reason and no dialog (by
    ``desk_reason: prefilled``, or enter pressed before its dialog opened): a reason is
    prefilled, and it erases nothing for good and changes nothing besides its own
    records (such a decision's dialog shows what it would, first, always)."""
    return bool(proposal.reason.strip()) and not (
        proposal.destructive or proposal.also or proposal.warning
    )
