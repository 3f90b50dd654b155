"""Consolidation batch: the diff file by file (arrives with the consolidation engine)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static

from tui.screens.items import ItemScreen


class BatchScreen(ItemScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="batch.back"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        yield Static(Text(str(self.item.analysis)), id="batch")
        yield Footer()
