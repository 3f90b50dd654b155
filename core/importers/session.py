"""An import session: a reader's entries, through the write pipeline, into the stores.

An importer reads a foreign memory folder into :class:`core.importers.entries.Entry`
objects and hands them to :func:`run_entries`. That sends each entry through
:func:`core.writing.pipeline.remember` (the write gate, the secret scanner,
duplicates and conflicts), once per source pointer, into the store of the
entry's scope, and answers with an :class:`core.importers.report.ImportReport`.
The whole run is one transaction and one commit per store it changes, with its
``import`` event (:func:`~core.writing.pipeline.remember_in_transaction`).

- entries go oldest first (their ``order``, then file and line), so newer
  evidence comes later; the report lists them in file and line order;
- team entries are written only for a maintainer of the team store
  (:func:`core.domain.policy.is_maintainer`); anyone else's are skipped, with
  what to do instead;
- an internal address (a private IP, an ``.internal`` host) is imported with a
  private memory, whose store never leaves the machine; a team memory naming one is
  held for a person (:mod:`core.importers.held`), since the team store shares it;
- what earlier imports did is not done again (:mod:`core.importers.ledger`);
- each run that changed a store ends with one ``import`` event there, in the
  run's one commit to that store;
- a dry run does all of it on a scratch copy of the stores, removed afterwards.

The imported folder itself is only ever read.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.domain import gate, policy, secrets
from core.domain.errors import SecretBlocked, TransitionError, ValidationError
from core.domain.record import normal_hash
from core.domain.words import counted
from core.importers.entries import Entry, Reading
from core.importers.folder_state import FolderState, StateError, read_state
from core.importers.folders import MARKER, MAX_FILE_BYTES, shown_path
from core.importers.held import (
    MEANING,
    Held,
    describe_found,
    file_hash,
    held_for,
    load_held,
    new_held_id,
    redacted,
)
from core.importers.ledger import IMPORT_ACTION, Ledger
from core.importers.report import WITHHELD, ImportItem, ImportReport, shown
from core.importers.text import origin_key
from core.store.events import Event
from core.store.fsutil import HostileEntry, read_entry
from core.store.store import STATE_DIR, Store
from core.store.transaction import Transaction, transaction
from core.store.workspace import Workspace
from core.writing.pipeline import Outcome, remember_in_transaction

#: how a run opens one store's transaction: ``opener(store, actor=..., message=...)``
Opener = Callable[..., contextlib.AbstractContextManager[Transaction]]


def run_entries(
    workspace: Workspace,
    reading: Reading,
    *,
    fmt: str,
    folder: Path,
    actor: str,
    dry_run: bool,
    only: frozenset[str] | None = None,
    decided: Held | None = None,
    opener: Opener | None = None,
    on_decided: Callable[[Transaction, list[ImportItem]], None] | None = None,
    decision_id: str | None = None,
) -> ImportReport:
    """Send every entry through the write pipeline (on a scratch copy for a dry run).
    ``only``: the files of the folder to import (the rest is left alone); ``decided``:
    a person's decision on a held item, written in the run, which then does what it
    says (core.importers.held); ``opener`` opens each store's transaction (a decision's
    session), and ``on_decided`` records the decision in the private store's, with
    what the run did."""
    if not actor.strip():
        raise ValidationError("every change needs an actor", field="actor", hint="pass --as USER")
    stores = tuple((s.config.scope, str(s.root)) for s in workspace.stores)
    if dry_run:
        with scratch_copy(workspace) as scratch:
            report = _run(scratch, reading, fmt, folder, actor, only, decided)
        return replace(report, dry_run=True, stores=stores)
    hooks = (decided, opener, on_decided, decision_id)
    return replace(_run(workspace, reading, fmt, folder, actor, only, *hooks), stores=stores)


def _run(
    workspace: Workspace,
    reading: Reading,
    fmt: str,
    folder: Path,
    actor: str,
    only: frozenset[str] | None,
    decided: Held | None,
    opener: Opener | None = None,
    on_decided: Callable[[Transaction, list[ImportItem]], None] | None = None,
    decision_id: str | None = None,
) -> ImportReport:
    items = [i for i in reading.skipped if only is None or i.origin in only]
    entries = [e for e in reading.entries if only is None or e.file in only]
    with contextlib.ExitStack() as transactions:
        runner = _Runner(workspace, actor, folder, fmt, transactions)
        runner.opener = opener
        runner.decision_id = decision_id
        runner.seen = reading.seen
        if decided is not None:
            runner.close_decided(decided)
        for entry in sorted(entries, key=lambda e: (e.order, origin_key(e.origin))):
            items.append(runner.one(entry))
        runner.keep_state(reading)
        runner.keep_folder(reading, only)
        if on_decided is not None and workspace.private is not None:
            on_decided(runner._open(workspace.private), items)
        runner.finish()
    items.sort(key=lambda item: origin_key(item.origin))
    secret = {item.origin.rpartition(":")[0] for item in items if item.secret_rules}
    texts = list(reading.warnings)
    if reading.unlisted:
        texts.append(unlisted_warning(reading, items))
    warnings = tuple(_warning(w, secret) for w in texts)
    return ImportReport(
        format=fmt, folder=str(folder), dry_run=False, items=tuple(items), warnings=warnings
    )


#: the outcomes of an entry that is in the store after the run
IMPORTED = ("written", "merged", "conflict", "already-imported")


def unlisted_warning(reading: Reading, items: list[ImportItem]) -> str:
    """The files the folder's index does not list, and which of them this run imported:
    a file skipped, refused or failed is not said to be imported."""
    outcomes: dict[str, set[str]] = {}
    for item in items:
        outcomes.setdefault(item.origin.rpartition(":")[0] or item.origin, set()).add(item.outcome)

    def listing(names: list[str]) -> str:
        return ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")

    files = reading.unlisted
    imported = [f for f in files if outcomes.get(f, set()) & set(IMPORTED)]
    left = [f for f in files if f not in imported]
    if imported and left:
        done = f"imported anyway: {listing(imported)}; not imported: {listing(left)}"
    elif imported:
        done = "imported anyway"
    else:
        done = "not imported (each file's outcome is above)"
    head = f"{counted(len(files), 'file')} not listed in {reading.index_file} ({listing(files)})"
    return f"{head}: {done}" + (f"; {reading.unlisted_note}" if reading.unlisted_note else "")


class _Doubt(Exception):  # a signal: raised inside the savepoint, it undoes it
    def __init__(self, outcome: Outcome) -> None:
        super().__init__("held for review")
        self.outcome = outcome


#: the gate's doubts a person may overrule: everything but a secret and no source
_DOUBTS = ("excluded: ", "s1 ", "s2 ")


def _doubted(outcome: Outcome) -> bool:
    """A refusal by the write gate for doubts only: derivable content (an exclusion)
    or s1/s2 under theta, never a secret, a sensitive pattern or a missing source,
    and not a person's earlier discarding (seed: only those are never written)."""
    result = outcome.gate
    if outcome.kind != "refused" or result is None or outcome.item is not None:
        return False
    if result.secret_rules:
        return False
    failing = {c.name for c in result.criteria if not c.passed}
    return bool(result.excluded or failing) and failing <= {"s1", "s2"}


