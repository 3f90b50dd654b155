"""Two-way sync with an agent's memory folder: ``memgov sync claude-code PATH``.

The agent keeps writing its own folder; memgov governs what it reads there. A
sync, safe to run from a hook after every agent session and as often as one
likes:

1. **What the agent wrote comes in.** Each file added or changed since the last
   sync goes through the import (:mod:`core.importers.session`: the write
   pipeline, one transaction): a changed file is new evidence for its record (a
   newer preference supersedes the older, a semantic fact that differs opens a
   conflict). An internal address, or a memory a person erased written again
   (by key, or by a hash of its words kept in the erasure event), is held for a
   person (:mod:`core.importers.held`), never imported on its own.
2. **What people decided goes back.** Each file whose record memgov changed is
   written again (:func:`core.importers.claude_code.export.file_text`: a correction rewrites
   the statement, a condition the front matter); the file of an erased record is
   deleted; ``MEMORY.md`` loses the lines of erased records (a topic file's or a
   note's: a note's line still standing where it stood goes, one the agent wrote
   again elsewhere is held as re-learned), hides the lines of records no longer
   active (superseded, expired: the state's index template keeps their place, and
   the line comes back there when the record is active again, e.g. a revert),
   keeps the line of a record in conflict (nobody decided yet), and gets the lines
   memgov changed written again, every other line of it as the agent wrote it
   (a note the agent moved is the same record, not imported again). A file the
   agent wrote that memgov holds no record of (refused, held, skipped) is left
   alone. A record that does not reach the agent (core.store.reaching, the rule
   every channel applies: the steering detector flags it and no person kept it) is
   as one no longer active: its line is hidden until a person keeps or corrects
   it, and memgov writes none of its words into the folder; its file, the agent's
   own, is left as the agent wrote it (deleting it is an erasure, which a person
   decides in its ``steering-<id>`` item). A promotion changes nothing here: the
   private record stays active and keeps its file, and the team's copy has none in
   this folder.
3. **Both sides changed: a person decides.** A file changed in the folder *and*
   whose record changed in memgov since the last sync becomes a held item with
   both versions (``both-changed``), never a silent overwrite either way.
4. **Consent, when the store asks for it** (``agent_memory_consent: true``): before
   anything else, each file the agent created or changed is held for a person and
   the folder gets its approved version back
   (:mod:`core.importers.claude_code.consent`); the sync goes on with the folder as
   approved, and keeps a copy of each approved file for the next one.

The sync state (:mod:`core.importers.folder_state`, ``sync/claude-code-<key>.json``
in the private store) keeps each file's hash on both sides at the last sync. A
file is written to a temporary name beside it and renamed over it, only when its
bytes are still the ones the sync read (the agent may be writing too), never
through a symbolic link; the state is committed last, so a sync killed at any
moment leaves files the next sync finds in agreement with memgov (a file whose
bytes are what memgov would write is in sync, whatever the state says).

Codex rewrites its own folder in its consolidation phase: ``memgov sync codex
PATH`` (:mod:`core.importers.codex.sync`, ``docs/codex.md``) imports, and takes an
erased memory's lines out of the files Codex consolidates from, with a note telling
Codex's consolidation not to bring them back.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.domain.record import Memory, content_hash, normal_hash
from core.importers.claude_code.consent import ConsentSync, asks_consent
from core.importers.claude_code.export import file_text, note_line, record_line
from core.importers.claude_code.files import INDEX_FILE, TEAM_DIR
from core.importers.claude_code.reader import FORMAT, SHOWN, claude_code_reading
from core.importers.entries import Reading
from core.importers.folder_state import (
    FolderState,
    IndexTemplate,
    StateError,
    folder_key,
    read_state,
    template_line,
)
from core.importers.folder_write import sweep_temps, write_agent_file
from core.importers.held import Held, file_hash, held_for, load_held, new_held_id
from core.importers.report import SyncReport
from core.importers.session import IMPORTED, run_entries
from core.store.fsutil import HostileEntry, escaped_name, name_problem, read_entry
from core.store.reaching import Reaching
from core.store.requests import filed_request
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace

INDEXES = (INDEX_FILE, f"{TEAM_DIR}/{INDEX_FILE}")
#: the agent's side of a file the agent deleted (its state's hash)
DELETED = "deleted"
MAX_BYTES = 1024 * 1024


@dataclass
class ClaudeCodeSync:
    """One sync with a Claude Code folder, as this module's docstring says; the
    folder checked and the private store found by :func:`core.importers.formats.sync_folder`."""

    workspace: Workspace
    private: Store
    folder: Path
    actor: str
    key: str = ""
    notes: list[str] = field(default_factory=list)
    gates: dict[Path, Reaching] = field(default_factory=dict)  # what reaches the agent

    def __post_init__(self) -> None:
        self.key = folder_key(self.folder)

    # ------------------------------------------------------------------ the run
    def run(self) -> SyncReport:  # noqa: C901
        sweep_temps(self.folder, self.notes)  # what a killed sync left mid-write
        state = self.state()
        disk = self.read_disk()
        last = state.files
        consent = self.consent() if state.files else None
        waiting = consent.run(last, disk, load_held(self.private)[0]) if consent else []
        if consent is not None:
            disk = self.read_disk()  # the folder as approved
        changed = {rel for rel, h in disk.items() if last.get(rel, {}).get("agent") != h}
        held_items, _problems = load_held(self.private)
        records = self.records_by_file()
        both, memgov_wins = self.both_sides(changed, last, disk, records, held_items)
        held_both = {rel for rel, _h in both}
        incoming = frozenset(changed - held_both - memgov_wins)
        reading = claude_code_reading(self.workspace, self.folder, self.actor)
        stale = self.stale_notes(state, reading, held_items, records)
        reading.entries = [
            e
            for e in reading.entries
            if e.file not in INDEXES or (e.origin_fields or {}).get("slot") not in stale
        ]
        report = run_entries(
            self.workspace,
            reading,
            fmt=FORMAT,
            folder=self.folder,
            actor=self.actor,
            dry_run=False,
            only=incoming if state.files else None,
        )
        outcomes: dict[str, set[str]] = {}
        for item in report.items:
            outcomes.setdefault(item.origin.rpartition(":")[0] or item.origin, set()).add(
                item.outcome
            )
        self.reopen()
        records = self.records_by_file()
        held_items, _problems = load_held(self.private)
        written: list[str] = []
        deleted: list[str] = []
        agree = 0
        asked: list[str] = []
        gone: set[str] = set()  # files of records no longer there: their index lines go
        files: dict[str, dict[str, str]] = {}
        for rel in sorted(set(disk) | set(records) | {r for r in last if r not in INDEXES}):
            if rel in INDEXES:
                continue
            if rel in held_both:
                files[rel] = dict(last.get(rel, {}))  # as it was: a person decides
                continue
            managed = last.get(rel, {}).get("memgov") is not None
            want = self.want(rel, records, managed)
            have = disk.get(rel)
            was = last.get(rel, {}).get("agent")
            if have is None and was is not None and want is not None:
                # the agent deleted its file: a person decides about the record (a
                # deletion request), and memgov does not write the file back meanwhile
                files[rel] = {"agent": DELETED, "memgov": file_hash(want)}
                if was != DELETED:
                    asked += self.ask_deletion(rel, records)
                continue
            forgotten = self.forgotten(held_items, rel, have)
            if forgotten or (want is None and managed):
                gone.add(rel)
                if have is not None and self.delete(rel, have):
                    deleted.append(rel)
                continue
            if self.withheld_file(rel, records):  # none of its words go to the folder
                if have is not None:
                    files[rel] = {"agent": have}
                continue
            if want is None:
                if have is not None:
                    files[rel] = {"agent": have}  # memgov holds no record of it: left alone
                continue
            if have is not None and file_hash(want) == have:
                agree += 1
            elif rel in incoming:
                # what the agent just wrote stays as it wrote it: the record it made (if
                # any: a held or refused file makes none) is what memgov writes from now
                came = outcomes.get(rel, set()) & set(IMPORTED)
                files[rel] = {"agent": have} if have is not None else {}
                if came and have is not None:
                    files[rel]["memgov"] = file_hash(want)
                continue
            elif self.write(rel, want, have):
                written.append(rel)
            else:
                files[rel] = dict(last.get(rel, {}))
                continue
            files[rel] = {"agent": file_hash(want), "memgov": file_hash(want)}
        rendered: dict[str, IndexTemplate] = {}
        for rel in INDEXES:
            done = self.index(rel, reading.templates.get(rel), records, gone | stale, disk.get(rel))
            if done is None:
                continue
            text, rendered[rel] = done
            before = disk.get(rel)
            changed_index = before is not None and file_hash(text.encode("utf-8")) != before
            if changed_index and self.write(rel, text, before):
                written.append(rel)
        held_now = [*waiting, *self.hold_both(both, held_items)]
        self.keep(state, files, rendered)
        copies = self.consent()
        if copies is not None:
            copies.keep_copies(self.read_disk())
        return SyncReport(
            format=FORMAT,
            folder=str(self.folder),
            imported=report,
            written=tuple(written),
            deleted=tuple(deleted),
            held=tuple(held_now),
            asked=tuple(asked),
            unchanged=agree,
            notes=tuple(self.notes),
        )

    def both_sides(
        self,
        changed: set[str],
        last: dict[str, dict[str, str]],
        disk: dict[str, str],
        records: dict[str, list[tuple[Store, Memory]]],
        held_items: list[Held],
    ) -> tuple[list[tuple[str, str]], set[str]]:
        """The files changed on both sides since the last sync, with memgov's version's
        hash (a person decides), and those a person already kept memgov's version of."""
        both: list[tuple[str, str]] = []
        memgov_wins: set[str] = set()
        decided_both = [h for h in held_items if h.reason == "both-changed"]
        for rel in sorted(changed - set(INDEXES)):
            memgov_then = last.get(rel, {}).get("memgov")
            want = self.want(rel, records, memgov_then is not None)
            if memgov_then is None or want is None or file_hash(want) == memgov_then:
                continue  # memgov did not change it: the agent's change comes in
            if file_hash(want) == disk[rel]:
                continue  # both changed it the same way
            decided = held_for(decided_both, str(self.folder), rel, disk[rel])
            if decided is not None and decided.status == "approved":
                continue  # a person took the agent's version: it comes in
            if decided is not None and decided.status == "rejected":
                memgov_wins.add(rel)  # a person kept memgov's: it goes back to the file
                continue
            both.append((rel, file_hash(want)))
        return both, memgov_wins

    def consent(self) -> ConsentSync | None:
        """Consent before the agent's next session (core.importers.claude_code.consent)."""
        if not asks_consent(self.private):
            return None

        def exported(rel: str) -> bytes | None:
            return self.want(rel, self.records_by_file(), True)

        return ConsentSync(self.private, self.folder, self.key, self.actor, self.notes, exported)

    # ------------------------------------------------------------------- reading
    def state(self) -> FolderState:
        try:
            found = read_state(self.private, FORMAT, self.key)
        except StateError as exc:
            self.notes.append(f"{exc}; a new state replaces it")
            found = None
        return found or FolderState(format=FORMAT, key=self.key, folder=str(self.folder))

    def read_disk(self) -> dict[str, str]:
        """rel -> hash of each memory file and index of the folder (no link followed)."""
        out: dict[str, str] = {}
        for base in ("", TEAM_DIR):
            here = self.folder / base if base else self.folder
            if here.is_symlink() or not here.is_dir():
                continue
            for entry in sorted(os.scandir(here), key=lambda e: e.name):
                if entry.name.startswith(".") or not entry.name.endswith(".md"):
                    continue
                rel = f"{base}/{entry.name}" if base else entry.name
                if name_problem(entry.name) is not None:
                    note = f"{escaped_name(rel)}: {name_problem(entry.name)}; left alone"
                    if note not in self.notes:
                        self.notes.append(note)
                    continue
                if entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                    continue  # a link, a folder, a pipe: never read, never written
                # read as one entry (never a pipe swapped in meanwhile, never over the cap)
                with contextlib.suppress(OSError, HostileEntry):
                    data = read_entry(entry.path, limit=MAX_BYTES, shown=rel)
                    if data is not None:
                        out[rel] = file_hash(data)
        return out

    def reopen(self) -> None:
        self.workspace = Workspace(stores=[Store(s.root) for s in self.workspace.stores])
        self.gates = {}
        private = self.workspace.private
        assert private is not None
        self.private = private

    def records_by_file(self) -> dict[str, list[tuple[Store, Memory]]]:
        """The records this folder's files gave, by file (every status but deleted)."""
        out: dict[str, list[tuple[Store, Memory]]] = {}
        for store in self.workspace.stores:
            for memory in store.memories.from_folder(self.key):
                origin = memory.origin or {}
                if origin.get("folder") == self.key and "file" in origin:
                    out.setdefault(origin["file"], []).append((store, memory))
        return out

    def want(
        self, rel: str, records: dict[str, list[tuple[Store, Memory]]], managed: bool
    ) -> bytes | None:
        """The file as memgov would write it now: its active record's, else its latest
        record's (superseded or expired: the file stays as it was); None when no record
        of it is left (erased, when memgov managed it), when the record that replaced
        its latest one was erased (the memory the agent knows by this file is gone), or
        it never had one."""
        mine = [(s, m) for s, m in records.get(rel, ()) if m.status != "deleted"]
        if not mine:
            return None
        active = [(s, m) for s, m in mine if m.status == "active"]
        store, memory = max(active or mine, key=lambda sm: (sm[1].created_at, sm[1].id))
        if memory.status == "superseded" and not _successor_left(store, memory.id):
            return None  # what replaced it was erased: the memory is gone, so is its file
        return file_text(memory, store.config.scope == "team").encode("utf-8")

    def reaches(self, store: Store, memory: Memory) -> bool:
        """Whether the record's line may stand in the folder's index: it reaches the
        agent (core.store.reaching), a record in conflict too (nobody decided yet)."""
        gate = self.gates.setdefault(store.root, Reaching(store))
        return gate.withheld(memory, statuses=SHOWN) is None

    def withheld_file(self, rel: str, records: dict[str, list[tuple[Store, Memory]]]) -> bool:
        """Whether the file's record stands (active, or in conflict) but does not reach
        the agent: memgov writes none of its words into the folder."""
        best = _best(records.get(rel, []))
        return best is not None and best[1].status in SHOWN and not self.reaches(*best)

    def forgotten(self, held: list[Held], rel: str, have: str | None) -> bool:
        """A person decided to keep these bytes forgotten (a re-learned memory)."""
        if have is None:
            return False
        found = held_for([h for h in held if h.reason == "relearned"], str(self.folder), rel, have)
        return found is not None and found.status == "rejected"

    def index(
        self,
        rel: str,
        template: IndexTemplate | None,
        records: dict[str, list[tuple[Store, Memory]]],
        gone: set[str],
        expected: str | None,
    ) -> tuple[str, IndexTemplate] | None:
        """The folder's MEMORY.md as the agent wrote it, each record's line where it
        stands: as the agent wrote it, written again where memgov changed what it shows,
        taken out while its record is not active (superseded, expired: a *hidden* line
        of the template, which comes back at its place when the record is active again;
        a record in conflict keeps its line: nobody decided yet), and gone with an
        erased record (``gone``: its file or its note's slot). (text, template), None
        when the file is not there or changed since the sync read it."""
        path = self.folder / rel
        if template is None or path.is_symlink() or not path.is_file():
            return None
        try:
            raw = path.read_bytes()
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None  # bytes that are not UTF-8: memgov does not rewrite the index
        if file_hash(raw) != expected:
            self.notes.append(f"{rel}: changed while the sync ran; the next sync takes it")
            return None
        by_slot: dict[str, list[tuple[Store, Memory]]] = {}
        for found in records.values():
            for store, memory in found:
                slot = (memory.origin or {}).get("slot")
                if slot is not None and memory.status != "deleted":
                    by_slot.setdefault(slot, []).append((store, memory))
        width = self.private.config.index_line_chars
        out: list[str] = []
        kept: list[dict[str, str]] = []
        for slot, line in _walk(text, template):
            if slot is None:
                assert line is not None
                out.append(line)
                kept += [t for t in [template_line(line, [], rel)] if t is not None]
                continue
            if slot in gone:
                continue  # erased (or kept forgotten): its line goes
            found = by_slot.get(slot, [])
            if not found:  # no record stands there (held, refused): the agent's line stays
                if line is not None:
                    out.append(line)
                    kept.append({"slot": slot})
                continue
            shown = [(s, m) for s, m in found if self.reaches(s, m)]
            if not shown:
                kept.append({"hidden": slot})  # superseded or expired: it may come back
                continue
            store, memory = max(
                shown, key=lambda sm: (sm[1].status == "active", sm[1].created_at, sm[1].id)
            )
            origin = memory.origin or {}
            if origin.get("file") in INDEXES:
                again = note_line(memory)
                as_written = origin.get("note")
            else:
                again = record_line(memory, store.config.scope == "team", width)
                as_written = origin.get("index")
            out.append(line if line is not None and again == as_written else again)
            kept.append({"slot": slot})
        final = text.endswith(("\n", "\r")) or not text
        return "\n".join(out) + ("\n" if out and final else ""), IndexTemplate(kept, final)

    def stale_notes(
        self,
        state: FolderState,
        reading: Reading,
        held: list[Held],
        records: dict[str, list[tuple[Store, Memory]]],
    ) -> set[str]:
        """The slots of notes of MEMORY.md whose record a person erased, still standing
        where they stood at the last sync (the same place among the lines around them):
        the agent did not write them again, so memgov takes the line out, and does not
        hold it as re-learned. A note written again elsewhere, or while a re-learned
        note of the index waits for a person, is the import's to hold."""
        if any(
            h.reason == "relearned"
            and h.status == "open"
            and h.folder == str(self.folder)
            and h.file in INDEXES
            for h in held
        ):
            return set()
        slots = {
            (m.origin or {}).get("slot")
            for found in records.values()
            for _s, m in found
            if m.status != "deleted"
        }
        notes = {
            (e.origin_fields or {}).get("slot"): e.content
            for e in reading.entries
            if e.file in INDEXES
        }
        candidates: list[str] = []
        for rel in INDEXES:
            now, before = reading.templates.get(rel), state.index.get(rel)
            if now is None or before is None:
                continue
            a = [_key(x) for x in before.lines if "hidden" not in x]
            b = [_key(x) for x in now.lines if "hidden" not in x]
            matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                olds = [x for x in a[i1:i2] if x[0] == "slot" and x[1] not in slots]
                news = [x for x in b[j1:j2] if x[0] == "slot" and x[1] not in slots]
                if tag == "replace":
                    news = news[: len(olds)]
                if tag in ("equal", "replace"):
                    candidates += [slot for _kind, slot in news if slot in notes]
        if not candidates:
            return set()
        words: set[str] = set()
        for store in self.workspace.stores:
            events, _problems = store.events()
            for event in events:
                if event.to_status == "deleted":
                    words.add(f"c:{event.details.get('content_hash')}")
                    words.add(f"n:{event.details.get('normal_hash')}")
        return {
            slot
            for slot in candidates
            if f"c:{content_hash(notes[slot])}" in words or f"n:{normal_hash(notes[slot])}" in words
        }

    # ------------------------------------------------------------------- writing
    def write(self, rel: str, data: bytes | str, expected: str | None) -> bool:
        """Write one file of the folder (:func:`core.importers.folder_write.write_agent_file`)."""
        return write_agent_file(self.folder, rel, data, expected, self.notes)

    def delete(self, rel: str, expected: str) -> bool:
        path = self.folder / rel
        if path.is_symlink():
            return False
        try:
            if file_hash(path.read_bytes()) != expected:
                return False
            path.unlink()
        except OSError:
            return False
        return True

    def ask_deletion(self, rel: str, records: dict[str, list[tuple[Store, Memory]]]) -> list[str]:
        """A deletion request for the active record of a file the agent deleted."""
        best = _best(records.get(rel, []))
        if best is None or best[1].status != "active":
            return []
        store, memory = best
        request, _filed = filed_request(
            store,
            kind="delete",
            memory_id=memory.id,
            reason=f"the agent deleted its file {rel} (memgov sync)",
            actor=self.actor,
        )
        return [f"{rel}: {request.id}"]

    def hold_both(self, both: list[tuple[str, str]], held: list[Held]) -> list[str]:
        """A held item for each file changed on both sides (once per agent's bytes)."""
        out: list[str] = []
        if not both:
            return out
        disk = self.read_disk()
        records = self.records_by_file()
        with transaction(self.private, actor=self.actor, message=f"sync: {self.folder}") as tx:
            for rel, _memgov in both:
                have = disk.get(rel)
                if have is None:
                    continue
                found = held_for(
                    [h for h in held if h.reason == "both-changed"], str(self.folder), rel, have
                )
                if found is None:
                    best = _best(records.get(rel, []))
                    memory = best[1] if best else None
                    when = tx.now.isoformat(timespec="seconds")
                    found = Held(
                        id=new_held_id(str(self.folder), rel, have, "both-changed", when),
                        reason="both-changed",
                        format=FORMAT,
                        folder=str(self.folder),
                        file=rel,
                        line=1,
                        hash=have,
                        held_at=when,
                        held_by=self.actor,
                        title=memory.display_title if memory else "",
                        key=f"{memory.type} {memory.scope} {memory.subject} {memory.attribute}"
                        if memory
                        else "",
                        detail="the agent changed the file, and memgov changed its record "
                        "since the last sync",
                        memory_id=memory.id if memory else None,
                    )
                    tx.write_file(found.path, found.to_yaml())
                    tx.event(
                        "hold",
                        (found.memory_id,) if found.memory_id else (),
                        reason=f"changed on both sides: {rel} held for review as {found.id}",
                        details={"held": found.id, "reason": "both-changed", "file": rel},
                    )
                out.append(f"{rel}: {found.id}")
        return out

    def keep(
        self,
        state: FolderState,
        files: dict[str, dict[str, str]],
        rendered: dict[str, IndexTemplate],
    ) -> None:
        """The new state: each file's hashes, the index as it is now (its template, with
        the lines this sync hid, ``rendered``'s, at their places)."""
        disk = self.read_disk()
        for rel in INDEXES:
            if rel in disk:
                files[rel] = {"agent": disk[rel], "memgov": disk[rel]}
        reading = claude_code_reading(
            self.workspace, self.folder, self.actor, previous={**state.index, **rendered}
        )
        fresh = FolderState(
            format=FORMAT,
            key=self.key,
            folder=str(self.folder),
            index=reading.templates or state.index,
            files={rel: h for rel, h in files.items() if h},
            synced_at=state.synced_at,
        )
        with contextlib.suppress(StateError):
            state = read_state(self.private, FORMAT, self.key) or state  # the import's
        if fresh.index == state.index and fresh.files == state.files:
            return
        with transaction(self.private, actor=self.actor, message=f"sync: {self.folder}") as tx:
            fresh.synced_at = tx.now.isoformat(timespec="seconds")
            tx.write_file(fresh.path, fresh.to_json())
            tx.event(
                "sync",
                reason=f"synced {FORMAT} folder {self.folder}",
                details={"folder": str(self.folder), "files": len(fresh.files)},
            )


