"""The memory store on disk: records, index, daily logs, events, git.

Layout of a store folder::

    memgov.yaml            config (thresholds, time constants, maintainers)
    MEMORY.md              the index, generated from the active records
    memories/<id>.md       one memory per file (YAML front matter + Markdown body)
    logs/YYYY/MM/*.md      daily logs that source pointers resolve into
    events.jsonl           the append-only event log
    .memgov/               derived and local: cache, lock, crash journal (not in git)

Every change goes through :meth:`Store.transaction`: under the store lock it
checks each transition against the lifecycle table, writes files atomically,
appends the events in one write, regenerates the index and makes one git
commit whose author is the actor. A crash at any point leaves either the old
or the new state: a journal in ``.memgov/`` says which, and the next writer
rolls back or finishes the commit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import secrets as _random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import git

from core import gitstore, lifecycle
from core.config import CONFIG_FILE, Config, load_config
from core.erase import needles_for, purge_history, scrub
from core.errors import NotFoundError, SecretBlocked, StoreError, ValidationError
from core.events import EVENTS_FILE, BadLine, Event, append_events, new_event_id, read_events
from core.fsutil import atomic_write_bytes, atomic_write_text, file_lock
from core.index import INDEX_FILE, render_index
from core.logs import LOG_DIR, append_message
from core.record import LARGE_FILE_CHARS, Memory, parse_memory, validate_id

MEMORY_DIR = "memories"
STATE_DIR = ".memgov"
CACHE_FILE = "cache.pickle"
JOURNAL_FILE = "txn.json"
CACHE_VERSION = 3
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
        return self.root / STATE_DIR

    def load(self, *, use_cache: bool = True) -> Snapshot:
        """Read every memory file (from the derived cache where files are unchanged)."""
        if self._snapshot is None:
            self._snapshot = _load(self.root, use_cache=use_cache)
        return self._snapshot

    def refresh(self) -> Snapshot:
        self._snapshot = None
        return self.load()

    @property
    def memories(self) -> dict[str, Memory]:
        return self.load().memories

    def get(self, memory_id: str) -> Memory:
        try:
            return self.memories[memory_id]
        except KeyError:
            raise NotFoundError(
                f"no memory with id {memory_id!r} in {self.root} "
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
            recover(self)
            # what another process or a hand edit changed since this Store last read:
            # every file is checked by its stat data, only changed ones are parsed again
            previous = self._snapshot.entries if self._snapshot is not None else None
            self._snapshot = _load(self.root, use_cache=True, previous=previous)
            tx = Transaction(self, actor=actor, message=message)
            yield tx
            tx.apply()

    def log_message(
        self, *, task: str, index: int, role: str, text: str, actor: str
    ) -> tuple[str, int]:
        """Append one message to today's daily log and commit it; (path, line)."""
        if self.config.scope == "team":
            from core import secrets

            rules = [f.rule_id for f in secrets.scan(text)]
            if rules:
                raise SecretBlocked(f"team store daily log, task {task}", rules)
        with file_lock(self.state_dir / "lock"):
            recover(self)
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
            raise NotFoundError(f"no memory with id {memory_id!r}") from None

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
        if rel.startswith(("/", STATE_DIR)) or ".." in Path(rel).parts:
            raise ValidationError(f"refusing to write outside the store: {rel!r}")
        self.files[rel] = text

    # -- applying
    def apply(self) -> None:
        if not (self.changed or self.removed or self.files or self.events):
            return
        store = self.store
        root = store.root
        if store.config.scope == "team":
            _guard_team_writes(self.changed.values(), self.files)
        batches = _pending_batches(store) if self.removed else []
        if batches:  # a pending consolidation batch may quote what is being erased
            self.event(
                "batch-discarded",
                reason="an erasure discards the pending consolidation batch, which may hold "
                "the erased content; run 'memgov consolidate' again",
                details={"batches": batches},
            )
        index_text = render_index(self.view.values(), store.config)
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
        index_path = root / INDEX_FILE
        index_bytes = index_text.encode("utf-8")
        if not index_path.exists() or index_path.read_bytes() != index_bytes:
            writes[INDEX_FILE] = index_bytes
        removes = [m.path for m in self.removed.values()]
        if self.needles:  # erased content also leaves the daily logs
            for log in sorted((root / LOG_DIR).rglob("*.md")) if (root / LOG_DIR).is_dir() else ():
                data = log.read_bytes()
                cleaned = scrub(data, self.needles)
                if cleaned != data:
                    writes[log.relative_to(root).as_posix()] = cleaned
        events_path = root / EVENTS_FILE
        journal = {
            "phase": "files",
            "actor": self.actor,
            "message": self.message,
            "paths": sorted(writes) + removes,
            "created": sorted(rel for rel in writes if not (root / rel).exists()),
            "events": [e.id for e in self.events],
            "events_offset": events_path.stat().st_size if events_path.exists() else 0,
        }
        _write_journal(store, journal)
        for rel, data in writes.items():
            atomic_write_bytes(root / rel, data)
        for rel in removes:
            with contextlib.suppress(FileNotFoundError):
                (root / rel).unlink()
        append_events(events_path, self.events)
        journal["phase"] = "events"
        _write_journal(store, journal)
        gitstore.commit(
            store.repo,
            [*writes, *removes, EVENTS_FILE],
            actor=self.actor,
            message=self._commit_message(),
            when=self.now,
        )
        (store.state_dir / JOURNAL_FILE).unlink()
        if self.removed:
            # the derived cache held the erased content: drop it, it rebuilds itself
            (store.state_dir / CACHE_FILE).unlink(missing_ok=True)
        for batch in batches:  # unreachable now: the history rewrite below prunes it
            store.repo.git.update_ref("-d", BATCH_REF + batch)
        if self.needles and store.config.scope == "private":
            self.history_rewritten = purge_history(root, drop_paths=removes, needles=self.needles)
            store._repo = None
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