def _doubt_only(earlier: dict[str, Any]) -> bool:
    """An earlier import's refusal (its event's record) for doubts only: tried again, to
    be held for a person rather than refused."""
    reasons = [str(r) for r in earlier.get("reasons", ())]
    return (
        not earlier.get("secret_rules")
        and bool(reasons)
        and all(r.startswith(_DOUBTS) for r in reasons)
    )


def _texts(entry: Entry) -> list[str]:
    """Every text of the entry a write would keep."""
    return [
        entry.content,
        entry.title or "",
        *(s.evidence for s in entry.sources),
        *(entry.origin_fields or {}).values(),
    ]


def _sensitive_only(entry: Entry) -> bool:
    """What a person decides (a held item): a memory whose only credentials are likely
    ones (a secret-named value, a password in words: maybe none), or a team memory with
    an internal address and no credential. A certain credential is never written; a
    private memory keeps its internal addresses: the private store never leaves the
    machine, and the address is data of the user's project; a team store is shared, so
    the address would leave it."""
    texts = _texts(entry)
    tiers = {h.tier for t in texts for h in secrets.scan(t)}
    if tiers:  # kept private by a person: written as it is (the gate's keep_likely)
        return tiers == {"likely"} and not (entry.keep_likely and entry.scope == "private")
    return entry.scope == "team" and any(gate.sensitive_patterns(t) for t in texts)


