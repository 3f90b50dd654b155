"""The Claude Code memory folder as one :class:`core.importers.formats.Format`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.importers.claude_code.export import ExportReport, export_claude_code
from core.importers.claude_code.reader import EXAMPLE, FORMAT, check_layout, claude_code_reading
from core.importers.claude_code.sync import ClaudeCodeSync
from core.importers.entries import Reading
from core.importers.report import SyncReport
from core.store.store import Store
from core.store.workspace import Workspace


class ClaudeCode:
    """``MEMORY.md`` and a topic file per memory, ``team/`` for the team's."""

    name = FORMAT
    what = "Claude Code memory folder"
    example = EXAMPLE

    def recognise(self, folder: Path) -> None:
        check_layout(folder)

    def reading(
        self,
        workspace: Workspace,
        folder: Path,
        actor: str,
        mapping: Mapping[str, Any] | Path | None = None,
    ) -> Reading:
        return claude_code_reading(workspace, folder, actor, mapping)

    def sync(self, workspace: Workspace, private: Store, folder: Path, actor: str) -> SyncReport:
        return ClaudeCodeSync(workspace, private, folder, actor).run()

    def export(self, source: Workspace | Store, path: Path) -> ExportReport:
        return export_claude_code(source, path)


CLAUDE_CODE = ClaudeCode()
