"""Problems: files the stores could not read, and everything else doctor finds.

Doctor runs in a worker (on mount, on ``R``, whenever the stores change); the
screen says so meanwhile."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Header, Static

from core.api.doctor import Finding, diagnose
from core.domain.words import counted
from tui.messages import StoresChanged
from tui.render import clip, safe
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.moves import Moving, moves

#: the reason's column keeps this many cells at least, however long the paths
REASON_MIN = 20


def reason_room(findings: list[tuple[str, Finding]], width: int) -> int:
    """The cells the reason's column has in a table ``width`` wide: what the other
    columns (each as wide as its widest cell, one cell of padding each side) and the
    scroll bar leave; a longer reason is cut there and shown whole under the table."""
    others = [
        1,
        max([5, *(len(name) for name, _f in findings)]),
        max([4, *(len(f.path) for _n, f in findings)]),
        max([5, *(len(f.field or "") for _n, f in findings)]),
    ]
    return max(REASON_MIN, width - 2 - 2 * (len(others) + 1) - sum(others))


class ProblemsScreen(Moving, DeskScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="problems.back"),
        Binding("R", "reload", "Reload", id="problems.reload"),
        *moves("problems"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="problems-head")
        yield DataTable(id="problems", cursor_type="row", zebra_stripes=True)
        yield Static(id="problems-detail")
        yield DeskFooter()

    def __init__(self) -> None:
        super().__init__()
        self.findings: list[tuple[str, Finding]] = []

    def on_mount(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        if self.findings:
            self.show(self.findings)

    @on(StoresChanged)
    def reload(self) -> None:
        self.query_one("#problems-head", Static).update(Text("reading the stores…", style="dim"))
        self.in_worker(
            lambda: [(s.root.name, f) for s in self.desk.workspace.stores for f in diagnose(s)],
            self.show,
            failure="Problems could not be read",
            group="problems",
        )

    def show(self, findings: list[tuple[str, Finding]]) -> None:
        self.findings = findings
        table = self.query_one("#problems", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        table.add_columns("", "Store", "File", "Field")
        room = reason_room(findings, self.size.width)
        table.add_column("Reason", width=room)
        total = len(findings)
        for store_name, finding in findings:
            mark = Text(
                "✖" if finding.severity == "error" else "!",
                style="red" if finding.severity == "error" else "yellow",
            )
            reason = clip(safe(finding.reason), room)
            table.add_row(mark, store_name, finding.path, finding.field or "", reason)
        if findings:
            table.move_cursor(row=min(cursor, total - 1))
        self.show_detail()
        self.query_one("#problems-head", Static).update(
            Text(
                f"{counted(total, 'problem')}: unreadable files are skipped, never rewritten; "
                "fix them by hand, then R to reload",
                style="bold" if total else "green",
            )
            if total
            else Text("No problems: every file reads, every pointer resolves.", style="green")
        )
        table.focus()

    @on(DataTable.RowHighlighted, "#problems")
    def show_detail(self) -> None:
        """The highlighted problem whole, wrapped under the table: its file, field and
        reason (the table cuts a long reason to its column)."""
        detail = self.query_one("#problems-detail", Static)
        row = self.query_one("#problems", DataTable).cursor_row
        if not 0 <= row < len(self.findings):
            detail.update("")
            detail.display = False
            return
        store_name, finding = self.findings[row]
        text = Text(f"{store_name} · {finding.path}", style="bold")
        if finding.field:
            text.append(f" · {finding.field}", style="bold")
        text.append("\n" + safe(finding.reason))
        detail.update(text)
        detail.display = True

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        self.dismiss(None)
