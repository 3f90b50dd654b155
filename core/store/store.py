"""The memory store on disk: records, index, daily logs, events, git.

Layout of a store folder::

    memgov.yaml            config (thresholds, time constants, maintainers)
    MEMORY.md              the index, generated from the active records
    memories/<id>.md       one memory per file (YAML front matter + Markdown body)
    logs/YYYY/MM/*.md      daily logs that source pointers resolve into
    events.jsonl           the append-only event log
    .git/memgov/           derived and local: cache, lock, crash journal (never in git)

Every change goes through :meth:`Store.transaction`: under the store lock it
checks each transition against the lifecycle table, writes files atomically,
appends the events in one write, regenerates the index and makes one git
commit whose author is the actor. A crash at any point leaves either the old
or the new state: a journal in ``.git/memgov/`` says which, and the next writer
(or reader) rolls back or finishes the commit.

A store folder is untrusted input: a team store holds whatever anyone pushed.
Local state therefore lives inside ``.git/``, which no clone, pull or push
carries; a ``.memgov/`` folder committed to the repository is never read
(doctor reports it). The derived cache is JSON, validated field by field like
a memory file, so a bad one is only a slower open; the journal's paths are
confined to the store like every other path (:func:`core.store.fsutil.confined`), and
no path through a symbolic link is read or written.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import secrets as _random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import git

from core.domain import lifecycle
from core.domain.errors import NotFoundError, SecretBlocked, StoreError, ValidationError, shown_id
from core.domain.record import (
    LARGE_FILE_CHARS,
    Memory,
    memory_from_mapping,
    parse_memory,
    validate_id,
)
from core.store import gitstore
from core.store.config import CONFIG_FILE, Config, load_config
from core.store.erase import history_needles, needles_for, purge_history, scrub, scrub_file
from core.store.events import EVENTS_FILE, BadLine, Event, append_events, new_event_id, read_events
from core.store.fsutil import (
    UnsafePath,
    atomic_write_bytes,
    atomic_write_text,
    check_relative,
    confined,
    file_lock,
    is_temp_name,
    read_confined,
    remove_orphan_temps,
)
from core.store.index import INDEX_FILE, render_index
from core.store.logs import LOG_DIR, append_message, log_path

MEMORY_DIR = "memories"
STATE_DIR = ".memgov"  # the old place of local state: ignored, and reported when committed
LOCAL_STATE = ".git/memgov"  # where local state lives: git never transfers what is in .git
CACHE_FILE = "cache.json"
JOURNAL_FILE = "txn.json"
CACHE_VERSION = 4
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
#: the folders besides memories/ whose files memgov writes (and where a killed writer may
#: leave a temporary file; memories/ is walked by every load anyway)
WRITTEN_FOLDERS = ("logs", "requests", "decisions")
MAX_FILE_BYTES = 1024 * 1024  # a memory file larger than this is not read at all

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now().astimezone()


@dataclass(frozen=True)
class Problem:
    """A file the store could not read. It is skipped, never rewritten."""

    path: str
    reason: str
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "field": self.field, "reason": self.reason}


@dataclass
class Snapshot:
    memories: dict[str, Memory] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: relative path -> (mtime_ns, size, inode, what was read): lets a writer re-check
    #: every file by its stat data alone and re-read only the ones that changed
    entries: dict[str, tuple[int, int, int, Memory | Problem]] = field(default_factory=dict)
    #: temporary files a killed writer left in memories/ (found by the same walk)
    temps: list[str] = field(default_factory=list)


def new_memory_id(attribute: str, basis: str = "") -> str:
    """``<attribute slug>-<8 hex>``: a digest of ``basis`` (key, content, time) so
    that the same history replayed gives the same ids; random without a basis."""
    slug = re.sub(r"[^a-z0-9]+", "-", attribute.lower()).strip("-")[:40] or "mem"
    tail = hashlib.sha256(basis.encode("utf-8")).hexdigest()[:8] if basis else _random.token_hex(4)
    return f"{slug}-{tail}"


class Store:
    """One store folder. Side effects (files, git, clock) all come through here."""

    def __init__(self, root: Path | str, *, clock: Clock | None = None) -> None:
        self.root = Path(root).resolve()
        self.clock: Clock = clock or system_clock
        if (self.root / CONFIG_FILE).is_symlink():
            raise StoreError(
                f"{self.root / CONFIG_FILE} is a symbolic link; memgov never follows links in "
                f"a store (a link committed to a shared store could point anywhere). Replace "
                f"it with the real file"
            )
        if not (self.root / CONFIG_FILE).is_file():
            raise StoreError(
                f"{self.root}: not a memgov store (no {CONFIG_FILE}); "
                f"create one with 'memgov init --store {self.root}'"
            )
        self.config: Config = load_config(self.root)
        self._snapshot: Snapshot | None = None
        self._repo: git.Repo | None = None

    # ----------------------------------------------------------------- creation
    @classmethod
    def init(
        cls,
        root: Path | str,
        *,
        scope: str = "private",
        owner: str | None = None,
        maintainers: tuple[str, ...] = (),
        team_store: str | None = None,
        actor: str = "memgov",
        clock: Clock | None = None,
    ) -> Store:
        root = Path(root)
        if (root / CONFIG_FILE).exists():
            raise StoreError(f"{root}: a store already exists here ({CONFIG_FILE})")
        if root.exists() and any(p.name != ".git" for p in root.iterdir()):
            raise StoreError(f"{root}: folder is not empty; choose an empty or new folder")
        root.mkdir(parents=True, exist_ok=True)
        config = Config(
            scope=scope, owner=owner, maintainers=tuple(maintainers), team_store=team_store
        )
        atomic_write_text(root / CONFIG_FILE, config.to_yaml())
        (root / MEMORY_DIR).mkdir(exist_ok=True)
        atomic_write_text(root / MEMORY_DIR / ".gitkeep", "")
        atomic_write_text(root / INDEX_FILE, "")
        (root / EVENTS_FILE).touch()
        atomic_write_text(root / ".gitignore", f"/{STATE_DIR}/\n")
        repo = gitstore.init_repo(root)
        gitstore.commit(
            repo,
            [CONFIG_FILE, f"{MEMORY_DIR}/.gitkeep", INDEX_FILE, EVENTS_FILE, ".gitignore"],
            actor=actor,
            message=f"init: new {scope} memgov store",
            when=(clock or system_clock)(),
        )
        return cls(root, clock=clock)

    # ------------------------------------------------------------------ reading
    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            try:
                self._repo = gitstore.open_repo(self.root)
            except git.InvalidGitRepositoryError:
                raise StoreError(
                    f"{self.root}: the store is not a git repository; "
                    f"run 'git init' there or recreate it with 'memgov init'"
                ) from None
        return self._repo

    def now(self) -> datetime:
        return self.clock()

    @property
    def state_dir(self) -> Path:
        """Local state (lock, journal, cache): inside ``.git`` when it is a folder, so
        nothing a clone brings can plant it."""
        git_dir = self.root / ".git"
        if git_dir.is_dir() and not git_dir.is_symlink():
            return self.root / LOCAL_STATE
        return self.root / STATE_DIR

    def load(self, *, use_cache: bool = True) -> Snapshot:
        """Read every memory file (from the derived cache where files are unchanged)."""
        if self._snapshot is None:
            if (self.state_dir / JOURNAL_FILE).exists():
                # a crash left a change half done: finish or undo it before anyone reads
                with file_lock(self.state_dir / "lock"):
                    recover(self)
            self._snapshot = _load(self.root, self.state_dir, use_cache=use_cache)
        return self._snapshot

    def refresh(self) -> Snapshot:
        self._snapshot = None
        return self.load()

    def reread(self) -> Snapshot:
        """Under the lock: finish or undo an interrupted change, then re-read what
        changed on disk since this Store last read (by stat data; only changed files
        are parsed again). What a decision checks after this is the store as it is."""
        recover(self)
        previous = self._snapshot.entries if self._snapshot is not None else None
        self._snapshot = _load(self.root, self.state_dir, use_cache=True, previous=previous)
        for temp in self._snapshot.temps:  # we hold the lock: no live writer owns one
            with contextlib.suppress(OSError):
                os.unlink(temp)
        self._snapshot.temps.clear()
        remove_orphan_temps(self.root, WRITTEN_FOLDERS)
        return self._snapshot

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The store lock (re-entrant in this process)."""
        with file_lock(self.state_dir / "lock"):
            yield

    @property
    def memories(self) -> dict[str, Memory]:
        return self.load().memories

    def get(self, memory_id: str) -> Memory:
        try:
            return self.memories[memory_id]
        except KeyError:
            raise NotFoundError(
                f"no memory with id {shown_id(memory_id)} in {self.root} "
                f"(deleted memories are erased; 'memgov history' still "
                f"lists their events)"
            ) from None

    def events(self) -> tuple[list[Event], list[BadLine]]:
        return read_events(self.root / EVENTS_FILE)

    def by_key(self, key: tuple[str, str, str, str | None]) -> list[Memory]:
        return [m for m in self.memories.values() if m.key == key]

    # ------------------------------------------------------------------ writing
    @contextlib.contextmanager
    def transaction(self, *, actor: str, message: str) -> Iterator[Transaction]:
        """All changes inside land together as files, events, index and one commit."""
        with file_lock(self.state_dir / "lock"):
            # what another process or a hand edit changed since this Store last read
            self.reread()
            tx = Transaction(self, actor=actor, message=message)
            yield tx
            tx.apply()

    def log_message(
        self, *, task: str, index: int, role: str, text: str, actor: str
    ) -> tuple[str, int]:
        """Append one message to today's daily log and commit it; (path, line)."""
        if self.config.scope == "team":
            from core.domain import secrets

            rules = [f.rule_id for f in secrets.scan(text)]
            if rules:
                raise SecretBlocked(f"team store daily log, task {task}", rules)
        with file_lock(self.state_dir / "lock"):
            recover(self)
            confined(self.root, log_path(self.now()))  # never through a link
            remove_orphan_temps(self.root, (MEMORY_DIR, *WRITTEN_FOLDERS))
            rel, line = append_message(
                self.root, task=task, index=index, role=role, text=text, when=self.now()
            )
            gitstore.commit(
                self.repo,
                [rel],
                actor=actor,
                message=f"log: task {task} message {index}",
                when=self.now(),
            )
        return rel, line

    def write_raw(self, rel: str, text: str, *, actor: str, message: str) -> None:
        """Write a non-memory file of the store (a daily log, a request) and commit it."""
        with self.transaction(actor=actor, message=message) as tx:
            tx.write_file(rel, text)


