"""Deciding several queue items at once: which items a selection may hold, the
outcomes a selection may take, and the one path of its decision.

A selection holds items of one kind and one store that decide alone in one
transaction (conflicts, deletions, secrets: core.review.decide.decide_many).
``D`` asks for the outcome (:class:`OutcomeDialog`), then shows the core's
preview of the whole list with the reason (the same dialog as one decision),
then decides the list in a worker: one commit, every decision recorded as if
made alone, all or nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from core.api.review import (
    Choice,
    HeldAnalysis,
    Item,
    Kind,
    Preview,
    decide_many,
    is_outline,
    preview_many,
    shown_hash,
)
from tui.screens.desk import DeskScreen
from tui.screens.dialogs import Proposal, ReasonDialog


@dataclass(frozen=True)
class Outcome:
    """One outcome a whole selection may take."""

    key: str
    label: str
    approve: bool
    option: str | None = None
    reason: str = ""
    destructive: bool = False


#: the outcomes of each kind a selection may hold (parallel needs a condition per
#: record, neither erases both: each is decided from its own item view)
OUTCOMES: Mapping[str, tuple[Outcome, ...]] = {
    Kind.CONFLICT: (
        Outcome("newer", "Newer wins", True, "newer", "the newer record wins"),
        Outcome("older", "Older wins", True, "older", "the older record is right"),
        Outcome("defer", "Defer", False, None, "deferred: needs more evidence"),
    ),
    Kind.DELETION: (
        Outcome("approve", "Erase for good", True, None, "erasure approved", destructive=True),
        Outcome("reject", "Keep them", False, None, "erasure rejected: still needed"),
    ),
    Kind.SECRET: (
        Outcome("erase", "Erase for good", True, "erase", "holds a credential", destructive=True),
        Outcome("defer", "Defer", False, None, "deferred: needs a look"),
    ),
    Kind.STALE: (
        Outcome("expire", "Expire them", True, "expire", "reported out of date, and it is"),
        Outcome("keep", "Keep them", False, None, "reported out of date, but it still holds"),
    ),
    # held memories whose options are keep and drop: a day's new memories waiting for
    # consent, or the write gate's doubts (the other reasons are decided one by one)
    Kind.HELD: (
        Outcome("keep", "Keep them", True, "keep", "kept: it may reach the agent"),
        Outcome("drop", "Drop them", False, None, "dropped: not for the agent's memory"),
    ),
}
#: the options of the held items a selection may hold
LISTED_HELD = ("keep", "drop")


def mark_refusal(marked: Sequence[Item], item: Item) -> str | None:
    """Why ``item`` may not join the selection ``marked``; None: it may."""
    if item.kind not in OUTCOMES:
        return f"a {item.kind} is decided on its own: open it with enter"
    if item.kind == Kind.HELD and item.analysis_as(HeldAnalysis).options != LISTED_HELD:
        return "a held memory that is not kept or dropped is decided on its own: open it"
    if not marked:
        return None
    first = marked[0]
    if item.kind != first.kind:
        many = len(marked) != 1
        return (
            f"a selection holds one kind: {len(marked)} {first.kind} "
            f"{'items are' if many else 'item is'} marked"
        )
    if item.store is not first.store:
        return (
            f"a selection holds one store's items: the marked ones are in the "
            f"{first.store.root.name} store"
        )
    return None


class OutcomeDialog(ModalScreen[Outcome | None]):
    """Which outcome every marked item takes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel")
    ]

    def __init__(self, items: Sequence[Item]) -> None:
        super().__init__()
        self.items = items
        self.outcomes = OUTCOMES[items[0].kind]

    def compose(self) -> ComposeResult:
        kind = self.items[0].kind
        with Vertical(id="dialog"):
            title = f"Decide {_count(len(self.items), f'marked {kind} item')}"
            yield Label(title, id="dialog-title")
            yield Static(
                "\n".join(f"• {i.title}" for i in self.items[:8])
                + (f"\n• … and {len(self.items) - 8} more" if len(self.items) > 8 else ""),
                id="dialog-changes",
            )
            yield Label("Every marked item takes the same outcome, in one commit:")
            with Horizontal(id="dialog-buttons"):
                for n, outcome in enumerate(self.outcomes):
                    yield Button(
                        outcome.label,
                        id=f"outcome-{n}",
                        variant="error" if outcome.destructive else "primary",
                    )
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#outcome-0", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button.startswith("outcome-"):
            self.dismiss(self.outcomes[int(button.removeprefix("outcome-"))])
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def decide_selection(screen: DeskScreen, items: Sequence[Item]) -> None:
    """The outcome, then the core's preview of the list with the reason, then the
    list decided in a worker. A list the core would refuse is a notification."""
    desk = screen.desk
    ids = [i.id for i in items]
    # each item bound to what the queue showed of it (a conflict set in outline shows
    # no record yet: the preview lists what the decision changes)
    shown = {i.id: None if is_outline(i) else shown_hash(i) for i in items}

    def chosen(outcome: Outcome | None) -> None:
        if outcome is None:
            return
        choice = Choice(approve=outcome.approve, option=outcome.option)
        label = f"{outcome.label} ({_count(len(ids), 'item')})"

        def previewed(preview: Preview) -> None:
            proposal = Proposal(
                title=label,
                changes=tuple(line.strip() for line in preview.lines(besides=False)[1:]),
                reason=outcome.reason,
                destructive=outcome.destructive,
                also=tuple(c.text for c in preview.consequences),
            )

            def reasoned(reason: str | None) -> None:
                if reason is None:
                    return
                given = replace(choice, reason=reason)
                desk.apply(
                    label,
                    lambda: decide_many(
                        desk.workspace,
                        [(i, replace(given, shown=shown[i])) for i in ids],
                        actor=desk.actor,
                    ),
                )

            screen.app.push_screen(ReasonDialog(proposal), reasoned)

        screen.in_worker(
            lambda: preview_many(
                desk.workspace,
                [(i, replace(choice, reason=outcome.reason, shown=shown[i])) for i in ids],
                actor=desk.actor,
            ),
            previewed,
            failure=f"Cannot {label}",
            group="preview",
        )

    screen.app.push_screen(OutcomeDialog(items), chosen)
