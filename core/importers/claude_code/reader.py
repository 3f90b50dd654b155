"""Import a Claude Code memory folder: ``memgov import claude-code PATH``.

The folder (``~/.claude/projects/<project>/memory/``) holds ``MEMORY.md``, an
index of lines ``- [Title](file.md) — hook`` (possibly under headings), and one
topic file per memory. A topic file has front matter with ``name``,
``description`` and ``type`` (user, feedback, project, reference), at the top
level or under ``metadata:``, and an optional ``modified``; its body is the
statement, often followed by ``**Why:**`` and ``**How to apply:**`` lines and
``[[name]]`` links to other memories. ``team/`` holds the team's topic files
(and possibly its own ``MEMORY.md``). Files without front matter are read too.

Every topic file becomes one record; the index only supplies titles, type
hints (its headings) and warnings (lines pointing at no file, files it does not
list, lines past what Claude Code loads).

Mapping rules (each can be corrected in ``memgov-import.yaml``, see
:mod:`core.importers.mapping`):

==========  ==================================================  ===========================
Claude      memgov type                                         subject
==========  ==================================================  ===========================
user        preference when it states a wish (prefers, wants,   ``user:<owner>``
            always, never, don't, 希望, 喜欢, 不要...), else
            semantic (a fact about the user: role, expertise)
feedback    preference                                          ``user:<owner>/project:<p>``
                                                                (in team/: ``project:<p>``)
project     semantic                                            ``project:<p>``
reference   semantic                                            ``project:<p>``
==========  ==================================================  ===========================

- attribute: the front matter ``name`` (else the file name) without a leading
  ``user_``/``feedback_``/``project_``/``reference_``, as a slug (lower case,
  words joined by ``_``, e.g. ``feedback_testing`` -> ``testing``);
- scope: ``team`` for files under ``team/``, else ``private``;
- type when the front matter has none: the index heading the file is listed
  under (``## Feedback``), else the file-name prefix (``feedback_x.md``), else
  project, with a warning;
- owner: the private store's ``owner``, else the actor's name; project: the
  folder's name (``<project>/memory`` gives ``<project>``; Claude Code's
  encoded ``-home-alice-src-liyyro`` gives ``liyyro`` when that folder exists
  on this machine);
- title: ``name``; content: the body (or the description when the body is
  empty); the source points at the body's first statement line:
  ``Source(task="claude-code:<p>/<file>", file=<absolute path>, line=N,
  evidence=<that line>)``;
- a ``memgov:`` block in the front matter (written by ``memgov export
  claude-code``) sets type, subject, attribute, condition and value exactly,
  so an export imports back to the same records.

Gate inputs (the importer is the write gate's caller; Claude Code already chose
to keep these memories, so they start above the default theta 0.6):

==========  ====  ====  ==========
kind        s1    s2    confidence
==========  ====  ====  ==========
user        0.8   0.8   0.7
feedback    0.8   0.9   0.8   (the user corrected the agent: explicit evidence)
project     0.7   0.8   0.7   (project facts change sooner)
reference   0.8   0.8   0.7
==========  ====  ====  ==========

Entries are imported oldest ``modified`` first (undated first), so a newer
feedback file for the same key supersedes an older one, as newer preferences do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.importers.claude_code.entries import check_links, link_key, note_entry, topic_entry
from core.importers.claude_code.export import note_line
from core.importers.claude_code.export_folder import marked_records
from core.importers.claude_code.files import (
    INDEX_FILE,
    TEAM_DIR,
    IndexEntry,
    IndexNote,
    front_text,
    index_by_file,
    index_notes,
    index_text,
    outside_link,
    read_index,
    topic_files,
)
from core.importers.claude_code.repository import (
    encoded_name,
    is_encoded,
    repository_above,
    repository_name,
)
from core.importers.entries import Entry, Reading
from core.importers.folder_state import (
    IndexTemplate,
    StateError,
    folder_key,
    read_state,
    template_line,
)
from core.importers.folders import FolderError
from core.importers.mapping import ImportMapping, default_owner, load_mapping
from core.store.workspace import Workspace

#: the statuses of a record whose line the agent's index shows
SHOWN = ("active", "conflict")

FORMAT = "claude-code"
EXAMPLE = "~/.claude/projects/<project>/memory"

_ENCODE = re.compile(r"[^A-Za-z0-9]")


def claude_code_reading(
    workspace: Workspace,
    folder: Path,
    actor: str,
    mapping: Mapping[str, Any] | Path | None = None,
    previous: Mapping[str, IndexTemplate] | None = None,
) -> Reading:
    """The folder read with its mapping file (``mapping`` replaces it), nothing written.
    ``previous``: its index templates with the lines memgov hid (default: its state's)."""
    check_layout(folder)
    rules = load_mapping(folder, mapping)
    key = folder_key(folder)
    if previous is None and workspace.private is not None:
        try:
            state = read_state(workspace.private, FORMAT, key)
        except StateError:
            state = None  # unusable: the import or sync says so, and a new one replaces it
        previous = dict(state.index) if state is not None else {}
    previous = previous or {}
    return read_claude_code(
        folder,
        owner=rules.owner or default_owner(workspace, actor),
        project=rules.project or project_name(folder),
        mapping=rules,
        agent=agent_name(folder),
        key=key,
        known=known_notes(workspace, key, previous),
        previous=previous,
    )


@dataclass
class KnownNotes:
    """The notes of a folder's index memgov holds records of, by the line that shows
    each (as the agent wrote it, or as memgov wrote it again): a note the agent moved
    to another line keeps its record and its slot, and is not imported again."""

    #: (index, line as it stands) -> [(slot, the line its record's source names)]
    by_line: dict[tuple[str, str], list[tuple[str, int | None]]] = field(default_factory=dict)
    #: every slot a record of the folder or a hidden line of its index holds
    taken: set[str] = field(default_factory=set)


def known_notes(
    workspace: Workspace, key: str, previous: Mapping[str, IndexTemplate]
) -> KnownNotes:
    known = KnownNotes()
    for template in previous.values():
        known.taken.update(line["hidden"] for line in template.lines if "hidden" in line)
    for store in workspace.stores:
        for memory in store.memories.from_folder(key):
            origin = memory.origin or {}
            if origin.get("folder") != key or "slot" not in origin or memory.status == "deleted":
                continue
            known.taken.add(origin["slot"])
            if "note" not in origin or memory.status not in SHOWN:
                continue
            index = origin.get("file", INDEX_FILE)
            line = next(
                (s.line for s in memory.all_sources if s.file and s.file.endswith(index)), None
            )
            for text in dict.fromkeys((origin["note"], note_line(memory))):
                known.by_line.setdefault((index, text), []).append((origin["slot"], line))
    return known


def project_name(folder: Path) -> str:
    """``<project>/memory`` -> ``<project>``; a folder inside a repository
    (``<repo>/.claude/memory``, ``<repo>/.claude/agent-memory/<agent>``) -> ``<repo>``,
    never ``.claude``. Claude Code names a project's folder after
    its path, with '-' for '/' (and for other characters than letters and digits:
    ``/home/alice/src/my-app`` -> ``-home-alice-src-my-app``). The key comes from
    the repository, the same on every machine (:mod:`core.importers.claude_code.repository`):
    its git remote's name, else its top folder's; an encoded path no folder of this
    machine has, the path less its home and checkout folders."""
    base = folder.parent if folder.name == "memory" else folder
    if agent_name(folder) is not None:  # <repository>/.claude/agent-memory/<agent>
        base = folder.parent.parent
    if base.name == ".claude":  # <repository>/.claude/memory: the repository's project
        base = base.parent
    name = base.name
    if not is_encoded(name):
        return repository_name(base) or name or "project"
    found = _decode(Path("/"), name[1:].split("-")) if name.startswith("-") else None
    if found is None or not found.name:
        return encoded_name(name)
    return repository_above(found) or found.name


def agent_name(folder: Path) -> str | None:
    """The agent whose own memory the folder is (``.claude/agent-memory/<agent>``)."""
    if folder.parent.name == "agent-memory" and folder.parent.parent.name == ".claude":
        return folder.name
    return None


def _decode(base: Path, parts: list[str]) -> Path | None:
    """The existing folder under base whose encoded relative path is '-'.join(parts)."""
    if not parts:
        return base
    try:
        children = {_ENCODE.sub("-", c.name): c for c in base.iterdir() if c.is_dir()}
    except OSError:
        return None
    for size in range(1, len(parts) + 1):
        child = children.get("-".join(parts[:size]))
        found = _decode(child, parts[size:]) if child is not None else None
        if found is not None:
            return found
    return None


def check_layout(folder: Path) -> None:
    """Whether ``folder`` is a Claude Code memory folder: a FolderError says what to
    pass instead (its ``memory/`` subfolder, or an example)."""
    if (folder / INDEX_FILE).is_file() or any(folder.glob("*.md")):
        return
    hint = (
        f"; did you mean {folder / 'memory'}?"
        if (folder / "memory" / INDEX_FILE).is_file()
        else f"; pass the folder that holds {INDEX_FILE}, e.g. {EXAMPLE}"
    )
    raise FolderError(f"{folder}: no {INDEX_FILE} and no memory files{hint}")


def read_claude_code(
    folder: Path,
    *,
    owner: str,
    project: str,
    mapping: ImportMapping | None = None,
    agent: str | None = None,
    key: str = "",
    known: KnownNotes | None = None,
    previous: Mapping[str, IndexTemplate] | None = None,
) -> Reading:
    """Parse the folder into entries, skipped files and warnings (nothing is written).
    ``key``: the folder's in the store (core.importers.folder_state.folder_key);
    ``known``: the notes of its index memgov holds records of; ``previous``: its
    index templates at the last import or sync (their hidden lines are kept)."""
    reading = Reading(folder_key=key or folder_key(folder))
    index: list[IndexEntry] = []
    notes: list[tuple[IndexNote, Path]] = []
    texts: dict[str, str] = {}
    for rel in (INDEX_FILE, f"{TEAM_DIR}/{INDEX_FILE}"):
        text = index_text(folder, rel, reading)
        if text is not None:
            texts[rel] = text
            lines = text.splitlines()
            index += read_index(lines, rel, reading)
            notes += [(note, folder / rel) for note in index_notes(lines, rel, reading)]
    listed = index_by_file(index, folder, reading)
    topics = topic_files(folder, reading)
    names = {link_key(n) for t in topics for n in (t.stem, front_text(t.meta, "name") or t.stem)}
    entries = []
    marked = marked_records(folder)  # a memgov export's own files: their records
    for topic in topics:
        entries.append(
            topic_entry(
                topic,
                listed.get(topic.rel),
                owner,
                project,
                reading,
                agent=agent,
                folder_key=reading.folder_key,
                marked=marked.get(topic.rel),
            )
        )
        check_links(topic, names, reading)
    note_slots: dict[tuple[str, int], str] = {}
    claimed: set[str] = set()
    for note, path in notes:
        entry = note_entry(note, path, owner, project, agent=agent, folder_key=reading.folder_key)
        outside = outside_link(note.raw, note.index)
        if outside is not None:  # a line of the index, as a heading is: no record's slot
            entries.append(
                replace(
                    entry,
                    skip=f"links outside the folder ({outside[:80]}): a pointer to another "
                    "file, not a memory; not imported",
                )
            )
            continue
        entry, slot = _placed(entry, note, known or KnownNotes(), claimed)
        note_slots[(note.index, note.line)] = slot
        entries.append(entry)
    read = {t.rel for t in topics}
    for rel, text in texts.items():
        slots = {e.line: e.target for e in listed.values() if e.index == rel and e.target in read}
        slots.update({line: slot for (index, line), slot in note_slots.items() if index == rel})
        template = index_template(text, slots, rel, reading.warnings)
        reading.templates[rel] = template.with_hidden((previous or {}).get(rel))
    if index:  # the run's warning says which of them it imported (session.unlisted_warning)
        reading.unlisted = [t.rel for t in topics if t.rel not in listed]
        reading.index_file = INDEX_FILE
        reading.unlisted_note = "Claude Code finds them only by searching"
    reading.entries = (mapping or ImportMapping()).apply(entries, reading.warnings)
    return reading


def _placed(
    entry: Entry, note: IndexNote, known: KnownNotes, claimed: set[str]
) -> tuple[Entry, str]:
    """The note's entry and its slot: a note memgov holds a record of keeps that
    record's slot, and its source names the line the record's does (so a note the agent
    moved is already imported, not merged again); a new note takes its line's slot,
    unless a record or a hidden line holds that one."""
    found = known.by_line.get((note.index, note.raw), [])
    free = [(slot, line) for slot, line in found if slot not in claimed]
    own = f"{note.index}:{note.line}"
    if free:
        slot, line = next(((s, n) for s, n in free if s == own), free[0])
        claimed.add(slot)
        if line is not None and line != note.line:
            entry = replace(entry, sources=tuple(replace(s, line=line) for s in entry.sources))
    else:
        slot, number = own, 1
        while slot in known.taken or slot in claimed:
            number += 1
            slot = f"{own}.{number}"
        claimed.add(slot)
    if slot != own or "slot" not in (entry.origin_fields or {}):
        entry = replace(entry, origin_fields={**(entry.origin_fields or {}), "slot": slot})
    return entry, slot


def index_template(
    text: str, slots: dict[int, str], rel: str, warnings: list[str]
) -> IndexTemplate:
    """One MEMORY.md as the state keeps it: each line its text, or the slot of the
    record standing there (``slots``: line number -> slot)."""
    template = IndexTemplate(final_newline=text.endswith(("\n", "\r")) or not text)
    for number, line in enumerate(text.splitlines(), start=1):
        if number in slots:
            template.lines.append({"slot": slots[number]})
        elif (kept := template_line(line, warnings, f"{rel}:{number}")) is not None:
            template.lines.append(kept)
    return template