BATCH_REF = "refs/heads/memgov/batch/"  # pending consolidation batches (core.consolidate)


def _pending_batches(store: Store) -> list[str]:
    out = store.repo.git.for_each_ref("--format=%(refname)", BATCH_REF)
    return [ref.removeprefix(BATCH_REF) for ref in out.split()]


def _guard_team_writes(memories: Iterable[Memory], files: dict[str, str]) -> None:
    """Nothing with a credential in it is ever written to the team scope (SPEC 8):
    every field of every record, and every other file, is scanned first."""
    from core import secrets  # the scanner compiles its rules on first use

    for memory in memories:
        rules = [f.rule_id for f in secrets.scan(memory.to_markdown())]
        if rules:
            raise SecretBlocked(f"team memory {memory.id}", rules)
    for rel, text in files.items():
        rules = [f.rule_id for f in secrets.scan(text)]
        if rules:
            raise SecretBlocked(f"team store file {rel}", rules)


# --------------------------------------------------------------------- journal
def _write_journal(store: Store, journal: dict[str, Any]) -> None:
    atomic_write_text(store.state_dir / JOURNAL_FILE, json.dumps(journal, indent=1))


def recover(store: Store) -> str | None:
    """Finish or undo a transaction that a crash interrupted (caller holds the lock).

    Returns what was done, or None when there was nothing to recover.
    """
    path = store.state_dir / JOURNAL_FILE
    if not path.exists():
        return None
    journal = json.loads(path.read_text(encoding="utf-8"))
    events_path = store.root / EVENTS_FILE
    wanted = set(journal["events"])
    written: set[str] = set()
    if events_path.exists():
        with events_path.open("rb") as handle:
            handle.seek(journal["events_offset"])
            tail = handle.read()
        # only whole lines that parse count: a torn last line is no written event
        for raw in tail.split(b"\n")[:-1]:
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            if isinstance(item, dict) and item.get("id") in wanted:
                written.add(item["id"])
    if journal["phase"] == "events" or (wanted and written == wanted):
        gitstore.commit(
            store.repo,
            [*journal["paths"], EVENTS_FILE],
            actor=journal["actor"],
            message=journal["message"] + "\n\n(finished after an interrupted run)",
            when=store.now(),
        )
        outcome = "finished"
    else:
        created = set(journal["created"])
        for rel in journal["paths"]:
            target = store.root / rel
            if rel in created:
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()
            else:
                with contextlib.suppress(git.GitCommandError):
                    store.repo.git.checkout("HEAD", "--", rel)
        if written:  # some events of the undone transaction made it to the log
            now = store.now()
            append_events(
                events_path,
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
        outcome = "rolled back"
    path.unlink()
    store._snapshot = None
    return outcome


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
        with open(path, "rb") as handle:
            data = handle.read()
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


def _walk(base: Path) -> Iterator[os.DirEntry[str]]:
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif entry.name.endswith(".md") or entry.is_symlink():
                yield entry


def _load(
    root: Path,
    *,
    use_cache: bool,
    previous: dict[str, tuple[int, int, int, Memory | Problem]] | None = None,
) -> Snapshot:
    """Read the store's memory files. ``previous`` (what this process read last time)
    stands in for the on-disk cache; the cache file is then left for the next process
    to refresh, so a write does not pay for rewriting it."""
    cache_path = root / STATE_DIR / CACHE_FILE
    cache: dict[str, tuple[int, int, int, Memory | Problem]] = previous or {}
    write_cache = use_cache and previous is None
    if write_cache and cache_path.exists():
        try:
            with cache_path.open("rb") as handle:
                stored = pickle.load(handle)
            if stored.get("version") == CACHE_VERSION:
                cache = stored["entries"]
        except Exception:  # a corrupt cache is only a slower open
            cache = {}
    fresh: dict[str, tuple[int, int, int, Memory | Problem]] = {}
    dirty = False
    snap = Snapshot()
    base = root / MEMORY_DIR
    prefix = len(str(root)) + 1
    for entry in _walk(base):
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
        with contextlib.suppress(OSError):
            atomic_write_bytes(
                cache_path,
                pickle.dumps(
                    {"version": CACHE_VERSION, "entries": fresh}, protocol=pickle.HIGHEST_PROTOCOL
                ),
            )
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
