"""Review: the queue of items a person decides, an item and what it shows, the
preview of a decision (the decision run dry), the decision, and its revert.

Each kind's own vocabulary is here too: the options' default reasons and
meanings, a conflict's suggested conditions, a promotion's blockers. A name the
core uses in several kinds (``DEFAULT_REASONS``) is given the kind's name.
"""

from __future__ import annotations

from pathlib import Path

# core.review
from core.review import view
from core.review.actions import Action, actions_for
from core.review.authority import may_decide
from core.review.conflict import suggested_conditions
from core.review.correct import correct
from core.review.decide import Choice, choices_from_data, decide, decide_many, preview, preview_many
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
from core.store.proposals import closed_proposal

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
    return closed_proposal(Path(decision.store), decision.item) is not None
