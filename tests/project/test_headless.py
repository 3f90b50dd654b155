"""The core runs headless: it never imports Textual or the tui package."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import core

CORE = Path(core.__file__).resolve().parent
FORBIDDEN = ("textual", "tui")

IMPORT_ALL = """
import importlib, json, pathlib, sys
import core
base = pathlib.Path(core.__file__).parent
names = sorted(
    ".".join(p.relative_to(base.parent).with_suffix("").parts).removesuffix(".__init__")
    for p in base.rglob("*.py")
)
for name in names:
    importlib.import_module(name)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "tui"))
print(json.dumps({"modules": names, "leaked": leaked}))
"""


def core_files() -> list[Path]:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) > 10  # the whole package, not an empty glob
    return files


def test_importing_every_core_module_loads_no_textual_or_tui() -> None:
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert len(data["modules"]) == len(core_files())  # every module was imported
    assert {"core", "core.store.store", "core.domain.record", "core.reports.doctor"} <= set(
        data["modules"]
    )
    assert data["leaked"] == []


def imported_modules(path: Path) -> set[str]:
    """Every module an import statement in the file names, at any depth
    (imports inside functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_core_file_imports_textual_or_tui() -> None:
    offenders = {
        path.relative_to(CORE.parent).as_posix(): sorted(
            name for name in imported_modules(path) if name.split(".")[0] in FORBIDDEN
        )
        for path in core_files()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_no_core_file_mentions_an_import_of_textual_or_tui() -> None:
    """A plain grep as well, so dynamic imports (importlib, __import__) are caught."""
    pattern = re.compile(
        r"^\s*(?:from|import)\s+(?:textual|tui)\b"
        r"|import_module\(\s*['\"](?:textual|tui)\b"
        r"|__import__\(\s*['\"](?:textual|tui)\b",
        re.MULTILINE,
    )
    hits = [
        f"{path.relative_to(CORE.parent)}:{text[: m.start()].count(chr(10)) + 1}"
        for path in core_files()
        for text in [path.read_text(encoding="utf-8")]
        for m in pattern.finditer(text)
    ]
    assert hits == []


def test_the_checks_would_catch_an_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from tui.app import run\n    import textual.widgets\n")
    assert imported_modules(sample) == {"tui.app", "textual.widgets"}
