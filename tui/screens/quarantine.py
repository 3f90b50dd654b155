"""The quarantine view: what tries to steer the agent (core.review.quarantine).

Left, the text with every span a rule fired on marked (invisible characters named
``<U+200B>``), and each flag with its rule, family and why; right, where it came
from: for a held candidate the raw log lines it came with (the source message
marked) and who sent it how often, for a stored record its card with its sources.

A held candidate is *released* (``A``: it goes through the write pipeline as usual)
or *discarded* (``x``: the same text sent again is refused). A stored record is
*erased* (``e``), *corrected* (``c``: a record in the person's words supersedes it)
or *kept* (``K``: the person vouches for these words). Each asks for the reason and
shows the core's preview; the decision is bound to what is on screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.review import QUARANTINE_MEANING as MEANING
from core.api.review import QUARANTINE_REASONS as DEFAULT_REASONS
from core.api.review import QuarantineAnalysis
from core.domain.shown import visible
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves
from tui.screens.secret import SecretCorrectDialog

#: how many characters of the text the view shows (the rest is counted)
SHOWN_CHARS = 6_000


#: what the correction dialog says here (core.review.quarantine supersedes the record)
CORRECTION = (
    "A record with these words supersedes it; the old words are refused if an agent "
    "writes them again. Write what is true, as a fact, not an order; ctrl+s to continue."
)


def marked_text(analysis: QuarantineAnalysis) -> Text:
    """The text with each flagged span in reverse red, invisible characters named."""
    text = analysis.text[:SHOWN_CHARS]
    spans = sorted((f.start, min(f.end, len(text))) for f in analysis.flags if f.end > f.start)
    out = Text()
    at = 0
    for start, end in spans:
        if end <= at:
            continue
        start = max(start, at)
        out.append(_visible(text[at:start]))
        out.append(_visible(text[start:end]), style="bold reverse red")
        at = end
    out.append(_visible(text[at:]))
    if len(analysis.text) > SHOWN_CHARS:
        out.append(f"\n… {len(analysis.text) - SHOWN_CHARS:,} more characters", style="dim")
    return out


def _visible(part: str) -> str:
    """``part`` as a person may read it: invisible characters named, markup escaped."""
    return safe(visible(part))


def flags_text(analysis: QuarantineAnalysis) -> Text:
    out = Text()
    origin = "held candidate" if analysis.origin == "candidate" else "stored record"
    out.append(f" {origin}: what the detector found ", style="bold reverse")
    key = analysis.key
    out.append(f"\n\n{analysis.type} · {key.subject} #{key.attribute}", style="bold")
    if key.condition:
        out.append(f" [{key.condition}]", style="bold")
    role = analysis.role or ("a file" if analysis.source and analysis.source.file else "unknown")
    out.append(f"\nsource message from: {role}", style="yellow" if role != "user" else "dim")
    if analysis.origin == "candidate":
        out.append(f"\nsent by {analysis.held_by}", style="dim")
        if analysis.seen > 1:
            out.append(f", {analysis.seen} times", style="bold yellow")
    out.append("\n\n")
    for flag in analysis.flags:
        out.append(f"• {flag.rule}", style="bold red")
        out.append(f" ({flag.family})", style="dim")
        if flag.shown:
            out.append(" on “")
            out.append(_visible(flag.shown), style="reverse red")
            out.append("”")
        out.append(f"\n  {flag.why}\n", style="italic")
    out.append("\n")
    out.append(" the text, spans marked ", style="bold reverse")
    out.append("\n\n")
    out.append_text(marked_text(analysis))
    out.append("\n\n")
    for option in analysis.options:
        out.append(f"{option}: ", style="bold")
        out.append(f"{MEANING[option]}\n", style="dim")
    return out


def source_text(analysis: QuarantineAnalysis) -> Text:
    out = Text()
    out.append(" where it came from ", style="bold reverse")
    source = analysis.source
    if source is not None:
        where = source.file or source.log or "?"
        out.append(f"\n\ntask {safe(source.task)} · {safe(where)}", style="bold")
        if source.message_index is not None:
            out.append(f" · message {source.message_index}", style="dim")
        out.append("\nquoted evidence: ", style="dim")
        out.append(_visible(source.evidence) or "(none)")
    if analysis.excerpt:
        out.append(
            f"\n\nthe log as it was when it was held ({safe(analysis.excerpt_file or '')})\n",
            style="dim",
        )
        for number, line in analysis.excerpt:
            out.append(f"{number:>5} ", style="dim")
            out.append(_visible(line) + "\n")
    elif analysis.origin == "candidate":
        out.append("\n\nno log lines: the source is a file", style="dim")
    return out


class QuarantineScreen(ItemScreen):
    KIND = "quarantine"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "A",
            "decide('release')",
            "Release",
            id="quarantine.release",
            tooltip="Write it: it goes through the write pipeline as usual",
        ),
        Binding(
            "x",
            "decide('discard')",
            "Discard",
            id="quarantine.discard",
            tooltip="Do not write it; the same text sent again is refused",
        ),
        Binding(
            "e",
            "decide('erase')",
            "Erase",
            id="quarantine.erase",
            tooltip="Erase the record for good; the same text is refused if it comes back",
        ),
        Binding(
            "c",
            "decide('correct')",
            "Correct",
            id="quarantine.correct",
            tooltip="Replace it with a record in your words",
        ),
        Binding(
            "K",
            "decide('keep')",
            "Keep",
            id="quarantine.keep",
            tooltip="Keep the record: you vouch for these words",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        with Horizontal(id="columns"):
            yield VerticalScroll(Static(id="flags"), classes="record-column")
            yield VerticalScroll(Static(id="source"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        analysis = self.item.analysis_as(QuarantineAnalysis)
        self.query_one("#flags", Static).update(flags_text(analysis))
        right = self.query_one("#source", Static)
        if self.item.records:
            right.update(
                Group(
                    record_card(self.item.records[0], label=" the record "), source_text(analysis)
                )
            )
        else:
            right.update(source_text(analysis))
        self.refresh_bindings()

    def action_decide(self, option: str) -> None:
        analysis = self.item.analysis_as(QuarantineAnalysis)
        rejects = option in ("discard", "keep")
        label = f"{option} {self.item.id}"
        proposal = Proposal(
            f"{option.capitalize()}: {analysis.key.subject} #{analysis.key.attribute}",
            (),
            DEFAULT_REASONS[option],
            destructive=option in ("erase", "correct"),
            warning="This cannot be undone." if option == "erase" else "",
        )
        if option == "correct":

            def with_content(content: str | None) -> None:
                if content is not None:
                    self.decide_with(
                        proposal, label, approve=True, option="correct", content=content
                    )

            dialog = SecretCorrectDialog(analysis.memory_id or "", "", CORRECTION)
            self.desk.push_screen(dialog, with_content)
            return
        if rejects:
            self.decide_with(proposal, label, approve=False)
        else:
            self.decide_with(proposal, label, approve=True, option=option)

    def action_history(self) -> None:
        if not self.item.records:
            self.notify("Not written: a held candidate has no history yet", severity="warning")
            return
        super().action_history()
