"""The transfer commands: ``import`` an agent's memory folder through the write
pipeline (the folder is never modified), ``export`` the active records as one.

``import`` exits 1 when a file was refused or failed, else 3 when one opened a
conflict or held a memory for review, else 0. Several folders: each is imported
on its own (its own report, its own transaction), then a summary table of them all
(:func:`core.importers.report.summary_table`); ``--json`` gives ``{"folders":
[...], "total": {...}}``. A folder that does not exist stops the command before
any import; one that cannot be imported (not such a folder, a bad mapping file)
is a row saying why, and the others are still imported. The exit status is the
worst of the folders': 2 (not imported), then 1, then 3, then 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from core.domain.errors import MemgovError
from tui.cli.common import (
    EXIT_CONFLICT,
    EXIT_ERROR,
    EXIT_FOUND,
    EXIT_OK,
    actor_from,
    emit,
    workspace,
)

if TYPE_CHECKING:
    from core.api.transfer import ImportReport, NotImported

#: exit statuses, best first: the command exits with the worst of its folders'
_WORST_LAST = (EXIT_OK, EXIT_CONFLICT, EXIT_FOUND, EXIT_ERROR)


def cmd_import(args: argparse.Namespace) -> int:
    from core.api.transfer import format_named, import_folder

    fmt = format_named(args.format)
    paths = [Path(p) for p in args.path]
    ws = workspace(args)
    actor = actor_from(args)

    def one(path: Path) -> ImportReport:
        return import_folder(fmt, ws, path, actor=actor, dry_run=args.dry_run, mapping=args.mapping)

    if len(paths) == 1:
        report = one(paths[0])
        emit(args, report.to_dict(), report.render)
        return _exit(report)
    missing = [str(p) for p in paths if not p.expanduser().is_dir()]
    if missing:
        raise MemgovError(
            f"{', '.join(missing)}: not {'a folder' if len(missing) == 1 else 'folders'}; "
            "nothing was imported: fix the path or leave it out"
        )
    return _import_several(args, paths, one)


def _import_several(
    args: argparse.Namespace, paths: list[Path], one: Callable[[Path], ImportReport]
) -> int:
    from core.api.transfer import ImportReport, NotImported, summary_counts, summary_table

    rows: list[ImportReport | NotImported] = []
    for path in paths:
        try:
            rows.append(one(path))
        except MemgovError as exc:
            print(f"memgov: {exc}", file=sys.stderr)
            rows.append(NotImported(str(path.expanduser().absolute()), str(exc)))
    reports = [row for row in rows if isinstance(row, ImportReport)]

    def text() -> str:
        parts = [_rendered(row) for row in rows]
        return "\n\n".join([*parts, summary_table(rows)])

    data = {
        "folders": [row.to_dict() for row in rows],
        "total": {"folders": len(rows), **summary_counts(reports)},
    }
    emit(args, data, text)
    codes = [_exit(row) if isinstance(row, ImportReport) else EXIT_ERROR for row in rows]
    return max(codes, key=_WORST_LAST.index)


def _rendered(row: ImportReport | NotImported) -> str:
    from core.api.transfer import NotImported

    if isinstance(row, NotImported):
        return f"import from {row.folder}: not imported: {row.error}"
    return row.render()


def _exit(report: ImportReport) -> int:
    counts = report.counts
    if counts.get("refused") or counts.get("failed"):
        return EXIT_FOUND
    # a conflict opened or a memory held: something waits for a person (memgov queue)
    return EXIT_CONFLICT if counts.get("conflict") or counts.get("held") else EXIT_OK


def cmd_sync(args: argparse.Namespace) -> int:
    """Exit 0 when the folder and memgov agree; 3 when something waits for a person
    (a held memory, a conflict); 1 when a file was refused. Without a format: the
    team stores with a remote (:func:`tui.cli.team.sync_teams`)."""
    from core.api.transfer import format_named, sync_folder

    if args.format is None:
        from tui.cli.team import sync_teams

        return sync_teams(args)
    if args.path is None:
        raise MemgovError(f"memgov sync {args.format}: give the agent's memory folder (PATH)")

    fmt = format_named(args.format)
    report = sync_folder(fmt, workspace(args), Path(args.path), actor=actor_from(args))
    emit(args, report.to_dict(), report.render)
    code = _exit(report.imported)
    return EXIT_CONFLICT if code == EXIT_OK and report.held else code


def cmd_export(args: argparse.Namespace) -> int:
    from core.api.transfer import export_format_named

    report = export_format_named(args.format).export(workspace(args), Path(args.path))
    emit(args, report.to_dict(), report.render)
    return EXIT_OK
