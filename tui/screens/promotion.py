"""The promotion view: a private record beside the team's records of the same key,
the secret scan first; ``a`` creates the team copy, ``r`` keeps it private, ``w``
withdraws the request (who asked, or the record's owner), ``n`` asks again for the
record that replaced the requested one (a correction). A key the actor may not use
here is greyed out and says why when pressed (approve, while the scan finds a
credential)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.review import PromotionAnalysis, blocked_rules, close_reason, reject_reason, successor
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves


class PromotionScreen(ItemScreen):
    KIND = "promotion"
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
        Binding(
            "w",
            "close_request('withdraw')",
            "Withdraw",
            id="promotion.withdraw",
            tooltip="Withdraw the request (who asked, or the owner): nothing is promoted",
        ),
        Binding(
            "n",
            "close_request('rerequest')",
            "Ask again",
            id="promotion.rerequest",
            tooltip="Move the request to the record that replaced this one (a correction)",
        ),
        *moves("item"),
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
        return blocked_rules(self.item)

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "close_request" and parameters:
            return str(parameters[0])
        return action if action in ("approve", "reject") else None

    def refresh_view(self) -> None:
        request = self.item.request
        assert request is not None
        scan = Text()
        if self.blocked:
            scan.append("secret scan: " + ", ".join(self.blocked), style="bold red")
            scan.append(
                " · correct the record from its 'secret in a record' item (or about me); "
                "the value is never shown",
                style="red",
            )
        else:
            scan.append("secret scan: clean", style="bold green")
        memory = self.item.records[0].memory
        if memory.status != "active":
            newer = successor(self.item.store, memory)
            scan.append(
                f"\n{memory.id} is {memory.status} since the request: "
                + (
                    f"{newer.id} replaced it; R asks again for that one, w withdraws"
                    if newer is not None
                    else "w withdraws the request"
                ),
                style="bold yellow",
            )
        scan.append(
            f"\nrequested by {request.requested_by}: {safe(request.reason)}", style="italic"
        )
        proposal = self.item.analysis_as(PromotionAnalysis).proposal
        if proposal is not None:
            scan.append(
                f"\nproposal branch {proposal.branch} (commit {proposal.tip[:10]}, pushed by "
                f"{safe(proposal.by)} from their record {proposal.private_record}); the same "
                "branch is a pull request on your forge",
                style="dim",
            )
            for line in proposal.evidence:
                scan.append(f"\n  quoted: {safe(line)}", style="dim italic")
        self.query_one("#scan", Static).update(scan)
        label = " proposed team record " if proposal is not None else " private record "
        self.query_one("#private-record", Static).update(
            record_card(self.item.records[0], label=label)
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
        memory = self.item.records[0].memory
        request = self.item.request
        assert request is not None
        self.decide_with(
            Proposal(
                f"Promote {memory.id} to the team store",
                (),
                f"promoted to team: {request.reason}",
            ),
            f"promote {memory.id}",
            approve=True,
        )

    def action_reject(self) -> None:
        self.decide_with(
            Proposal("Reject the promotion", (), reject_reason(self.item)),
            f"reject {self.item.id}",
            approve=False,
        )

    def action_close_request(self, option: str) -> None:
        title = (
            "Withdraw the promotion request"
            if option == "withdraw"
            else "Ask again, for the record that replaced this one"
        )
        self.decide_with(
            Proposal(title, (), close_reason(self.item, option, self.actor)),
            f"{'withdraw' if option == 'withdraw' else 'ask again for'} {self.item.id}",
            approve=False,
            option=option,
        )
