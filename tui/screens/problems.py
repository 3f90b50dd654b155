"""Problems: files the stores could not read, and everything else doctor finds."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from core.reports.doctor import diagnose


class ProblemsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="problems.back"),
        Binding("r", "reload", "Reload", id="problems.reload"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="problems-head")
        yield DataTable(id="problems", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#problems", DataTable).add_columns("", "Store", "File", "Field", "Reason")
        self.reload()

    def reload(self) -> None:
        workspace: Any = self.app.workspace  # type: ignore[attr-defined]
        table = self.query_one("#problems", DataTable)
        table.clear()
        total = 0
        for store in workspace.stores:
            for finding in diagnose(store):
                total += 1
                mark = Text(
                    "✖" if finding.severity == "error" else "!",
                    style="red" if finding.severity == "error" else "yellow",
                )
                table.add_row(
                    mark, store.root.name, finding.path, finding.field or "", finding.reason
                )
        self.query_one("#problems-head", Static).update(
            Text(
                f"{total} problem(s): unreadable files are skipped, never rewritten; "
                "fix them by hand, then r to reload",
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
