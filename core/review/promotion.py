"""Deciding a promotion request (SPEC section 7): a private record becomes a team record.

Approval scans the record again (whatever the queue showed), then writes a team
copy through the same duplicate and conflict rules as any write: the same key
and the same value merges into the team record (:func:`team_matches`, the
value rule of core.domain.values), the same key and another value opens a
conflict, otherwise a new active team record. Each source's quoted log line
is copied into the team's daily log so the team record's sources resolve
there; nothing else of the private log travels. The private store and the
team store change together or not at all. :func:`promotion_outcome` is what
the queue and the desk say approval will do.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from core.domain import gate, policy, values
from core.domain.errors import AddressBlocked, SecretBlocked, ValidationError
from core.domain.record import Memory, Source
from core.review.items import Item
from core.review.session import Session
from core.store import logs
from core.store.decisions import Decision, decision_for, front, new_decision_id, record_decision
from core.store.requests import Request, open_requests
from core.store.store import Store, new_memory_id
from core.store.transaction import Transaction
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id


def promotion_texts(memory: Memory) -> list[str]:
    """What a promotion's secret scan reads (in the queue and again at approval): the
    record's free text, i.e. content, title, value and source quotes."""
    return [memory.content, memory.title or "", memory.value or ""] + [
        s.evidence for s in memory.all_sources
    ]


#: what a promotion request may be besides approved or rejected, by who asked or the
#: private store's owner: ``withdraw`` (closed, nothing promoted) and ``rerequest`` (for
#: the active record that replaced the requested one: the request moves to it)
REQUEST_OPTIONS = ("withdraw", "rerequest")


def successor(store: Store, memory: Memory) -> Memory | None:
    """The active record that replaced ``memory`` (a correction, a newer value): the
    end of its chain of ``supersedes``, or None when there is none (or it is not active)."""
    seen = {memory.id}
    current = memory
    while current.status == "superseded":
        newer = [m for m in store.memories.superseding(current.id) if m.id not in seen]
        if not newer:
            return None
        current = max(newer, key=lambda m: (m.created_at, m.id))
        seen.add(current.id)
    return current if current.id != memory.id and current.status == "active" else None


def blocked_rules(item: Item) -> list[str]:
    """The scan's rules that block approving a promotion item (none: clean): each
    credential and each internal address (:func:`core.domain.gate.unshareable`)."""
    return sorted({h.rule for h in item.scan})


def blocked_what(rules: list[str]) -> str:
    """What the rules that block a promotion found, in words (never the value): a
    credential is never memory; an internal address stays on this machine, in the
    private store, and the team store would share it."""
    secret = [r for r in rules if not gate.is_internal(r)]
    internal = [r for r in rules if gate.is_internal(r)]
    said = []
    if secret:
        said.append(f"it carries a credential ({', '.join(secret)})")
    if internal:
        said.append(
            f"it names an internal address ({', '.join(internal)}), which the team store "
            "would take off this machine"
        )
    return "; ".join(said)


def unshareable_error(where: str, rules: list[str]) -> SecretBlocked:
    """The refusal of words bound for a team store: a credential's, else an internal
    address's (no credential, but not for the team)."""
    if all(gate.is_internal(rule) for rule in rules):
        return AddressBlocked(where, rules)
    return SecretBlocked(where, rules)


def unshareable_rules(texts: Iterable[str]) -> list[str]:
    """The rule ids of what must not go to a team store in ``texts``: credentials and
    internal addresses (:func:`core.domain.gate.unshareable`)."""
    return sorted({f.rule_id for text in texts for f in gate.unshareable(text)})


def reject_reason(item: Item) -> str:
    """The reason a rejection of a promotion item is prefilled with: what is true of it."""
    memory = item.records[0].memory
    rules = blocked_rules(item)
    if rules:
        return f"stays private: {blocked_what(rules)}; correct it and ask again"
    if memory.status != "active":
        return f"stays private: {memory.id} is {memory.status} since the request"
    return "stays private: not for the team"


def close_reason(item: Item, option: str, actor: str) -> str:
    """The reason a withdrawal or a request asked again is prefilled with."""
    memory = item.records[0].memory
    if option == "rerequest":
        newer = successor(item.store, memory)
        if newer is not None:
            return f"asked again for {newer.id}, which replaced {memory.id}"
    return f"withdrawn by {policy.shown(actor)}"


