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
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.moves import Moving, moves


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
        yield DeskFooter()

    def on_mount(self) -> None:
        self.query_one("#problems", DataTable).add_columns("", "Store", "File", "Field", "Reason")
        self.reload()

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
        table = self.query_one("#problems", DataTable)
        table.clear()
        total = len(findings)
        for store_name, finding in findings:
            mark = Text(
                "✖" if finding.severity == "error" else "!",
                style="red" if finding.severity == "error" else "yellow",
            )
            table.add_row(mark, store_name, finding.path, finding.field or "", finding.reason)
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

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        self.dismiss(None)
