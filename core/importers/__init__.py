"""Importers and exporters for the memory folders agents already keep.

Each folder format has its own package behind one protocol
(:class:`core.importers.formats.Format`, registered in
:data:`core.importers.formats.FORMATS`):

- :mod:`core.importers.claude_code`: a Claude Code memory folder (``MEMORY.md``
  and topic files, ``team/``), which memgov also exports to
  (:func:`export_claude_code`);
- :mod:`core.importers.codex`: a Codex memories folder (``memory_summary.md``,
  ``MEMORY.md``, ``rollout_summaries/``, ``raw_memories.md``, and the user's own
  notes beside them).

:func:`import_folder` and :func:`sync_folder` take a format. Imports go through
the write pipeline (:func:`core.writing.pipeline.remember`), keep a source
pointer to the original file and line, are repeatable, and never modify the
folder they read; see :mod:`core.importers.session` (the run),
:mod:`core.importers.ledger` (repeatability), :mod:`core.importers.mapping` (the
user's corrections) and :mod:`core.importers.report`.
"""

from core.importers.claude_code.export import ExportReport, export_claude_code
from core.importers.claude_code.format import CLAUDE_CODE
from core.importers.claude_code.reader import read_claude_code
from core.importers.codex.format import CODEX
from core.importers.codex.reader import read_codex
from core.importers.folders import FolderError
from core.importers.formats import (
    EXPORT_FORMATS,
    FORMATS,
    ExportFormat,
    Format,
    UnknownFormat,
    export_format_named,
    format_named,
    import_folder,
    sync_folder,
)
from core.importers.mapping import MAPPING_FILE, ImportMapping, load_mapping
from core.importers.report import ImportItem, ImportReport, SyncReport

__all__ = [
    "CLAUDE_CODE",
    "CODEX",
    "EXPORT_FORMATS",
    "FORMATS",
    "MAPPING_FILE",
    "ExportFormat",
    "ExportReport",
    "FolderError",
    "Format",
    "ImportItem",
    "ImportMapping",
    "ImportReport",
    "SyncReport",
    "UnknownFormat",
    "export_claude_code",
    "export_format_named",
    "format_named",
    "import_folder",
    "load_mapping",
    "read_claude_code",
    "read_codex",
    "sync_folder",
]
