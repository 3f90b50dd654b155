"""The held memory view: a file of an agent's folder that an import or a sync did
not write on its own.

Left, the agent's file as it is now, with each line holding an internal address
marked by its pattern, and what was found; right, the record it touches (the
erased one a re-learned memory brings back, the one memgov changed), if any. The
keys are the item's options (the core's actions): an internal address is
*redacted* (``M``, mask), *kept* private (``K``) or *dropped* (``x``); a memory
re-learned after its erasure is *learned* again (``L``) or *forgotten* (``f``); a
file changed on both sides takes the *agent*'s version (``A``) or *memgov*'s
(``m``); a memory waiting for consent (the file the agent wrote, as the store holds
it: the folder keeps the approved version) is *kept* (``K``: written back, imported)
or *dropped* (``x``). Each asks for the reason first and shows the core's preview.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.review import HeldAnalysis
from core.domain import secrets
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves

#: the most lines of the agent's file the view shows (the rest is counted)
SHOWN_LINES = 400


class HeldScreen(ItemScreen):
    KIND = "held"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "M",
            "decide('redact')",
            "Redact",
            id="held.redact",
            tooltip="Import it with each internal address replaced by a mark",
        ),
        Binding(
            "K",
            "decide('keep')",
            "Keep",
            id="held.keep",
            tooltip="Import it as it is, as a private memory",
        ),
        Binding("x", "decide('drop')", "Drop", id="held.drop", tooltip="Do not import it"),
        Binding(
            "L",
            "decide('learn')",
            "Learn again",
            id="held.learn",
            tooltip="The agent learned it again after its erasure: import it",
        ),
        Binding(
            "f",
            "decide('forget')",
            "Forget",
            id="held.forget",
            tooltip="Keep it forgotten: not imported, and the agent's file is deleted",
        ),
        Binding(
            "A",
            "decide('agent')",
            "Agent's",
            id="held.agent",
            tooltip="Take the agent's version: imported as new evidence for the record",
        ),
        Binding(
            "m",
            "decide('memgov')",
            "memgov's",
            id="held.memgov",
            tooltip="Keep memgov's version: written back to the agent's file",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        with Horizontal(id="columns"):
            yield VerticalScroll(Static(id="agent-file"), classes="record-column")
            yield VerticalScroll(Static(id="record"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        analysis = self.item.analysis_as(HeldAnalysis)
        beside = self.item.store.root.parent
        self.query_one("#agent-file", Static).update(held_text(analysis, beside))
        record = self.query_one("#record", Static)
        if self.item.records:
            record.update(record_card(self.item.records[0], label=" the record "))
        else:
            record.update(
                Text.assemble(
                    (" the record ", "bold reverse"),
                    ("\n\nno record yet: nothing of this file is in the store", "dim"),
                )
            )
        self.refresh_bindings()

    def action_decide(self, option: str) -> None:
        analysis = self.item.analysis_as(HeldAnalysis)
        meaning = analysis.meanings.get(option, option)
        self.decide_with(
            Proposal(f"{option.capitalize()}: {analysis.file}", (), meaning),
            f"{option} {self.item.id}",
            approve=option != analysis.options[-1],  # the last option rejects
            option=option,
        )

    def action_history(self) -> None:
        if not self.item.records:
            self.notify("No record yet: this file has not been imported", severity="warning")
            return
        super().action_history()


def shown_folder(folder: str, beside: Path) -> str:
    """The agent's folder as a person finds it: relative to the folder that holds the
    stores when it is in there, else its last three folders (``memgov show`` gives the
    whole path)."""
    path = Path(folder)
    try:
        return str(path.relative_to(beside))
    except ValueError:
        return str(Path("…", *path.parts[-3:])) if len(path.parts) > 4 else folder


def held_text(analysis: HeldAnalysis, beside: Path) -> Group:
    """What was held and why, the options, and the agent's file with the marked lines
    (``beside``: the folder that holds the stores)."""
    head = Text()
    head.append(f" {analysis.named} ", style="bold reverse")
    head.append(f"\n\n{safe(analysis.file)}:{analysis.line}", style="bold")
    head.append(f" in {safe(shown_folder(analysis.folder, beside))}\n", style="dim")
    head.append(safe(analysis.detail))
    options = Text()
    for option in analysis.options:
        options.append(f"\n{option}", style="bold")
        options.append(f": {analysis.meanings[option]}")
    body = Text()
    consent = analysis.reason == "consent"  # the folder keeps the approved version
    shown = " what the agent wrote, held " if consent else " the agent's file now "
    body.append(f"\n{shown}", style="bold reverse")
    body.append("\n")
    if analysis.agent_text is None:
        body.append("\ngone or changed since it was held: deciding reads it again", style="yellow")
        return Group(head, options, body)
    marked = dict(analysis.marked)
    lines = secrets.redact(analysis.agent_text).splitlines()
    width = len(str(min(len(lines), SHOWN_LINES)))
    for number, line in enumerate(lines[:SHOWN_LINES], start=1):
        found = marked.get(number)
        body.append(f"\n{number:>{width}} ", style="dim")
        body.append(safe(line), style="bold yellow" if found else "")
        if found:
            body.append(f"  ← {', '.join(found)}", style="yellow")
    if len(lines) > SHOWN_LINES:
        body.append(f"\n… {len(lines) - SHOWN_LINES} more lines", style="dim")
    return Group(head, options, body)