def move_requests(
    tx: Transaction, old: Memory, new_id: str, *, actor: str, decision: str, why: str
) -> list[str]:
    """Each open promotion request of ``old`` moves to ``new_id`` (the record that replaces
    it, in this transaction; ``why``: how, e.g. "was corrected by"): it closes, saying
    where it went, and a request with the same reason and requester opens for ``new_id``,
    an event each. The ids of the new requests. A request this transaction already
    writes (the one being decided) is its caller's."""
    moved = []
    for request in open_requests(tx.store, old.id, kind="promote"):
        if request.path in tx.files:
            continue
        again = _again(request, new_id, tx)
        _close(
            tx,
            request,
            f"{old.id} {why} {new_id}: the request moves to {again.id}",
            actor=actor,
            decision=decision,
            event=True,
        )
        moved.append(_open(tx, again, request, decision=decision))
    return moved


def _again(request: Request, memory_id: str, tx: Transaction) -> Request:
    """A promotion request like ``request``, for ``memory_id``, filed now."""
    digest = hashlib.sha256(
        f"promote|{memory_id}|{request.id}|{tx.now.isoformat()}".encode()
    ).hexdigest()[:6]
    return Request(
        id=f"promote-{tx.now:%Y%m%d}-{digest}",
        kind="promote",
        memory_id=memory_id,
        reason=request.reason,
        requested_by=request.requested_by,
        requested_at=tx.now.isoformat(),
    )


def _open(tx: Transaction, again: Request, moved_from: Request, *, decision: str) -> str:
    """``again`` opened in ``tx`` (or the one already open for its record)."""
    for existing in open_requests(tx.store, again.memory_id, kind="promote"):
        return existing.id
    tx.write_file(again.path, again.to_yaml())
    tx.event(
        "request-promote",
        (again.memory_id,),
        reason=again.reason,
        request=again.id,
        decision=decision,
        details={"moved_from": moved_from.id},
    )
    return again.id


def _close(
    tx: Transaction, request: Request, why: str, *, actor: str, decision: str, event: bool
) -> None:
    """``request`` closed unapproved (withdrawn, moved), with ``why``."""
    closed = request.with_changes(
        status="rejected", decision=decision, decided_by=actor, decision_reason=why
    )
    tx.write_file(request.path, closed.to_yaml())
    if event:  # the item's own request closes with its decision's event
        tx.event(
            "request-closed",
            (request.memory_id,),
            reason=why,
            request=request.id,
            decision=decision,
        )


def close_request(
    session: Session,
    workspace: Workspace,
    item: Item,
    option: str,
    *,
    actor: str,
    reason: str,
) -> Decision:
    """``withdraw``: the request closes, nothing is promoted; ``rerequest``: it closes and
    a request with its reason opens for the active record that replaced the requested
    one (a correction). Both are decisions of the item (recorded, in one commit)."""
    private = item.store
    request = item.request
    assert request is not None
    memory = item.records[0].memory
    decision_id = new_decision_id(private, f"{item.id}|{option}")
    with session.transaction(private, actor=actor, message=f"decide {item.id}: {option}") as tx:
        current = tx.get(memory.id)
        note = None
        if option == "rerequest":
            newer = successor(private, current)
            if newer is None:
                raise ValidationError(
                    f"{memory.id} is {current.status} and no active record replaced it: "
                    "there is nothing to ask again for",
                    field="option",
                    where=item.id,
                    hint="withdraw the request (--option withdraw), or approve it",
                )
            reason = reason.strip() or close_reason(item, option, actor)
            again = _again(request, newer.id, tx)
            _close(
                tx,
                request,
                f"{reason}: the request moves to {again.id}",
                actor=actor,
                decision=decision_id,
                event=False,
            )
            note = (
                f"the promotion request moves to {_open(tx, again, request, decision=decision_id)}"
            )
        else:
            reason = reason.strip() or close_reason(item, option, actor)
            _close(tx, request, reason, actor=actor, decision=decision_id, event=False)
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="promotion",
            option=option,
            actor=actor,
            reason=reason,
            request=request.id,
            before={memory.id: front(current)},
            after={memory.id: front(current)},
            note=note,
        )
        return record_decision(tx, decision)


