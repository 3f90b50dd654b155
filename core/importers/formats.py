"""The folder formats memgov imports from and syncs with, behind one protocol.

A :class:`Format` is everything that differs between two agents' memory
folders: its name (the CLI's word, the state file's prefix, a held item's
``format``), how to recognise such a folder and where one usually is, how to
read it into entries, and its sync. An :class:`ExportFormat` can also write the
records back as such a folder. :data:`FORMATS` registers each once;
:func:`format_named` is how the CLI and a held item's re-import find one.

What is the same for every format is here once: :func:`import_folder` (check the
folder, read it, run the entries through the write pipeline,
:func:`core.importers.session.run_entries`) and :func:`sync_folder` (check the
folder and that there is a private store to keep the sync's state in).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from core.domain.errors import MemgovError
from core.importers.claude_code.export import ExportReport
from core.importers.claude_code.format import CLAUDE_CODE
from core.importers.codex.format import CODEX
from core.importers.entries import Reading
from core.importers.folders import FolderError, check_folder
from core.importers.held import Held
from core.importers.report import ImportReport, SyncReport
from core.importers.session import run_entries
from core.store.store import Store
from core.store.workspace import Workspace


class UnknownFormat(MemgovError):
    """No registered format has that name (or none that exports); names the known ones."""


@runtime_checkable
class Format(Protocol):
    """One kind of agent memory folder."""

    #: "claude-code": the CLI's word for it, and what its records and state name
    name: str
    #: "Claude Code memory folder": how an error names such a folder
    what: str
    #: where such a folder usually is, for an error's hint
    example: str

    def recognise(self, folder: Path) -> None:
        """Raise a FolderError saying what to pass instead when ``folder`` is not one."""
        ...

    def reading(
        self,
        workspace: Workspace,
        folder: Path,
        actor: str,
        mapping: Mapping[str, Any] | Path | None = None,
    ) -> Reading:
        """The folder read with its mapping file (``mapping`` replaces it), nothing
        written; what an import, a sync and a held item's decision run."""
        ...

    def sync(self, workspace: Workspace, private: Store, folder: Path, actor: str) -> SyncReport:
        """Bring what the agent wrote in and what people decided back (the private
        store keeps the sync's state)."""
        ...


@runtime_checkable
class ExportFormat(Format, Protocol):
    """A format memgov can also write: the active records as such a folder."""

    def export(self, source: Workspace | Store, path: Path) -> ExportReport: ...


#: every format, by name
FORMATS: dict[str, Format] = {fmt.name: fmt for fmt in (CLAUDE_CODE, CODEX)}
#: the names of the formats that export
EXPORT_FORMATS = tuple(name for name, fmt in FORMATS.items() if isinstance(fmt, ExportFormat))


def format_named(name: str) -> Format:
    """The registered format called ``name``; UnknownFormat names the known ones."""
    try:
        return FORMATS[name]
    except KeyError:
        raise UnknownFormat(
            f"{name!r} is not a folder format memgov knows: one of {', '.join(FORMATS)}"
        ) from None


def export_format_named(name: str) -> ExportFormat:
    """The registered format called ``name`` that exports; UnknownFormat otherwise."""
    fmt = format_named(name)
    if not isinstance(fmt, ExportFormat):
        raise UnknownFormat(f"memgov exports no {fmt.what}: it exports {', '.join(EXPORT_FORMATS)}")
    return fmt


def import_folder(
    fmt: Format,
    workspace: Workspace,
    path: Path,
    *,
    actor: str,
    dry_run: bool = False,
    mapping: Mapping[str, Any] | Path | None = None,
    only: frozenset[str] | None = None,
    decided: Held | None = None,
) -> ImportReport:
    """Import an agent's folder of format ``fmt`` into the workspace's stores (a
    Claude Code folder's team/ into the team store). ``mapping`` replaces the
    folder's memgov-import.yaml; ``only``: just these files; ``decided``: a held
    item just decided, whose file this run imports as the decision says."""
    folder = check_folder(path, what=fmt.what, example=fmt.example)
    reading = fmt.reading(workspace, folder, actor, mapping)
    return run_entries(
        workspace,
        reading,
        fmt=fmt.name,
        folder=folder,
        actor=actor,
        dry_run=dry_run,
        only=only,
        decided=decided,
    )


def sync_folder(fmt: Format, workspace: Workspace, path: Path, *, actor: str) -> SyncReport:
    """Sync with an agent's folder of format ``fmt`` (each format's :meth:`Format.sync`
    says what that does); its state is kept in the private store, which must exist."""
    folder = check_folder(path, what=fmt.what, example=fmt.example)
    private = workspace.private
    if private is None:
        raise FolderError(
            f"{folder}: a sync keeps its state in the private store, and there is none; "
            "pass it with --store"
        )
    return fmt.sync(workspace, private, folder, actor)
