"""What an actor may do with one review item, and why not: before walking through it.

:func:`actions_for` lists every action of an item's kind, each with ``refused``:
None when the actor may take it, else why not, in words. It asks the rules the
decision itself checks (core.review.authority, the kind's module), so what the desk
disables at an item and what ``memgov show`` lists are what ``decide`` would refuse,
found before the person walks through the decision. (A decision still checks
everything again under the locks: a list made earlier may be out of date.)

The actions are named as the core names the options: a conflict's ``newer``,
``older``, ``parallel``, ``neither`` and ``defer``; a promotion's ``approve``,
``reject``, ``withdraw`` and ``rerequest``; a deletion's ``approve`` and ``reject``;
a secret's ``erase``, ``correct`` and ``defer``; a batch's ``approve`` and ``reject``;
a stale report's ``expire``, ``correct`` and ``keep``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.domain.data import AsData
from core.domain.errors import AuthorizationError
from core.review import stale
from core.review.authority import check_may_close_request, check_may_decide
from core.review.items import (
    CONFLICT_OPTIONS,
    BatchAnalysis,
    HeldAnalysis,
    Item,
    Kind,
    LabelAnalysis,
    QuarantineAnalysis,
    SecretAnalysis,
    UntrustedAnalysis,
)
from core.review.labels import OPTIONS
from core.review.promotion import blocked_rules, successor
from core.store.workspace import Workspace

#: every action of each kind, in the order the desk shows them
ACTIONS: dict[str, tuple[str, ...]] = {
    Kind.CONFLICT: CONFLICT_OPTIONS,
    Kind.PROMOTION: ("approve", "reject", "withdraw", "rerequest"),
    Kind.DELETION: ("approve", "reject"),
    Kind.SECRET: ("erase", "correct", "defer"),
    Kind.CONSOLIDATION: ("approve", "reject"),
    Kind.STALE: ("expire", "correct", "keep"),
    Kind.HELD: ("redact", "keep", "drop", "learn", "forget", "agent", "memgov"),
    Kind.QUARANTINE: ("release", "discard", "erase", "correct", "keep"),
    Kind.UNTRUSTED: ("ratify", "reject"),
    Kind.LABEL: tuple(dict.fromkeys(o for options in OPTIONS.values() for o in options)),
}


@dataclass(frozen=True)
class Action(AsData):
    """One thing the actor may do with an item, or why not (``refused``)."""

    name: str
    refused: str | None = None

    DATA_PROPERTIES = ("allowed",)

    @property
    def allowed(self) -> bool:
        return self.refused is None


def actions_for(item: Item, actor: str, workspace: Workspace) -> tuple[Action, ...]:
    """Each action of ``item``'s kind that applies to it, allowed or refused with the
    reason."""
    decider = _refusal(lambda: check_may_decide(item, actor, workspace))
    out = []
    for name in ACTIONS[item.kind]:
        if not _applies(item, name):
            continue
        if item.kind == Kind.PROMOTION and name in ("withdraw", "rerequest"):
            refused = _refusal(lambda: check_may_close_request(item, actor))
        else:
            refused = decider
        out.append(Action(name, refused or _why_not(item, name, workspace)))
    return tuple(out)


def allowed(actions: tuple[Action, ...], name: str) -> bool:
    return any(a.name == name and a.allowed for a in actions)


def _applies(item: Item, name: str) -> bool:
    """Whether ``name`` is an action of this item at all: asking again for the record
    that replaced the requested one applies only once it was replaced."""
    if item.kind == Kind.PROMOTION and name == "rerequest":
        return item.records[0].memory.status != "active"
    if item.kind == Kind.HELD:  # each reason has its own options
        return name in item.analysis_as(HeldAnalysis).options
    if item.kind == Kind.QUARANTINE:  # a held candidate's, or a stored record's
        return name in item.analysis_as(QuarantineAnalysis).options
    if item.kind == Kind.LABEL:  # each measure has its labels
        return name in item.analysis_as(LabelAnalysis).options
    return True


def _refusal(check: Callable[[], None]) -> str | None:
    try:
        check()
    except AuthorizationError as exc:
        return str(exc)
    return None


def _why_not(item: Item, name: str, workspace: Workspace) -> str | None:
    """What of the item itself refuses ``name`` (who may decide is checked first)."""
    if item.kind == Kind.UNTRUSTED and not item.analysis_as(UntrustedAnalysis).first:
        return "it waits behind another untrusted change: decide that one first"
    if item.kind == Kind.PROMOTION:
        memory = item.records[0].memory
        newer = successor(item.store, memory) if memory.status != "active" else None
        if name == "approve":
            rules = blocked_rules(item)
            if rules:
                return (
                    f"blocked by the secret scan ({', '.join(rules)}): correct the record "
                    "first (the request moves to the correction), or withdraw the request"
                )
            if memory.status != "active":
                return f"{memory.id} is {memory.status} since the request: " + (
                    f"ask again for {newer.id}, which replaced it, or withdraw the request"
                    if newer is not None
                    else "withdraw the request"
                )
            if workspace.team is None:
                return "no team store is configured: a promotion needs one"
        if name == "rerequest" and newer is None:
            return f"{memory.id} is {memory.status} and no active record replaced it"
    if item.kind == Kind.DELETION and name == "approve":
        memory = item.records[0].memory
        if memory.status == "conflict":
            return (
                f"{memory.id} is in conflict since the deletion was requested: resolve the "
                "conflict first ('neither' erases both records)"
            )
    if item.kind == Kind.STALE:
        return stale.why_not(item, name)
    if (
        item.kind == Kind.SECRET
        and name == "correct"
        and "correct" not in item.analysis_as(SecretAnalysis).options
    ):
        status = item.records[0].memory.status
        return f"a {status} record is no longer used: erase it instead"
    if item.kind == Kind.CONSOLIDATION and name == "approve":
        analysis = item.analysis_as(BatchAnalysis)
        if analysis.error:
            return f"the batch cannot be read: {analysis.error}"
    return None
