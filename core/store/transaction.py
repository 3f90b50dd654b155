"""A transaction: a store's pending changes, checked as they are made, applied at once.

A :class:`Transaction` (from :func:`transaction`, given a store's handle) records
each change against the lifecycle table (create, transition, update, erase,
restore, other files) with its event. Applying it: :func:`core.store.prepared.prepare`
computes every byte, the journal is written, then the files and the events (the
commit point), then one git commit whose author is the actor, then what follows
(the refs an erasure discards, the history purge of a private store). A crash at
any point is finished or rolled back by :mod:`core.store.recovery`.

The machinery (this module, :mod:`core.store.prepared`, the journal, recovery) is
built on the handle, :class:`~core.store.store.Store`, which never imports it: so
a change is ``with transaction(store, actor=..., message=...) as tx``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from core.domain import lifecycle
from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import Memory, is_clean, normal_hash, validate_id
from core.store import gitstore
from core.store.events import Event, append_to_log, new_event_id
from core.store.fsutil import (
    UnsafePath,
    atomic_write_many,
    check_relative,
    check_writable,
    confined,
    escaped_name,
    file_lock,
)
from core.store.journal import JOURNAL_FILE, write_journal
from core.store.layout import STATE_DIR, memory_path, memory_paths
from core.store.prepared import Prepared, guard_team_writes, prepare
from core.store.records import View
from core.store.recovery import finish_purge

if TYPE_CHECKING:
    from core.store.store import Store


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
        self.view = View(store.records)
        self.changed: dict[str, Memory] = {}
        self.removed: dict[str, Memory] = {}
        self.files: dict[str, str] = {}
        self.events: list[Event] = []
        self.needles: list[bytes] = []  # content of erased memories, to scrub everywhere
        #: rewrite a private store's history with the needles scrubbed, no record erased
        #: (core.store.secret_history.scrub_history)
        self.scrub = False
        self.history_rewritten = 0
        #: a dry run's result: what this transaction would write, prepared, not applied
        self.prepared: Prepared | None = None
        #: the decision every event names that names none itself: a decision carried out
        #: by another path (a held memory's, by an import run: core.review.held)
        self.decision: str | None = None

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
            decision=decision or self.decision,
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
            memory = memory.with_changes(path=memory_path(memory.id))
        taken = (memory.path, *memory_paths(memory.id))
        if any((self.store.root / p).exists() or p in self.files for p in taken):
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
        quotes = [s.evidence for s in before.all_sources if not self.view.citing(s.evidence)]
        from core.store.erase import needles_for  # only a deletion needs the erasure's

        needles = needles_for(before.content, quotes)
        self.needles += [n for n in needles if not self.still_said(n)]
        self._transition_event(
            before,
            action,
            before.status,
            "deleted",
            reason=reason,
            decision=decision,
            request=request,
            # the content's words, hashed: the agent writing it again is recognised
            details={"normal_hash": normal_hash(before.content), **(details or {})},
        )
        self._close_requests_of(before.id, decision=decision)
        return before

    def _close_requests_of(self, memory_id: str, *, decision: str | None) -> None:
        """The open requests about an erased record close with its erasure: a deletion
        is done (approved), a promotion can no longer be (rejected), each with an event.
        A request this transaction already writes (the one being decided) is its
        caller's."""
        # the store's open requests about it, from the catalog (core.store.requests)
        for found in self.store.catalog.requests(status="open", memory_id=memory_id):
            if found.path in self.files:
                continue
            done = found.kind in ("delete", "stale")  # erased: neither can be open
            why = f"{memory_id} was erased" + (f" (decision {decision})" if decision else "")
            closed = found.with_changes(
                status="approved" if done else "rejected",
                decision=decision,
                decided_by=self.actor,
                decision_reason=why if done else f"{why}: there is nothing left to promote",
            )
            self.write_file(found.path, closed.to_yaml())
            self.event(
                "request-closed", (memory_id,), reason=why, request=found.id, decision=decision
            )

    def still_said(self, needle: bytes | str) -> bool:
        """Whether a live record (as this transaction leaves them) still holds
        ``needle``: erasing it would take what that record says."""
        text = needle.decode("utf-8", "replace") if isinstance(needle, bytes) else needle
        return self.view.holding_text(text)

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
        if not is_clean(text, multiline=True) and any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            raise ValidationError(  # a name from a folder listing that is not UTF-8, say
                "would hold text that is not UTF-8 (a file name that is not UTF-8?); nothing "
                "was written: rename the file it came from",
                path=escaped_name(clean),
            )
        self.files[clean] = text

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """Changes made inside stay only when it ends without an error: an error (among
        them a team store's credential check of what was changed inside) undoes them
        and is raised again, the transaction's other changes kept (one import entry of
        many fails alone). Memories, events and their view only; not files or erasures."""
        local, gone = dict(self.view.local), set(self.view.gone)
        changed, events = dict(self.changed), len(self.events)
        try:
            yield
            if self.store.config.scope == "team":
                touched = [m for i, m in self.changed.items() if changed.get(i) is not m]
                guard_team_writes(touched, {}, self.events[events:])
        except BaseException:
            self.view.local, self.view.gone = local, gone
            self.changed, self.events = changed, self.events[:events]
            raise

    # -- applying
    def apply(self) -> None:
        prepared = self.prepare()
        if prepared is not None:
            self.apply_prepared(prepared)

    def prepare(self) -> Prepared | None:
        """Everything this transaction will write, checked; nothing written yet. A
        folder, a pipe or a link where a file is to be written (pushed to a shared
        store, say) refuses the whole change here, before the journal."""
        prepared = prepare(self)
        if prepared is not None:
            for rel in prepared.writes:
                check_writable(confined(self.store.root, rel))
        return prepared

    def apply_prepared(self, prepared: Prepared) -> None:
        """Journal, files and events (the commit point), git commit, then what follows."""
        journal = prepared.journal()
        write_journal(self.store, journal)
        self.write(prepared)
        journal["phase"] = "events"
        write_journal(self.store, journal)
        self.commit(prepared)
        self.finish(prepared, journal)

    def write(self, prepared: Prepared) -> None:
        root = self.store.root
        # made durable together (one sync of the file system for many files), each
        # whole before its name points at it
        atomic_write_many([(confined(root, rel), data) for rel, data in prepared.writes.items()])
        for rel in prepared.removes:
            with contextlib.suppress(FileNotFoundError):
                confined(root, rel).unlink()
        append_to_log(root, self.events, prepared.events_at)

    def commit(self, prepared: Prepared) -> None:
        gitstore.commit(
            self.store.root,
            [*prepared.writes, *prepared.removes, prepared.events_at.file],
            actor=self.actor,
            message=prepared.message,
            when=self.now,
        )

    def finish(self, prepared: Prepared, journal: dict[str, Any]) -> None:
        """After the commit: drop what held erased content, purge history, bring the
        catalog up to date, then forget the journal. A crash anywhere here is finished
        by recovery (the journal says ``purge``; after an erasure it also deletes the
        catalog, whose WAL may still hold the erased rows' pages)."""
        store = self.store
        if prepared.purge:
            journal["phase"] = "purge"
            write_journal(store, journal)
        finish_purge(store, journal)
        if prepared.purge:
            self.history_rewritten = int(journal.get("rewritten", 0))
        written = {
            m.path: (m, prepared.writes[m.path].decode("utf-8"))
            for m in self.changed.values()
            if m.path in prepared.writes
        }
        # an erasure's rows go with secure_delete on and the WAL truncated: no page
        # of the catalog keeps the erased content (core.store.catalog). Only then is
        # the journal gone: a kill before the truncation leaves it for recovery
        # the other files written: a request's row, a memory file an erasure scrubbed
        others = [rel for rel in prepared.writes if rel not in written]
        store.records.forget(
            store.catalog.record(
                written,
                prepared.removes,
                erased=bool(self.removed),
                files=others,
                hints=prepared.hints,
            )
        )
        (store.state_dir / JOURNAL_FILE).unlink(missing_ok=True)

    def commit_message(self) -> str:
        ids = sorted({i for e in self.events for i in e.memory_ids})
        lines = [self.message, "", f"actor: {self.actor}"]
        if ids:
            lines.append("memories: " + ", ".join(ids[:20]) + (" ..." if len(ids) > 20 else ""))
        if self.events:
            lines.append("events: " + ", ".join(e.id for e in self.events[:20]))
        return "\n".join(lines)


@contextlib.contextmanager
def transaction(
    store: Store, *, actor: str, message: str, dry_run: bool = False
) -> Iterator[Transaction]:
    """All changes inside land together as files, events, index and one commit.

    ``dry_run``: every check runs and the writes are prepared (``tx.prepared``),
    under the same lock, and nothing is written (a decision's preview)."""
    with file_lock(store.state_dir / "lock"):
        # what another process or a hand edit changed since this Store last read
        store.reread()
        tx = Transaction(store, actor=actor, message=message)
        yield tx
        if dry_run:
            tx.prepared = tx.prepare()
        else:
            tx.apply()


def write_raw(store: Store, rel: str, text: str, *, actor: str, message: str) -> None:
    """Write a non-memory file of the store (a daily log, a request) and commit it."""
    with transaction(store, actor=actor, message=message) as tx:
        tx.write_file(rel, text)