def decide_promotion(
    session: Session, workspace: Workspace, item: Item, approve: bool, *, actor: str, reason: str
) -> Decision:
    """Approve: a team copy of the record, through the same duplicate and conflict
    rules as any write, with its evidence carried into the team's logs (both stores
    in one change); reject: the record stays private."""
    private = item.store
    request = item.request
    assert request is not None
    memory = item.records[0].memory
    decision_id = new_decision_id(private, f"{item.id}|{approve}")
    created: list[dict[str, str]] = []
    touched: list[dict[str, Any]] = []
    team = workspace.team
    if approve:
        assert team is not None  # the authority check made sure
        if memory.status != "active":  # replaced or expired since the request was filed
            raise ValidationError(
                f"{memory.id} is {memory.status} since the promotion was requested; only an "
                "active memory can be promoted",
                field="status",
                hint="reject the request, or request the promotion of the record that replaced it",
            )
        rules = unshareable_rules(promotion_texts(memory))
        if rules:  # a fresh scan, whatever the queue showed earlier
            raise unshareable_error(f"promotion of {memory.id}", rules)
        reason = reason.strip() or f"promoted to team: {request.reason}"
    else:
        reason = reason.strip() or "stays private"
    # one change across both stores: both land or neither, whatever moment it is killed
    message = f"decide {item.id}: {'promoted' if approve else 'rejected'} {memory.id}"
    with contextlib.ExitStack() as stack:
        if approve:
            assert team is not None  # the authority check made sure
            tx, team_tx = stack.enter_context(
                session.joint(private, team, actor=actor, message=message)
            )
        else:
            tx = stack.enter_context(session.transaction(private, actor=actor, message=message))
        if approve:
            assert team is not None
            prior = dict(team_tx.view)
            team_id = place_team_copy(
                team_tx,
                memory,
                private,
                reason=reason,
                request=request.id,
                decision=decision_id,
                contributor=request.requested_by,
            )
            if team_id not in prior:
                created.append({"store": str(team.root), "id": team_id})
            touched = [
                {
                    "store": str(team.root),
                    "id": mid,
                    "before": front(prior[mid]),
                    "after": front(team_tx.view[mid]),
                }
                for mid in sorted(team_tx.changed)
                if mid in prior
            ]
        closed = request.decided(approve, decision=decision_id, actor=actor, reason=reason)
        tx.write_file(request.path, closed.to_yaml())
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="promotion",
            option="approve" if approve else "reject",
            actor=actor,
            reason=reason,
            request=request.id,
            before={memory.id: front(memory)},
            after={memory.id: front(memory)},
            created=created,
            touched=touched,
        )
        return record_decision(tx, decision)


def carry_evidence(
    tx: Transaction, private: Store, sources: tuple[Source, ...]
) -> tuple[Source, ...]:
    """Copy each source's quoted message line into the team store's daily log, so the
    team record's sources resolve there too. Nothing else of the private log travels."""

    def current(rel: str) -> str | None:
        text = tx.files.get(rel)
        if text is None and (tx.store.root / rel).is_file():
            text = (tx.store.root / rel).read_text(encoding="utf-8")
        return text

    carried, files = carried_sources(private, sources, current)
    for rel, text in files.items():
        tx.write_file(rel, text)
    return carried


def carried_sources(
    private: Store, sources: tuple[Source, ...], current: Callable[[str], str | None]
) -> tuple[tuple[Source, ...], dict[str, str]]:
    """Each source as the team record keeps it (pointing at the team's log), and the
    team's daily logs with the quoted message lines added (``current``: a log's text
    in the team store as it is, None when it has none). A local promotion writes them
    in its transaction, a proposal in its branch."""
    carried = []
    files: dict[str, str] = {}
    for source in sources:
        excerpt = logs.resolve(private.root, source, context=0, outside_ok=True)
        if source.file is not None or excerpt is None:
            carried.append(source)
            continue
        rel = excerpt.file
        day = rel.rsplit("/", 1)[-1].removesuffix(".md")
        text = files.get(rel, current(rel))
        files[rel] = logs.with_message_line(
            text, day=day, task=source.task, line=excerpt.lines[0][1]
        )
        carried.append(
            Source(
                task=source.task,
                message_index=source.message_index,
                evidence=source.evidence,
                log=rel,
            )
        )
    return tuple(carried), files


