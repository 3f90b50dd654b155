"""Every kind of review item, registered once: :data:`REGISTRY` (in the order the
queue names them), :func:`kind_of` (the kind an item id names, by its prefix) and
:func:`review_kind` (the kind of an item or a decision, by name).

Each kind is one module here with a :class:`~core.review.kinds.base.ReviewKind`;
the queue (core.review.queue), the decision path (core.review.decide), the actions
(core.review.actions), the revert (core.review.revert) and the faces read them
here, never a kind's name.
"""

from __future__ import annotations

from core.review.kinds import (
    batch,
    conflict,
    deletion,
    held,
    label,
    promotion,
    quarantine,
    secret,
    stale,
    untrusted,
)
from core.review.kinds.base import Choice, ReviewKind

__all__ = ["REGISTRY", "Choice", "ReviewKind", "kind_of", "queue_kinds", "review_kind"]

#: every kind of review item by its name, in the order of :class:`Kind` (a test checks)
REGISTRY: dict[str, ReviewKind] = {
    k.kind: k
    for k in (
        conflict.KIND,
        promotion.KIND,
        deletion.KIND,
        batch.KIND,
        secret.KIND,
        stale.KIND,
        held.KIND,
        quarantine.KIND,
        untrusted.KIND,
        label.KIND,
    )
}


def review_kind(name: str) -> ReviewKind:
    """The kind named ``name`` (an item's ``kind``); KeyError when no kind has it."""
    return REGISTRY[name]


def kind_of(item_id: str) -> ReviewKind:
    """The kind whose prefix ``item_id`` begins with. An id no prefix names is a
    batch's: a batch's id is its branch's name (core.consolidation.refs), which
    memgov makes ``batch-...`` but a branch made by hand may name otherwise."""
    found = next((k for k in REGISTRY.values() if item_id.startswith(k.prefixes)), None)
    return found if found is not None else batch.KIND


def queue_kinds() -> tuple[ReviewKind, ...]:
    """The kinds the queue lists, in its order."""
    return tuple(k for k in REGISTRY.values() if k.in_queue)
