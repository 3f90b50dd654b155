"""Deciding a held memory: what an import or a sync did not write on its own.

The items are the private store's open held files (:mod:`core.importers.held`);
each shows the agent's file as it is now beside what was found (the lines with an
internal address, the erasure of the memory written again, or the record memgov
changed). A decision closes the item and imports that one file again, in the
same transaction (:func:`core.importers.session.run_entries` with the decided
item), which then does what the decision says:

==============  ===================  =============================================
reason          approve (option)     reject
==============  ===================  =============================================
sensitive       redact (default),    drop: not imported
                keep (private)
relearned       learn                forget: not imported; a sync deletes the file
both-changed    agent                memgov: a sync writes memgov's version
gate            keep (the gate's     drop: not imported
                doubt overruled)
consent         keep (written back   drop: the folder keeps the approved version
                to the folder and
                imported)
==============  ===================  =============================================

What the import wrote is the decision's ``created``: a revert of the decision
takes those records back out (core.review.revert), and the item stays decided.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from core.domain.errors import ValidationError
from core.importers.claude_code import consent
from core.importers.folder_state import folder_key
from core.importers.folder_write import write_agent_file
from core.importers.formats import format_named
from core.importers.held import (
    Held,
    agent_text,
    file_hash,
    load_held,
    marked_lines,
    option_for,
    read_held,
)
from core.importers.report import ImportItem
from core.importers.session import run_entries
from core.review.evidence import Evidence
from core.review.items import HeldAnalysis, Item, Kind
from core.review.session import Session
from core.store.decisions import Decision, decision_for, front, new_decision_id, record_decision
from core.store.store import Store
from core.store.transaction import Transaction
from core.store.workspace import Workspace


def held_items(evidence: Evidence, store: Store, ids: list[str] | None = None) -> list[Item]:
    """The store's open held items (``ids``: only those)."""
    if store.config.scope != "private":
        return []
    if ids is not None:
        found = []
        for held_id in ids:
            try:
                found.append(read_held(store, held_id))
            except Exception:  # absent or unreadable: not an open item
                continue
    else:
        found, _problems = load_held(store)
    return [held_item(evidence, store, h) for h in found if h.status == "open"]


def held_item(evidence: Evidence, store: Store, held: Held) -> Item:
    text = consent.pending_text(store, held) if held.reason == "consent" else agent_text(held)
    marked = tuple((n, tuple(found)) for n, _line, found in marked_lines(text or ""))
    memory = store.memories.get(held.memory_id or "")
    records = (evidence.of(memory),) if memory is not None else ()
    return Item(
        kind=Kind.HELD,
        id=held.id,
        title=f"{held.named}: {held.title or held.file}",
        opened_at=held.held_at,
        store=store,
        analysis=HeldAnalysis(
            reason=held.reason,
            named=held.named,
            folder=held.folder,
            file=held.file,
            line=held.line,
            detail=held.detail,
            options=held.options,
            meanings=held.meanings,
            agent_text=text,
            marked=marked if held.reason == "sensitive" else (),
            memory_id=held.memory_id,
            key=held.key,
        ),
        scope="private",
        subject=held.key.split(" ")[2] if held.key.count(" ") >= 2 else "",
        records=records,
    )


def decide_held(
    session: Session,
    workspace: Workspace,
    item: Item,
    approve: bool,
    *,
    actor: str,
    reason: str,
    option: str | None,
) -> Decision:
    """Close the held item with the option taken, and import its file again in the same
    transaction: the import does what the closed item says."""
    store = item.store
    held = read_held(store, item.id)
    chosen = option_for(held, approve, option)
    reason = reason.strip() or held.meanings[chosen]
    decision_id = new_decision_id(store, f"{held.id}|{chosen}")
    at = store.now().isoformat(timespec="seconds")
    closed = held.decided(chosen, actor=actor, at=at, reason=reason)
    folder = Path(held.folder)
    if not folder.is_dir():
        raise ValidationError(
            f"the agent's folder {folder} is not here any more",
            field="folder",
            where=held.id,
            hint="decide it on the machine that holds the folder",
        )
    if held.reason == "consent" and (session.dry_run or not approve):
        return _close_only(session, store, held, closed, decision_id, actor)
    if held.reason == "consent":
        _write_back(store, held)
    reading = format_named(held.format).reading(workspace, folder, actor)
    made: list[Decision] = []

    def record(tx: Transaction, items: list[ImportItem]) -> None:
        created = []
        for it in items:
            target = workspace.team if it.scope == "team" else store
            if it.outcome in ("written", "conflict") and target is not None:
                created += [{"store": str(target.root), "id": i} for i in it.memory_ids]
        before = {}
        memory = store.memories.get(held.memory_id or "")
        if memory is not None:
            before[memory.id] = front(memory)
        decision = decision_for(
            tx,
            decision_id,
            item=held.id,
            kind="held",
            option=chosen,
            actor=actor,
            reason=reason,
            before=before,
            after={k: front(tx.view[k]) for k in before if k in tx.view},
            created=created,
        )
        if held.reason == "consent":
            _approved_copy(tx, held)
        made.append(record_decision(tx, decision))

    run_entries(
        workspace,
        reading,
        fmt=held.format,
        folder=folder,
        actor=actor,
        dry_run=False,
        only=frozenset({held.file}),
        decided=closed,
        opener=session.transaction,
        on_decided=record,
        decision_id=decision_id,
    )
    return made[0]


