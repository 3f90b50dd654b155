"""The transfer commands: ``import`` an agent's memory folder through the write
pipeline (the folder is never modified), ``export`` the active records as one.

``import`` exits 1 when a file was refused or failed, else 3 when one opened a
conflict, else 0.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tui.cli.common import EXIT_CONFLICT, EXIT_FOUND, EXIT_OK, actor_from, emit, workspace


def cmd_import(args: argparse.Namespace) -> int:
    from core.importers import import_claude_code, import_codex

    run = import_claude_code if args.format == "claude-code" else import_codex
    report = run(
        workspace(args),
        Path(args.path),
        actor=actor_from(args),
        dry_run=args.dry_run,
        mapping=args.mapping,
    )
    emit(args, report.to_dict(), report.render)
    counts = report.counts
    if counts.get("refused") or counts.get("failed"):
        return EXIT_FOUND
    return EXIT_CONFLICT if counts.get("conflict") else EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from core.importers import export_claude_code

    report = export_claude_code(workspace(args), Path(args.path))
    emit(args, report.to_dict(), report.render)
    return EXIT_OK