def _likely(entry: Entry) -> bool:
    return any(secrets.scan(t) for t in _texts(entry))


def _found(entry: Entry) -> str:
    first = origin_key(entry.origin)[1] or 1
    where = describe_found(entry.content, first) or "in its evidence or front matter"
    if _likely(entry):
        return (
            f"{where}; likely a credential (its value is never shown): redact it, keep it "
            "private if it is none, or drop it"
        )
    return (
        f"{where}; not a credential, but a team memory leaves the machine: redact it, keep "
        "it private, or drop it"
    )


def _redacted(entry: Entry) -> Entry:
    """The entry with each internal address replaced by a mark; it keeps only where it
    came from (an export writes the redacted record anew)."""
    origin = {k: v for k, v in (entry.origin_fields or {}).items() if k in _WHERE}
    return replace(
        entry,
        content=redacted(entry.content),
        title=redacted(entry.title) if entry.title else entry.title,
        sources=tuple(replace(s, evidence=redacted(s.evidence)) for s in entry.sources),
        origin_fields=origin or None,
    )


def _kept_private(entry: Entry) -> Entry:
    """A person keeps its internal addresses, or says its likely credentials are none:
    a private memory, never the team's."""
    return replace(entry, scope="private", keep_likely=True)


_WHERE = ("format", "folder", "slot", "file")


def _warning(text: str, secret_files: set[str]) -> str:
    """A warning for the report; none quotes a file whose memory was refused for a secret."""
    file = text.split(":", 1)[0]
    if file in secret_files:
        return f"{file}: a warning about this file is withheld (it holds a secret)"
    return shown(text) or ""