# ------------------------------------------------------------------ consent
def _close_only(
    session: Session, store: Store, held: Held, closed: Held, decision_id: str, actor: str
) -> Decision:
    """Drop a consent item (or preview keeping it): the item closes, nothing is
    imported, and the folder keeps the approved version it has."""
    with session.transaction(store, actor=actor, message=f"decide {held.id}") as tx:
        tx.decision = decision_id
        tx.write_file(closed.path, closed.to_yaml())
        tx.event(
            "held-decided",
            reason=f"{closed.named}: {closed.decision} ({closed.decision_reason})",
            details={"held": closed.id, "decision": closed.decision, "file": closed.file},
        )
        decision = decision_for(
            tx,
            decision_id,
            item=held.id,
            kind="held",
            option=closed.decision or "",
            actor=actor,
            reason=closed.decision_reason or "",
            before={},
            after={},
        )
        return record_decision(tx, decision)


def _write_back(store: Store, held: Held) -> None:
    """Keeping a consent item: its bytes back into the agent's folder, and its line
    into the folder's index, before the import reads them."""
    folder = Path(held.folder)
    data = consent.store_bytes(store, consent.pending_path(held.id))
    if data is None:
        raise ValidationError(
            f"the held version of {held.file} is not in the store any more",
            field="file",
            where=held.id,
            hint="drop it; the agent writes the memory again if it still needs it",
        )
    notes: list[str] = []
    now = consent.folder_bytes(folder, held.file)
    if now != data and not write_agent_file(
        folder, held.file, data, None if now is None else file_hash(now), notes
    ):
        raise ValidationError(
            f"{held.file} could not be written back: {'; '.join(notes)}",
            field="file",
            where=held.id,
            hint="sync the folder, then decide again",
        )
    line = consent.store_bytes(store, consent.line_path(held.id))
    index, link = consent.index_of(held.file)
    listed = consent.folder_bytes(folder, index)
    if line is None or listed is None:
        return
    text = listed.decode("utf-8", "replace")
    again = consent.with_line(text, link, line.decode("utf-8", "replace").rstrip("\n"))
    if again != text:
        write_agent_file(folder, index, again, file_hash(listed), notes)


def _approved_copy(tx: Transaction, held: Held) -> None:
    """The kept bytes are the approved version now; the one before waits for a revert."""
    key = folder_key(Path(held.folder))
    rel = consent.approved_path(key, held.file)
    before = consent.store_bytes(tx.store, rel)
    tx.write_file(consent.before_path(held.id), (before or b"").decode("utf-8", "replace"))
    data = consent.store_bytes(tx.store, consent.pending_path(held.id)) or b""
    tx.write_file(rel, data.decode("utf-8", "replace"))


def reopen_on_revert(tx: Transaction, decision: Decision) -> None:
    """A revert of a consent decision: a drop opens its item again (a person decides
    once more); a keep's records leave the store (the revert supersedes them, and a
    superseded record never comes back), so its item stands as dropped and the
    approved version is the one before it: the next sync puts it back in the folder."""
    if decision.kind != "held":
        return
    try:
        held = read_held(tx.store, decision.item)
    except Exception:  # absent or unreadable: nothing to open again
        return
    if held.reason != "consent" or held.status == "open":
        return
    if held.status == "rejected":
        again = replace(
            held,
            status="open",
            decision=None,
            decided_by=None,
            decided_at=None,
            decision_reason=None,
        )
        action, said = "held-reopened", "open again"
    else:
        again = held.decided(
            held.options[-1],
            actor=tx.actor,
            at=tx.now.isoformat(timespec="seconds"),
            reason=f"its keep ({decision.id}) was reverted",
        )
        before = consent.store_bytes(tx.store, consent.before_path(held.id))
        key = folder_key(Path(held.folder))
        tx.write_file(
            consent.approved_path(key, held.file), (before or b"").decode("utf-8", "replace")
        )
        action, said = "held-decided", "dropped"
    tx.write_file(again.path, again.to_yaml())
    tx.event(
        action,
        reason=f"{held.named}: {said}, its decision was reverted ({held.file})",
        details={"held": held.id, "file": held.file, "reverts": decision.id},
    )
