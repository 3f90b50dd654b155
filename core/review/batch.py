"""A pending consolidation batch in the review queue, and deciding it.

Consolidation (core.consolidation) makes the batch and applies it; this module
shows it as a review item (:func:`pending_items`) and decides it through the
same path as every item (:func:`decide_batch`, reached from
core.review.decide). What a batch decision will change is the batch's own
selection (:func:`preview_batch`): the same ``select`` that approval applies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from core.consolidation.apply import BatchDecision, select
from core.consolidation.apply import decide_batch as apply_decision
from core.consolidation.batch import Batch, batch_files, load_batch, pending_ids, stale
from core.consolidation.changes import Change
from core.domain.errors import MemgovError
from core.domain.words import counted
from core.review.evidence import Evidence
from core.review.items import BatchAnalysis, BatchChange, BatchFile, Item, Kind
from core.store.store import Store


def batch_item(store: Store, batch: Batch, evidence: Evidence | None = None) -> Item:
    """A pending batch as a review-queue item."""
    changes = {c.id: c for c in batch.changes}
    moved = stale(batch, store)
    files = batch_files(store, batch)
    evidence = evidence or Evidence(store)
    touched = dict.fromkeys(i for c in batch.changes for i in c.memory_ids)
    records = tuple(evidence.of(store.memories[i]) for i in touched if i in store.memories)
    auto = sum(c.automatic for c in batch.changes)
    return Item(
        kind=Kind.CONSOLIDATION,
        id=batch.id,
        title=f"consolidation: {counted(len(batch.changes), 'change')} ({auto} automatic, "
        f"{len(batch.changes) - auto} "
        f"{'needs' if len(batch.changes) - auto == 1 else 'need'} approval) "
        f"in {counted(len(files), 'file')}",
        opened_at=batch.created_at,
        store=store,
        scope=store.config.scope,
        records=records,
        analysis=BatchAnalysis(
            batch=batch.id,
            base=batch.base,
            branch=batch.branch,
            since=batch.since,
            engine=batch.engine,
            created_at=batch.created_at,
            actor=batch.actor,
            summary={**batch.counts, "files": len(files)},
            changes=tuple(_change(c, moved.get(c.id, [])) for c in batch.changes),
            files=tuple(_file(f.to_dict(changes)) for f in files),
            index=dict(batch.index),
            replay=dict(batch.replay),
            findings=tuple(batch.findings),
        ),
    )


def _change(change: Change, stale: list[str]) -> BatchChange:
    return BatchChange(
        id=change.id,
        action=change.action,
        classification=change.classification,
        automatic=change.automatic,
        reason=change.reason,
        evidence=tuple(dict(e) for e in change.evidence),
        memory_ids=change.memory_ids,
        files=change.files,
        stale=tuple(stale),
    )


def _file(data: dict[str, Any]) -> BatchFile:
    return BatchFile(
        path=data["path"],
        status=data["status"],
        classification=data["class"],
        automatic=data["automatic"],
        changes=tuple(data["changes"]),
        reasons=tuple(data["reasons"]),
        evidence=tuple(data["evidence"]),
        derived=data["derived"],
        diff=data["diff"],
    )


def pending_items(store: Store, batch_ids: Sequence[str] | None = None) -> Iterator[Item]:
    """The store's pending batch (at most one), or those of ``batch_ids`` that are
    pending. A batch that cannot be read stays visible, with the error."""
    ids = [i for i in pending_ids(store) if batch_ids is None or i in batch_ids]
    evidence = Evidence(store) if ids else None
    for batch_id in ids:
        try:
            yield batch_item(store, load_batch(store, batch_id), evidence)
        except (MemgovError, ValueError, KeyError) as exc:
            yield Item(
                kind=Kind.CONSOLIDATION,
                id=batch_id,
                title=f"consolidation batch {batch_id}: unreadable ({exc})",
                opened_at="",
                store=store,
                scope=store.config.scope,
                analysis=BatchAnalysis(batch=batch_id, error=str(exc)),
            )


def decide_batch(
    item: Item, approve: bool, *, actor: str, reason: str = "", files: Sequence[str] | None = None
) -> BatchDecision:
    """Approve all, approve the changes touching ``files`` and reject the rest,
    reject all, or reject those touching ``files`` and approve the rest."""
    return apply_decision(item.store, item.id, approve, actor=actor, reason=reason, files=files)


def preview_batch(
    item: Item, approve: bool, files: Sequence[str] | None
) -> tuple[list[str], list[str], list[str]]:
    """(approved change ids, rejected change ids, files approved) of a decision."""
    batch = load_batch(item.store, item.id)
    approved, rejected = select(item.store, batch, approve, files)
    return (
        [c.id for c in approved],
        [c.id for c in rejected],
        sorted({p for c in approved for p in c.files}),
    )
