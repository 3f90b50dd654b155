"""Import a Codex memories folder: ``memgov import codex PATH``.

The folder (``~/.codex/memories/``, itself a git baseline workspace) holds:

- ``memory_summary.md``: first line ``v1``, then ``## User Profile`` (prose),
  ``## User preferences`` and ``## General Tips`` (bullets) and ``## What's in
  Memory`` (an index);
- ``MEMORY.md``: blocks ``# Task Group: <name>`` with ``scope:`` and
  ``applies_to: cwd=<path>; ...``, then ``## Task N: ...`` each with
  ``### rollout_summary_files`` (``- rollout_summaries/<file>.md (cwd=...,
  updated_at=..., thread_id=...)``) and ``### keywords``, then the group's
  ``## User preferences``, ``## Reusable knowledge`` and ``## Failures and how
  to do differently`` bullets, each citing its tasks (``[Task 1]``);
- ``rollout_summaries/*.md``: one per thread, with ``thread_id:``,
  ``updated_at:``, ``rollout_path:`` and ``cwd:`` header lines: the evidence;
- ``raw_memories.md``: phase-1 notes per thread (``## Thread `<id>```), input to
  Codex's own consolidation.

What becomes a record: each bullet (or prose paragraph) of the summary's
profile, preferences and tips, and of MEMORY.md's preferences, knowledge and
failures. Rollout summaries and raw memories are evidence, not memory: sources
point into them, and raw memories fill in a summary's missing header lines (as
Codex's consolidation does). Threads in raw_memories.md that MEMORY.md does not
cite yet are reported, not imported: Codex has not consolidated them.

Mapping rules (each can be corrected in ``memgov-import.yaml``):

==============================  ==========  ==================  ===========  ====  ====  ====
section                         type        subject             attribute    s1    s2    conf
==============================  ==========  ==================  ===========  ====  ====  ====
summary: User Profile           semantic    ``user:<owner>``    profile.*    0.8   0.8   0.7
User preferences (both files)   preference  ``user:<owner>``    *            0.8   0.9   0.7
summary: General Tips           reflection  ``user:<owner>``    tip.*        0.7   0.8   0.6
MEMORY.md: Reusable knowledge   semantic    ``project:<p>``     knowledge.*  0.7   0.8   0.7
MEMORY.md: Failures and how...  reflection  ``project:<p>``     failure.*    0.7   0.8   0.6
==============================  ==========  ==================  ===========  ====  ====  ====

- ``*`` is the bullet's own words as a slug (``use_pnpm_not_npm``; long ones are
  cut and end in a short hash). Codex bullets have no key of their own, so only
  identical statements merge and the import never puts two different statements
  in conflict: give two bullets the same attribute in the mapping file when one
  replaces the other.
- ``<p>``: the last folder of the group's ``applies_to: cwd=``, else of the
  cited rollout's ``cwd``, else ``codex``.
- content: the bullet without its ``[Task N]`` citations; title: its first words.
- sources: for each cited task (or the group's only task), each of its rollout
  summaries, at the line that best matches the bullet (a quoted phrase, else the
  most shared words, else the summary's title line);
  ``Source(task=<thread_id>, file=<absolute path>, line=N, evidence=<line>)``.
  A missing summary falls back to its thread in raw_memories.md, then to the
  bullet's own line. Summary bullets cite nothing: they point at their own line.
- s1/s2/confidence per section as above (the importer is the gate's caller; Codex
  already chose to keep them): preferences and profile are stable user facts;
  tips and failure shields are advisory (reflection: low trust).

Entries are imported oldest cited ``updated_at`` first, so newer evidence
comes later.

The user's own files beside Codex's (:mod:`core.importers.codex.notes` has their
table): notes become records too, each with a source at its own line:

=============================  ==========  ===============  =================  ====
file (unit)                    type        subject          attribute          conf
=============================  ==========  ===============  =================  ====
PROFILE.md (each bullet)       pref./sem.  ``user:<o>``     profile.<h>.*      0.7
ACTIVE.md (each bullet)        semantic    ``project:<p>``  active.<h>.*       0.7
LEARNINGS.md, ERRORS.md (##)   reflection  ``user:<o>``     learning./error.   0.6
FEATURE_REQUESTS.md (##)       semantic    ``project:<p>``  feature_request.*  0.6
other ``*.md``                 semantic    ``project:<p>``  <file>.<h>.*       0.7
extensions/ad_hoc/ notes       pref./sem.  ``user:<o>`` or  note.<h>.*         0.9
                                           ``project:<p>``
=============================  ==========  ===============  =================  ====

(preference when it states a wish, else semantic; an ad-hoc note is the user's
when it states a wish or speaks of the user, "The user ...", "I ...", "My ...",
else a fact about the work, the project's; ``<p>`` the mapping's ``project``, else
``codex``). memgov's own notes (:mod:`core.importers.codex.sync`) are skipped.

Every import keeps what it read in the private store's sync state
(:mod:`core.importers.codex.state`): an erased memory still in the folder from
before is skipped, not held as re-learned; ``memgov sync codex`` takes it out
(docs/codex.md). Skipped items, each with its reason: prompts for
the agent (README.md, AGENTS_SNIPPET.md, NIGHTLY_REVIEW_PROMPT.md...), each file
of ``skills/``, ``extensions/ad_hoc/instructions.md``, other extensions and
folders, files that are not Markdown, binary or over 1 MiB, and every symbolic
link (never followed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from core.importers.codex.entries import CodexEntries
from core.importers.codex.files import MEMORY_FILE, ROLLOUT_DIR, SUMMARY_FILE, CodexFolder
from core.importers.codex.notes import UserFiles
from core.importers.codex.state import keep_state, safe_state
from core.importers.entries import Entry, Reading
from core.importers.folder_state import folder_key
from core.importers.folders import MAX_FILE_BYTES, FolderError
from core.importers.held import file_hash
from core.importers.mapping import ImportMapping, default_owner, load_mapping
from core.store.fsutil import HostileEntry, read_entry
from core.store.transaction import Transaction
from core.store.workspace import Workspace

FORMAT = "codex"
EXAMPLE = "~/.codex/memories"


def codex_reading(
    workspace: Workspace,
    folder: Path,
    actor: str,
    mapping: Mapping[str, Any] | Path | None = None,
) -> Reading:
    """The folder read with its mapping file (``mapping`` replaces it), nothing written."""
    check_layout(folder)
    rules = load_mapping(folder, mapping)
    reading = read_codex(
        folder,
        owner=rules.owner or default_owner(workspace, actor),
        project=rules.project,
        mapping=rules,
    )
    remembered(workspace, folder, reading)
    return reading


def remembered(workspace: Workspace, folder: Path, reading: Reading) -> None:
    """What the store remembers of the folder (core.importers.codex.state): the words
    it held when memgov last read it (``reading.seen``), and how the run keeps them
    (``reading.keeper``): each file's hash and words as read now."""
    key = folder_key(folder)
    state = safe_state(workspace.private, key)
    reading.seen = state.seen() if state is not None else frozenset()
    names = {e.file for e in reading.entries} | set(state.files if state else ())
    hashes = {rel: h for rel in sorted(names) if (h := folder_file_hash(folder, rel)) is not None}
    entries = list(reading.entries)

    def keeper(
        tx: Transaction, only: frozenset[str] | None, erased: Callable[[Entry], bool]
    ) -> bool:
        return keep_state(
            tx,
            key=key,
            folder=str(folder),
            entries=entries,
            hashes=hashes,
            only=only,
            erased=erased,
        )

    reading.keeper = keeper