def team_matches(
    team_records: Iterable[Memory], memory: Memory
) -> tuple[Memory | None, list[Memory]]:
    """What a promotion of ``memory`` meets in the team store: the record of the same
    key and the same value it merges into (if any), and every open record of its key
    (a contradiction when there is no match). The desk's preview asks the same."""
    key = ("team", memory.subject, memory.attribute, memory.condition)
    same_key = [m for m in team_records if m.key == key and m.status in ("active", "conflict")]
    return next((m for m in same_key if values.same_value(m, memory)), None), same_key


def promotion_outcome(team: Store, memory: Memory) -> str:
    """What approving a promotion will do in the team store, in words."""
    match, same_key = team_matches(
        team.memories.by_subject_attribute(memory.subject, memory.attribute), memory
    )
    if match is not None:
        return f"merges into {match.id}"
    if same_key:
        return "opens a conflict with " + ", ".join(m.id for m in same_key)
    return "a new active team record"


def team_copy(
    memory: Memory, sources: tuple[Source, ...], now: datetime, *, decision: str | None = None
) -> Memory:
    """The team record a promotion of ``memory`` writes: a new id (from the decision's,
    so its preview names it), scope team, every source kept (as carried into the team's
    logs)."""
    return memory.with_changes(
        id=new_memory_id(memory.attribute, f"team|{memory.id}|{decision or now.isoformat()}"),
        scope="team",
        status="active",
        path="",
        source=sources[0] if sources else None,
        sources=tuple(sources[1:]),
        supersedes=None,
        origin=None,  # the private folder's file is the private record's, not the team's
        created_at=now,
        verified_at=now,
        usage_count=0,
        last_used_at=None,
    )


def place_team_copy(
    tx: Transaction,
    memory: Memory,
    private: Store,
    *,
    reason: str,
    request: str,
    decision: str,
    contributor: str,
) -> str:
    """The team record: a new id, scope team, every source kept; through the same
    duplicate and conflict rules as any write."""
    sources = carry_evidence(tx, private, memory.all_sources)
    copy = team_copy(memory, sources, tx.now, decision=decision)
    return place_copy(
        tx,
        copy,
        memory.id,
        reason=reason,
        request=request,
        decision=decision,
        contributor=contributor,
    )


def place_copy(
    tx: Transaction,
    copy: Memory,
    origin: str,
    *,
    reason: str,
    request: str,
    decision: str,
    contributor: str,
) -> str:
    """Write the team record ``copy`` of the private record ``origin`` through the
    duplicate and conflict rules: the same value merges, another value opens a
    conflict, otherwise a new active record. The id of the record it lands in. Its
    events name the ``contributor`` (who asked for the promotion or proposed it), whom
    health's "team records from one contributor" counts, not the approving maintainer."""
    memory = copy
    sources = copy.all_sources
    match, same_key = team_matches(
        tx.view.by_subject_attribute(memory.subject, memory.attribute), memory
    )
    details = {"promoted_from": origin, "contributor": contributor}
    if match is not None:
        merged = values.with_sources(match, sources)
        tx.update(
            match.id,
            action="merge",
            reason=f"promotion of {origin}: same value",
            sources=merged,
            verified_at=tx.now,
            details=details,
        ) if match.status == "conflict" else tx.transition(
            match.id,
            "active",
            action="reconfirm",
            reason=reason,
            request=request,
            decision=decision,
            sources=merged,
            verified_at=tx.now,
            details=details,
        )
        return match.id
    if same_key:
        item = conflict_item_id(copy.key)
        tx.create(
            copy.with_changes(status="conflict"),
            action="conflict",
            reason=reason,
            request=item,
            decision=decision,
            details=details,
        )
        for other in same_key:
            if other.status == "active":
                tx.transition(
                    other.id,
                    "conflict",
                    action="conflict",
                    request=item,
                    reason=f"promoted {copy.id} contradicts it",
                    decision=decision,
                )
        return copy.id
    tx.create(
        copy, action="promote", reason=reason, request=request, decision=decision, details=details
    )
    return copy.id