@contextlib.contextmanager
def scratch_copy(workspace: Workspace) -> Iterator[Workspace]:
    """The workspace's stores copied to a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="memgov-dry-run-") as tmp:
        copies = []
        for number, store in enumerate(workspace.stores):
            target = Path(tmp) / f"{number}-{store.root.name}"
            shutil.copytree(
                store.root, target, symlinks=True, ignore=shutil.ignore_patterns(STATE_DIR)
            )
            copies.append(Store(target, clock=store.clock))
        yield Workspace(stores=copies)


class _Runner:
    """One import run. Each store it writes to gets one transaction, opened when the
    run first reaches it and applied when the run ends (``transactions`` closes them):
    every entry and the ``import`` event land in one commit per store."""

    def __init__(
        self,
        workspace: Workspace,
        actor: str,
        folder: Path,
        fmt: str,
        transactions: contextlib.ExitStack,
    ) -> None:
        self.workspace = workspace
        self.actor = actor
        self.folder = folder
        self.fmt = fmt
        self.transactions = transactions
        self.ledgers: dict[Path, Ledger] = {}
        self.txs: dict[Path, Transaction] = {}
        self.held, _problems = load_held(workspace.private)
        #: how the run opens a store's transaction: a decision's session (core.review),
        #: and the decision its events name
        self.opener: Opener | None = None
        self.decision_id: str | None = None
        self.digests: dict[str, str] = {}
        #: the words of the memories the folder held when memgov last read it
        self.seen: frozenset[str] = frozenset()
        self.active_words: dict[Path, frozenset[str]] = {}
        self.made_held: set[str] = set()  # held items this run wrote

    def erasure_of(self, entry: Entry, ledger: Ledger) -> Event | None:
        """The erasure of a memory this entry writes again (core.importers.ledger), unless
        an active record holds its words again (a person decided to learn it again)."""
        erased = ledger.erasure_of(entry)
        if erased is None:
            return None
        root = ledger.store.root
        if root not in self.active_words:
            self.active_words[root] = frozenset(
                normal_hash(m.content) for m in ledger.view.values() if m.status == "active"
            )
        return None if normal_hash(entry.content) in self.active_words[root] else erased

    def is_erased(self, entry: Entry) -> bool:
        store, _why = self.target(entry.scope)
        return store is not None and self.erasure_of(entry, self.ledger(store)) is not None

    def target(self, scope: str) -> tuple[Store | None, str]:
        store = self.workspace.team if scope == "team" else self.workspace.private
        if store is None:
            where = (
                "pass it with --store, or set team_store in the private store's memgov.yaml"
                if scope == "team"
                else "pass it with --store"
            )
            return None, f"no {scope} store to import into: {where}"
        maintainers = store.config.maintainers
        if scope == "team" and not policy.is_maintainer(store, self.actor):
            listed = ", ".join(maintainers) or "nobody"
            return None, (
                f"only the team store's maintainers ({listed}) may write team memories: "
                "ask one of them to run this import, or import the file privately and "
                "request its promotion"
            )
        return store, ""

    def ledger(self, store: Store) -> Ledger:
        if store.root not in self.ledgers:
            message = f"import: {self.fmt} memories from {self.folder.name}"
            opened = (
                self.opener(store, actor=self.actor, message=message)
                if self.opener is not None
                else transaction(store, actor=self.actor, message=message)
            )
            tx = self.transactions.enter_context(opened)
            tx.decision = self.decision_id
            self.txs[store.root] = tx
            self.ledgers[store.root] = Ledger(store, tx.view)
        return self.ledgers[store.root]

    def one(self, entry: Entry) -> ImportItem:
        if entry.skip:
            return self.item(entry, "skipped", reasons=(entry.skip,))
        mine = self.closed(entry, "both-changed")
        if mine is not None and mine.status == "rejected":  # memgov's version stays
            return self.item(entry, "skipped", reasons=(self.kept(mine),))
        if not entry.content.strip():
            return self.item(entry, "skipped", reasons=("empty: nothing to import",))
        sensitive = _sensitive_only(entry)
        if sensitive:
            kept = self.kept_private(entry)
            sensitive = kept is entry or _sensitive_only(kept)
            entry = kept
        store, why = self.target(entry.scope)
        if store is None:
            return self.item(entry, "skipped", reasons=(why,))
        ledger = self.ledger(store)
        earlier = ledger.exported(entry)
        if earlier is not None:
            return self.item(
                entry,
                "already-imported",
                ids=(earlier.id,),
                reasons=(f"exported from this store as {earlier.id}",),
            )
        erased = self.erasure_of(entry, ledger)
        if erased is not None:
            closed = self.closed(entry, "relearned")
            if closed is None and normal_hash(entry.content) in self.seen:
                return self.item(
                    entry,
                    "skipped",
                    reasons=(
                        f"{erased.actor} erased it on {erased.ts[:10]} ({erased.id}); it was "
                        "in the folder before, so the agent did not write it again (not "
                        f"held): 'memgov sync {self.fmt}' takes its lines out",
                    ),
                )
            if closed is None:
                return self.hold(
                    entry,
                    "relearned",
                    detail=f"{erased.actor} erased {', '.join(erased.memory_ids)} on "
                    f"{erased.ts[:10]} ({erased.id}); the agent wrote it again",
                    memory_id=erased.memory_ids[0] if erased.memory_ids else None,
                )
            if closed.status == "rejected":
                return self.item(entry, "skipped", reasons=(self.kept(closed),))
        if sensitive:
            return self.sensitive(entry, store, ledger)
        return self.send(entry, store, ledger)

    def kept_private(self, entry: Entry) -> Entry:
        """A team memory naming an internal address that a person decided to keep
        private: the private store's from now on (no team store needed). Only for an
        entry :func:`_sensitive_only` holds sensitive."""
        closed = self.closed(entry, "sensitive")
        if closed is None or closed.status == "rejected" or closed.decision != "keep":
            return entry
        return _kept_private(entry)

    def sensitive(self, entry: Entry, store: Store, ledger: Ledger) -> ImportItem:
        """A team memory naming an internal address: held until a person redacts it (then
        the team's), keeps it private (:meth:`kept_private`) or drops it."""
        closed = self.closed(entry, "sensitive")
        if closed is None:
            return self.hold(entry, "sensitive", detail=_found(entry))
        if closed.status == "rejected":
            return self.item(entry, "skipped", reasons=(self.kept(closed),))
        return self.send(_redacted(entry), store, ledger)

    def send(self, entry: Entry, store: Store, ledger: Ledger) -> ImportItem:
        """One pipeline call per source: the second and later merge into the first. All
        go into the store's one transaction; an entry that fails undoes only its own
        changes (a savepoint)."""
        ids: list[str] = []
        reasons: list[str] = []
        kind: str | None = None
        for source in entry.sources:
            candidate = entry.candidate(source)
            found = ledger.imported(candidate, source)
            if found is not None:
                ids.append(found.id)
                continue
            fingerprint = ledger.fingerprint(candidate)
            earlier = ledger.refused.get(fingerprint)
            if earlier is not None and not _doubt_only(earlier):
                return self.refused_before(entry, earlier)
            tx = self.txs[store.root]
            try:
                with tx.savepoint():
                    outcome = remember_in_transaction(tx, candidate)
                    if _doubted(outcome):  # undone: a person decides (a held item)
                        raise _Doubt(outcome)
            except _Doubt as doubt:
                return self.doubted(entry, store, ledger, doubt.outcome)
            except (ValidationError, TransitionError, SecretBlocked) as exc:
                return self.item(entry, "failed", reasons=(str(exc),))
            ledger.note(entry.origin, source, outcome, fingerprint)
            if outcome.kind == "refused":
                rules = outcome.gate.secret_rules if outcome.gate else ()
                return self.item(entry, "refused", reasons=outcome.reasons, rules=rules)
            if outcome.kind == "quarantined":  # a person releases or discards it
                return self.item(entry, "held", reasons=outcome.reasons)
            kind = kind or outcome.kind
            ids += outcome.memory_ids
            reasons += outcome.reasons
        unique = tuple(dict.fromkeys(ids))
        if kind is None:
            return self.item(
                entry,
                "already-imported",
                ids=unique,
                reasons=("imported before from the same file and line",),
            )
        return self.item(entry, kind, ids=unique, reasons=tuple(dict.fromkeys(reasons)))

    def doubted(self, entry: Entry, store: Store, ledger: Ledger, outcome: Outcome) -> ImportItem:
        """The write gate would refuse the entry for a doubt a person may overrule (an
        exclusion, s1 or s2 under theta): held for review with the gate's reasons, then
        kept (vouched for) or dropped as the person decided."""
        closed = self.closed(entry, "gate")
        if closed is None:
            line = origin_key(entry.origin)[1] or 1
            return self.hold(entry, "gate", detail=f"line {line}: {'; '.join(outcome.reasons)}")
        if closed.status == "rejected":
            return self.item(entry, "skipped", reasons=(self.kept(closed),))
        return self.send(replace(entry, vouched=True), store, ledger)

    def refused_before(self, entry: Entry, earlier: dict[str, Any]) -> ImportItem:
        reasons = tuple(str(r) for r in earlier.get("reasons", ()))
        note = (
            f"refused by an earlier import ({earlier.get('event')}); not tried again "
            "until the file, the line or the store's theta changes"
        )
        rules = tuple(str(r) for r in earlier.get("secret_rules", ()))
        return self.item(entry, "refused", reasons=(*reasons, note), rules=rules)

    def item(
        self,
        entry: Entry,
        outcome: str,
        *,
        reasons: tuple[str, ...] = (),
        ids: tuple[str, ...] = (),
        rules: tuple[str, ...] = (),
    ) -> ImportItem:
        secret = bool(rules)
        return ImportItem(
            origin=shown(entry.origin) or "",
            kind=entry.kind,
            scope=entry.scope,
            outcome=outcome,
            reasons=reasons,
            memory_ids=ids,
            title=WITHHELD if secret else shown(entry.title),
            type=entry.type,
            subject=WITHHELD if secret else shown(entry.subject),
            attribute=WITHHELD if secret else shown(entry.attribute),
            sources=tuple(
                shown(f"{shown_path(s.file, self.folder)}:{s.line}") or "" for s in entry.sources
            ),
            secret_rules=tuple(rules),
            notes=tuple(shown(n) or "" for n in entry.notes),
        )

    def keep_state(self, reading: Reading) -> None:
        """The folder's index templates into the private store's state for the folder
        (core.importers.folder_state), when they changed: what an export needs to give
        the index back. A sync's file hashes are the sync's to keep."""
        store = self.workspace.private
        if store is None or not reading.templates or not reading.folder_key:
            return
        if (self.folder / MARKER).is_file() and not any(x.touched for x in self.ledgers.values()):
            return  # memgov's own export, imported back unchanged: nothing to keep
        try:
            state = read_state(store, self.fmt, reading.folder_key)
        except StateError:
            state = None  # unusable: a new one replaces it
        if state is None:
            state = FolderState(format=self.fmt, key=reading.folder_key, folder=str(self.folder))
        if state.index == reading.templates and state.folder == str(self.folder):
            return
        state.index = dict(reading.templates)
        state.folder = str(self.folder)
        self.ledger(store).touched = True
        self.txs[store.root].write_file(state.path, state.to_json())

    def keep_folder(self, reading: Reading, only: frozenset[str] | None) -> None:
        """What the reader keeps of the folder (core.importers.codex.state), in the
        private store's transaction, for the files read."""
        store = self.workspace.private
        if store is None or reading.keeper is None:
            return
        if reading.keeper(self._open(store), only, self.is_erased):
            self.ledger(store).touched = True

    # ------------------------------------------------------------------ held items
    def digest(self, rel: str) -> str:
        """The hash of a file of the folder as it is now (read once per run)."""
        if rel not in self.digests:
            try:  # never a link, a pipe or a folder (core.store.fsutil.read_entry)
                data = read_entry(self.folder / rel, limit=MAX_FILE_BYTES) or b""
            except (HostileEntry, OSError):
                data = b""
            self.digests[rel] = file_hash(data)
        return self.digests[rel]

    def closed(self, entry: Entry, reason: str) -> Held | None:
        """The decided held item for these bytes of the entry's file, if a person decided
        one (an open one is :meth:`hold`'s to find)."""
        folder = str(self.folder)
        mine = [
            h
            for h in self.held
            if h.reason == reason and h.folder == folder and h.file == entry.file
        ]
        if not mine:  # none for the file: its bytes need no reading
            return None
        found = held_for(mine, folder, entry.file, self.digest(entry.file))
        return found if found is not None and found.status != "open" else None

    def kept(self, held: Held) -> str:
        return (
            f"{held.decided_by} decided on {(held.decided_at or '')[:10]} ({held.id}): "
            f"{MEANING[held.decision or held.options[-1]]}"
        )

    def hold(
        self, entry: Entry, reason: str, *, detail: str, memory_id: str | None = None
    ) -> ImportItem:
        """Hold the entry for a person (core.importers.held), in the private store; one
        held item per file, bytes and reason, however often the folder is imported."""
        store = self.workspace.private
        if store is None:
            why = "no private store to hold it for review in: pass it with --store"
            return self.item(entry, "skipped", reasons=(why,))
        digest = self.digest(entry.file)
        open_ = held_for(
            [h for h in self.held if h.reason == reason and h.status == "open"],
            str(self.folder),
            entry.file,
            digest,
        )
        if open_ is None:
            tx = self.txs.get(store.root) or self._open(store)
            when = tx.now.isoformat(timespec="seconds")
            open_ = Held(
                id=new_held_id(str(self.folder), entry.file, digest, reason, when),
                reason=reason,
                format=self.fmt,
                folder=str(self.folder),
                file=entry.file,
                line=origin_key(entry.origin)[1] or 1,
                hash=digest,
                held_at=when,
                held_by=self.actor,
                title=shown(entry.title) or "",
                key=shown(f"{entry.type} {entry.scope} {entry.subject} {entry.attribute}") or "",
                detail=detail,
                memory_id=memory_id,
            )
            tx.write_file(open_.path, open_.to_yaml())
            tx.event(
                "hold",
                (memory_id,) if memory_id else (),
                reason=f"{open_.named}: {entry.file} held for review as {open_.id}",
                details={"held": open_.id, "reason": reason, "file": entry.file},
            )
            self.ledger(store).touched = True
            self.held.append(open_)
            self.made_held.add(open_.id)
        elif open_.id in self.made_held and detail not in open_.detail:
            # another memory of the same file held for the same reason in this run
            more = f"{open_.detail}; {detail}" if len(open_.detail) < 3000 else None
            if more is not None:
                open_ = replace(open_, detail=more)
                self.txs[store.root].write_file(open_.path, open_.to_yaml())
                self.held = [h for h in self.held if h.id != open_.id] + [open_]
        return self.item(
            entry,
            "held",
            reasons=(
                f"{open_.named}: held for review as {open_.id} "
                f"(memgov queue --kind held; {' | '.join(open_.options)})",
                detail,
            ),
            ids=(memory_id,) if memory_id else (),
        )

    def _open(self, store: Store) -> Transaction:
        self.ledger(store)
        return self.txs[store.root]

    def close_decided(self, decided: Held) -> None:
        """Write a person's decision on a held item, in this run's private transaction:
        the run then does what it says."""
        store = self.workspace.private
        assert store is not None
        tx = self._open(store)
        tx.write_file(decided.path, decided.to_yaml())
        tx.event(
            "held-decided",
            (decided.memory_id,) if decided.memory_id else (),
            reason=f"{decided.named}: {decided.decision} ({decided.decision_reason})",
            details={"held": decided.id, "decision": decided.decision, "file": decided.file},
        )
        self.ledger(store).touched = True
        self.held = [h for h in self.held if h.id != decided.id] + [decided]

    def finish(self) -> None:
        """One ``import`` event per store this run changed: counts, ids, refusals (in
        the store's transaction: applied, with the entries, when the run ends)."""
        fmt = self.fmt
        for root, ledger in self.ledgers.items():
            if not ledger.touched:
                continue
            tx = self.txs[root]
            tx.event(
                IMPORT_ACTION,
                tuple(sorted(ledger.ids)),
                reason=f"imported {fmt} memories from {self.folder}",
                details={
                    "format": fmt,
                    "folder": str(self.folder),
                    "counts": dict(sorted(ledger.counts.items())),
                    "refused": ledger.refusals,
                },
            )
