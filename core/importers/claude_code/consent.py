"""Consent before a memory reaches the agent's next session.

With ``agent_memory_consent: true`` in the private store's ``memgov.yaml``, a sync
(:mod:`core.importers.claude_code.sync`) holds each memory file the agent created
or changed in its folder since the last sync, as a ``consent`` held item
(:mod:`core.importers.held`), and the folder keeps the last approved version, so
the agent's next session does not load what nobody approved:

- the item and the file's bytes (credentials redacted, ``held/<id>.md``), with its
  line of ``MEMORY.md`` (``held/<id>.line``), are written in one transaction
  first; only then does the folder change (a sync killed between finds the same
  bytes and the open item, and puts the approved version back again);
- a new file is taken out of the folder and its line out of ``MEMORY.md``; a
  changed file gets its approved bytes back (the copy the last sync kept,
  ``consent/<folder key>/<file>``, when it is what that sync saw, else memgov's
  own version of its record), and its line of ``MEMORY.md`` the approved one.

Approving (``keep``) writes the held bytes back into the folder and its line into
``MEMORY.md``, and imports the file (:mod:`core.review.held`); rejecting
(``drop``) closes the item: the same bytes written again are put back to the
approved version at each sync, without a new item. A revert leaves the item
waiting as before the decision (:func:`core.review.held.reopen_on_revert`). A note
written straight into ``MEMORY.md`` is held line by line the same way
(:mod:`core.importers.claude_code.consent_notes`). The first sync of a folder takes
what is there as approved: the person turned consent on with that folder.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import Path

from core.domain import secrets
from core.importers.claude_code.consent_notes import (
    INDEXES,
    NoteChange,
    line_hash,
    note_changes,
    place_path,
    place_text,
    without_note,
)
from core.importers.claude_code.files import INDEX_FILE, TEAM_DIR
from core.importers.claude_code.reader import FORMAT
from core.importers.folder_write import write_agent_file
from core.importers.held import (
    HELD_DIR,
    MAX_FILE_BYTES,
    Held,
    file_hash,
    held_for,
    new_held_id,
)
from core.store.fsutil import HostileEntry, read_entry
from core.store.store import Store
from core.store.transaction import Transaction, transaction

REASON = "consent"
CONSENT_DIR = "consent"


def asks_consent(store: Store | None) -> bool:
    """Whether the private store holds the agent's new memories for a person."""
    return store is not None and store.config.agent_memory_consent


def pending_path(held_id: str) -> str:
    return f"{HELD_DIR}/{held_id}.md"


def line_path(held_id: str) -> str:
    return f"{HELD_DIR}/{held_id}.line"


def before_path(held_id: str) -> str:
    """The approved copy an approval replaced (a revert puts it back)."""
    return f"{HELD_DIR}/{held_id}.before.md"


def approved_path(key: str, rel: str) -> str:
    return f"{CONSENT_DIR}/{key}/{rel}"


def store_bytes(store: Store, rel: str) -> bytes | None:
    """A file of the store, never through a link, never over the cap (None: absent)."""
    path = store.root / rel
    if any(p.is_symlink() for p in (path, *path.parents) if store.root in (p, *p.parents)):
        return None
    try:
        return read_entry(path, limit=MAX_FILE_BYTES)
    except (OSError, HostileEntry):
        return None


def folder_bytes(folder: Path, rel: str) -> bytes | None:
    with contextlib.suppress(OSError, HostileEntry):
        if not (folder / rel).is_symlink():
            return read_entry(folder / rel, limit=MAX_FILE_BYTES)
    return None


def pending_text(store: Store, held: Held) -> str | None:
    """The held bytes of a consent item, as text (None: gone)."""
    data = store_bytes(store, pending_path(held.id))
    return None if data is None else data.decode("utf-8", "replace")


def index_of(rel: str) -> tuple[str, str]:
    """The index that lists a file, and the link it uses for it."""
    if rel.startswith(f"{TEAM_DIR}/"):
        return f"{TEAM_DIR}/{INDEX_FILE}", rel.removeprefix(f"{TEAM_DIR}/")
    return INDEX_FILE, rel


def linking(text: str, link: str) -> list[int]:
    """The numbers (from 0) of the lines of an index that link to ``link``."""
    pattern = re.compile(r"\]\(\s*<?(?:\./)?" + re.escape(link) + r">?\s*(?:\"[^\"]*\")?\)")
    return [n for n, line in enumerate(text.splitlines()) if pattern.search(line)]


def with_line(text: str, link: str, line: str | None, after: str | None = None) -> str:
    """The index with its lines for ``link`` replaced by ``line`` (None: taken out;
    a line no line links to yet goes after ``after``, where the agent wrote it, else at
    the end)."""
    lines = text.splitlines()
    found = linking(text, link)
    if line is None:
        kept = [x for n, x in enumerate(lines) if n not in found]
    elif found:
        kept = [line if n == found[0] else x for n, x in enumerate(lines) if n not in found[1:]]
    elif after is not None and after in lines:
        at = lines.index(after) + 1
        kept = [*lines[:at], line, *lines[at:]]
    else:
        kept = [*lines, line]
    end = "\n" if kept and (text.endswith("\n") or not text) else ""
    return "\n".join(kept) + end