class Transaction:
    """Pending changes, checked as they are made and applied all at once."""

    def __init__(self, store: Store, *, actor: str, message: str) -> None:
        if not actor.strip():
            raise ValidationError(
                "every change needs an actor",
                field="actor",
                hint="pass --as USER or set git's user.email",
            )
        self.store = store
        self.actor = actor
        self.message = message
        self.now = store.now()
        self.view: dict[str, Memory] = dict(store.memories)
        self.changed: dict[str, Memory] = {}
        self.removed: dict[str, Memory] = {}
        self.files: dict[str, str] = {}
        self.events: list[Event] = []
        self.needles: list[bytes] = []  # content of erased memories, to scrub everywhere
        self.history_rewritten = 0

    # -- events
    def event(
        self,
        action: str,
        memory_ids: tuple[str, ...] = (),
        *,
        reason: str = "",
        from_status: str | None = None,
        to_status: str | None = None,
        request: str | None = None,
        decision: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> Event:
        basis = f"{self.message}|{len(self.events)}|{action}|{','.join(memory_ids)}"
        ev = Event(
            id=new_event_id(self.now, basis),
            ts=self.now.isoformat(),
            actor=self.actor,
            action=action,
            memory_ids=memory_ids,
            from_status=from_status,
            to_status=to_status,
            reason=reason,
            request=request,
            decision=decision,
            details=details or {},
        )
        self.events.append(ev)
        return ev

    def _transition_event(
        self,
        memory: Memory,
        action: str,
        from_status: str | None,
        to_status: str,
        *,
        reason: str,
        decision: str | None,
        request: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> Event:
        """The event of one transition: the key and a content hash, never the content."""
        return self.event(
            action,
            (memory.id,),
            reason=reason,
            from_status=from_status,
            to_status=to_status,
            request=request,
            decision=decision,
            details={**self._key_details(memory), **(details or {})},
        )

    @staticmethod
    def _key_details(memory: Memory) -> dict[str, Any]:
        return {
            "key": {
                "scope": memory.scope,
                "subject": memory.subject,
                "attribute": memory.attribute,
                "condition": memory.condition,
            },
            "content_hash": memory.content_hash,
        }

    # -- memories
    def get(self, memory_id: str) -> Memory:
        try:
            return self.view[memory_id]
        except KeyError:
            raise NotFoundError(f"no memory with id {shown_id(memory_id)}") from None

    def create(
        self,
        memory: Memory,
        *,
        action: str,
        reason: str,
        request: str | None = None,
        decision: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> Memory:
        validate_id(memory.id)
        if memory.scope == "task":
            raise ValidationError(
                "task-scope memories are never written to disk",
                field="scope",
                hint="keep it in the task's working state",
            )
        if memory.scope != self.store.config.scope:
            raise ValidationError(
                f"this is a {self.store.config.scope} store; a {memory.scope} memory "
                f"belongs in a {memory.scope} store",
                field="scope",
                hint="team memories enter the team store through an approved promotion",
            )
        if memory.id in self.view or memory.id in self.removed:
            raise ValidationError(
                f"id {memory.id!r} is already used in this store",
                field="id",
                hint="choose another id",
            )
        lifecycle.check(lifecycle.NEW, memory.status, memory_id=memory.id)
        if not memory.path:
            memory = memory.with_changes(path=f"{MEMORY_DIR}/{memory.id}.md")
        if (self.store.root / memory.path).exists() or memory.path in self.files:
            raise ValidationError(
                f"{memory.path} already exists but is not a readable memory "
                f"('memgov doctor' says why); it is never overwritten",
                path=memory.path,
                field="id",
                hint="fix or move that file, or choose another id",
            )
        self.view[memory.id] = memory
        self.changed[memory.id] = memory
        self._transition_event(
            memory,
            action,
            None,
            memory.status,
            reason=reason,
            decision=decision,
            request=request,
            details=details,
        )
        return memory

    def transition(
        self,
        memory_id: str,
        to_status: str,
        *,
        action: str,
        reason: str,
        request: str | None = None,
        decision: str | None = None,
        details: dict[str, Any] | None = None,
        **changes: Any,
    ) -> Memory:
        before = self.get(memory_id)
        lifecycle.check(before.status, to_status, memory_id=memory_id)
        after = before.with_changes(status=to_status, **changes)
        self.view[memory_id] = after
        self.changed[memory_id] = after
        self._transition_event(
            after,
            action,
            before.status,
            to_status,
            reason=reason,
            decision=decision,
            request=request,
            details=details,
        )
        return after

    def update(
        self,
        memory_id: str,
        *,
        action: str,
        reason: str,
        details: dict[str, Any] | None = None,
        request: str | None = None,
        decision: str | None = None,
        **changes: Any,
    ) -> Memory:
        """A change that is not a transition (usage counts, a consolidation's date
        rewrite): still an event, naming the decision that made it if any."""
        if "status" in changes:
            raise ValidationError("status changes go through transition()", field="status")
        before = self.get(memory_id)
        after = before.with_changes(**changes)
        self.view[memory_id] = after
        self.changed[memory_id] = after
        self.event(
            action,
            (memory_id,),
            reason=reason,
            details=details,
            request=request,
            decision=decision,
        )
        return after

    def erase(
        self,
        memory_id: str,
        *,
        action: str,
        reason: str,
        request: str | None = None,
        decision: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> Memory:
        """-> deleted: the file goes, the index line goes, the event keeps only the id,
        the key and a content hash; in a private store, history is rewritten."""
        before = self.get(memory_id)
        lifecycle.check(before.status, "deleted", memory_id=memory_id)
        del self.view[memory_id]
        self.changed.pop(memory_id, None)
        self.removed[memory_id] = before
        # what another live record still says is not this record's to erase
        shared = {s.evidence for m in self.view.values() for s in m.all_sources}
        quotes = [s.evidence for s in before.all_sources if s.evidence not in shared]
        needles = needles_for(before.content, quotes)
        if needles:
            others = [m.to_markdown().encode("utf-8") for m in self.view.values()]
            needles = [n for n in needles if not any(n in other for other in others)]
        self.needles += needles
        self._transition_event(
            before,
            action,
            before.status,
            "deleted",
            reason=reason,
            decision=decision,
            request=request,
            details=details,
        )
        return before

    def restore(
        self,
        before: Memory,
        *,
        reason: str,
        decision: str,
        details: dict[str, Any] | None = None,
        action: str = "revert",
    ) -> Memory:
        """Put a memory back exactly as a decision found it (a revert).

        Not checked against the lifecycle table: a revert undoes transitions the
        decision itself made, which its caller checks against the decision record.
        """
        current = self.get(before.id)
        restored = before.with_changes(path=current.path)
        self.view[before.id] = restored
        self.changed[before.id] = restored
        self._transition_event(
            restored,
            action,
            current.status,
            before.status,
            reason=reason,
            decision=decision,
            details=details,
        )
        return restored

    def write_file(self, rel: str, text: str) -> None:
        try:
            clean = check_relative(rel)
        except UnsafePath as exc:
            raise ValidationError(f"refusing to write outside the store: {exc}") from None
        if clean.startswith(f"{STATE_DIR}/") or clean == STATE_DIR:
            raise ValidationError(
                f"refusing to write outside the store: {rel!r} is local state, never committed"
            )
        self.files[clean] = text

    # -- applying
    def apply(self) -> None:
        prepared = self.prepare()
        if prepared is not None:
            self.apply_prepared(prepared)

    def apply_prepared(self, prepared: Prepared) -> None:
        """Journal, files and events (the commit point), git commit, then what follows."""
        journal = prepared.journal()
        _write_journal(self.store, journal)
        self.write(prepared)
        journal["phase"] = "events"
        _write_journal(self.store, journal)
        self.commit(prepared)
        self.finish(prepared, journal)

    def prepare(self) -> Prepared | None:
        """Everything this transaction will write, checked; nothing written yet."""
        if not (self.changed or self.removed or self.files or self.events):
            return None
        store = self.store
        root = store.root
        if store.config.scope == "team":
            _guard_team_writes(self.changed.values(), self.files, self.events)
        batches = _pending_batches(store) if self.removed else []
        if batches:  # a pending consolidation batch may quote what is being erased
            self.event(
                "batch-discarded",
                reason="an erasure discards the pending consolidation batch, which may hold "
                "the erased content; run 'memgov consolidate' again",
                details={"batches": batches},
            )
        erased_ids = sorted(self.removed)
        removes = [m.path for m in self.removed.values()]
        if self.removed:
            # every earlier wording of an erased record (a correction, a consolidation
            # rewrite) must go too, but for what a live record still says; core.store.erase
            # also matches each needle as JSON escapes it (events, decision records)
            live = [m.to_markdown() for m in self.view.values()]
            earlier = history_needles(root, removes, keep=live)
            self.needles = sorted({*self.needles, *earlier}, key=len, reverse=True)
            self.events = [
                replace(e, reason=scrub(e.reason.encode("utf-8"), self.needles).decode("utf-8"))
                for e in self.events
            ]
        from core.domain import secrets  # the scanner compiles its rules on first use

        # a record holding a credential (written before scanning, or by hand) never puts
        # it into the index an agent reads: the line shows [secret: rule-id] instead
        index_text = secrets.redact(render_index(self.view.values(), store.config))
        writes: dict[str, bytes] = {
            m.path: m.to_markdown().encode("utf-8") for m in self.changed.values()
        }
        for rel, data in writes.items():
            if len(data) > MAX_FILE_BYTES:  # it could never be read back
                raise ValidationError(
                    f"would be {len(data) / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} KiB a "
                    f"memory file may have (files over 40,000 characters only warn)",
                    path=rel,
                    field="content",
                    hint="split it into several memories",
                )
        writes.update({rel: text.encode("utf-8") for rel, text in self.files.items()})
        index_bytes = index_text.encode("utf-8")
        current_index = _read_store_file(root, INDEX_FILE)
        if current_index != index_bytes:
            writes[INDEX_FILE] = index_bytes
        if self.removed:  # erased content also leaves every other file of the store
            for rel in _scrubbable_files(root):
                if rel in writes or rel in removes:
                    continue
                found = _read_store_file(root, rel)
                if found is None:
                    continue
                cleaned = scrub_file(rel, found, self.needles, erased_ids)
                if cleaned != found:
                    writes[rel] = cleaned
            for rel, data in list(writes.items()):
                if rel not in removes:
                    writes[rel] = scrub_file(rel, data, self.needles, erased_ids)
        for rel in [*writes, *removes]:
            try:
                confined(root, rel)
            except UnsafePath as exc:
                raise StoreError(f"nothing was written: {exc}") from None
        events_path = root / EVENTS_FILE
        confined(root, EVENTS_FILE)
        return Prepared(
            writes=writes,
            removes=removes,
            created=sorted(rel for rel in writes if not os.path.lexists(root / rel)),
            events_offset=events_path.stat().st_size if events_path.exists() else 0,
            batches=batches,
            purge=bool(self.removed) and store.config.scope == "private",
            erased_ids=erased_ids,
            actor=self.actor,
            message=self._commit_message(),
            event_ids=[e.id for e in self.events],
            needles=list(self.needles),
        )

    def write(self, prepared: Prepared) -> None:
        root = self.store.root
        for rel, data in prepared.writes.items():
            atomic_write_bytes(confined(root, rel), data)
        for rel in prepared.removes:
            with contextlib.suppress(FileNotFoundError):
                confined(root, rel).unlink()
        append_events(root / EVENTS_FILE, self.events)

    def commit(self, prepared: Prepared) -> None:
        gitstore.commit(
            self.store.repo,
            [*prepared.writes, *prepared.removes, EVENTS_FILE],
            actor=self.actor,
            message=prepared.message,
            when=self.now,
        )

    def finish(self, prepared: Prepared, journal: dict[str, Any]) -> None:
        """After the commit: drop what held erased content, purge history, forget the
        journal. A crash here is finished by recovery (the journal says ``purge``)."""
        store = self.store
        if prepared.purge:
            journal["phase"] = "purge"
            _write_journal(store, journal)
        if self.removed:
            # the derived cache held the erased content: drop it, it rebuilds itself
            (store.state_dir / CACHE_FILE).unlink(missing_ok=True)
        _finish_purge(store, journal)
        (store.state_dir / JOURNAL_FILE).unlink(missing_ok=True)
        if prepared.purge:
            self.history_rewritten = int(journal.get("rewritten", 0))
        snap = store.load()
        for memory_id in self.removed:
            snap.memories.pop(memory_id, None)
        snap.memories.update(self.changed)

    def _commit_message(self) -> str:
        ids = sorted({i for e in self.events for i in e.memory_ids})
        lines = [self.message, "", f"actor: {self.actor}"]
        if ids:
            lines.append("memories: " + ", ".join(ids[:20]) + (" ..." if len(ids) > 20 else ""))
        if self.events:
            lines.append("events: " + ", ".join(e.id for e in self.events[:20]))
        return "\n".join(lines)


@dataclass
class Prepared:
    """A transaction's writes, computed and checked before any byte is written."""

    writes: dict[str, bytes]
    removes: list[str]
    created: list[str]
    events_offset: int
    batches: list[str]
    purge: bool
    erased_ids: list[str]
    actor: str
    message: str
    event_ids: list[str]
    needles: list[bytes]

    def journal(self, **extra: Any) -> dict[str, Any]:
        return {
            "version": 2,
            "phase": "files",
            "actor": self.actor,
            "message": self.message,
            "paths": sorted(self.writes) + self.removes,
            "created": self.created,
            "events": self.event_ids,
            "events_offset": self.events_offset,
            "batches": self.batches,
            "purge": self.purge,
            "erased_ids": self.erased_ids,
            "removes": self.removes,
            # the erased bytes, until the purge has run: local state inside .git, never in git
            "needles": [base64.b64encode(n).decode("ascii") for n in self.needles]
            if self.purge
            else [],
            **extra,
        }


BATCH_REF = (
    "refs/heads/memgov/batch/"  # pending consolidation batches (core.consolidation.consolidate)
)


def _pending_batches(store: Store) -> list[str]:
    out = store.repo.git.for_each_ref("--format=%(refname)", BATCH_REF)
    return [ref.removeprefix(BATCH_REF) for ref in out.split()]


def _read_store_file(root: Path, rel: str, limit: int = 256 * 1024 * 1024) -> bytes | None:
    try:
        return read_confined(root, rel, limit=limit)
    except UnsafePath:
        return None


def _scrubbable_files(root: Path) -> list[str]:
    """Every text file of the store an erasure scrubs: logs, events, requests,
    decisions, the index. Walked without following links."""
    found = [INDEX_FILE, EVENTS_FILE]
    for folder in (LOG_DIR, "requests", "decisions"):
        stack = [root / folder]
        while stack:
            here = stack.pop()
            if here.is_symlink():
                continue
            try:
                entries = list(os.scandir(here))
            except OSError:
                continue
            for entry in entries:
                if entry.is_symlink() or entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    found.append(os.path.relpath(entry.path, root).replace(os.sep, "/"))
    return sorted(found)


def _guard_team_writes(
    memories: Iterable[Memory], files: dict[str, str], events: Iterable[Event] = ()
) -> None:
    """Nothing with a credential in it is ever written to the team scope (SPEC 8):
    every field of every record, every other file, and every event (reasons, details)
    is scanned first."""
    from core.domain import secrets  # the scanner compiles its rules on first use

    for memory in memories:
        rules = [f.rule_id for f in secrets.scan(memory.to_markdown())]
        if rules:
            raise SecretBlocked(f"team memory {memory.id}", rules)
    for rel, text in files.items():
        rules = [f.rule_id for f in secrets.scan(text)]
        if rules:
            raise SecretBlocked(f"team store file {rel}", rules)
    for event in events:
        rules = [f.rule_id for f in secrets.scan(json.dumps(event.to_dict(), ensure_ascii=False))]
        if rules:
            raise SecretBlocked(f"team store event {event.action} (its reason or details)", rules)


# --------------------------------------------------------------------- journal
def _write_journal(store: Store, journal: dict[str, Any]) -> None:
    kept = {k: v for k, v in journal.items() if k != "needles_bytes"}
    atomic_write_text(store.state_dir / JOURNAL_FILE, json.dumps(kept, indent=1))


class JournalError(StoreError):
    """The crash journal cannot be trusted: memgov will not act on any of it."""


def _read_journal(store: Store) -> dict[str, Any] | None:
    """The journal, validated: every path confined to the store, every field typed.
    A journal memgov did not write (planted, corrupt) is a JournalError saying what
    to do; none of it is acted on."""
    path = store.state_dir / JOURNAL_FILE
    if not os.path.lexists(path):
        return None
    what_to_do = (
        f"memgov cannot tell which files an interrupted change left, so it changes nothing. "
        f"See them with 'git -C {store.root} status', undo them with 'git -C {store.root} "
        f"checkout -- FILE' (or commit them if they are yours), then delete {path}"
    )
    try:
        if path.is_symlink() or path.stat().st_size > MAX_JOURNAL_BYTES:
            raise ValueError("not a plain file of a sane size")
        journal = json.loads(path.read_bytes())
        if not isinstance(journal, dict):
            raise ValueError("not a JSON object")
        phase = journal["phase"]
        if phase not in ("files", "events", "purge"):
            raise ValueError("field 'phase' is not files, events or purge")
        for name in ("actor", "message"):
            if not isinstance(journal[name], str) or "\0" in journal[name]:
                raise ValueError(f"field {name!r} is not text")
        lists = {"paths": journal["paths"], "created": journal["created"]}
        lists["removes"] = journal.setdefault("removes", [])
        lists["erased_ids"] = journal.setdefault("erased_ids", [])
        lists["batches"] = journal.setdefault("batches", [])
        lists["events"] = journal["events"]
        lists["needles"] = journal.setdefault("needles", [])
        if not isinstance(journal.setdefault("purge", False), bool):
            raise ValueError("field 'purge' is not true or false")
        for name, value in lists.items():
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"field {name!r} is not a list of text")
        for name in ("paths", "created", "removes"):
            for rel in journal[name]:
                try:
                    check_relative(rel)
                except UnsafePath:
                    raise ValueError(f"field {name!r} names a path outside the store") from None
                if rel.startswith(f"{STATE_DIR}/"):
                    raise ValueError(f"field {name!r} names local state")
        if not set(journal["created"]) <= set(journal["paths"]):
            raise ValueError("field 'created' names paths the change did not write")
        for batch in journal["batches"]:
            if not re.fullmatch(r"[A-Za-z0-9._-]{1,80}", batch) or ".." in batch:
                raise ValueError("field 'batches' holds a name that is not a batch id")
        for memory_id in journal["erased_ids"]:
            validate_id(memory_id)
        if type(journal["events_offset"]) is not int or journal["events_offset"] < 0:
            raise ValueError("field 'events_offset' is not a position")
        journal["needles_bytes"] = [base64.b64decode(n, validate=True) for n in journal["needles"]]
        peer = journal.get("peer")
        if peer is not None and (
            not isinstance(peer, dict)
            or peer.get("role") not in ("coordinator", "participant")
            or not isinstance(peer.get("root"), str)
            or not isinstance(peer.get("txn"), str)
        ):
            raise ValueError("field 'peer' is not what memgov writes")
    except (OSError, ValueError, KeyError, TypeError, RecursionError, ValidationError) as exc:
        why = exc.message if isinstance(exc, ValidationError) else str(exc)
        raise JournalError(
            f"{path}: the crash journal cannot be used ({why}). {what_to_do}"
        ) from None
    return journal


def _clear_stale_git_lock(store: Store) -> bool:
    """A killed memgov leaves git's lock files behind (``index.lock``, ``HEAD.lock``,
    a ref's ``.lock``, ``next-index-*.lock``) and every later git command fails. We
    hold the store lock, so no memgov process is running git here."""
    git_dir = store.root / ".git"
    if not git_dir.is_dir() or git_dir.is_symlink():
        return False
    found = [git_dir / "index.lock", git_dir / "HEAD.lock", git_dir / "packed-refs.lock"]
    found += git_dir.glob("next-index-*.lock")
    refs = git_dir / "refs"
    if refs.is_dir() and not refs.is_symlink():
        found += refs.rglob("*.lock")
    cleared = False
    for lock in found:
        if lock.is_file() and not lock.is_symlink():
            lock.unlink(missing_ok=True)
            cleared = True
    return cleared


def _events_written(store: Store, journal: dict[str, Any]) -> set[str]:
    wanted = set(journal["events"])
    written: set[str] = set()
    events_path = store.root / EVENTS_FILE
    if wanted and events_path.is_file() and not events_path.is_symlink():
        with events_path.open("rb") as handle:
            handle.seek(journal["events_offset"])
            tail = handle.read()
        # only whole lines that parse count: a torn last line is no written event
        for raw in tail.split(b"\n")[:-1]:
            try:
                item = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if isinstance(item, dict) and item.get("id") in wanted:
                written.add(item["id"])
    return written


def _committed(store: Store, journal: dict[str, Any]) -> bool:
    """Whether the change a journal describes passed its commit point: its events
    are all in the log (the events phase, or every one of them found)."""
    if journal["phase"] in ("events", "purge"):
        return True
    wanted = set(journal["events"])
    return bool(wanted) and _events_written(store, journal) == wanted


def _finish_one(store: Store, journal: dict[str, Any]) -> None:
    _clear_stale_git_lock(store)
    if journal["phase"] != "purge":
        gitstore.commit(
            store.repo,
            [*journal["paths"], EVENTS_FILE],
            actor=journal["actor"],
            message=journal["message"] + "\n\n(finished after an interrupted run)",
            when=store.now(),
        )
        if journal["purge"]:
            journal["phase"] = "purge"
            _write_journal(store, journal)
    if journal["erased_ids"]:
        (store.state_dir / CACHE_FILE).unlink(missing_ok=True)
    _finish_purge(store, journal)


def _finish_purge(store: Store, journal: dict[str, Any]) -> None:
    """Delete the batches an erasure discarded and rewrite history (private stores):
    each step can run again after a crash."""
    for batch in journal.get("batches") or ():
        with contextlib.suppress(git.GitCommandError):
            store.repo.git.update_ref("-d", BATCH_REF + batch)
    if journal.get("phase") == "purge" and journal.get("purge"):
        needles = journal.get("needles_bytes")
        if needles is None:
            needles = [base64.b64decode(n) for n in journal.get("needles") or ()]
        journal["rewritten"] = purge_history(
            store.root,
            drop_paths=journal["removes"],
            needles=needles,
            erased_ids=journal["erased_ids"],
        )
        store._repo = None


def _roll_back_one(store: Store, journal: dict[str, Any]) -> None:
    _clear_stale_git_lock(store)
    created = set(journal["created"])
    tracked = set(store.repo.git.ls_files("-z", "--", *journal["paths"]).split("\0")) - {""}
    for rel in journal["paths"]:
        try:
            target = confined(store.root, rel)
        except UnsafePath:
            continue  # never act through a link
        if rel in created or rel not in tracked:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                target.unlink()
        else:
            with contextlib.suppress(git.GitCommandError):
                store.repo.git.checkout("HEAD", "--", rel)
    written = _events_written(store, journal)
    if written:  # some events of the undone transaction made it to the log
        now = store.now()
        append_events(
            store.root / EVENTS_FILE,
            [
                Event(
                    id=new_event_id(now),
                    ts=now.isoformat(),
                    actor="memgov",
                    action="recover",
                    reason="an interrupted change was rolled back; these events did not happen",
                    details={"rolled_back_events": sorted(written)},
                )
            ],
        )
        gitstore.commit(
            store.repo,
            [EVENTS_FILE],
            actor="memgov",
            message="recover: roll back an interrupted change",
            when=store.now(),
        )


def _peer_journal(journal: dict[str, Any]) -> tuple[Store, dict[str, Any] | None] | None:
    """The other store of a cross-store change and its journal (None if it has none
    for this change); None when the other store is gone."""
    peer = journal["peer"]
    root = Path(peer["root"])
    if not (root / CONFIG_FILE).is_file():
        return None
    other = Store(root)
    try:
        theirs = _read_journal(other)
    except JournalError:
        theirs = None
    if theirs is not None and (theirs.get("peer") or {}).get("txn") != peer["txn"]:
        theirs = None
    return other, theirs


def recover(store: Store) -> str | None:
    """Finish or undo a transaction that a crash interrupted (caller holds the lock).

    A cross-store change (a promotion: private and team) is decided by its
    coordinator's journal: past the coordinator's commit point both stores finish,
    before it both roll back; the participant's journal goes first, so a
    participant journal without its coordinator's means the change never got far.
    Returns what was done, or None when there was nothing to recover.
    """
    journal = _read_journal(store)
    if journal is None:
        _clear_stale_git_lock(store)
        return None
    outcome: str
    peer = journal.get("peer")
    if peer is None:
        if _committed(store, journal):
            _finish_one(store, journal)
            outcome = "finished"
        else:
            _roll_back_one(store, journal)
            outcome = "rolled back"
        (store.state_dir / JOURNAL_FILE).unlink(missing_ok=True)
    else:
        found = _peer_journal(journal)
        other, theirs = found if found is not None else (None, None)
        coordinator = journal if peer["role"] == "coordinator" else theirs
        coord_store = store if peer["role"] == "coordinator" else other
        done = (
            coordinator is not None
            and coord_store is not None
            and _committed(coord_store, coordinator)
        )
        pairs = [(store, journal)]
        if other is not None and theirs is not None:
            pairs.append((other, theirs))
        # the participant first: its journal never outlives the coordinator's
        pairs.sort(key=lambda pair: pair[1]["peer"]["role"] != "participant")
        for target, its_journal in pairs:
            lock = target.state_dir / "lock"
            with contextlib.ExitStack() as stack:
                if target is not store:
                    stack.enter_context(file_lock(lock, timeout=10))
                if done:
                    _finish_one(target, its_journal)
                else:
                    _roll_back_one(target, its_journal)
                (target.state_dir / JOURNAL_FILE).unlink(missing_ok=True)
                target._snapshot = None
        outcome = "finished" if done else "rolled back"
    store._snapshot = None
    return outcome


@contextlib.contextmanager
def joint_transaction(
    coordinator: Store, participant: Store, *, actor: str, message: str
) -> Iterator[tuple[Transaction, Transaction]]:
    """One change across two stores (a promotion: private and team): both or neither,
    whatever moment it is killed. Locks are taken in a fixed order (by path), so two
    such changes never wait on each other; each store is recovered and re-read under
    its lock, so what the caller checks inside is the stores as they are now."""
    first, second = sorted((coordinator, participant), key=lambda s: str(s.root))
    with first.locked(), second.locked():
        for store in (first, second):
            store.reread()
        tx_c = Transaction(coordinator, actor=actor, message=message)
        tx_p = Transaction(participant, actor=actor, message=message)
        yield tx_c, tx_p
        prep_p = tx_p.prepare()
        prep_c = tx_c.prepare()
        if prep_c is None and prep_p is None:
            return
        if prep_c is None or prep_p is None:  # one store only: an ordinary transaction
            tx, prep = (tx_c, prep_c) if prep_c is not None else (tx_p, prep_p)
            assert prep is not None
            tx.apply_prepared(prep)
            return
        txn = hashlib.sha256(f"{message}|{tx_c.now.isoformat()}|{os.getpid()}".encode()).hexdigest()
        j_p = prep_p.journal(
            peer={"role": "participant", "root": str(coordinator.root), "txn": txn}
        )
        j_c = prep_c.journal(
            peer={"role": "coordinator", "root": str(participant.root), "txn": txn}
        )
        _write_journal(participant, j_p)
        _write_journal(coordinator, j_c)
        tx_p.write(prep_p)
        j_p["phase"] = "events"
        _write_journal(participant, j_p)
        tx_c.write(prep_c)
        j_c["phase"] = "events"  # the commit point: from here on, recovery finishes both
        _write_journal(coordinator, j_c)
        tx_p.commit(prep_p)
        tx_c.commit(prep_c)
        tx_p.finish(prep_p, j_p)  # the participant's journal goes first
        tx_c.finish(prep_c, j_c)


# ----------------------------------------------------------------------- loading
def _read_memory_file(path: str, rel: str, size: int) -> Memory | Problem:
    if size > MAX_FILE_BYTES:
        return Problem(
            rel,
            f"file is {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
            f"KiB a memory file may have; it was not read. Split it or "
            f"move it out of {MEMORY_DIR}/",
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return Problem(rel, f"cannot be read: {exc.strerror}")
    if b"\0" in data:
        return Problem(rel, "is a binary file, not Markdown; move it out of the store")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Problem(rel, f"is not UTF-8 (byte {exc.start}); re-save it as UTF-8")
    try:
        return parse_memory(text, path=rel, rel_path=rel)
    except ValidationError as exc:
        return Problem(rel, exc.message + (f" ({exc.hint})" if exc.hint else ""), exc.field)


def _walk(base: Path, temps: list[str]) -> Iterator[os.DirEntry[str]]:
    """The memory files under ``base`` (and links, to report); temporary files of a
    killed writer go to ``temps``."""
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                    temps.append(entry.path)
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(".md") or entry.is_symlink():
                yield entry


def _cached_item(rel: str, raw: Any) -> tuple[int, int, int, Memory | Problem] | None:
    """One cache entry, validated field by field like a memory file; None when bad."""
    if not (isinstance(raw, list) and len(raw) == 4):
        return None
    stamp, item = raw[:3], raw[3]
    if not all(type(n) is int for n in stamp) or not isinstance(item, dict):
        return None
    try:
        if "problem" in item:
            reason, field_name = item["problem"]
            if not isinstance(reason, str) or not isinstance(field_name, str | None):
                return None
            return (stamp[0], stamp[1], stamp[2], Problem(rel, reason, field_name))
        meta, content = item["meta"], item["content"]
        if not isinstance(content, str):
            return None
        memory = memory_from_mapping(meta, content, path=rel, rel_path=rel)
    except (ValidationError, KeyError, TypeError, ValueError):
        return None
    return (stamp[0], stamp[1], stamp[2], memory)


def _read_cache(path: Path) -> dict[str, tuple[int, int, int, Memory | Problem]]:
    """The derived cache, or {} when there is none or it is not what memgov writes.
    Never executes anything: JSON, every entry validated as a memory file is."""
    try:
        if path.is_symlink() or not path.is_file():
            return {}
        stored = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(stored, dict) or stored.get("version") != CACHE_VERSION:
        return {}
    entries = stored.get("entries")
    if not isinstance(entries, dict):
        return {}
    cache = {}
    for rel, raw in entries.items():
        if isinstance(rel, str) and rel.startswith(f"{MEMORY_DIR}/"):
            item = _cached_item(rel, raw)
            if item is not None:
                cache[rel] = item
    return cache


def _write_cache(path: Path, fresh: dict[str, tuple[int, int, int, Memory | Problem]]) -> None:
    entries: dict[str, Any] = {}
    for rel, (mtime, size, ino, item) in fresh.items():
        if isinstance(item, Problem):
            shape: dict[str, Any] = {"problem": [item.reason, item.field]}
        else:
            shape = {"meta": item.front_matter(), "content": item.content}
        entries[rel] = [mtime, size, ino, shape]
    data = json.dumps({"version": CACHE_VERSION, "entries": entries}, ensure_ascii=False)
    with contextlib.suppress(OSError):
        atomic_write_bytes(path, data.encode("utf-8"))


def _load(
    root: Path,
    state_dir: Path,
    *,
    use_cache: bool,
    previous: dict[str, tuple[int, int, int, Memory | Problem]] | None = None,
) -> Snapshot:
    """Read the store's memory files. ``previous`` (what this process read last time)
    stands in for the on-disk cache; the cache file is then left for the next process
    to refresh, so a write does not pay for rewriting it."""
    cache_path = state_dir / CACHE_FILE
    write_cache = use_cache and previous is None
    cache = previous if previous is not None else (_read_cache(cache_path) if use_cache else {})
    fresh: dict[str, tuple[int, int, int, Memory | Problem]] = {}
    dirty = False
    snap = Snapshot()
    base = root / MEMORY_DIR
    prefix = len(str(root)) + 1
    if base.is_symlink():
        snap.problems.append(
            Problem(
                MEMORY_DIR,
                "is a symbolic link; memgov never follows links in a store (a link "
                "committed to a shared store could point anywhere): no memory was read. "
                "Replace it with the real folder",
            )
        )
        return snap
    for entry in _walk(base, snap.temps):
        rel = entry.path[prefix:].replace(os.sep, "/")
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            where = (
                "outside the store"
                if not target.startswith(str(root) + os.sep)
                else "inside the store"
            )
            snap.problems.append(
                Problem(
                    rel,
                    f"is a symbolic link to {where}; memgov does "
                    f"not follow links, replace it with the file",
                )
            )
            continue
        if not entry.is_file(follow_symlinks=False):
            snap.problems.append(
                Problem(
                    rel,
                    "is not a regular file (a pipe or a device?); memgov only reads plain files",
                )
            )
            continue
        st = entry.stat(follow_symlinks=False)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        hit = cache.get(rel)
        if hit is not None and hit[:3] == stamp:
            item = hit[3]
        else:
            item = _read_memory_file(entry.path, rel, st.st_size)
            dirty = True
        fresh[rel] = (*stamp, item)
    snap.entries = fresh
    if write_cache and (dirty or len(fresh) != len(cache)):
        _write_cache(cache_path, fresh)
    by_id: dict[str, list[Memory]] = {}
    for rel in sorted(fresh):
        item = fresh[rel][3]
        if isinstance(item, Problem):
            snap.problems.append(item)
        else:
            by_id.setdefault(item.id, []).append(item)
    for memory_id, found in by_id.items():
        keep = next((m for m in found if m.path.endswith(f"/{memory_id}.md")), found[0])
        snap.memories[memory_id] = keep
        for other in found:
            if other is not keep:
                snap.problems.append(
                    Problem(
                        other.path,
                        f"duplicate id {memory_id!r}, also in {keep.path}; give one a new id",
                        "id",
                    )
                )
        if len(keep.content) > LARGE_FILE_CHARS:
            snap.warnings.append(
                f"{keep.path}: {len(keep.content):,} characters, over "
                f"{LARGE_FILE_CHARS:,}: consider splitting it"
            )
    snap.problems.sort(key=lambda p: p.path)
    return snap
