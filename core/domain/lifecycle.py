"""The lifecycle state machine (SPEC section 3, seed 3.1), as one table.

``NEW`` stands for "no record yet". Every transition the store makes goes
through :func:`check`; anything not in the table is refused with the reason.
"""

from __future__ import annotations

from core.domain.errors import TransitionError
from core.domain.kinds import Status
from core.domain.record import STATUSES

NEW = "new"

#: (from, to) -> (trigger, who may cause it)
TRANSITIONS: dict[tuple[str, str], tuple[str, str]] = {
    (NEW, Status.ACTIVE): ("write gate passed, no contradiction", "pipeline"),
    (NEW, Status.CONFLICT): ("write contradicts an active record of the same key", "pipeline"),
    (Status.ACTIVE, Status.ACTIVE): ("reconfirmed: verified_at = now, source added", "pipeline"),
    (Status.ACTIVE, Status.SUPERSEDED): ("replaced by newer evidence", "decision or policy"),
    (Status.ACTIVE, Status.CONFLICT): ("contradicting evidence arrived", "pipeline"),
    (Status.ACTIVE, Status.EXPIRED): ("past expires_at, or verification too old", "sweep"),
    (Status.ACTIVE, Status.DELETED): ("deletion approved", "person"),
    (Status.CONFLICT, Status.ACTIVE): ("contradiction adjudicated", "person"),
    (Status.CONFLICT, Status.DELETED): ("'use neither'", "person"),
    (Status.SUPERSEDED, Status.DELETED): ("deletion approved", "person"),
    (Status.EXPIRED, Status.ACTIVE): ("re-verified", "pipeline or person"),
    (Status.EXPIRED, Status.DELETED): ("deletion approved", "person"),
}

_WHY_NOT: dict[tuple[str, str], str] = {
    (Status.CONFLICT, Status.SUPERSEDED): (
        "an unresolved contradiction cannot be declared replaced: adjudicate it first "
        "(conflict -> active), then supersede the loser (active -> superseded)"
    ),
}


def is_legal(from_status: str, to_status: str) -> bool:
    return (from_status, to_status) in TRANSITIONS


def check(from_status: str, to_status: str, *, memory_id: str = "") -> tuple[str, str]:
    """Return (trigger, who) for a legal transition, raise TransitionError otherwise."""
    for status in (from_status, to_status):
        if status != NEW and status not in STATUSES:
            raise TransitionError(f"unknown status {status!r}; statuses are {', '.join(STATUSES)}")
    rule = TRANSITIONS.get((from_status, to_status))
    if rule is not None:
        return rule
    who = f"memory {memory_id}: " if memory_id else ""
    if from_status == Status.DELETED:
        reason = "a deleted memory is erased; nothing comes back out of deleted"
    elif to_status == NEW:
        reason = "a memory cannot become new again"
    else:
        reason = _WHY_NOT.get((from_status, to_status), "not a transition of the lifecycle")
    legal = sorted(to for (frm, to) in TRANSITIONS if frm == from_status)
    allowed = f"; from {from_status} the legal targets are {', '.join(legal)}" if legal else ""
    raise TransitionError(
        f"{who}illegal transition {from_status} -> {to_status}: {reason}{allowed}"
    )
