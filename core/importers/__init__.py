"""Importers and exporters for the memory folders agents already keep (SPEC section 12).

- :func:`import_claude_code`: a Claude Code memory folder (``MEMORY.md`` and
  topic files, ``team/``), see :mod:`core.importers.claude_code`;
- :func:`import_codex`: a Codex memories folder (``memory_summary.md``,
  ``MEMORY.md``, ``rollout_summaries/``, ``raw_memories.md``, and the user's own
  notes beside them), see :mod:`core.importers.codex`;
- :func:`export_claude_code`: the active records back as a Claude Code memory
  folder, see :mod:`core.importers.export`.

Imports go through the write pipeline (:func:`core.writing.pipeline.remember`), keep a
source pointer to the original file and line, are repeatable, and never modify
the folder they read; see :mod:`core.importers.session` (the run),
:mod:`core.importers.ledger` (repeatability), :mod:`core.importers.mapping` (the
user's corrections) and :mod:`core.importers.report`.
"""

from core.importers.claude_code import import_claude_code, read_claude_code
from core.importers.codex import import_codex, read_codex
from core.importers.export import ExportReport, export_claude_code
from core.importers.folders import FolderError
from core.importers.mapping import MAPPING_FILE, ImportMapping, load_mapping
from core.importers.report import ImportItem, ImportReport

__all__ = [
    "MAPPING_FILE",
    "ExportReport",
    "FolderError",
    "ImportItem",
    "ImportMapping",
    "ImportReport",
    "export_claude_code",
    "import_claude_code",
    "import_codex",
    "load_mapping",
    "read_claude_code",
    "read_codex",
]
