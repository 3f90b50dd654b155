"""Deciding a deletion request (SPEC section 8): erase the record for good, or keep it.

An approved deletion erases the record: its file, its index line, its content
in every file of the store and, in a private store, in every reachable git
object (core.store.erase). A private record that was promoted leaves its team
copies, which the team's maintainers decide: the erasure files a deletion
request for each in the team store, in the same change (both or neither).
"""

from __future__ import annotations

import contextlib
import hashlib

from core.domain.errors import ValidationError
from core.review.items import Item
from core.review.session import Session
from core.store.decisions import (
    TEAM_HISTORY_NOTE,
    Decision,
    decision_for,
    erase_record,
    front,
    key_only,
    new_decision_id,
    record_decision,
    team_copies,
)
from core.store.requests import Request, open_requests
from core.store.transaction import Transaction
from core.store.workspace import Workspace


def request_team_deletion(
    tx: Transaction, memory_id: str, private_id: str, *, actor: str, decision: str
) -> str:
    """An open deletion request for a team copy, filed with the private erasure."""
    for existing in open_requests(tx.store, memory_id, kind="delete"):
        return existing.id
    digest = hashlib.sha256(f"delete|{memory_id}|{decision}".encode()).hexdigest()[:6]
    request = Request(
        id=f"delete-{tx.now:%Y%m%d}-{digest}",
        kind="delete",
        memory_id=memory_id,
        reason=f"the private record it was promoted from ({private_id}) was erased by its owner",
        requested_by=actor,
        requested_at=tx.now.isoformat(),
    )
    tx.write_file(request.path, request.to_yaml())
    tx.event("request-delete", (memory_id,), reason=request.reason, request=request.id)
    return request.id


def decide_deletion(
    session: Session, workspace: Workspace, item: Item, approve: bool, *, actor: str, reason: str
) -> Decision:
    """Approve: the record is erased for good (and its promoted team copies get a
    deletion request of their own, in the same change); reject: it is kept."""
    store = item.store
    request = item.request
    assert request is not None
    memory = item.records[0].memory
    copies = team_copies(workspace.stores, memory.id) if approve else []
    if approve and memory.status == "conflict":  # it contradicts a record since the request
        raise ValidationError(
            f"{memory.id} is in conflict since the deletion was requested: resolve the "
            "conflict first (choose 'neither' to delete both records)",
            field="status",
        )
    decision_id = new_decision_id(store, f"{item.id}|{approve}")
    reason = reason.strip() or (
        f"deletion approved: {request.reason}" if approve else "kept: the memory still holds"
    )
    message = f"decide {item.id}: {'erase' if approve else 'keep'} {memory.id}"
    team_requests: list[str] = []
    with contextlib.ExitStack() as stack:
        if copies:  # the erasure and the team's deletion requests land together
            tx, team_tx = stack.enter_context(
                session.joint(store, copies[0][0], actor=actor, message=message)
            )
            for _team, copy_id in copies:
                team_requests.append(
                    request_team_deletion(
                        team_tx, copy_id, memory.id, actor=actor, decision=decision_id
                    )
                )
        else:
            tx = stack.enter_context(session.transaction(store, actor=actor, message=message))
        closed = request.decided(approve, decision=decision_id, actor=actor, reason=reason)
        tx.write_file(request.path, closed.to_yaml())
        if approve:
            erase_record(
                tx,
                memory.id,
                action="erase",
                reason=reason,
                request=request.id,
                decision=decision_id,
            )
            # the erased record keeps only its id and key, here as in the event
            states = {memory.id: key_only(front(memory))}
        else:  # kept as it is: the whole front matter, so that a revert can compare it
            states = {memory.id: front(memory)}
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="deletion",
            option="approve" if approve else "reject",
            actor=actor,
            reason=reason,
            request=request.id,
            before=states,
            after={} if approve else states,
            erased=[memory.id] if approve else [],
            note=TEAM_HISTORY_NOTE
            if approve and store.config.scope == "team"
            else (
                "its team copies stay until a maintainer decides: deletion requested "
                + ", ".join(
                    f"{cid} ({rid})" for (_t, cid), rid in zip(copies, team_requests, strict=True)
                )
                if team_requests
                else None
            ),
        )
        return record_decision(tx, decision)
