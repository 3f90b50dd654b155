"""Sync with a Codex memories folder: ``memgov sync codex PATH`` (docs/codex.md).

Codex rewrites its folder itself: each consolidation (its phase 2) rebuilds
``raw_memories.md`` and ``rollout_summaries/`` from its own database, then an agent
of its own rewrites ``MEMORY.md`` and ``memory_summary.md`` from them, the
existing files and the git diff of the folder since its last consolidation, in
which it takes every change as the user's and keeps it. ``extensions/ad_hoc/notes/``
holds notes "to edit/add/delete memories" that it consolidates as authoritative
and never deletes. So what memgov decides reaches Codex this way:

1. **An erased memory leaves the files Codex reads and keeps.** Each memory a
   person erased in memgov that still stands in ``MEMORY.md``, ``memory_summary.md``
   or a note of the user's (``PROFILE.md``, an ad-hoc note, ...) since before the
   erasure (its words were there when memgov last read the folder,
   :mod:`core.importers.codex.state`), or that a person decided to keep forgotten
   (a re-learned memory, rejected), has its lines taken out of that file. Never
   ``raw_memories.md`` or ``rollout_summaries/``: Codex writes them again from its
   database at its next consolidation, and they are its evidence.
2. **Codex is told, in its own channel.** When lines left ``MEMORY.md`` or
   ``memory_summary.md`` (or an ad-hoc note), one new ad-hoc note
   (``extensions/ad_hoc/notes/<time>-memgov-forget-<hash>.md``) says the user
   erased the memories at those places, with the rollout summaries they cited, and
   that the next consolidation must not write them back from its evidence. The
   note names places, never the memory's words (an erasure keeps none).
3. **What the agent wrote comes in.** Each file changed since memgov last read it
   goes through the import (:mod:`core.importers.session`); an erased memory whose
   words were not there before is written again by the agent: held for a person
   (``relearned``), never imported on its own. An unchanged folder gives an idle
   sync: nothing read again, nothing held, nothing written.

Each file is written as a Claude Code sync writes
(:func:`core.importers.folder_write.write_agent_file`): a temporary file beside
it renamed over it, only while its bytes are the ones the sync read, never
through a symbolic link; a note is only ever created, never overwritten. The
state is kept in the private store, in the import's transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.domain.record import normal_hash
from core.importers.codex.files import MEMORY_FILE, SUMMARY_FILE, headings
from core.importers.codex.notes import AD_HOC_DIR, MEMGOV_NOTE
from core.importers.codex.reader import FORMAT, codex_reading, folder_file_hash
from core.importers.codex.state import safe_state
from core.importers.entries import Entry, Reading
from core.importers.folder_state import folder_key
from core.importers.folder_write import sweep_temps, write_agent_file
from core.importers.folders import MAX_FILE_BYTES
from core.importers.held import held_for, load_held
from core.importers.ledger import Ledger
from core.importers.report import SyncReport
from core.importers.session import run_entries
from core.importers.text import origin_key
from core.store.fsutil import HostileEntry, read_entry
from core.store.store import Store
from core.store.workspace import Workspace

NOTES_DIR = f"{AD_HOC_DIR}/notes"
#: the files Codex's consolidation reads and keeps as its memory (a change is the user's)
CONSOLIDATED = (MEMORY_FILE, SUMMARY_FILE)


@dataclass
class _Removal:
    entry: Entry
    why: str  # "erased" or "forgotten"


@dataclass
class CodexSync:
    """One sync with a Codex folder, as this module's docstring says; the folder
    checked and the private store found by :func:`core.importers.formats.sync_folder`."""

    workspace: Workspace
    private: Store
    folder: Path
    actor: str
    notes: list[str] = field(default_factory=list)
    read: dict[str, str] = field(default_factory=dict)  # each file's hash as first read

    def run(self) -> SyncReport:
        sweep_temps(self.folder, self.notes)  # what a killed sync left mid-write
        key = folder_key(self.folder)
        state = safe_state(self.private, key, self.notes)
        reading = codex_reading(self.workspace, self.folder, self.actor)
        before = {rel: h for rel in _files(reading) if (h := folder_file_hash(self.folder, rel))}
        self.read = dict(before)
        removals = self.removals(reading, before)
        written: list[str] = []
        taken: dict[str, list[Entry]] = {}
        for rel, entries in sorted(removals.items()):
            if self.take_out(rel, [r.entry for r in entries], before[rel]):
                written.append(rel)
                taken[rel] = [r.entry for r in entries]
        note = self.note(reading, taken)
        if note is not None:
            written.append(note)
        # what the agent changed since memgov last read the folder comes in, and what
        # memgov just wrote is read again (the state keeps its new hashes and words)
        fresh = codex_reading(self.workspace, self.folder, self.actor) if written else reading
        last = state.files if state is not None else {}
        changed = {rel for rel, h in before.items() if last.get(rel, {}).get("agent") != h}
        changed |= {rel for rel in last if rel not in before}  # gone since
        only = None if state is None else frozenset(changed | set(taken))
        report = run_entries(
            self.workspace,
            fresh,
            fmt=FORMAT,
            folder=self.folder,
            actor=self.actor,
            dry_run=False,
            only=only,
        )
        agree = len([rel for rel in before if rel not in changed and rel not in taken])
        return SyncReport(
            format=FORMAT,
            folder=str(self.folder),
            imported=report,
            written=tuple(written),
            unchanged=agree,
            notes=tuple(self.notes),
        )

    # ------------------------------------------------------------------- deciding
    def removals(self, reading: Reading, hashes: dict[str, str]) -> dict[str, list[_Removal]]:
        """The entries whose lines leave their file: erased since memgov last read them
        there, or re-learned and kept forgotten by a person (by file)."""
        ledger = Ledger(self.private)
        active = {normal_hash(m.content) for m in ledger.view.values() if m.status == "active"}
        held, _problems = load_held(self.private)
        relearned = [h for h in held if h.reason == "relearned"]
        out: dict[str, list[_Removal]] = {}
        for entry in reading.entries:
            if entry.scope != "private" or entry.file not in hashes:
                continue
            if ledger.erasure_of(entry) is None:
                continue
            words = normal_hash(entry.content)
            if words in active:
                continue  # a person learned it again
            decided = held_for(relearned, str(self.folder), entry.file, hashes[entry.file])
            if decided is not None and decided.status == "rejected":
                out.setdefault(entry.file, []).append(_Removal(entry, "forgotten"))
            elif words in reading.seen:
                out.setdefault(entry.file, []).append(_Removal(entry, "erased"))
        return out

    # ------------------------------------------------------------------- writing
    def take_out(self, rel: str, entries: list[Entry], expected: str) -> bool:
        """The file without the entries' lines (and a blank line they leave doubled)."""
        path = self.folder / rel
        try:
            raw = read_entry(path, limit=MAX_FILE_BYTES, shown=rel) or b""
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError, HostileEntry):
            self.notes.append(f"{rel}: cannot be read as UTF-8; its lines are not taken out")
            return False
        lines = text.splitlines(keepends=True)
        gone: set[int] = set()  # 0-based
        for entry in entries:
            first = origin_key(entry.origin)[1]
            last = max(entry.last_line, first)
            if first < 1 or last > len(lines):
                continue
            gone.update(range(first - 1, last))
        kept = _without(lines, gone)
        return self.write(rel, "".join(kept).encode("utf-8"), expected)

    def note(self, reading: Reading, taken: dict[str, list[Entry]]) -> str | None:
        """One ad-hoc note for Codex's next consolidation: which places of its memory
        the user erased, never their words."""
        places = [
            (rel, entry)
            for rel, entries in sorted(taken.items())
            for entry in entries
            if rel in CONSOLIDATED or rel.startswith(f"{AD_HOC_DIR}/")
        ]
        if not places:
            return None
        private = self.private
        when = private.now()
        lines = [
            MEMGOV_NOTE,
            "# Memories the user erased",
            "",
            f"On {when.date().isoformat()} the user erased these memories in memgov, the "
            "tool they govern their agents' memories with, and memgov took their lines out "
            "of the files named below (the workspace diff shows them). They are not to be "
            "in MEMORY.md, memory_summary.md or skills/ any more: do not write them back "
            "from raw_memories.md, rollout_summaries/ or any other input, now or at a later "
            "consolidation. A memory the user wants again comes back through them, not "
            "from the evidence.",
            "",
        ]
        for rel, entry in places:
            lines.append(f"- {rel}, line {origin_key(entry.origin)[1]}{self.where(rel, entry)}")
        # the places and the files' bytes before: two syncs never name one note alike
        seed = "\n".join([*lines, *sorted(self.read.get(rel, "") for rel in taken)])
        digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:8]
        stamp = when.strftime("%Y-%m-%dT%H-%M-%S")
        name = f"{NOTES_DIR}/{stamp}-memgov-forget-{digest}"
        taken_names = {p.name for p in (self.folder / NOTES_DIR).glob("*.md")}
        rel = next(
            f"{name}{f'-{n}' if n > 1 else ''}.md"
            for n in range(1, len(taken_names) + 2)
            if f"{Path(name).name}{f'-{n}' if n > 1 else ''}.md" not in taken_names
        )
        if not self.write(rel, ("\n".join(lines) + "\n").encode("utf-8"), None):
            return None
        return rel

    def where(self, rel: str, entry: Entry) -> str:
        """The section the lines stood in, and the rollout summaries the memory cited."""
        path = self.folder / rel
        try:
            raw = read_entry(path, limit=MAX_FILE_BYTES, shown=rel) or b""
            lines = raw.decode("utf-8").splitlines()
        except (OSError, UnicodeDecodeError, HostileEntry):
            lines = []
        line = origin_key(entry.origin)[1]
        trail: dict[int, str] = {}
        for index, level, text in headings(lines):
            if index >= line - 1:
                break
            trail = {k: v for k, v in trail.items() if k < level}
            trail[level] = text.strip()
        section = " / ".join(trail[k] for k in sorted(trail))
        cited = sorted(
            {
                f"rollout_summaries/{Path(s.file).name}"
                for s in entry.sources
                if s.file and "/rollout_summaries/" in s.file.replace("\\", "/")
            }
        )
        parts = [f" (under '{section}')" if section else ""]
        if cited:
            parts.append(f"; it cited {', '.join(cited)}")
        return "".join(parts)

    def write(self, rel: str, data: bytes | str, expected: str | None) -> bool:
        """Write one file of the folder (:func:`core.importers.folder_write.write_agent_file`)."""
        return write_agent_file(self.folder, rel, data, expected, self.notes)


def _files(reading: Reading) -> list[str]:
    return sorted({entry.file for entry in reading.entries})


def _without(lines: list[str], gone: Iterable[int]) -> list[str]:
    """``lines`` less the indices ``gone``; where that leaves two blank lines together
    (a paragraph taken out between blank lines), one of them goes too."""
    drop = set(gone)
    kept: list[str] = []
    for index, line in enumerate(lines):
        if index in drop:
            continue
        blank = not line.strip()
        if blank and kept and not kept[-1].strip() and (index - 1) in drop:
            continue
        kept.append(line)
    return kept