def folder_file_hash(folder: Path, rel: str) -> str | None:
    """The hash of a file of the folder, None when it is gone, unreadable or reached
    through a symbolic link."""
    path = folder / rel
    steps = [folder / p for p in reversed(Path(rel).parents) if str(p) != "."]
    try:
        if any(p.is_symlink() for p in (*steps, path)):
            return None
        data = read_entry(path, limit=MAX_FILE_BYTES)  # never a pipe, never past the cap
        return None if data is None else file_hash(data)
    except (OSError, HostileEntry):
        return None


def check_layout(folder: Path) -> None:
    """Whether ``folder`` is a Codex memories folder: a FolderError says what to pass
    instead (its ``memories/`` subfolder, or an example)."""
    if any((folder / name).exists() for name in (SUMMARY_FILE, MEMORY_FILE, ROLLOUT_DIR)):
        return
    hint = (
        f"; did you mean {folder / 'memories'}?"
        if (folder / "memories" / MEMORY_FILE).is_file()
        else f"; pass the folder that holds them, e.g. {EXAMPLE}"
    )
    raise FolderError(
        f"{folder}: not a Codex memories folder (no {SUMMARY_FILE}, {MEMORY_FILE} or "
        f"{ROLLOUT_DIR}/){hint}"
    )


def read_codex(
    folder: Path, *, owner: str, project: str | None = None, mapping: ImportMapping | None = None
) -> Reading:
    """Parse the folder into entries, skipped files and warnings (nothing is written)."""
    files = CodexFolder(folder)
    files.read_rollouts()
    files.read_raw()
    found = CodexEntries(files, owner, project)
    entries = found.summary_entries() + found.memory_entries()
    found.evidence.report_unused()
    reading = files.reading
    entries += UserFiles(folder, reading, owner, project).entries()
    reading.entries = (mapping or ImportMapping()).apply(entries, reading.warnings)
    return reading
