"""The stale report view: the user says a memory is wrong or out of date.

The report (who filed it, the user's words, how old the record is and how it has
been used) beside the record with its sources: the evidence side by side. ``e``
expires the record (it is recalled no more), ``c`` corrects it (a new record, with
what the person writes, supersedes it), ``K`` keeps it (it still holds: verified
now). Each asks for the reason first and shows the core's preview of what changes.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.review import STALE_REASONS as DEFAULT_REASONS
from core.api.review import StaleAnalysis
from core.domain.words import counted
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import CorrectDialog, Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves


class StaleScreen(ItemScreen):
    KIND = "stale"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "e",
            "expire",
            "Expire",
            id="stale.expire",
            tooltip="It no longer holds: the record expires and is recalled no more",
        ),
        Binding(
            "c",
            "correct",
            "Correct",
            id="stale.correct",
            tooltip="Write what is true now: a new record supersedes this one",
        ),
        Binding(
            "K",
            "keep",
            "Keep",
            id="stale.keep",
            tooltip="It still holds: the report closes and the record is verified now",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        with Horizontal(id="columns"):
            yield VerticalScroll(Static(id="report"), classes="record-column")
            yield VerticalScroll(Static(id="record"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        return action if action in ("expire", "correct", "keep") else None

    def refresh_view(self) -> None:
        request = self.item.request
        assert request is not None
        analysis = self.item.analysis_as(StaleAnalysis)
        memory = self.item.records[0].memory
        said = Text(" the report ", style="bold reverse")
        said.append(f"\n\n{request.requested_by} on {request.requested_at[:10]}:\n", style="bold")
        said.append(f"“{safe(request.reason)}”", style="italic")
        used = (
            f"recalled {counted(analysis.usage_count, 'time')}, last {analysis.last_used_at[:10]}"
            if analysis.last_used_at
            else "never recalled"
        )
        said.append(
            f"\n\nthe record was last verified {counted(analysis.verified_days, 'day')} ago; "
            f"{used}",
            style="dim",
        )
        if analysis.expires_at:
            said.append(f"; it expires on {analysis.expires_at[:10]}", style="dim")
        if memory.status == "active":
            said.append(
                "\n\ne expire: recalled no more, out of the index · c correct: a new record "
                "says what is true · K keep: it still holds, verified now",
                style="italic",
            )
        else:
            said.append(
                f"\n\n{memory.id} is {memory.status} since the report: it is no longer used "
                "as current; k closes the report and leaves the record as it is",
                style="yellow",
            )
        self.query_one("#report", Static).update(Group(said))
        self.query_one("#record", Static).update(
            record_card(self.item.records[0], label=" the record ")
        )
        self.refresh_bindings()

    def action_expire(self) -> None:
        memory = self.item.records[0].memory
        self.decide_with(
            Proposal(f"Expire {memory.id}", (), DEFAULT_REASONS["expire"]),
            f"expire {memory.id}",
            approve=True,
            option="expire",
        )

    def action_correct(self) -> None:
        memory = self.item.records[0].memory
        label = f"correct {memory.id}"

        def with_content(content: str | None) -> None:
            if content is None:
                return
            self.decide_with(
                Proposal(f"Correct {memory.id}", (), DEFAULT_REASONS["correct"]),
                label,
                approve=True,
                option="correct",
                content=content,
            )

        self.desk.push_screen(CorrectDialog(memory.id, safe(memory.content)), with_content)

    def action_keep(self) -> None:
        memory = self.item.records[0].memory
        still = memory.status == "active"
        self.decide_with(
            Proposal(
                f"Keep {memory.id}: it still holds" if still else "Close the report",
                (),
                DEFAULT_REASONS["keep" if still else "close"],
            ),
            f"keep {memory.id}",
            approve=False,
        )
