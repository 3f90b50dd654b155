"""What deciding an item would do to a pending consolidation batch of its store, and
the queue's order that never leads into that loss.

A batch may quote any record (an erasure discards every pending batch of its store:
core.consolidation.refs) and expects the records its changes touch as they were (a
change of one leaves that change stale: approving it is refused). Each kind says what
its actions do to records (:meth:`core.review.kinds.base.ReviewKind.touches`);
:func:`batches_first` puts that on each item (:attr:`Item.discards`) and moves each
batch up to just before the first item whose first action would lose it. The
decision's own preview says the same (core.review.consequences), from what its
transaction writes; ``tests/review/test_queue_batches.py`` holds the two together.
"""

from __future__ import annotations

from dataclasses import replace

from core.review.items import BatchAnalysis, BatchLoss, Item, Kind
from core.review.kinds import kind_of
from core.review.kinds.base import Touch


def batches_first(items: list[Item]) -> list[Item]:
    """``items`` with what deciding each would do to a pending consolidation batch of
    its store (:attr:`Item.discards`), and each batch moved up to just before the first
    item whose first action (the one its view offers first) would discard it or leave
    a change of it stale: top-down, the batch is decided before anything loses it.
    Every other item keeps its place."""
    batches = [i for i in items if isinstance(i.analysis, BatchAnalysis) and i.analysis.changes]
    if not batches:  # none pending (any more): nothing is lost
        return [replace(i, discards=()) if i.discards else i for i in items]
    out = [_with_losses(item, batches) for item in items]
    for batch in batches:
        here = next(n for n, i in enumerate(out) if i.id == batch.id)
        first = next((n for n, i in enumerate(out[:here]) if first_action_loses(i, batch.id)), None)
        if first is not None:
            out.insert(first, out.pop(here))
    return out


def _with_losses(item: Item, batches: list[Item]) -> Item:
    """``item`` with what its actions would do to each batch of its store."""
    touch = Touch() if item.kind == Kind.CONSOLIDATION else kind_of(item.id).touches(item)
    own = {r.memory.id for r in item.records}
    losses: list[BatchLoss] = []
    for batch in batches:
        if batch.store.root != item.store.root:
            continue
        analysis = batch.analysis_as(BatchAnalysis)
        if touch.erases:
            losses.append(BatchLoss(analysis.batch, "discarded", touch.erases))
        expecting = tuple(c.id for c in analysis.changes if own & set(c.memory_ids))
        if touch.changes and expecting:
            losses.append(BatchLoss(analysis.batch, "stale", touch.changes, expecting))
    found = tuple(losses)
    return item if found == item.discards else replace(item, discards=found)


def first_action_loses(item: Item, batch_id: str | None = None) -> BatchLoss | None:
    """What the item's first action (the one its view offers first) would do to a
    pending batch (``batch_id``: that one), if anything."""
    if not item.discards:
        return None
    kind = kind_of(item.id)
    first = next((a for a in kind.actions if kind.applies(item, a)), None)
    return next(
        (
            loss
            for loss in item.discards
            if first in loss.actions and batch_id in (None, loss.batch)
        ),
        None,
    )
