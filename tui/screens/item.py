"""What every item view shares: the item, its banner, back with esc, a decision's
reason dialog, and the item as the queue holds it after each change.

An item view reads no store itself: after a change the queue screen's worker reads
again the items the change touched (:class:`ItemsChanged`), then the queue
(:class:`QueueLoaded`); either brings the item as it is now, or without it
(decided) the view goes back to the queue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType

from core.domain import policy
from core.review.decide import decide, preview
from core.review.items import Item
from core.review.preview import Preview
from core.store.decisions import Decision
from core.store.workspace import Workspace
from tui.messages import ItemsChanged, QueueLoaded
from tui.screens.desk import DeskScreen
from tui.screens.dialogs import Proposal, ReasonDialog
from tui.screens.history import HistoryScreen


class ItemScreen(DeskScreen):
    """Shared by every item view: the item, back with esc, reload after decisions."""

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

    def show_item(self, item: Item | None) -> None:
        if self is not self.app.screen:
            return
        if item is None:  # decided (here or elsewhere): back to the queue
            self.dismiss(None)
            return
        if item != self.item:
            self.item = item
            self.refresh_view()

    def refresh_view(self) -> None:  # pragma: no cover - each view overrides
        pass

    def propose(self, proposal: Proposal, label: str, run: Callable[[str], Decision]) -> None:
        def chosen(reason: str | None) -> None:
            if reason is not None:
                self.desk.apply(label, lambda: run(reason))

        self.app.push_screen(ReasonDialog(proposal), chosen)

    def decide_with(self, proposal: Proposal, label: str, *, approve: bool, **options: Any) -> None:
        """Ask the core what the decision will change (a dry run, in a worker), show
        that in the dialog with the reason, then decide this item in a worker. The
        desk writes no change list of its own: what the dialog lists is the core's
        preview. A decision the core would refuse is a notification, no dialog."""
        item_id = self.item.id

        def shown(outcome: Preview) -> None:
            changes = tuple(line.strip() for line in outcome.lines()[1:])
            self.propose(
                replace(proposal, changes=changes),
                label,
                lambda reason: decide(
                    self.workspace,
                    item_id,
                    approve=approve,
                    actor=self.actor,
                    reason=reason,
                    **options,
                ),
            )

        self.in_worker(
            lambda: preview(self.workspace, item_id, approve=approve, actor=self.actor, **options),
            shown,
            failure=f"Cannot {label}",
            group="preview",
        )

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
        return head
