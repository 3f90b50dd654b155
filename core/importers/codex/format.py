"""The Codex memories folder as one :class:`core.importers.formats.Format`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.importers.codex.reader import EXAMPLE, FORMAT, check_layout, codex_reading
from core.importers.codex.sync import CodexSync
from core.importers.entries import Reading
from core.importers.report import SyncReport
from core.store.store import Store
from core.store.workspace import Workspace


class Codex:
    """``memory_summary.md``, ``MEMORY.md``, ``rollout_summaries/``,
    ``raw_memories.md`` and the user's own notes beside them; no export (Codex
    writes the folder itself from its own database)."""

    name = FORMAT
    what = "Codex memories folder"
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
        return codex_reading(workspace, folder, actor, mapping)

    def sync(self, workspace: Workspace, private: Store, folder: Path, actor: str) -> SyncReport:
        return CodexSync(workspace, private, folder, actor).run()


CODEX = Codex()
