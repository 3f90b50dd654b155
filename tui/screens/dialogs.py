"""Modal dialogs: the reason for a decision (with what it will change), conditions
for a parallel outcome, a correction, and the keys help."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from tui.screens.desk import cursor_blinks


@dataclass(frozen=True)
class Proposal:
    """What a decision will do, shown before it is done: ``changes`` to the records it
    decides, and ``also`` what else it changes or discards (a pending batch, other
    requests, history: core.review.consequences), shown first and apart."""

    title: str
    changes: tuple[str, ...]
    reason: str
    destructive: bool = False
    warning: str = ""
    also: tuple[str, ...] = ()


class ReasonDialog(ModalScreen[str | None]):
    """Ask for the reason (prefilled, editable; enter accepts) and show the changes:
    what else the decision changes or discards first, then the records' changes (they
    scroll when the terminal is short; the reason and the buttons always show)."""

    DEFAULT_CSS = """
    ReasonDialog #dialog-also {
        color: $warning;
        margin-bottom: 1;
    }
    ReasonDialog #dialog-body {
        height: auto;
    }
    """
    #: below this many rows the title and the warning lose their margins
    SHORT = 30
    #: the rows of the dialog besides its body: border, padding, title, the reason's
    #: label and field, the buttons (the warning adds two)
    FIXED_ROWS = 15
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, proposal: Proposal) -> None:
        super().__init__(classes="destructive" if proposal.destructive else "")
        self.proposal = proposal

    def compose(self) -> ComposeResult:
        p = self.proposal
        with Vertical(id="dialog"):
            yield Label(p.title, id="dialog-title")
            if p.warning:
                yield Static(p.warning, id="dialog-warning")
            with VerticalScroll(id="dialog-body"):
                if p.also:
                    yield Static(
                        "And besides:\n" + "\n".join(f"! {c}" for c in p.also),
                        id="dialog-also",
                        markup=False,
                    )
                yield Static(
                    "\n".join(f"• {c}" for c in p.changes), id="dialog-changes", markup=False
                )
            yield Label("Reason (enter to accept, esc to cancel):")
            yield Input(value=p.reason, id="reason")
            with Horizontal(id="dialog-buttons"):
                yield Button(
                    "Erase for good" if p.destructive else "Apply",
                    variant="error" if p.destructive else "primary",
                    id="ok",
                )
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = cursor_blinks(self.app)
        self.fit()
        self.query_one("#reason", Input).focus()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """The body takes the rows the dialog has left (it scrolls beyond), so the reason
        and the buttons always show, at 80x24 too."""
        short = self.app.size.height < self.SHORT
        for widget in self.query("#dialog-title, #dialog-warning"):
            widget.styles.margin = (0, 0, 0 if short else 1, 0)  # over the app's CSS
        fixed = self.FIXED_ROWS + (2 if self.proposal.warning else 0)
        fixed -= (1 + bool(self.proposal.warning)) if short else 0
        room = int(self.app.size.height * 0.9) - fixed
        self.query_one("#dialog-body", VerticalScroll).styles.max_height = max(room, 3)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._accept()
        else:
            self.dismiss(None)

    def _accept(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        self.dismiss(reason or self.proposal.reason)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConditionsDialog(ModalScreen[dict[str, str] | None]):
    """Parallel outcome: the condition under which each record holds."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, records: list[tuple[str, str, str]]) -> None:
        """``records``: (memory id, short content, suggested condition)."""
        super().__init__()
        self.records = records

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Parallel: both hold, each under its own condition", id="dialog-title")
            yield Static(
                "Read the sources first: write the condition each one states "
                "(e.g. env=production).",
                id="dialog-changes",
            )
            with VerticalScroll(id="conditions"):
                for memory_id, content, suggestion in self.records:
                    yield Label(f"{memory_id}: {content}")
                    yield Input(
                        value=suggestion,
                        placeholder="condition, e.g. env=testing",
                        id=f"cond-{memory_id}",
                    )
            with Horizontal(id="dialog-buttons"):
                yield Button("Next", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = cursor_blinks(self.app)
        self.query(Input).first().focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter accepts once every record has its condition (they come prefilled: one
        enter); otherwise it goes to the first one without and says so (every record
        needs its condition). Tab moves between them."""
        event.stop()
        inputs = list(self.query(Input))
        empty = [n for n, field in enumerate(inputs) if not field.value.strip()]
        if not empty:
            self._accept()
            return
        index = empty[0]
        inputs[index].focus()
        self.notify(
            f"{self.records[index][0]} needs a condition: write the one its sources state",
            severity="warning",
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._accept()
        else:
            self.dismiss(None)

    def _accept(self) -> None:
        values = {
            memory_id: self.query_one(f"#cond-{memory_id}", Input).value.strip()
            for memory_id, _c, _s in self.records
        }
        missing = [k for k, v in values.items() if not v]
        if missing:
            self.notify("Every record needs a condition: " + ", ".join(missing), severity="warning")
            return
        self.dismiss(values)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CorrectDialog(ModalScreen[str | None]):
    """Write what is true instead: a new record supersedes the old one."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, memory_id: str, content: str) -> None:
        super().__init__()
        self.memory_id = memory_id
        self.content = content

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Correct {self.memory_id}", id="dialog-title")
            yield Static(
                "A new record supersedes this one; the old one stays in its "
                "history. Enter to continue.",
                id="dialog-changes",
            )
            yield Input(value=self.content, id="content")
            with Horizontal(id="dialog-buttons"):
                yield Button("Next", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = cursor_blinks(self.app)
        self.query_one("#content", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self.dismiss(self.query_one("#content", Input).value.strip() or None)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class KeysHelp(ModalScreen[None]):
    """Every key of the screen underneath, with what it does, in sections (the
    screen's own keys first)."""

    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="help.close")]

    def __init__(self, sections: list[tuple[str, list[tuple[str, str, str]]]]) -> None:
        super().__init__()
        self.sections = sections
        self.rows = [row for _title, rows in sections for row in rows]

    def compose(self) -> ComposeResult:
        width = max((len(k) for k, _d, _t in self.rows), default=4)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(justify="right", width=width, no_wrap=True)
        grid.add_column()  # wraps under its own start, not under the keys
        for number, (title, rows) in enumerate(self.sections):
            if number:
                grid.add_row("", "")
            grid.add_row("", Text(title, style="bold"))
            for key, description, tooltip in rows:
                grid.add_row(
                    Text(key, style="bold"),
                    Text(description + (f"  — {tooltip}" if tooltip else "")),
                )
        text = grid
        with Vertical(id="dialog"):
            yield Label("Keys", id="dialog-title")
            yield VerticalScroll(Static(text, id="keys-text"))
            yield Label("esc to close · ctrl+p lists every command", classes="dim")

    def action_close(self) -> None:
        self.dismiss(None)
