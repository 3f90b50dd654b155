"""The deletion view: the record a person asked to erase, what erasing it takes
with it, and approve (erase for good) or reject (keep it)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from core.api.review import (
    DeletionAnalysis,
)
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves


class DeletionScreen(ItemScreen):
    KIND = "deletion"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "e", "approve", "Erase", id="deletion.approve", tooltip="Erase the memory for good"
        ),
        Binding(
            "K",
            "reject",
            "Keep",
            id="deletion.reject",
            tooltip="Keep it; the request closes with your reason",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        yield Static(id="request")
        yield VerticalScroll(Static(id="record"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        request = self.item.request
        assert request is not None
        text = Text(
            f"requested by {request.requested_by} on {request.requested_at[:10]}: ", style="bold"
        )
        text.append(safe(request.reason), style="italic")
        text.append(
            "\napproving erases the content for good: file, index line and "
            + (
                "git history"
                if self.item.store.config.scope == "private"
                else "working tree (team clones keep their history)"
            ),
            style="red",
        )
        for copy in self.team_copies():
            text.append(
                f"\nits promoted team copy {copy} stays in the team store: approving opens a "
                "deletion request there for a maintainer to decide",
                style="yellow",
            )
        self.query_one("#request", Static).update(text)
        self.query_one("#record", Static).update(record_card(self.item.records[0]))

    def team_copies(self) -> list[str]:
        return [c.id for c in self.item.analysis_as(DeletionAnalysis).team_copies]

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        return action if action in ("approve", "reject") else None

    def action_approve(self) -> None:
        memory = self.item.records[0].memory
        request = self.item.request
        assert request is not None
        self.decide_with(
            Proposal(
                f"Erase {memory.id} for good",
                (),
                f"deletion approved: {request.reason}",
                destructive=True,
                warning="This cannot be undone.",
            ),
            f"erase {memory.id}",
            approve=True,
        )

    def action_reject(self) -> None:
        self.decide_with(
            Proposal("Keep the memory", (), "kept: the memory still holds"),
            f"keep {self.item.id}",
            approve=False,
        )
