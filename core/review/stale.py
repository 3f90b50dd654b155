"""Deciding a stale report: the user says a memory is wrong or out of date.

An agent (``report_stale`` over MCP) or a person (``memgov report-stale``) files
the report with the user's words as its reason; a person weighs them against the
record's evidence and decides one of:

* ``expire`` (approve): the record is no longer true: active -> expired, so it
  is recalled no more and leaves the index; a revert makes it active again;
* ``correct`` (approve, with the corrected content): a new record supersedes it,
  as ``memgov correct`` writes one (core.review.correct.supersede_with);
* ``keep`` (reject): it still holds; a person checked it, so its ``verified_at``
  is now (the lifecycle's reconfirmation, active -> active, with an event).

A record that is no longer active since the report (a correction, a sweep, a
conflict) is no longer used as current: its report can only be closed (reject),
which leaves the record as it is.
"""

from __future__ import annotations

from typing import Any

from core.domain import secrets
from core.domain.errors import SecretBlocked, ValidationError
from core.review.correct import supersede_with
from core.review.items import Item
from core.review.session import Session
from core.store.decisions import Decision, decision_for, front, new_decision_id, record_decision

#: what approving a report may do; rejecting it keeps the record
OPTIONS = ("expire", "correct")
DEFAULT_REASONS = {
    "expire": "reported out of date, and it is: expired",
    "correct": "reported out of date: corrected",
    "keep": "reported out of date, but it still holds: verified now",
    "close": "reported out of date; the record is no longer current anyway",
}


#: the transition and event of the outcomes that keep the record's identity
_TRANSITIONS = {"expire": ("expired", "expire"), "keep": ("active", "verify")}


def why_not(item: Item, option: str) -> str | None:
    """Why ``option`` cannot be taken on this report now (None: it can)."""
    memory = item.records[0].memory
    if option in OPTIONS and memory.status != "active":
        return (
            f"{memory.id} is {memory.status} since the report: it is no longer used as "
            "current; close the report (reject)"
        )
    return None


def decide_stale(
    session: Session,
    item: Item,
    approve: bool,
    *,
    actor: str,
    reason: str,
    option: str | None,
    content: str | None = None,
) -> Decision:
    """Approve with ``option`` ``expire`` or ``correct`` (``content``: what the record
    says instead); reject keeps the record (verified now, if it is still active)."""
    store = item.store
    request = item.request
    assert request is not None
    memory = item.records[0].memory
    chosen = option if approve else "keep"
    if chosen not in (*OPTIONS, "keep"):
        raise ValidationError(
            "say what to do with the record" if chosen is None else "unknown option",
            field="option",
            where=item.id,
            hint="--approve --option expire, --approve --option correct --content FILE, "
            "or --reject to keep it",
        )
    if chosen == "correct" and not (content or "").strip():
        raise ValidationError(
            "a correction needs the corrected content",
            field="content",
            where=item.id,
            hint="--content FILE with what the record should say",
        )
    if content is not None and chosen != "correct":
        raise ValidationError(
            "a content goes with the option correct only",
            field="content",
            where=item.id,
            hint="drop it",
        )
    refused = why_not(item, chosen)
    if refused is not None:
        raise ValidationError(refused, field="status", where=item.id)
    if chosen == "keep" and memory.status != "active":
        chosen = "close"
    if content is not None and store.config.scope == "team":
        rules = [f.rule_id for f in secrets.scan(content)]
        if rules:
            raise SecretBlocked(f"the correction of {memory.id}", rules)
    reason = reason.strip() or DEFAULT_REASONS[chosen]
    decision_id = new_decision_id(store, f"{item.id}|{chosen}")
    message = f"decide {item.id}: {chosen} {memory.id}"
    created: list[dict[str, str]] = []
    with session.transaction(store, actor=actor, message=message) as tx:
        closed = request.decided(approve, decision=decision_id, actor=actor, reason=reason)
        tx.write_file(request.path, closed.to_yaml())
        if chosen in _TRANSITIONS:
            to_status, action = _TRANSITIONS[chosen]
            changes: dict[str, Any] = {"verified_at": tx.now} if chosen == "keep" else {}
            tx.transition(
                memory.id,
                to_status,
                action=action,
                reason=reason,
                request=request.id,
                decision=decision_id,
                **changes,
            )
        elif chosen == "correct":
            assert content is not None
            new = supersede_with(
                tx,
                memory,
                content=content,
                value=None,
                reason=reason,
                actor=actor,
                decision=decision_id,
            )
            created.append({"store": str(store.root), "id": new.id})
        # closed (the record is no longer active): the record stays as it is
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="stale",
            option=chosen,
            actor=actor,
            reason=reason,
            request=request.id,
            before={memory.id: front(memory)},
            after={memory.id: front(tx.view[memory.id])},
            created=created,
        )
        return record_decision(tx, decision)
