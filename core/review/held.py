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
==============  ===================  =============================================

What the import wrote is the decision's ``created``: a revert of the decision
takes those records back out (core.review.revert), and the item stays decided.
"""

from __future__ import annotations

from pathlib import Path

from core.domain.errors import ValidationError
from core.importers.formats import format_named
from core.importers.held import (
    MEANING,
    Held,
    agent_text,
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
    text = agent_text(held)
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
            meanings={o: MEANING[o] for o in held.options},
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
    reason = reason.strip() or MEANING[chosen]
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
