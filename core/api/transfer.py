"""An agent's own memory folder: import it (Claude Code or Codex), sync it again,
export a store to it, and the reports of what was imported and what was not. A
folder's format is looked up by its name in one registry (core.importers.formats)."""

# core.importers
from core.importers.formats import (
    export_format_named,
    format_named,
    import_folder,
    sync_folder,
)
from core.importers.report import ImportReport, NotImported, summary_counts, summary_table

__all__ = [
    "ImportReport",
    "NotImported",
    "export_format_named",
    "format_named",
    "import_folder",
    "summary_counts",
    "summary_table",
    "sync_folder",
]
