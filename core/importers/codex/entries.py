"""A Codex memory as a memgov entry: type, subject, attribute, gate inputs and sources.

The mapping rules are the ones :mod:`core.importers.codex.reader` documents: each
section's kind (:data:`KINDS`) gives the record type, the gate inputs, the
attribute prefix and whether the subject is ``user:<owner>`` or
``project:<p>``; the attribute is the bullet's own words as a slug, the
content the bullet without its ``[Task N]`` citations, the sources those of
:mod:`core.importers.codex.evidence` (summary bullets cite nothing: they point
at their own line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core.importers.codex.evidence import Cites, Evidence, source_at
from core.importers.codex.files import (
    MEMORY_FILE,
    SUMMARY_FILE,
    Block,
    CodexFolder,
    Group,
    cited_tasks,
)
from core.importers.entries import Entry, GateDefaults
from core.importers.text import short, slug


@dataclass(frozen=True)
class Kind:
    type: str
    gate: GateDefaults
    prefix: str  # of the attribute
    about: str  # user or project: which subject


KINDS = {
    "profile": Kind("semantic", GateDefaults(0.8, 0.8, 0.7), "profile.", "user"),
    "preference": Kind("preference", GateDefaults(0.8, 0.9, 0.7), "", "user"),
    "tip": Kind("reflection", GateDefaults(0.7, 0.8, 0.6), "tip.", "user"),
    "knowledge": Kind("semantic", GateDefaults(0.7, 0.8, 0.7), "knowledge.", "project"),
    "failure": Kind("reflection", GateDefaults(0.7, 0.8, 0.6), "failure.", "project"),
}


def project_of(cwd: str | None) -> str | None:
    if not cwd:
        return None
    parts = [p for p in re.split(r"[\\/]+", cwd.strip()) if p and p not in ("?", ".")]
    return parts[-1] if parts else None


class CodexEntries:
    """The entries of one parsed folder, for one owner and (optionally) project."""

    def __init__(self, files: CodexFolder, owner: str, project: str | None) -> None:
        self.files = files
        self.evidence = Evidence(files)
        self.owner = owner
        self.project = project

    def entry(self, kind: str, rel: str, lines: list[str], block: Block, cites: Cites) -> Entry:
        text, _ = cited_tasks(block.text)
        spec = KINDS[kind]
        own = source_at(f"codex:{rel}", self.files.folder / rel, lines, block.line)
        project = self.project or project_of(cites.cwd) or "codex"
        return Entry(
            origin=f"{rel}:{block.line}",
            kind=kind,
            scope="private",
            type=spec.type,
            subject=f"user:{self.owner}" if spec.about == "user" else f"project:{project}",
            attribute=spec.prefix + slug(text),
            content=text,
            sources=cites.sources or (own,),
            gate=spec.gate,
            title=short(text),
            order=cites.updated_at,
            last_line=block.last,
        )

    def summary_entries(self) -> list[Entry]:
        lines, items = self.files.summary()
        return [self.entry(kind, SUMMARY_FILE, lines, block, Cites()) for kind, block in items]

    def memory_entries(self) -> list[Entry]:
        lines, groups = self.files.memory()
        entries = []
        for group in groups:
            entries += self.group_entries(group, lines)
        return entries

    def group_entries(self, group: Group, lines: list[str]) -> list[Entry]:
        entries = []
        for kind, block in group.items:
            text, numbers = cited_tasks(block.text)
            origin = f"{MEMORY_FILE}:{block.line}"
            unknown = [n for n in numbers if n not in group.tasks]
            if unknown:
                self.files.reading.warnings.append(
                    f"{origin}: cites Task {', '.join(map(str, unknown))}, which group "
                    f"'{group.name}' does not have"
                )
            tasks = [group.tasks[n] for n in numbers if n in group.tasks]
            if not numbers and len(group.tasks) == 1:
                tasks = list(group.tasks.values())
            cites = self.evidence.cites(text, [f for t in tasks for f in t.files], origin)
            if group.cwd:
                cites = replace(cites, cwd=group.cwd)
            entries.append(self.entry(kind, MEMORY_FILE, lines, block, cites))
        return entries
