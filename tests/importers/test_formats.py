"""The folder formats' registry (core.importers.formats): every format implements
the protocol, an unknown name is refused with the known ones, and the CLI's
argument choices (kept apart so ``--help`` loads no importer) agree with it."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from core.importers.folders import FolderError
from core.importers.formats import (
    EXPORT_FORMATS,
    FORMATS,
    ExportFormat,
    Format,
    UnknownFormat,
    export_format_named,
    format_named,
    sync_folder,
)
from core.store.workspace import Workspace
from tui.cli.arguments import EXPORT_FORMATS as EXPORT_CHOICES
from tui.cli.arguments import FOLDER_FORMATS


def _members(protocol: type) -> set[str]:
    """The attributes and methods a protocol declares."""
    return {name for name in (*protocol.__annotations__, *vars(protocol)) if name[0] != "_"}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_implements_the_protocol(name: str) -> None:
    fmt = FORMATS[name]
    assert isinstance(fmt, Format)
    assert fmt.name == name
    assert fmt.what and fmt.example
    for member in _members(Format):
        assert hasattr(fmt, member), member
    # the methods take what the protocol's take, by name
    for method in ("recognise", "reading", "sync"):
        expected = list(inspect.signature(getattr(Format, method)).parameters)[1:]
        assert list(inspect.signature(getattr(fmt, method)).parameters) == expected, method
    if isinstance(fmt, ExportFormat):
        expected = list(inspect.signature(ExportFormat.export).parameters)[1:]
        assert list(inspect.signature(fmt.export).parameters) == expected
    assert format_named(name) is fmt


def test_each_format_recognises_only_its_own_folders(tmp_path: Path) -> None:
    fixtures = Path(__file__).parents[1] / "fixtures"
    own = {
        "claude-code": fixtures / "claude_code" / "liyyro",
        "codex": fixtures / "codex" / "memories",
    }
    assert set(own) == set(FORMATS)
    empty = tmp_path / "empty"
    empty.mkdir()
    for name, fmt in FORMATS.items():
        fmt.recognise(own[name])
        with pytest.raises(Exception, match=str(empty)):
            fmt.recognise(empty)


def test_an_unknown_format_is_refused_with_the_known_ones() -> None:
    with pytest.raises(UnknownFormat, match=r"'cursor' is not a .*: one of claude-code, codex"):
        format_named("cursor")
    with pytest.raises(UnknownFormat, match="exports no Codex memories folder"):
        export_format_named("codex")
    assert export_format_named("claude-code") is FORMATS["claude-code"]


def test_the_cli_offers_the_registered_formats() -> None:
    assert tuple(FORMATS) == FOLDER_FORMATS
    assert EXPORT_FORMATS == EXPORT_CHOICES


def test_a_sync_needs_the_private_store(tmp_path: Path) -> None:
    folder = Path(__file__).parents[1] / "fixtures" / "codex" / "memories"
    with pytest.raises(FolderError, match="private store"):
        sync_folder(FORMATS["codex"], Workspace([]), folder, actor="alice@example.com")