class ConsentSync:
    """What a sync does for consent, before it reads the folder (the module's docstring)."""

    def __init__(
        self,
        private: Store,
        folder: Path,
        key: str,
        actor: str,
        notes: list[str],
        exported: Callable[[str], bytes | None],
    ) -> None:
        self.private = private
        self.folder = folder
        self.key = key
        self.actor = actor
        self.notes = notes
        self.exported = exported  # memgov's version of a file, from its record

    def run(
        self, last: dict[str, dict[str, str]], disk: dict[str, str], held: list[Held]
    ) -> list[str]:
        """Hold what the agent wrote since the last sync and put the approved versions
        back; a line for the report per file held."""
        items = [h for h in held if h.reason == REASON]
        restore: dict[str, Held | None] = {}
        for rel in sorted(disk):
            if rel in (INDEX_FILE, f"{TEAM_DIR}/{INDEX_FILE}"):
                continue
            found = held_for(items, str(self.folder), rel, disk[rel])
            if found is not None and found.status != "approved":
                restore[rel] = found  # waiting, or dropped: the approved version goes back
                continue
            if found is not None or last.get(rel, {}).get("agent") == disk[rel]:
                continue  # approved, or not changed since the last sync
            copy = store_bytes(self.private, approved_path(self.key, rel))
            if copy is not None and file_hash(copy) == disk[rel]:
                continue  # what a person approved
            restore[rel] = None
        changes = self.note_changes(disk, items)
        if not restore and not changes:
            return []
        out = self.hold(restore, last, disk, changes)
        for rel, found in restore.items():
            self.put_back(rel, last, disk[rel], found)
        self.put_back_notes(changes)
        return out

    def note_changes(self, disk: dict[str, str], items: list[Held]) -> list[NoteChange]:
        """The notes of the folder's indexes nobody approved (consent_notes)."""
        out: list[NoteChange] = []
        for index in INDEXES:
            copy = store_bytes(self.private, approved_path(self.key, index))
            now = folder_bytes(self.folder, index)
            if copy is None or now is None or index not in disk:
                continue  # no approved copy yet: the first sync approved what was there
            if file_hash(now) != disk[index]:
                self.notes.append(f"{index}: changed while the sync ran; the next sync takes it")
                continue
            approved, text = copy.decode("utf-8", "replace"), now.decode("utf-8", "replace")
            out += note_changes(approved, text, index, str(self.folder), items)
        return out

    def hold(
        self,
        restore: dict[str, Held | None],
        last: dict[str, dict[str, str]],
        disk: dict[str, str],
        changes: list[NoteChange],
    ) -> list[str]:
        out: list[str] = []
        fresh = [rel for rel, found in restore.items() if found is None]
        new_notes = [c for c in changes if c.found is None]
        if not fresh and not new_notes:
            return out
        with transaction(self.private, actor=self.actor, message=f"sync: {self.folder}") as tx:
            for change in new_notes:
                change.found = self.new_note(tx, change)
                out.append(f"{change.index}:{change.number + 1}: {change.found.id}")
            for rel in fresh:
                data = folder_bytes(self.folder, rel)
                if data is None or file_hash(data) != disk[rel]:
                    restore.pop(rel)
                    self.notes.append(f"{rel}: changed while the sync ran; the next sync takes it")
                    continue
                made = self.new_item(tx, rel, data, was=rel in last)
                restore[rel] = made
                out.append(f"{rel}: {made.id}")
        return out

    def new_note(self, tx: Transaction, change: NoteChange) -> Held:
        """A consent item for a note of an index: the line, and where it stands."""
        when = tx.now.isoformat(timespec="seconds")
        digest = line_hash(change.raw)
        text = secrets.redact(change.raw)
        made = Held(
            id=new_held_id(str(self.folder), change.index, digest, REASON, when),
            reason=REASON,
            format=FORMAT,
            folder=str(self.folder),
            file=change.index,
            line=change.number + 1,
            hash=digest,
            held_at=when,
            held_by=self.actor,
            title=text.strip().lstrip("-*+ ").strip()[:200],
            detail=(
                "the agent changed a note of its index"
                if change.replaces is not None
                else "the agent wrote a new note in its index"
            )
            + "; it reaches the agent's next session once a person keeps it",
        )
        tx.write_file(made.path, made.to_yaml())
        tx.write_file(pending_path(made.id), text + "\n")
        near = [None if x is None else secrets.redact(x) for x in (change.replaces, change.after)]
        tx.write_file(place_path(made.id), place_text(*near))
        tx.event(
            "hold",
            reason=f"{made.named}: a note of {change.index} held for review as {made.id}",
            details={"held": made.id, "reason": REASON, "file": change.index},
        )
        return made

    def put_back_notes(self, changes: list[NoteChange]) -> None:
        """The folder's indexes as approved: each held note out, or the approved one back."""
        for index in INDEXES:
            mine = [c for c in changes if c.index == index and c.found is not None]
            now = folder_bytes(self.folder, index) if mine else None
            if now is None:
                continue
            text = now.decode("utf-8", "replace")
            again = text
            for change in mine:
                again = without_note(again, change.raw, change.replaces)
            if again != text:
                write_agent_file(self.folder, index, again, file_hash(now), self.notes)

    def new_item(self, tx: Transaction, rel: str, data: bytes, *, was: bool) -> Held:
        when = tx.now.isoformat(timespec="seconds")
        digest = file_hash(data)
        text = secrets.redact(data.decode("utf-8", "replace"))
        title = next(
            (x.split(":", 1)[1].strip() for x in text.splitlines() if x.startswith("name:")), ""
        )
        made = Held(
            id=new_held_id(str(self.folder), rel, digest, REASON, when),
            reason=REASON,
            format=FORMAT,
            folder=str(self.folder),
            file=rel,
            line=1,
            hash=digest,
            held_at=when,
            held_by=self.actor,
            title=title[:200],
            detail=("the agent changed this memory" if was else "the agent wrote a new memory")
            + "; it reaches the agent's next session once a person keeps it",
        )
        tx.write_file(made.path, made.to_yaml())
        tx.write_file(pending_path(made.id), text)
        index, link = index_of(rel)
        listed = folder_bytes(self.folder, index)
        if listed is not None:
            lines = listed.decode("utf-8", "replace").splitlines()
            found = linking("\n".join(lines), link)
            if found:
                tx.write_file(line_path(made.id), secrets.redact(lines[found[0]]) + "\n")
                near = secrets.redact(lines[found[0] - 1]) if found[0] > 0 else None
                tx.write_file(place_path(made.id), place_text(None, near))
        tx.event(
            "hold",
            reason=f"{made.named}: {rel} held for review as {made.id}",
            details={"held": made.id, "reason": REASON, "file": rel},
        )
        return made

    def approved(
        self, rel: str, last: dict[str, dict[str, str]], held: Held | None
    ) -> bytes | None:
        """The version of the file a person (or the first sync) approved: the copy a
        sync kept (never the held bytes themselves), else memgov's own; None: new."""
        seen = last.get(rel, {}).get("agent")
        if seen is None or seen == "deleted":
            return None
        copy = store_bytes(self.private, approved_path(self.key, rel))
        if copy and (held is None or file_hash(copy) != held.hash):
            return copy
        return self.exported(rel)

    def put_back(
        self, rel: str, last: dict[str, dict[str, str]], have: str, held: Held | None
    ) -> None:
        """The folder as approved: the file's approved bytes (or none) and its line."""
        approved = self.approved(rel, last, held)
        path = self.folder / rel
        if approved is None:
            with contextlib.suppress(OSError):
                if not path.is_symlink() and file_hash(path.read_bytes()) == have:
                    path.unlink()
        else:
            write_agent_file(self.folder, rel, approved, have, self.notes)
        index, link = index_of(rel)
        now = folder_bytes(self.folder, index)
        if now is None:
            return
        text = now.decode("utf-8", "replace")
        copy = store_bytes(self.private, approved_path(self.key, index))
        line = None
        if approved is not None and copy is not None:
            old = copy.decode("utf-8", "replace")
            found = linking(old, link)
            line = old.splitlines()[found[0]] if found else None
        again = with_line(text, link, line)
        if again != text:
            write_agent_file(self.folder, index, again, file_hash(now), self.notes)

    def keep_copies(self, disk: dict[str, str]) -> None:
        """The approved copy of each file the folder holds after the sync."""
        todo: list[tuple[str, bytes]] = []
        for rel, digest in sorted(disk.items()):
            copy = store_bytes(self.private, approved_path(self.key, rel))
            if copy is not None and file_hash(copy) == digest:
                continue
            data = folder_bytes(self.folder, rel)
            if data is None or file_hash(data) != digest:
                continue
            text = data.decode("utf-8", "replace")
            if secrets.redact(text) != text:
                continue  # never a credential on disk: the export stands in for it
            todo.append((rel, data))
        if not todo:
            return
        with transaction(self.private, actor=self.actor, message=f"sync: {self.folder}") as tx:
            for rel, data in todo:
                tx.write_file(approved_path(self.key, rel), data.decode("utf-8"))
            tx.event(
                "consent-approved-copy",
                reason=f"kept the approved version of {len(todo)} file(s) of {self.folder}",
                details={"folder": str(self.folder), "files": [r for r, _d in todo]},
            )
