"""A person corrects what was remembered: a new record supersedes the old one.

The same rules as any replacement (active -> superseded, the new record's
``supersedes`` points at the old one), recorded as a revertible decision. A
correction in a team store is secret-scanned first.
"""

from __future__ import annotations

from core.domain import secrets
from core.domain.errors import SecretBlocked, ValidationError
from core.domain.record import Memory
from core.review.authority import check_may_decide_on
from core.review.consequences import with_consequences
from core.review.promotion import move_requests
from core.store.decisions import Decision, decision_for, front, new_decision_id, record_decision
from core.store.requests import open_requests
from core.store.store import new_memory_id
from core.store.transaction import Transaction, transaction
from core.store.workspace import Workspace


def supersede_with(
    tx: Transaction,
    old: Memory,
    *,
    content: str,
    value: str | None,
    reason: str,
    actor: str,
    decision: str,
) -> Memory:
    """The record that corrects ``old``, written in ``tx``: it supersedes ``old``
    (active -> superseded), is verified now, and takes over ``old``'s open promotion
    requests; ``old``'s open stale reports close, done by the correction. What a
    correction and a stale report's ``correct`` both write."""
    new = old.with_changes(
        id=new_memory_id(old.attribute, f"{old.id}|{content}|{decision}"),  # as previewed
        path="",
        content=content.strip(),
        value=value,
        supersedes=old.id,
        created_at=tx.now,
        verified_at=tx.now,
        usage_count=0,
        last_used_at=None,
        confidence=max(old.confidence, 0.9),
        status="active",
    )
    tx.create(new, action="correct", reason=reason, decision=decision, details={"corrects": old.id})
    tx.transition(
        old.id,
        "superseded",
        action="supersede",
        reason=reason,
        decision=decision,
        details={"by": new.id},
    )
    # a promotion asked for the old record goes on for the correction, never left
    # open against a superseded record (the correction's consequences say so)
    move_requests(tx, old, new.id, actor=actor, decision=decision, why="was corrected by")
    for report in open_requests(tx.store, old.id, kind="stale"):
        if report.path in tx.files:
            continue  # the report being decided: its caller's
        why = f"{old.id} was corrected by {new.id}"
        tx.write_file(
            report.path, report.decided(True, decision=decision, actor=actor, reason=why).to_yaml()
        )
        tx.event("request-closed", (old.id,), reason=why, request=report.id, decision=decision)
    return new


def correct(
    workspace: Workspace,
    memory_id: str,
    *,
    content: str,
    actor: str,
    reason: str = "",
    value: str | None = None,
) -> Decision:
    """A person corrects what was remembered: a new record supersedes the old one.

    The same rules as any replacement (active -> superseded, the new record's
    ``supersedes`` points at the old one), recorded as a revertible decision.
    """
    store = workspace.find_memory(memory_id)
    old = store.get(memory_id)
    if old.status != "active":
        raise ValidationError(
            f"{memory_id} is {old.status}; only an active memory can be "
            "corrected (adjudicate a conflict in the queue)",
            field="status",
        )
    if not content.strip():
        raise ValidationError(
            "the correction is empty; request a deletion instead", field="content"
        )
    check_may_decide_on("correction", store, memory_id, actor, workspace)
    if store.config.scope == "team":
        rules = [f.rule_id for f in secrets.scan(content)]
        if rules:
            raise SecretBlocked(f"correction of {memory_id}", rules)
    reason = reason.strip() or "corrected by the person it is about"
    decision_id = new_decision_id(store, f"correct|{memory_id}|{content}")
    with transaction(store, actor=actor, message=f"correct {memory_id}") as tx:
        new = supersede_with(
            tx, old, content=content, value=value, reason=reason, actor=actor, decision=decision_id
        )
        decision = decision_for(
            tx,
            decision_id,
            item=memory_id,
            kind="correction",
            option="supersede",
            actor=actor,
            reason=reason,
            before={old.id: front(old)},
            after={old.id: front(tx.view[old.id])},
            created=[{"store": str(store.root), "id": new.id}],
        )
        record_decision(tx, decision)
    return with_consequences(decision, [tx], {old.id})
