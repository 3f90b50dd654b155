"""Reverting a decision: the exact prior states back, as a new event and commit.

A decision record keeps the front matter of every record before and after.
:func:`revert` checks that each record is still as the decision left it (a
later decision must be reverted first), restores the earlier states, reopens
the request the decision closed and marks the decision reverted, in every
store it changed at once (a promotion's team copy is erased from the team
store). An erasure cannot be reverted: its content is gone. A consolidation
decision is undone by rolling back to the baseline before it. Who may decide
an item may revert its decision.
"""

from __future__ import annotations

import contextlib
from typing import Any

from core.domain import lifecycle
from core.domain.errors import AlreadyDecided, NotFoundError, StoreError, ValidationError
from core.domain.record import memory_from_mapping
from core.review.authority import check_may_decide_on
from core.review.consequences import with_consequences
from core.review.held import folder_after_revert, holds_words
from core.review.held import reopen_on_revert as reopen_held
from core.review.kinds import REGISTRY
from core.review.promotion import move_requests
from core.review.quarantine import reopen_on_revert
from core.store.decisions import (
    UNWRITE_ACTION,
    Decision,
    decision_for,
    erase_record,
    find_decision,
    load_decision,
    new_decision_id,
    record_decision,
    with_reverted,
)
from core.store.joint import joint_transaction
from core.store.requests import Request, get_request, load_requests
from core.store.store import Store
from core.store.transaction import Transaction, transaction
from core.store.workspace import Workspace


def revert(workspace: Workspace, decision_id: str, *, actor: str, reason: str = "") -> Decision:
    """Restore the exact prior states of a decision, as a new event and commit.

    Exactly once: the decision is read again under every store's lock, so of two
    reverts of one decision the second gets :class:`AlreadyDecided`."""
    with workspace.locked():
        store, decision = find_decision(workspace.stores, decision_id)
        if decision.reverted_by:
            try:
                by = load_decision(store, decision.reverted_by)
                who, when = by.actor, by.ts
            except (NotFoundError, ValidationError):
                who, when = "someone", "an earlier time"
            raise AlreadyDecided(
                f"revert of {decision_id}", actor=who, ts=when, decision=decision.reverted_by
            )
        done = revert_in(workspace, store, decision, actor=actor, reason=reason)
        folder_after_revert(store, decision)  # a consent item's folder, once it committed
        return done


def why_not_revertible(decision: Decision) -> str | None:
    """Why ``decision`` cannot be undone, in words (None: a revert may be tried; it still
    checks the records are as the decision left them, and who may decide). What the
    desk's ``u`` says, and what ``memgov revert`` refuses with."""
    decision_id = decision.id
    kind = REGISTRY.get(decision.kind)  # none: a correction (core.review.correct)
    own = kind.why_not_revertible(decision) if kind is not None else None
    if own is not None:
        return own
    if decision.erased:
        return (
            f"{decision_id} erased {', '.join(decision.erased)}: an erasure "
            "cannot be reverted, its content is gone"
        )
    if decision.reverted_by:
        return f"{decision_id} was already reverted by {decision.reverted_by}"
    if decision.option == "defer":
        return (
            f"{decision_id} is a deferral: it changed nothing, there is nothing to revert "
            f"({decision.item} is still open, marked as looked at)"
        )
    if decision.option == "revert":
        return f"{decision_id} is itself a revert ({decision.note}); decide the item again"
    if decision.option == "rerequest":
        return (
            f"{decision_id} moved the promotion request {decision.request} to a request for "
            f"the record that replaced it ({decision.note}): withdraw that one if it was a "
            "mistake"
        )
    return None


