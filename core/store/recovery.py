"""Recovery: finishing or undoing a transaction a crash interrupted.

:func:`recover` reads the crash journal (:mod:`core.store.journal`): a change past
its commit point (its events all in the log) is finished (the commit, the refs it
discards, the history purge); one before it is rolled back (files it created
removed, files it changed checked out again, a note in the event log for events
that made it there). A cross-store change (a promotion) is decided by its
coordinator's journal, so both stores land or neither. What a killed git leaves
(its lock files) is cleared first. The caller holds the store lock.

Every reader recovers before it reads, so recovery sits below the store's handle:
it takes what it needs of a store (:class:`Opened`, which a
:class:`~core.store.store.Store` is) and never imports it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.domain.errors import StoreError
from core.store import gitstore
from core.store.config import CONFIG_FILE
from core.store.events import EVENTS_FILE, MAX_SHARD_READ_BYTES, Event, append_to_log, new_event_id
from core.store.fsutil import UnsafePath, confined, file_lock, open_entry
from core.store.journal import JOURNAL_FILE, JournalError, Located, read_journal, write_journal

if TYPE_CHECKING:
    from datetime import datetime

    from core.store.catalog import Catalog


class Opened(Located, Protocol):
    """What recovery needs of an open store: where it is, its clock, its catalog, and
    a way to make it read everything again."""

    def __init__(self, root: Path) -> None: ...  # the peer of a cross-store change

    @property
    def catalog(self) -> Catalog: ...

    def now(self) -> datetime: ...

    def forget(self) -> None: ...

    def forget_repo(self) -> None: ...


def clear_stale_git_lock(store: Opened) -> bool:
    """A killed memgov leaves git's lock files behind (``index.lock``, ``HEAD.lock``,
    a ref's ``.lock``, ``next-index-*.lock``) and every later git command fails. We
    hold the store lock, so no memgov process is running git here."""
    git_dir = store.root / ".git"
    if not git_dir.is_dir() or git_dir.is_symlink():
        return False
    found = [git_dir / "index.lock", git_dir / "HEAD.lock", git_dir / "packed-refs.lock"]
    # a team sync's: git's config (a remote's URL), the temporary index of its merge
    found += [git_dir / "config.lock", git_dir / "memgov" / "merge-index.lock"]
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


def _events_file(journal: dict[str, Any]) -> str:
    """The shard the journal's change appended to (a journal written before shards:
    the legacy log)."""
    return str(journal.get("events_file") or EVENTS_FILE)


def _events_written(store: Opened, journal: dict[str, Any]) -> set[str]:
    wanted = set(journal["events"])
    written: set[str] = set()
    if not wanted:
        return written
    try:
        fd = open_entry(confined(store.root, _events_file(journal)))
    except (UnsafePath, OSError):  # a link, a pipe: no event of it was written
        return written
    if fd is None:  # gone
        return written
    with os.fdopen(fd, "rb") as handle:
        handle.seek(journal["events_offset"])
        tail = handle.read(MAX_SHARD_READ_BYTES)
    # only whole lines that parse count: a torn last line is no written event
    for raw in tail.split(b"\n")[:-1]:
        try:
            item = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(item, dict) and item.get("id") in wanted:
            written.add(item["id"])
    return written


def _committed(store: Opened, journal: dict[str, Any]) -> bool:
    """Whether the change a journal describes passed its commit point: its events
    are all in the log (the events phase, or every one of them found)."""
    if journal["phase"] in ("events", "purge"):
        return True
    wanted = set(journal["events"])
    return bool(wanted) and _events_written(store, journal) == wanted


def _finish_one(store: Opened, journal: dict[str, Any]) -> None:
    clear_stale_git_lock(store)
    if journal["phase"] != "purge":
        gitstore.commit(
            store.root,
            [*journal["paths"], _events_file(journal)],
            actor=journal["actor"],
            message=journal["message"] + "\n\n(finished after an interrupted run)",
            when=store.now(),
        )
        if journal["purge"]:
            journal["phase"] = "purge"
            write_journal(store, journal)
    if journal["erased_ids"]:  # the catalog may hold the erased content: rebuilt on use
        store.catalog.delete()
        store.forget()
    finish_purge(store, journal)


def finish_purge(store: Opened, journal: dict[str, Any]) -> None:
    """Delete the refs an erasure discarded and rewrite history (private stores):
    each step can run again after a crash. (The erasure's modules are imported
    here, by the one write that needs them: every other write's start-up skips them.)"""
    if journal.get("discard_refs"):
        from core.store.discard import delete_refs

        delete_refs(store.root, journal["discard_refs"])
    if journal.get("phase") == "purge" and journal.get("purge"):
        from core.store.erase import purge_history

        needles = journal.get("needles_bytes")
        if needles is None:
            needles = [base64.b64decode(n) for n in journal.get("needles") or ()]
        journal["rewritten"] = purge_history(
            store.root,
            drop_paths=journal["removes"],
            needles=needles,
            erased_ids=journal["erased_ids"],
        )
        store.forget_repo()


def _roll_back_one(store: Opened, journal: dict[str, Any]) -> None:
    clear_stale_git_lock(store)
    created = set(journal["created"])
    tracked = gitstore.tracked(store.root, journal["paths"])
    for rel in journal["paths"]:
        try:
            target = confined(store.root, rel)
        except UnsafePath:
            continue  # never act through a link
        if rel in created or rel not in tracked:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                target.unlink()
        else:
            with contextlib.suppress(StoreError):
                gitstore.checkout_head(store.root, rel)
    written = _events_written(store, journal)
    shard = _events_file(journal)
    # a shard the change started holds none of its events, at most a torn line: it
    # goes, as the change's other new files do (never one git knows)
    if (
        not written
        and journal["events_offset"] == 0
        and shard != EVENTS_FILE
        and shard not in gitstore.tracked(store.root, [shard])
    ):
        with contextlib.suppress(UnsafePath, FileNotFoundError, IsADirectoryError):
            confined(store.root, shard).unlink()
    if written:  # some events of the undone transaction made it to the log
        now = store.now()
        at = append_to_log(
            store.root,
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
            store.root,
            [shard, at.file],  # the undone events stay, beside the note (a new shard)
            actor="memgov",
            message="recover: roll back an interrupted change",
            when=store.now(),
        )


def _peer_journal(
    store: Opened, journal: dict[str, Any]
) -> tuple[Opened, dict[str, Any] | None] | None:
    """The other store of a cross-store change and its journal (None if it has none
    for this change); None when the other store is gone."""
    peer = journal["peer"]
    root = Path(peer["root"])
    if not (root / CONFIG_FILE).is_file():
        return None
    other = type(store)(root)
    try:
        theirs = read_journal(other)
    except JournalError:
        theirs = None
    if theirs is not None and (theirs.get("peer") or {}).get("txn") != peer["txn"]:
        theirs = None
    return other, theirs


def recover(store: Opened) -> str | None:
    """Finish or undo a transaction that a crash interrupted (caller holds the lock).

    A cross-store change (a promotion: private and team) is decided by its
    coordinator's journal: past the coordinator's commit point both stores finish,
    before it both roll back; the participant's journal goes first, so a
    participant journal without its coordinator's means the change never got far.
    Returns what was done, or None when there was nothing to recover.
    """
    journal = read_journal(store)
    if journal is None:
        clear_stale_git_lock(store)
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
        found = _peer_journal(store, journal)
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
                target.forget()
        outcome = "finished" if done else "rolled back"
    store.forget()
    return outcome
