"""The "secret in a record" view: a stored record whose file holds a credential.

The record is shown with every secret span replaced by ``[secret: rule-id]``
(never the value); ``e`` erases it for good, ``c`` replaces it by a corrected
copy (prefilled with the redacted text) and erases the old file, ``d`` leaves
it open. Each asks for the reason first and says what it will change.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Header, Label, Static, TextArea

from core.api.review import SECRET_REASONS as DEFAULT_REASONS
from core.api.review import SecretAnalysis
from core.domain import secrets
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter, cursor_blinks
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves


class SecretCorrectDialog(ModalScreen[str | None]):
    """What the record says instead: prefilled with its redacted content."""

    DEFAULT_CSS = """
    SecretCorrectDialog #content {
        height: 8;
        margin-bottom: 1;
    }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
        Binding("ctrl+s", "accept", "Next", priority=True, id="dialog.accept"),
    ]

    #: what the dialog says a correction does (the quarantine view says its own)
    EXPLANATION = (
        "A copy with this content replaces the record and the old file is erased "
        "(not kept as superseded). Keep [secret: …] or write what is true instead; "
        "ctrl+s to continue."
    )

    def __init__(self, memory_id: str, content: str, explanation: str | None = None) -> None:
        super().__init__()
        self.memory_id = memory_id
        self.content = content
        self.explanation = explanation or self.EXPLANATION

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Correct {self.memory_id}", id="dialog-title")
            yield Static(self.explanation, id="dialog-changes")
            yield TextArea(self.content, id="content", soft_wrap=True)
            with Horizontal(id="dialog-buttons"):
                yield Button("Next", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        area = self.query_one("#content", TextArea)
        area.cursor_blink = cursor_blinks(self.app)
        area.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self.action_accept()
        else:
            self.dismiss(None)

    def action_accept(self) -> None:
        text = self.query_one("#content", TextArea).text.strip()
        if not text:
            self.notify("The correction is empty: erase the record instead", severity="warning")
            return
        if not secrets.is_clean(text):
            rules = ", ".join(sorted({f.rule_id for f in secrets.scan(text)}))
            self.notify(f"It still holds a credential ({rules})", severity="error")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SecretScreen(ItemScreen):
    KIND = "secret"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "e",
            "erase",
            "Erase",
            id="secret.erase",
            tooltip="Erase the record for good: file, index line and history",
        ),
        Binding(
            "c",
            "correct",
            "Correct",
            id="secret.correct",
            tooltip="Replace it by a copy without the credential; the old file is erased",
        ),
        Binding(
            "d",
            "defer",
            "Defer",
            id="secret.defer",
            tooltip="Leave it open; record that it was looked at",
        ),
        *moves("item"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        yield Static(id="scan")
        yield VerticalScroll(Static(id="record"), classes="record-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.refresh_view()

    @property
    def options(self) -> list[str]:
        return list(self.item.analysis_as(SecretAnalysis).options)

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        return action if action in ("erase", "correct", "defer") else None

    def refresh_view(self) -> None:
        rec = self.item.records[0]
        memory = rec.memory
        where = "; ".join(f"{h.rule} at line {h.line}, column {h.column}" for h in self.item.scan)
        scan = Text("secret scan: ", style="bold red")
        scan.append(f"{where} of {self.item.analysis_as(SecretAnalysis).file}", style="red")
        scan.append(" · the value is never shown", style="dim")
        scan.append(
            "\ne erase for good · "
            + (
                "c correct: a copy without it replaces the record, the old file is erased"
                if "correct" in self.options
                else f"a {memory.status} record is no longer used: erase it"
            ),
            style="italic",
        )
        self.query_one("#scan", Static).update(scan)
        card = record_card(rec, label=" record, secrets shown as [secret: rule] ")
        view = self.query_one("#record", Static)
        view.update(Group(card, Text("\nreading the file…", style="dim")))
        self.in_worker(
            self.file,
            lambda file: view.update(Group(card, file)),
            failure="The record's file could not be read",
            group="secret-file",
        )
        self.refresh_bindings()

    def file(self) -> RenderableType:
        """In the worker: the record's file as it is on disk, redacted, with the lines
        that hold a secret marked."""
        path = self.item.store.root / self.item.records[0].memory.path
        try:
            raw = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return Text("the file can no longer be read", style="red")
        marked = {h.line for h in self.item.scan}
        text = Text(f"\n{self.item.records[0].memory.path}, redacted\n", style="bold")
        for number, line in enumerate(safe(raw).splitlines(), start=1):
            mark = "▶" if number in marked else " "
            text.append(f"{mark}{number:>4} ", style="dim")
            text.append(line + "\n", style="reverse" if number in marked else "")
        return text

    def action_erase(self) -> None:
        memory = self.item.records[0].memory
        proposal = Proposal(
            f"Erase {memory.id} for good",
            (),
            DEFAULT_REASONS["erase"],
            destructive=True,
            warning="This cannot be undone.",
        )
        self.decide_with(proposal, f"erase {memory.id}", approve=True, option="erase")

    def action_correct(self) -> None:
        memory = self.item.records[0].memory
        label = f"correct {memory.id}"

        def with_content(content: str | None) -> None:
            if content is None:
                return
            self.decide_with(
                Proposal(
                    f"Correct {memory.id}: a copy without the credential",
                    (),
                    DEFAULT_REASONS["correct"],
                    destructive=True,
                    warning="This cannot be undone: the old record is erased.",
                ),
                label,
                approve=True,
                option="correct",
                content=content,
            )

        self.desk.push_screen(SecretCorrectDialog(memory.id, safe(memory.content)), with_content)

    def action_defer(self) -> None:
        self.decide_with(
            Proposal(
                "Defer: leave the credential where it is for now, marked as looked at",
                (),
                DEFAULT_REASONS["defer"],
            ),
            f"defer {self.item.id}",
            approve=False,
        )