def revert_in(  # noqa: C901
    workspace: Workspace, store: Store, decision: Decision, *, actor: str, reason: str
) -> Decision:
    decision_id = decision.id
    why_not = why_not_revertible(decision)
    if why_not is not None:
        raise ValidationError(why_not, field="decision")
    kind = REGISTRY.get(decision.kind)
    own = kind.revert(store, decision, actor=actor, reason=reason) if kind is not None else None
    if own is not None:  # a kind undone its own way (a batch: rolled back to its baseline)
        return own
    # who may decide may revert
    check_may_decide_on(decision.kind, store, decision.item, actor, workspace)
    elsewhere: dict[str, Store] = {}  # other stores the decision changed (a promotion's team)
    for entry in [*decision.created, *decision.touched]:
        if entry["store"] == str(store.root):
            continue
        target = next((s for s in workspace.stores if str(s.root) == entry["store"]), None)
        if target is None:
            raise NotFoundError(
                f"{decision_id} changed {entry['id']} in {entry['store']}, "
                "which is not among the stores given; pass it with --store"
            )
        elsewhere[entry["store"]] = target
    reason = reason.strip() or f"revert {decision_id}"
    revert_id = new_decision_id(store, f"revert|{decision_id}")
    details = {"reverts": decision_id}
    if len(elsewhere) > 1:
        raise StoreError(f"{decision_id} changed more than one other store; revert it by hand")
    # one change across the stores it touched: all land or none, whatever moment it is killed
    with contextlib.ExitStack() as stack:
        other_tx: Transaction | None = None
        if elsewhere:
            tx, other_tx = stack.enter_context(
                joint_transaction(
                    store,
                    next(iter(elsewhere.values())),
                    actor=actor,
                    message=f"revert {decision_id}",
                )
            )
        else:
            tx = stack.enter_context(
                transaction(store, actor=actor, message=f"revert {decision_id}")
            )
        restore_all(tx, decision.before, decision.after, decision_id, reason, revert_id)
        reopen_on_revert(tx, decision)  # a quarantine item opens again
        reopen_held(tx, decision)  # so does a consent item
        if decision.request:
            request = get_request(store, decision.request)
            tx.write_file(request.path, _reopened(request).to_yaml())
        # a stale report a correction closed is open again with the old record (only a
        # correction closes another item's report: a stale report's own is its request)
        closing = load_requests(store, status="approved") if decision.kind == "correction" else ()
        for report in closing:
            if (report.kind, report.decision) == ("stale", decision_id):
                tx.write_file(report.path, _reopened(report).to_yaml())
                tx.event(
                    "request-reopened",
                    (report.memory_id,),
                    reason=reason,
                    request=report.id,
                    decision=revert_id,
                )
        undone = with_reverted(decision, revert_id)
        tx.write_file(decision.path, undone.to_json())
        # what a held memory's decision imported leaves as if never written (its item
        # waits again); any other decision's new records stay in history, superseded
        unwrites = kind is not None and kind.unwrites(store, decision)
        gone = {"action": UNWRITE_ACTION if unwrites else "revert-erase", "reason": reason}
        for created in decision.created:  # e.g. a correction's new record, in this store
            if unwrites and created["id"] in decision.before:
                continue  # a record it changed, not made: put back as it was above
            if unwrites and created["store"] == str(store.root) and created["id"] in tx.view:
                erase_record(tx, created["id"], **gone, decision=revert_id, details=details)
            elif created["store"] == str(store.root) and created["id"] in tx.view:
                # kept as superseded: a revert never rewrites this store's history
                made = tx.view[created["id"]]
                for back in decision.before if decision.kind in ("correction", "stale") else ():
                    # a promotion request the correction moved to it moves back
                    move_requests(
                        tx, made, back, actor=actor, decision=revert_id, why="was reverted to"
                    )
                if lifecycle.is_legal(made.status, "superseded"):
                    tx.transition(
                        made.id,
                        "superseded",
                        action="revert",
                        reason=reason,
                        decision=revert_id,
                        details=details,
                    )
                elif holds_words(tx.store, decision):
                    # a consent item waits again with these words: out, never erased
                    tx.restore(
                        made.with_changes(status="superseded"),
                        reason=reason,
                        decision=revert_id,
                        details=details,
                    )
                else:
                    erase_record(tx, created["id"], **gone, decision=revert_id, details=details)
        for root in elsewhere:  # a promotion's team copy leaves the team store
            assert other_tx is not None
            other = other_tx
            touched = [t for t in decision.touched if t["store"] == root]
            restore_all(
                other,
                {t["id"]: t["before"] for t in touched},
                {t["id"]: t["after"] for t in touched},
                decision_id,
                reason,
                revert_id,
            )
            for created in decision.created:
                if created["store"] == root and created["id"] in other.view:
                    erase_record(other, created["id"], **gone, decision=revert_id, details=details)
        result = decision_for(
            tx,
            revert_id,
            item=decision.item,
            kind=decision.kind,
            option="revert",
            actor=actor,
            reason=reason,
            before=decision.after,
            after=decision.before,
            request=decision.request,
            note=f"reverts {decision_id}",
        )
        record_decision(tx, result, details={"reverts": decision_id})
    ran = [tx] if other_tx is None else [tx, other_tx]
    return with_consequences(result, ran, set(decision.before) | set(decision.after))


def restore_all(
    tx: Transaction,
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    decision_id: str,
    reason: str,
    revert_id: str,
) -> None:
    """Put each record back as ``before`` says, if it is still as ``after`` left it."""
    for memory_id, front in before.items():
        current = tx.view.get(memory_id)
        if current is None:
            raise ValidationError(
                f"{memory_id} no longer exists; nothing to restore", field="decision"
            )
        expected = after.get(memory_id, {}).get("status")
        if expected and current.status != expected:
            raise ValidationError(
                f"{memory_id} changed since {decision_id} ({expected} -> {current.status});"
                " revert the later decision first",
                field="decision",
            )
        meta = {k: v for k, v in front.items() if k != "path"}
        if current.front_matter() == meta:
            continue
        tx.restore(
            memory_from_mapping(meta, current.content, rel_path=current.path),
            reason=reason,
            decision=revert_id,
            details={"reverts": decision_id},
        )


def _reopened(request: Request) -> Request:
    return request.with_changes(status="open", decision=None, decided_by=None, decision_reason=None)
