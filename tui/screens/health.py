"""Health: the seed's measures first, then counts, the index and the reverse signals.

Each measure (core.reports.measures) shows its value, a sparkline of its series and
what it rests on; ``d`` shows every measure's definition under it, ``l`` opens the
labelling (tui.screens.labels) for the measures a person's judgement makes. The
stores are read in a worker (on mount, on ``R``, whenever they change); the screen
says so meanwhile."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from core.api.measures import Health, health
from core.domain.words import store_label
from tui.messages import StoresChanged
from tui.render import STATUS_STYLE, sparkline
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.moves import Moving, moves


def bar(value: int, limit: int, width: int = 20) -> Text:
    filled = min(int(value / limit * width), width) if limit else 0
    style = "red" if value > limit else "yellow" if value > 0.8 * limit else "green"
    text = Text("█" * filled, style=style)
    text.append("░" * (width - filled), style="dim")
    text.append(f" {value:,}/{limit:,}")
    return text


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def render_measures(h: Health, definitions: bool) -> RenderableType:
    """Every measure: title, value, sparkline and detail; its definition below it."""
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False, expand=True)
    table.add_column("measure", no_wrap=True)
    table.add_column("now", overflow="fold", ratio=2)
    table.add_column("trend", no_wrap=True)
    table.add_column("rests on", overflow="fold", ratio=2, style="dim")
    for number, m in enumerate(h.measures):
        title = Text(m.title, style="bold yellow" if number == 0 else "bold")
        trend = Text(sparkline(m.series, 1.0 if m.unit == "share" else None), style="cyan")
        trend.append(f" {len(m.series)} {m.per}s", style="dim")
        table.add_row(title, m.shown, trend, m.detail)
        if definitions:
            table.add_row("", Text(m.definition, style="italic dim"), "", "")
    return table


def render_health(h: Health, definitions: bool = False) -> RenderableType:
    head = Text(store_label(h.scope, Path(h.store).name), style="bold")
    counts = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for status in h.by_status:
        counts.add_column(status, style=STATUS_STYLE.get(status, ""), justify="right")
    counts.add_row(*(str(v) for v in h.by_status.values()))
    types = Text("types: " + " · ".join(f"{t} {n}" for t, n in h.by_type.items() if n), style="dim")
    idx = h.index
    index = Table.grid(padding=(0, 1))
    index.add_row("index lines", bar(idx["lines"], idx["max_lines"]))
    index.add_row("index bytes", bar(idx["bytes"], idx["max_bytes"]))
    index.add_row("longest line", bar(idx["longest_line"], idx["max_line_chars"]))
    w, r = h.write, h.retrieval
    metrics = Table.grid(padding=(0, 2))
    metrics.add_row(
        "source completeness",
        percent(w["source_completeness"]),
        "duplicate rate by key",
        percent(w["duplicate_rate_by_key"]),
    )
    metrics.add_row(
        "writes refused",
        f"{w['refused']}/{w['write_attempts']}",
        "secrets intercepted",
        str(w["sensitive_intercepted"]),
    )
    metrics.add_row(
        "recalls", str(r["recall_events"]), "active never used", percent(r["unused_share"])
    )
    series = Table.grid(padding=(0, 1))
    for name, values in h.series.items():
        series.add_row(
            f"{name} (12 weeks)", Text(sparkline(values), style="cyan"), str(sum(values))
        )
    signals: list[RenderableType] = []
    for signal in h.signals:
        line = Text("⚠ " + signal["signal"], style="bold yellow")
        line.append(f": {signal['detail']} — {signal['meaning']}")
        line.append(f"; likely cause: {signal['cause']}", style="dim")
        signals.append(line)
    if not signals:
        signals.append(Text("no reverse signal", style="green"))
    return Group(
        head,
        render_measures(h, definitions),
        Text(""),
        counts,
        types,
        Text(""),
        index,
        Text(""),
        metrics,
        Text(""),
        series,
        Text(""),
        *signals,
        Text(""),
    )


class HealthScreen(Moving, DeskScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="health.back"),
        Binding("R", "reload", "Reload", id="health.reload"),
        Binding("d", "definitions", "Definitions", id="health.definitions"),
        Binding("l", "labels", "Label samples", id="health.labels"),
        *moves("health"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.found: list[Health] = []
        self.definitions = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Static(id="health"))
        yield DeskFooter()

    def on_mount(self) -> None:
        self.reload()

    @on(StoresChanged)
    def reload(self) -> None:
        self.query_one("#health", Static).update(Text("reading the stores…", style="dim"))
        self.in_worker(
            lambda: [health(s) for s in self.desk.workspace.stores],
            self.show,
            failure="Health could not be read",
            group="health",
        )

    def show(self, found: list[Health]) -> None:
        self.found = found
        shown = Group(*(render_health(h, self.definitions) for h in found))
        self.query_one("#health", Static).update(shown)

    def action_definitions(self) -> None:
        self.definitions = not self.definitions
        self.show(self.found)

    def action_labels(self) -> None:
        from tui.screens.labels import LabelScreen

        self.app.push_screen(LabelScreen())

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        self.dismiss(None)
