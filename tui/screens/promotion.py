"""The promotion view: a private record beside the team's records of the same key,
the secret scan first; ``a`` creates the team copy, ``r`` keeps it private."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.domain.words import store_label
from core.review.items import PromotionAnalysis
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen


class PromotionScreen(ItemScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a",
            "approve",
            "Approve",
            id="promotion.approve",
            tooltip="Create the team copy (sources kept)",
        ),
        Binding(
            "r",
            "reject",
            "Reject",
            id="promotion.reject",
            tooltip="Close the request; the record stays private",
        ),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        yield Static(id="scan")
        with Horizontal(id="columns"):
            yield VerticalScroll(Static(id="private-record"), classes="record-column")
            yield VerticalScroll(Static(id="team-records"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    @property
    def blocked(self) -> list[str]:
        return sorted({h.rule for h in self.item.scan})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "approve" and self.blocked:
            return None  # shown, greyed out
        return True

    def refresh_view(self) -> None:
        request = self.item.request
        assert request is not None
        scan = Text()
        if self.blocked:
            scan.append("secret scan: " + ", ".join(self.blocked), style="bold red")
            scan.append(
                " · approve is disabled: remove the credential from the record "
                "(correct it) and ask again; the value is never shown",
                style="red",
            )
        else:
            scan.append("secret scan: clean", style="bold green")
        scan.append(
            f"\nrequested by {request.requested_by}: {safe(request.reason)}", style="italic"
        )
        self.query_one("#scan", Static).update(scan)
        self.query_one("#private-record", Static).update(
            record_card(self.item.records[0], label=" private record ")
        )
        team = self.item.team_records
        self.query_one("#team-records", Static).update(
            Group(*(record_card(r, label=" team record of the same key ") for r in team))
            if team
            else Text(
                " team store \n\nno team record of this key: approving creates one", style="dim"
            )
        )
        self.refresh_bindings()

    def action_approve(self) -> None:
        if self.blocked:
            self.notify("Blocked by the secret scan: " + ", ".join(self.blocked), severity="error")
            return
        memory = self.item.records[0].memory
        request = self.item.request
        assert request is not None
        team = self.workspace.team
        # the core's own rule (same key, same value after normalising), never a copy
        outcome = self.item.analysis_as(PromotionAnalysis).outcome or "no team store"
        proposal = Proposal(
            f"Promote {memory.id} to the team store",
            (
                f"{store_label('team', team.root.name) if team else 'team store ?'}: {outcome}",
                "sources kept; the private record stays as it is",
                "secret scan again before writing",
                "request closed",
            ),
            f"promoted to team: {request.reason}",
        )
        self.decide_with(
            proposal,
            f"promote {memory.id}",
            approve=True,
        )

    def action_reject(self) -> None:
        self.decide_with(
            Proposal(
                "Reject the promotion",
                ("the record stays private", "request closed with your reason"),
                "stays private: a personal preference, not a team rule",
            ),
            f"reject {self.item.id}",
            approve=False,
        )