def _successor_left(store: Store, memory_id: str) -> bool:
    """Whether a record that supersedes ``memory_id`` is still in the store (not erased)."""
    return bool(store.memories.superseding(memory_id))


def _best(found: Iterable[tuple[Store, Memory]]) -> tuple[Store, Memory] | None:
    mine = [(s, m) for s, m in found if m.status != "deleted"]
    if not mine:
        return None
    active = [(s, m) for s, m in mine if m.status == "active"]
    return max(active or mine, key=lambda sm: (sm[1].created_at, sm[1].id))


def _key(line: dict[str, str]) -> tuple[str, str]:
    ((kind, text),) = line.items()
    return kind, text


def _walk(text: str, template: IndexTemplate) -> list[tuple[str | None, str | None]]:
    """The index's lines beside its template (made from this very text, with hidden
    lines between): (slot, the line) for a record's line, (None, the line) for any
    other, (slot, None) for a hidden line."""
    out: list[tuple[str | None, str | None]] = []
    entries = template.lines
    j = 0
    for line in text.splitlines():
        while j < len(entries) and "hidden" in entries[j]:
            out.append((entries[j]["hidden"], None))
            j += 1
        entry = entries[j] if j < len(entries) else None
        if entry is not None and "slot" in entry:
            out.append((entry["slot"], line))
            j += 1
        elif entry is not None and entry.get("text") == line:
            out.append((None, line))
            j += 1
        else:  # a line the template leaves out (it holds a credential)
            out.append((None, line))
    out += [(e["hidden"], None) for e in entries[j:] if "hidden" in e]
    return out
