"""The faces use Textual's public API: no module under tui/ imports a private Textual
module (``textual._x``, ``textual.widgets._x``, or ``from textual import _x``), so a
Textual release that moves its internals breaks no screen; the queue's table
overrides no private method of Textual's classes."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from textual.scroll_view import ScrollView

from tui.screens.queue.table import QueueTable

TUI = Path(__file__).resolve().parents[2] / "tui"

#: the private imports still there, each with why; the list only shrinks
KNOWN = {
    # the footer that hides keys instead of composing again needs the key widget's
    # class, which Textual does not export
    ("tui/screens/desk.py", "textual.widgets._footer"),
}


def private(module: str) -> bool:
    """Whether ``module`` is Textual's and private (a part of its path starts with _)."""
    parts = module.split(".")
    return parts[0] == "textual" and any(p.startswith("_") for p in parts[1:])


def private_imports(source: str) -> list[str]:
    """The private Textual modules (or names of such) ``source`` imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if private(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if private(node.module):
                found.append(node.module)
            elif node.module.split(".")[0] == "textual":
                found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_the_check_sees_every_form_of_private_import() -> None:
    source = (
        "import textual._two_way_dict\n"
        "from textual._types import SegmentLines\n"
        "from textual.widgets._data_table import RowRenderables\n"
        "from textual import _animator\n"
        "from textual.widgets import DataTable\n"
        "from textual.scroll_view import ScrollView\n"
        "from .local import _x\n"
    )
    assert private_imports(source) == [
        "textual._two_way_dict",
        "textual._types",
        "textual.widgets._data_table",
        "textual._animator",
    ]


def test_no_module_under_tui_imports_a_private_textual_module() -> None:
    found = {
        (path.relative_to(TUI.parent).as_posix(), module)
        for path in sorted(TUI.rglob("*.py"))
        for module in private_imports(path.read_text(encoding="utf-8"))
    }
    assert found <= KNOWN, sorted(found - KNOWN)
    assert found == KNOWN, f"no longer imported, take it off the list: {sorted(KNOWN - found)}"


def test_the_queue_table_overrides_no_private_method_of_textual() -> None:
    overridden = [
        name
        for name, value in vars(QueueTable).items()
        if name.startswith("_")
        and not name.startswith("__")
        and inspect.isfunction(value)
        and hasattr(ScrollView, name)
    ]
    assert overridden == []
    module = inspect.getsource(inspect.getmodule(QueueTable))  # type: ignore[arg-type]
    assert private_imports(module) == []
