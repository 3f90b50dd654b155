"""The memory store on disk: records, index, daily logs, events, git.

Layout of a store folder::

    memgov.yaml            config (thresholds, time constants, maintainers)
    MEMORY.md              the index, generated from the active records
    memories/<id>.md       one memory per file (YAML front matter + Markdown body)
    logs/YYYY/MM/*.md      daily logs that source pointers resolve into
    events/NNNNNN.jsonl    the append-only event log, in shards of about 256 KiB
                           read in order (a store made before shards also keeps
                           its events.jsonl: the oldest shard)
    .git/memgov/           derived and local: cache, lock, crash journal (never in git)

A :class:`Store` is the handle the rest builds on: where the store is, its config,
its lock, its catalog and records. Every change goes through
:func:`core.store.transaction.transaction`, which takes the handle:
under the store lock it checks each transition against the lifecycle table, writes
files atomically, appends the events in one write, regenerates the index and makes
one git commit whose author is the actor. A crash at any point leaves either the
old or the new state: a journal in ``.git/memgov/`` (:mod:`core.store.journal`)
says which, and the next writer (or reader) rolls back or finishes the commit
(:mod:`core.store.recovery`).

A store folder is untrusted input: a team store holds whatever anyone pushed.
Local state therefore lives inside ``.git/``, which no clone, pull or push
carries; a ``.memgov/`` folder committed to the repository is never read
(doctor reports it). The derived cache is JSON, validated field by field like
a memory file (:mod:`core.store.cache`), so a bad one is only a slower open; the
journal's paths are
confined to the store like every other path (:func:`core.store.fsutil.confined`), and
no path through a symbolic link is read or written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.domain.errors import NotFoundError, SecretBlocked, StoreError, shown_id
from core.domain.record import Memory
from core.store import gitstore
from core.store.catalog import Catalog
from core.store.checkout import journal_path, recover_checkout
from core.store.config import CONFIG_FILE, Config, load_config
from core.store.events import EVENTS_DIR, FIRST_SHARD, BadLine, Event, read_log
from core.store.fsutil import (
    TempStamps,
    atomic_write_text,
    confined,
    file_lock,
    holds_lock,
    remove_orphan_temps,
)
from core.store.index import INDEX_FILE
from core.store.journal import JOURNAL_FILE
from core.store.layout import LOCAL_STATE, WRITTEN_FOLDERS
from core.store.layout import MAX_FILE_BYTES as MAX_FILE_BYTES
from core.store.layout import MEMORY_DIR as MEMORY_DIR
from core.store.layout import STATE_DIR as STATE_DIR
from core.store.logs import append_message, check_message, log_path, log_salt, redacted
from core.store.records import Records
from core.store.recovery import recover
from core.store.snapshot import Problem, Snapshot

if TYPE_CHECKING:
    import git

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now().astimezone()


def new_memory_id(attribute: str, basis: str = "") -> str:
    """``<attribute slug>-<8 hex>``: a digest of ``basis`` (key, content, time) so
    that the same history replayed gives the same ids; random without a basis."""
    slug = re.sub(r"[^a-z0-9]+", "-", attribute.lower()).strip("-")[:40] or "mem"
    tail = hashlib.sha256(basis.encode("utf-8")).hexdigest()[:8] if basis else os.urandom(4).hex()
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
        if self.config.scope == "team":
            self.config = trusted_people(self.root, self.state_dir, self.config)
        self._catalog: Catalog | None = None
        self._records: Records | None = None
        self._synced = False
        self._temps: list[str] = []
        self._temp_stamps: TempStamps = {}  # folders searched for temporary files
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
        signers: tuple[str, ...] = (),
        actor: str = "memgov",
        clock: Clock | None = None,
        default_actor: str | None = None,
    ) -> Store:
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise StoreError(f"{root}: not a folder; choose an empty or new folder")
        if (root / CONFIG_FILE).exists():
            raise StoreError(f"{root}: a store already exists here ({CONFIG_FILE})")
        if root.exists() and any(p.name != ".git" for p in root.iterdir()):
            raise StoreError(f"{root}: folder is not empty; choose an empty or new folder")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file where a parent folder should be, no permission
            raise StoreError(
                f"{root}: cannot make the folder ({exc.strerror}); choose another place"
            ) from None
        config = Config(
            scope=scope,
            owner=owner,
            maintainers=tuple(maintainers),
            team_store=team_store,
            signers=tuple(signers),
            default_actor=default_actor,
        )
        atomic_write_text(root / CONFIG_FILE, config.to_yaml())
        (root / MEMORY_DIR).mkdir(exist_ok=True)
        atomic_write_text(root / MEMORY_DIR / ".gitkeep", "")
        atomic_write_text(root / INDEX_FILE, "")
        (root / EVENTS_DIR).mkdir(exist_ok=True)
        (root / FIRST_SHARD).touch()
        atomic_write_text(root / ".gitignore", f"/{STATE_DIR}/\n")
        repo = gitstore.init_repo(root)
        gitstore.commit(
            repo,
            [CONFIG_FILE, f"{MEMORY_DIR}/.gitkeep", INDEX_FILE, FIRST_SHARD, ".gitignore"],
            actor=actor,
            message=f"init: new {scope} memgov store",
            when=(clock or system_clock)(),
        )
        store = cls(root, clock=clock)
        log_salt(store.state_dir)  # made now: a copy of the new store marks as it does
        return store

    # ------------------------------------------------------------------ reading
    @property
    def repo(self) -> git.Repo:
        if self._repo is None:
            import git

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

    @property
    def catalog(self) -> Catalog:
        """The persistent index of the memory files (:mod:`core.store.catalog`)."""
        if self._catalog is None:
            self._catalog = Catalog(self.root, self.state_dir, self.config)
        return self._catalog

    def _sync(self, *, full: bool = False, reparse: bool = False) -> Records:
        """Bring the catalog up to date with the files (only what changed is read)."""
        self._synced = False  # until this sync succeeds, nothing read is trusted
        if journal_path(self.root).exists():
            self._finish_checkout()
        self.settle()
        if self._records is None:
            self._records = Records(self.catalog)
        result = self.catalog.sync(full=full, reparse=reparse)
        self._records.forget(None if result.rebuilt else result.changed)
        self._temps = result.temps
        self._synced = True
        return self._records

    def settle(self) -> None:
        """Finish or undo a change a crash left half done, before anything of the store
        is read: a file a killed transaction wrote and never committed (a held item, a
        folder's sync state) is not the store's, and a reader that trusted it would act
        on what recovery is about to take away. Cheap when there is no journal; waits
        for a live writer (its journal) through the lock."""
        if (self.state_dir / JOURNAL_FILE).exists():
            with file_lock(self.state_dir / "lock"):
                recover(self)

    def _finish_checkout(self) -> None:
        """A team sync killed while it moved the working tree: back to ``HEAD``, unless
        a live sync (this process or another) holds the lock and is moving it now."""
        lock = self.state_dir / "lock"
        if holds_lock(lock):
            return
        with contextlib.suppress(StoreError), file_lock(lock, timeout=0.5):
            recover_checkout(self.root)

    @property
    def records(self) -> Records:
        """The store's records, read through the catalog; synced once after each
        :meth:`forget` (a write under the lock syncs again first)."""
        if not self._synced or self._records is None:
            return self._sync()
        return self._records

    def load(self, *, use_cache: bool = True) -> Snapshot:
        """Every record, the files that could not be read and the warnings: what doctor
        shows. ``use_cache=False`` reads every file again."""
        if not use_cache:
            self._sync(reparse=True)
        return snapshot_of(self.records)

    def forget(self) -> None:
        """The next access checks the store for changes again."""
        self._synced = False

    def forget_repo(self) -> None:
        """Drop the open repository (its history was rewritten): it is opened again."""
        self._repo = None

    def refresh(self, *, full: bool = False) -> Snapshot:
        """What the store holds now; ``full`` stats every file (an edit in place that
        left its folder alone is seen only so: :mod:`core.store.catalog`)."""
        self._sync(full=full)
        return snapshot_of(self.records)

    def reread(self, *, full: bool = False) -> Records:
        """Under the lock: finish or undo an interrupted change, then bring the catalog
        up to date (only changed files are read; ``full``: every file's stat data is
        checked). What a decision checks after this is the store as it is."""
        recover(self)
        records = self._sync(full=full)
        for temp in self._temps:  # we hold the lock: no live writer owns one
            with contextlib.suppress(OSError):
                os.unlink(temp)
        self._temps = []
        remove_orphan_temps(self.root, WRITTEN_FOLDERS, self._temp_stamps)
        return records

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The store lock (re-entrant in this process)."""
        with file_lock(self.state_dir / "lock"):
            yield

    @property
    def memories(self) -> Records:
        return self.records

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
        self.settle()  # a killed change's events are not the store's
        return read_log(self.root)

    def by_key(self, key: tuple[str, str, str, str | None]) -> list[Memory]:
        return self.records.by_key(key)

    # ------------------------------------------------------------------ writing
    def log_message(
        self, *, task: str, index: int, role: str, text: str, actor: str
    ) -> tuple[str, int]:
        """Append one message to today's daily log and commit it; (path, line)."""
        check_message(task=task, index=index, role=role, text=text)
        if self.config.scope == "team":
            from core.domain import secrets

            rules = [f.rule_id for f in secrets.scan(text)]
            if rules:
                raise SecretBlocked(f"team store daily log, task {task}", rules)
        text = redacted(self.state_dir, text)  # a credential never reaches the disk
        with file_lock(self.state_dir / "lock"):
            recover(self)
            confined(self.root, log_path(self.now()))  # never through a link
            remove_orphan_temps(self.root, (MEMORY_DIR, *WRITTEN_FOLDERS), self._temp_stamps)
            rel, line = append_message(
                self.root, task=task, index=index, role=role, text=text, when=self.now()
            )
            gitstore.commit(
                self.root,
                [rel],
                actor=actor,
                message=f"log: task {task} message {index}",
                when=self.now(),
            )
        return rel, line


def trusted_people(root: Path, state_dir: Path, config: Config) -> Config:
    """A team clone whose ``memgov.yaml`` was changed by a commit no listed maintainer
    signed (core.team.signing): who decides, and whose keys count, are taken from the
    last trusted config until a maintainer re-decides that commit. Everything else of
    the file as it is."""
    from core.store import team_state

    forged = any(
        CONFIG_FILE in row.get("files", []) for row in team_state.untrusted_rows(state_dir)
    )
    blob = team_state.trusted_config_blob(state_dir) if forged else None
    if blob is None:
        return config
    from dataclasses import replace

    from core.store.config import load_config_text

    try:
        data = gitstore.run(root, "cat-file", "blob", blob)
        trusted = load_config_text(data.decode("utf-8"), path=CONFIG_FILE)
    except (StoreError, UnicodeDecodeError, ValueError):
        return config
    return replace(config, maintainers=trusted.maintainers, signers=trusted.signers)


def snapshot_of(records: Records) -> Snapshot:
    """Every record with the problems and warnings of the files (doctor's view)."""
    from core.domain.record import LARGE_FILE_CHARS

    snap = Snapshot(problems=records.problems())
    if (records.catalog.root / MEMORY_DIR).is_symlink():
        snap.problems.append(
            Problem(
                MEMORY_DIR,
                "is a symbolic link; memgov never follows links in a store (a link "
                "committed to a shared store could point anywhere): no memory was read. "
                "Replace it with the real folder",
            )
        )
    for memory in sorted(records.all(), key=lambda m: m.path):
        snap.memories[memory.id] = memory
    for memory_id in records.catalog.duplicate_ids():
        keep = records.get(memory_id)
        for rel in records.catalog.rels_of(memory_id):
            if keep is not None and rel != keep.path:
                snap.problems.append(
                    Problem(
                        rel,
                        f"duplicate id {memory_id!r}, also in {keep.path}; give one a new id",
                        "id",
                    )
                )
    for memory in snap.memories.values():
        if len(memory.content) > LARGE_FILE_CHARS:
            snap.warnings.append(
                f"{memory.path}: {len(memory.content):,} characters, over "
                f"{LARGE_FILE_CHARS:,}: consider splitting it"
            )
    snap.problems.sort(key=lambda p: p.path)
    snap.warnings.sort()
    return snap
