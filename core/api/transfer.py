"""An agent's own memory folder: import it (Claude Code or Codex), sync it again,
export a store to it, and the reports of what was imported and what was not."""

# core.importers
from core.importers import export_claude_code, import_claude_code, import_codex
from core.importers.codex_sync import sync_codex
from core.importers.report import ImportReport, NotImported, summary_counts, summary_table
from core.importers.sync import sync_claude_code

__all__ = [
    "ImportReport",
    "NotImported",
    "export_claude_code",
    "import_claude_code",
    "import_codex",
    "summary_counts",
    "summary_table",
    "sync_claude_code",
    "sync_codex",
]
