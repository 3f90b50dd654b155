"""The conflict view: the records of one key side by side, the sources each
favours, and one keystroke per outcome (newer, older, neither, parallel, defer)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.review import (
    ConditionHints,
    ConflictAnalysis,
    suggested_conditions,
)
from tui.render import clip, record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import ConditionsDialog, Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves


class ConflictScreen(ItemScreen):
    KIND = "conflict"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "n",
            "decide('newer')",
            "Newer wins",
            id="conflict.newer",
            tooltip="The newer record supersedes the older",
        ),
        Binding(
            "o",
            "decide('older')",
            "Older wins",
            id="conflict.older",
            tooltip="The older record is right; the newer is superseded",
        ),
        Binding(
            "p",
            "parallel",
            "Parallel",
            id="conflict.parallel",
            tooltip="Both hold, each under its own condition",
        ),
        Binding(
            "x",
            "decide('neither')",
            "Neither",
            id="conflict.neither",
            tooltip="Both are wrong: erase both for good",
        ),
        Binding(
            "d",
            "decide('defer')",
            "Defer",
            id="conflict.defer",
            tooltip="Leave it open; record that it was looked at",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        yield Static(id="steps")
        yield Horizontal(id="columns")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def ordered(self) -> list[Any]:
        return sorted(self.item.records, key=lambda r: r.memory.created_at)

    def refresh_view(self) -> None:
        self.query_one("#steps", Static).update(self.steps())
        columns = self.query_one("#columns", Horizontal)
        columns.remove_children()
        analysis = self.item.analysis_as(ConflictAnalysis)
        records = self.ordered()
        for index, rec in enumerate(records):
            label = "older" if index == 0 else "newer" if index == len(records) - 1 else "middle"
            verdict = ""
            if rec.memory.id == analysis.favoured:
                verdict = "sources favour this one: " + ", ".join(analysis.why)
            column = VerticalScroll(
                Static(record_card(rec, label=f" {label} ", verdict=verdict)),
                classes="record-column",
            )
            column.can_focus = True
            columns.mount(column)

    def steps(self) -> RenderableType:
        a = self.item.analysis_as(ConflictAnalysis)
        key = a.key
        records = self.ordered()
        values = " vs ".join(clip(safe(r.memory.value or r.memory.hook), 30) for r in records)
        lines = [
            Text.assemble(
                ("1 identify ", "bold"),
                f"{key.scope} · "
                f"{key.subject} #{key.attribute}"
                + (f" [{key.condition}]" if key.condition else "")
                + f": {len(records)} records, {values}",
            ),
            Text.assemble(
                ("2 weigh    ", "bold"),
                f"sources favour {a.favoured}: " + ", ".join(a.why),
            ),
        ]
        said = []
        for rec in records:
            h = a.condition_hints.get(rec.memory.id, ConditionHints())
            words = h.parallel + h.sequential
            if words:
                said.append(f"{rec.memory.id} says " + ", ".join(f"“{w}”" for w in words))
        lines.append(
            Text.assemble(
                ("3 conditions ", "bold"),
                "; ".join(said) + " → read them: parallel or sequential?"
                if said
                else "no source states a condition",
            )
        )
        pointers = [p for r in records for p in r.pointers if "MEMORY.md" in p]
        lines.append(
            Text.assemble(
                ("4 downstream ", "bold"),
                "; ".join(pointers)
                if pointers
                else "the winner gets an index line, the loser none",
            )
        )
        lines.append(
            Text.assemble(
                ("5 record   ", "bold"),
                "an event per transition with your reason, one commit; u undoes",
            )
        )
        return Group(*lines)

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "decide" and parameters:
            return str(parameters[0])
        return "parallel" if action == "parallel" else None

    def action_decide(self, option: str) -> None:
        """The core's preview of this outcome in the confirmation, then the decision."""
        records = self.ordered()
        older, newer = records[0].memory, records[-1].memory
        if option in ("newer", "older"):
            winner = newer if option == "newer" else older
            proposal = Proposal(
                f"{option.capitalize()} wins: {winner.id}", (), f"the {option} record wins"
            )
        elif option == "neither":
            proposal = Proposal(
                "Neither: erase both records for good",
                (),
                "neither record holds",
                destructive=True,
                warning="This cannot be undone: the content is erased.",
            )
        else:
            proposal = Proposal(
                "Defer: leave the conflict open, marked as looked at",
                (),
                "deferred: needs more evidence",
            )
        self.decide_with(
            proposal,
            f"{option} for {self.item.id}",
            approve=option != "defer",
            option=option,
        )

    def action_parallel(self) -> None:
        """A condition per record (prefilled with what the sources state, for every
        record: core.review.conflict.suggested_conditions), then the core's preview."""
        suggested = suggested_conditions(self.item)
        rows = [
            (rec.memory.id, clip(safe(rec.memory.hook), 50), suggested.get(rec.memory.id, ""))
            for rec in self.ordered()
        ]
        item_id = self.item.id

        def with_conditions(conditions: dict[str, str] | None) -> None:
            if conditions is None or self.item.id != item_id:
                return
            self.decide_with(
                Proposal("Parallel: both hold", (), "both hold, under different conditions"),
                f"parallel for {item_id}",
                approve=True,
                option="parallel",
                conditions=conditions,
            )

        self.app.push_screen(ConditionsDialog(rows), with_conditions)
