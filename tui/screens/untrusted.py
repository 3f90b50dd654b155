"""The untrusted change view: a commit on the team's main that no listed maintainer
signed, which this clone did not take (core.team.untrusted).

Left, who wrote it, who committed it, who signed it and why that is not enough, and
each file it changes with the record it is there; right, its diff, every credential
shown as ``[secret: rule-id]`` and every terminal control named. A maintainer
*ratifies* it (``A``: its changes are taken, here and, once synced, everywhere) or
*rejects* it (``r``: one signed commit brings it in and undoes it). Only the first
change that waits can be decided; the others say so. Each asks for the reason first.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.review import UntrustedAnalysis
from core.api.team import decide_item
from tui.render import safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves

#: the most lines of the diff the view shows (the rest is counted; memgov show has all)
SHOWN_LINES = 600


class UntrustedScreen(ItemScreen):
    KIND = "untrusted"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "A",
            "decide('ratify')",
            "Ratify",
            id="untrusted.ratify",
            tooltip="Take its changes as your own: here and, once synced, in every clone",
        ),
        Binding(
            "r",
            "decide('reject')",
            "Reject",
            id="untrusted.reject",
            tooltip="Undo its changes: one commit you sign brings it in and undoes it",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        with Horizontal(id="columns"):
            yield VerticalScroll(Static(id="commit"), classes="record-column")
            yield VerticalScroll(Static(id="diff"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        analysis = self.item.analysis_as(UntrustedAnalysis)
        self.query_one("#commit", Static).update(commit_text(analysis))
        self.query_one("#diff", Static).update(diff_text(analysis))
        self.refresh_bindings()

    def action_decide(self, option: str) -> None:
        analysis = self.item.analysis_as(UntrustedAnalysis)
        changes = tuple(
            f"{f.change} {safe(f.path)}" + (f" ({safe(f.record)})" if f.record else "")
            for f in analysis.files
        )
        item = self.item
        ratify = option == "ratify"
        self.propose(
            Proposal(
                f"{option.capitalize()} commit {analysis.commit[:10]} by {safe(analysis.author)}",
                changes if ratify else (),
                analysis.meanings[option],
                destructive=ratify,
                warning="its changes take effect in every clone once you sync" if ratify else "",
            ),
            f"{option} {item.id}",
            lambda reason: decide_item(item, ratify, actor=self.actor, reason=reason),
        )


def commit_text(analysis: UntrustedAnalysis) -> Text:
    """Who wrote, committed and signed it, why that is not enough, what it changes."""
    text = Text.assemble((" the commit ", "bold reverse"), "\n\n")
    text.append(f"{analysis.commit}\n", style="dim")
    text.append(f"{safe(analysis.subject)}\n\n", style="bold")
    for label, value in (
        ("author", analysis.author),
        ("committer", analysis.committer),
        ("signed by", analysis.signer or "nobody"),
    ):
        text.append(f"{label}: ", style="dim")
        text.append(f"{safe(value)}\n")
    text.append("untrusted: ", style="bold yellow")
    text.append(f"{analysis.why}; not taken here\n\n")
    if not analysis.first:
        text.append("it waits behind another untrusted change: decide that one first\n\n")
    text.append(" what it would change ", style="bold reverse")
    text.append("\n\n")
    for entry in analysis.files:
        style = {"added": "green", "removed": "red"}.get(entry.change, "yellow")
        text.append(f"{entry.change:<8}", style=style)
        text.append(f" {safe(entry.path)}\n")
        if entry.record:
            text.append(f"         {safe(entry.record)}\n", style="dim")
    return text


def diff_text(analysis: UntrustedAnalysis) -> Text:
    """The diff, a line each, added and removed lines coloured."""
    text = Text.assemble((" the diff ", "bold reverse"), "\n\n")
    lines = safe(analysis.diff).splitlines()
    for line in lines[:SHOWN_LINES]:
        style = ""
        if line.startswith("+") and not line.startswith("+++"):
            style = "green"
        elif line.startswith("-") and not line.startswith("---"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        text.append(line + "\n", style=style)
    if len(lines) > SHOWN_LINES:
        text.append(f"... {len(lines) - SHOWN_LINES} more lines (memgov show)\n", style="dim")
    return text
