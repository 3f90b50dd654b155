"""Review: the queue of items a person decides, an item and what it shows, the
preview of a decision (the decision run dry), the decision, and its revert.

Each kind's own vocabulary is here too: the options' default reasons and
meanings, a conflict's suggested conditions, a promotion's blockers. A name the
core uses in several kinds (``DEFAULT_REASONS``) is given the kind's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # core.review
    from core.review import view
    from core.review.actions import Action, actions_for
    from core.review.authority import may_decide
    from core.review.conflict import suggested_conditions
    from core.review.correct import correct
    from core.review.decide import (
        Choice,
        choices_from_data,
        decide,
        decide_many,
        preview,
        preview_many,
    )
    from core.review.items import (
        KINDS,
        BatchAnalysis,
        BatchFile,
        BatchLoss,
        ConditionHints,
        ConflictAnalysis,
        DeletionAnalysis,
        HeldAnalysis,
        Item,
        Kind,
        LabelAnalysis,
        PromotionAnalysis,
        QuarantineAnalysis,
        RecordEvidence,
        Said,
        SecretAnalysis,
        StaleAnalysis,
        UntrustedAnalysis,
    )
    from core.review.kinds import kind_of
    from core.review.losses import first_action_loses
    from core.review.preview import Preview
    from core.review.promotion import blocked_rules, close_reason, reject_reason, successor
    from core.review.quarantine import DEFAULT_REASONS as QUARANTINE_REASONS
    from core.review.quarantine import MEANING as QUARANTINE_MEANING
    from core.review.queue import (
        build_queue,
        conflict_texts,
        evidence_for,
        find_items,
        get_item,
        is_outline,
        open_ids,
        outline_queue,
    )
    from core.review.revert import revert, why_not_revertible
    from core.review.secret import DEFAULT_REASONS as SECRET_REASONS
    from core.review.seen import changes_between, shown_hash
    from core.review.stale import DEFAULT_REASONS as STALE_REASONS

    # core.store
    from core.store.decisions import NOT_CLOSING, Decision

#: where each name lives: ``module:name``, or a module; imported when first asked for
_WHERE: dict[str, str] = {
    "view": "core.review.view",
    "Action": "core.review.actions:Action",
    "actions_for": "core.review.actions:actions_for",
    "may_decide": "core.review.authority:may_decide",
    "suggested_conditions": "core.review.conflict:suggested_conditions",
    "correct": "core.review.correct:correct",
    "Choice": "core.review.decide:Choice",
    "choices_from_data": "core.review.decide:choices_from_data",
    "decide": "core.review.decide:decide",
    "decide_many": "core.review.decide:decide_many",
    "preview": "core.review.decide:preview",
    "preview_many": "core.review.decide:preview_many",
    "KINDS": "core.review.items:KINDS",
    "BatchAnalysis": "core.review.items:BatchAnalysis",
    "BatchFile": "core.review.items:BatchFile",
    "BatchLoss": "core.review.items:BatchLoss",
    "ConditionHints": "core.review.items:ConditionHints",
    "ConflictAnalysis": "core.review.items:ConflictAnalysis",
    "DeletionAnalysis": "core.review.items:DeletionAnalysis",
    "HeldAnalysis": "core.review.items:HeldAnalysis",
    "Item": "core.review.items:Item",
    "Kind": "core.review.items:Kind",
    "LabelAnalysis": "core.review.items:LabelAnalysis",
    "PromotionAnalysis": "core.review.items:PromotionAnalysis",
    "QuarantineAnalysis": "core.review.items:QuarantineAnalysis",
    "RecordEvidence": "core.review.items:RecordEvidence",
    "Said": "core.review.items:Said",
    "SecretAnalysis": "core.review.items:SecretAnalysis",
    "StaleAnalysis": "core.review.items:StaleAnalysis",
    "UntrustedAnalysis": "core.review.items:UntrustedAnalysis",
    "kind_of": "core.review.kinds:kind_of",
    "first_action_loses": "core.review.losses:first_action_loses",
    "Preview": "core.review.preview:Preview",
    "blocked_rules": "core.review.promotion:blocked_rules",
    "close_reason": "core.review.promotion:close_reason",
    "reject_reason": "core.review.promotion:reject_reason",
    "successor": "core.review.promotion:successor",
    "QUARANTINE_REASONS": "core.review.quarantine:DEFAULT_REASONS",
    "QUARANTINE_MEANING": "core.review.quarantine:MEANING",
    "build_queue": "core.review.queue:build_queue",
    "conflict_texts": "core.review.queue:conflict_texts",
    "evidence_for": "core.review.queue:evidence_for",
    "find_items": "core.review.queue:find_items",
    "get_item": "core.review.queue:get_item",
    "is_outline": "core.review.queue:is_outline",
    "open_ids": "core.review.queue:open_ids",
    "outline_queue": "core.review.queue:outline_queue",
    "revert": "core.review.revert:revert",
    "why_not_revertible": "core.review.revert:why_not_revertible",
    "SECRET_REASONS": "core.review.secret:DEFAULT_REASONS",
    "changes_between": "core.review.seen:changes_between",
    "shown_hash": "core.review.seen:shown_hash",
    "STALE_REASONS": "core.review.stale:DEFAULT_REASONS",
    "NOT_CLOSING": "core.store.decisions:NOT_CLOSING",
    "Decision": "core.store.decisions:Decision",
}


def __getattr__(name: str) -> Any:
    """A name of ``__all__``, from its module (imported now, once): ``memgov decide``
    loads the decision path and its kinds, not the revert, the corrections or the
    queue's builder (``tests/e2e/test_startup.py``)."""
    import importlib

    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, _, attr = where.partition(":")
    module = importlib.import_module(module_name)
    value = getattr(module, attr) if attr else module
    globals()[name] = value  # asked once: the next time it is the module's own
    return value


__all__ = [
    "KINDS",
    "NOT_CLOSING",
    "QUARANTINE_MEANING",
    "QUARANTINE_REASONS",
    "SECRET_REASONS",
    "STALE_REASONS",
    "Action",
    "BatchAnalysis",
    "BatchFile",
    "BatchLoss",
    "Choice",
    "ConditionHints",
    "ConflictAnalysis",
    "Decision",
    "DeletionAnalysis",
    "HeldAnalysis",
    "Item",
    "Kind",
    "LabelAnalysis",
    "Preview",
    "PromotionAnalysis",
    "QuarantineAnalysis",
    "RecordEvidence",
    "Said",
    "SecretAnalysis",
    "StaleAnalysis",
    "UntrustedAnalysis",
    "actions_for",
    "blocked_rules",
    "build_queue",
    "changes_between",
    "choices_from_data",
    "close_reason",
    "closes_a_proposal",
    "conflict_texts",
    "correct",
    "decide",
    "decide_many",
    "evidence_for",
    "find_items",
    "first_action_loses",
    "get_item",
    "is_outline",
    "kind_of",
    "may_decide",
    "open_ids",
    "outline_queue",
    "preview",
    "preview_many",
    "reject_reason",
    "revert",
    "shown_hash",
    "successor",
    "suggested_conditions",
    "view",
    "why_not_revertible",
]


def closes_a_proposal(decision: Decision) -> bool:
    """Whether this decision closed a contributor's proposal on a team store: then
    main and the proposal branch's end go out at once (a team sync)."""
    from core.store.proposals import closed_proposal

    return closed_proposal(Path(decision.store), decision.item) is not None
