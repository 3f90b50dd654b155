"""Decisions on review items, and their reverts (SPEC sections 3, 6, 8, 10).

Each decision is atomic in its store: files, events, index and one git commit,
or nothing. It records the actor, the reason and the transitions, and keeps a
decision record (``decisions/<id>.json``: the front matter of every record
before and after, never content) so that :func:`revert` can restore the exact
prior states as a new event and commit. Erasures cannot be reverted.

Who may decide is enforced here, not only in the desk: team items (team
conflicts, promotions) by the maintainers listed in the team store's config;
a user's private items by that user (the private store's ``owner``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.domain import lifecycle, policy, secrets, values
from core.domain.errors import (
    AlreadyDecided,
    AuthorizationError,
    NotFoundError,
    SecretBlocked,
    StoreError,
    ValidationError,
    shown_id,
)
from core.domain.record import Memory, Source, memory_from_mapping
from core.review.queue import Item, find_item, promotion_texts
from core.store import logs, promoted
from core.store.erase import ERASED_KEEP, needles_for
from core.store.fsutil import UnsafePath, read_confined
from core.store.joint import joint_transaction
from core.store.requests import Request, get_request, load_requests
from core.store.store import Store, new_memory_id
from core.store.transaction import Transaction
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id

DECISION_DIR = "decisions"
CONFLICT_OPTIONS = ("newer", "older", "parallel", "neither", "defer")
TEAM_HISTORY_NOTE = (
    "this is a team store: the content is gone from its files, but clones "
    "already pushed keep it in their history"
)


@dataclass(frozen=True)
class Decision:
    id: str
    item: str
    kind: str
    option: str
    actor: str
    reason: str
    ts: str
    store: str
    before: dict[str, dict[str, Any]] = field(default_factory=dict)
    after: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: list[dict[str, str]] = field(default_factory=list)  # [{store, id}]
    #: records of another store that existed before and that the decision changed
    #: (a promotion merged into or contradicting team records): [{store, id, before, after}]
    touched: list[dict[str, Any]] = field(default_factory=list)
    request: str | None = None
    erased: list[str] = field(default_factory=list)
    reverted_by: str | None = None
    note: str | None = None

    @property
    def revertible(self) -> bool:
        if self.kind == "consolidation" and self.option == "reject":
            return False  # a rejected batch changed no record
        return (
            not self.erased and self.reverted_by is None and self.option not in ("defer", "revert")
        )

    @property
    def path(self) -> str:
        return f"{DECISION_DIR}/{self.id}.json"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "item": self.item,
            "kind": self.kind,
            "option": self.option,
            "actor": self.actor,
            "reason": self.reason,
            "ts": self.ts,
            "store": self.store,
            "before": self.before,
            "after": self.after,
            "created": self.created,
            "touched": self.touched,
            "request": self.request,
            "erased": self.erased,
            "reverted_by": self.reverted_by,
            "note": self.note,
            "revertible": self.revertible,
        }

    def to_json(self) -> str:
        data = self.to_dict()
        del data["revertible"]
        return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# ------------------------------------------------------------------- who may decide
def same_person(actor: str, name: str) -> bool:
    """Whether ``actor`` is the person listed as ``name``: exact, see core.domain.policy."""
    return policy.same_actor(actor, name)


def check_may_decide(item: Item, actor: str, workspace: Workspace) -> None:
    """Team items (and every promotion) by the team store's maintainers; a private
    store's items by its owner, and by nobody while it has none (core.domain.policy)."""
    if item.kind == "promotion" or item.scope == "team":
        team = workspace.team if item.kind == "promotion" else item.store
        if team is None:
            raise AuthorizationError(
                "no team store is configured: a promotion needs one "
                "(pass it with --store, or set team_store in the "
                "private store's memgov.yaml)"
            )
        policy.check_maintainer(team, actor, f"decide team item {item.id}")
        return
    policy.check_owner(item.store, actor, f"decide {item.id}")


# ------------------------------------------------------------------------ deciding
def new_decision_id(store: Store, basis: str) -> str:
    """``dec-<time>-<digest>``; unique in the store, the same on a pinned replay."""
    now = store.now()
    for attempt in range(100):
        digest = hashlib.sha256(f"{basis}|{attempt}".encode()).hexdigest()[:6]
        decision_id = f"dec-{now:%Y%m%dT%H%M%S}-{digest}"
        if not (store.root / DECISION_DIR / f"{decision_id}.json").exists():
            return decision_id
    raise StoreError(f"{store.root}: cannot find a free decision id")


def front(memory: Memory) -> dict[str, Any]:
    data = memory.front_matter()
    data["path"] = memory.path
    return data


def erase_record(tx: Transaction, memory_id: str, **kwargs: Any) -> None:
    """Erase a record with its value in short. Its front matter in the store's earlier
    decision records goes down to its id and key when the transaction applies (the
    erasure rules of core.store.erase, for every file of the store)."""
    value = tx.get(memory_id).value
    tx.erase(memory_id, **kwargs)
    if value:  # the value in short goes with the content, unless another record says it too
        others = [m.to_markdown().encode("utf-8") for m in tx.view.values()]
        tx.needles += [n for n in needles_for(value) if not any(n in o for o in others)]


def decide(
    workspace: Workspace,
    item_id: str,
    *,
    approve: bool,
    actor: str,
    reason: str = "",
    option: str | None = None,
    conditions: dict[str, str] | None = None,
    files: Sequence[str] | None = None,
    content: str | None = None,
) -> Decision:
    """Decide one open item. ``approve`` with ``option`` for conflicts; reject = defer.

    ``files`` (consolidation batches only): approve, or reject, just the changes
    that touch these files; the rest of the batch is decided the other way.

    Exactly once: every store's lock is taken (in a fixed order) and the item is
    found again under them, so of two people deciding one item the second gets
    :class:`AlreadyDecided` (who, when, which decision) and nothing changes.
    """
    with workspace.locked():
        try:
            item = find_item(workspace, item_id)
        except NotFoundError:
            earlier = last_decision_for(workspace, item_id)
            if earlier is None:
                raise
            raise AlreadyDecided(
                f"{item_id}", actor=earlier.actor, ts=earlier.ts, decision=earlier.id
            ) from None
        return _decide_item(
            workspace,
            item,
            approve=approve,
            actor=actor,
            reason=reason,
            option=option,
            conditions=conditions,
            files=files,
            content=content,
        )


def last_decision_for(workspace: Workspace, item_id: str) -> Decision | None:
    """The latest decision that closed an item (a request id or an item id), in any
    store of the workspace; deferrals and reverts do not close one."""
    found: list[Decision] = []
    for store in workspace.stores:
        for decision in load_decisions(store):
            if item_id in (decision.item, decision.request) and decision.option not in (
                "defer",
                "revert",
            ):
                found.append(decision)
    return max(found, key=lambda d: (d.ts, d.id)) if found else None


def load_decisions(store: Store) -> list[Decision]:
    """Every readable decision record of a store (doctor reports the others)."""
    folder = store.root / DECISION_DIR
    out = []
    if folder.is_dir() and not folder.is_symlink():
        for path in sorted(folder.glob("*.json")):
            with contextlib.suppress(NotFoundError, ValidationError):
                out.append(load_decision(store, path.stem))
    return out


def _decide_item(
    workspace: Workspace,
    item: Item,
    *,
    approve: bool,
    actor: str,
    reason: str,
    option: str | None,
    conditions: dict[str, str] | None,
    files: Sequence[str] | None,
    content: str | None = None,
) -> Decision:
    item_id = item.id
    check_may_decide(item, actor, workspace)
    if files and item.kind != "consolidation":
        raise ValidationError(
            f"{item_id} is a {item.kind} item: deciding by file applies to consolidation "
            f"batches only",
            field="file",
            hint="drop --file",
        )
    if item.kind == "conflict":
        chosen = option if approve else "defer"
        if chosen not in CONFLICT_OPTIONS:
            raise ValidationError(
                "unknown option",
                field="option",
                hint="newer, older, parallel, neither or defer",
            )
        return _decide_conflict(
            item, chosen, actor=actor, reason=reason, conditions=conditions or {}
        )
    if item.kind == "promotion":
        return _decide_promotion(workspace, item, approve, actor=actor, reason=reason)
    if item.kind == "deletion":
        return _decide_deletion(workspace, item, approve, actor=actor, reason=reason)
    if item.kind == "secret":  # a credential found in a stored record (core.review.secret_records)
        from core.review import secret_records

        return secret_records.decide_secret(
            workspace, item, approve, actor=actor, reason=reason, option=option, content=content
        )
    from core.consolidation import consolidate  # imported here: it builds on this module

    return consolidate.decide_batch(item, approve, actor=actor, reason=reason, files=files)


def record_decision(tx: Transaction, decision: Decision) -> Decision:
    tx.write_file(decision.path, decision.to_json())
    tx.event(
        "decide",
        tuple(sorted(set(decision.before) | set(decision.after))),
        reason=decision.reason,
        decision=decision.id,
        request=decision.request,
        details={"item": decision.item, "kind": decision.kind, "option": decision.option},
    )
    return decision


def _decide_conflict(
    item: Item, option: str, *, actor: str, reason: str, conditions: dict[str, str]
) -> Decision:
    store = item.store
    members = [r.memory for r in item.records]
    by_age = sorted(members, key=lambda m: (m.created_at, m.id))
    reason = (
        reason.strip()
        or {
            "newer": "the newer record wins",
            "older": "the older record is right",
            "parallel": "both hold, under different conditions",
            "neither": "neither record holds",
            "defer": "deferred: needs more evidence",
        }[option]
    )
    decision_id = new_decision_id(store, f"{item.id}|{option}")
    with store.transaction(actor=actor, message=f"decide {item.id}: {option}") as tx:
        before = {m.id: front(m) for m in members}
        erased: list[str] = []
        if option in ("newer", "older"):
            winner = by_age[-1] if option == "newer" else by_age[0]
            losers = [m for m in by_age if m.id != winner.id]
            # a set left with one record (its other was erased since) has nothing to replace
            replaces: dict[str, Any] = (
                {"supersedes": max(losers, key=lambda m: m.created_at).id} if losers else {}
            )
            tx.transition(
                winner.id,
                "active",
                action="adjudicate",
                reason=reason,
                decision=decision_id,
                request=item.id,
                verified_at=tx.now,
                **replaces,
            )
            for loser in losers:
                tx.transition(
                    loser.id,
                    "active",
                    action="adjudicate",
                    reason=reason,
                    decision=decision_id,
                    request=item.id,
                )
                tx.transition(
                    loser.id,
                    "superseded",
                    action="supersede",
                    reason=f"{winner.id} wins: {reason}",
                    decision=decision_id,
                    request=item.id,
                    details={"by": winner.id},
                )
        elif option == "parallel":
            missing = [m.id for m in members if not (conditions.get(m.id) or "").strip()]
            if missing:
                raise ValidationError(
                    "parallel needs a condition for every record; missing for "
                    + ", ".join(missing),
                    field="condition",
                    hint="e.g. --condition ID=env=production (read the sources first)",
                )
            values = [conditions[m.id].strip() for m in members]
            if len(set(values)) != len(values):
                raise ValidationError(
                    "parallel conditions must differ, or the records would share a key again",
                    field="condition",
                )
            for memory in members:
                condition = conditions[memory.id].strip()
                clash = [
                    m.id
                    for m in tx.view.values()
                    if m.id not in before
                    and m.status in ("active", "conflict")
                    and m.key == (memory.scope, memory.subject, memory.attribute, condition)
                ]
                if clash:
                    raise ValidationError(
                        f"the condition for {memory.id} clashes with {', '.join(clash)}",
                        field="condition",
                    )
                tx.transition(
                    memory.id,
                    "active",
                    action="adjudicate",
                    reason=reason,
                    decision=decision_id,
                    request=item.id,
                    condition=condition,
                    verified_at=tx.now,
                    details={"condition": condition},
                )
        elif option == "neither":
            for memory in members:
                erase_record(
                    tx,
                    memory.id,
                    action="erase",
                    reason=reason,
                    decision=decision_id,
                    request=item.id,
                )
                erased.append(memory.id)
        else:  # defer: nothing changes, the item stays open; the decision is still recorded
            pass
        after = {m.id: front(tx.view[m.id]) for m in members if m.id in tx.view}
        if erased:
            before = {
                mid: {k: v for k, v in front.items() if k in ERASED_KEEP}
                for mid, front in before.items()
            }
        decision = Decision(
            id=decision_id,
            item=item.id,
            kind="conflict",
            option=option,
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(store.root),
            before=before,
            after=after,
            erased=erased,
            note=TEAM_HISTORY_NOTE if erased and store.config.scope == "team" else None,
        )
        return record_decision(tx, decision)


def team_copies(workspace: Workspace, memory_id: str) -> list[tuple[Store, str]]:
    """The team copies a promotion of this private record made (core.store.promoted)."""
    return promoted.team_copies(workspace.stores, memory_id)


def _request_team_deletion(
    tx: Transaction, memory_id: str, private_id: str, *, actor: str, decision: str
) -> str:
    """An open deletion request for a team copy, filed with the private erasure."""
    for existing in load_requests(tx.store):
        if (existing.status, existing.kind, existing.memory_id) == ("open", "delete", memory_id):
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


def _decide_deletion(
    workspace: Workspace, item: Item, approve: bool, *, actor: str, reason: str
) -> Decision:
    store = item.store
    request = item.request
    assert request is not None
    memory = item.records[0].memory
    copies = team_copies(workspace, memory.id) if approve else []
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
                joint_transaction(store, copies[0][0], actor=actor, message=message)
            )
            for _team, copy_id in copies:
                team_requests.append(
                    _request_team_deletion(
                        team_tx, copy_id, memory.id, actor=actor, decision=decision_id
                    )
                )
        else:
            tx = stack.enter_context(store.transaction(actor=actor, message=message))
        closed = request.with_changes(
            status="approved" if approve else "rejected",
            decision=decision_id,
            decided_by=actor,
            decision_reason=reason,
        )
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
            states = {memory.id: {k: v for k, v in front(memory).items() if k in ERASED_KEEP}}
        else:  # kept as it is: the whole front matter, so that a revert can compare it
            states = {memory.id: front(memory)}
        decision = Decision(
            id=decision_id,
            item=item.id,
            kind="deletion",
            option="approve" if approve else "reject",
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(store.root),
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


def _decide_promotion(
    workspace: Workspace, item: Item, approve: bool, *, actor: str, reason: str
) -> Decision:
    private = item.store
    request = item.request
    assert request is not None
    memory = item.records[0].memory
    decision_id = new_decision_id(private, f"{item.id}|{approve}")
    created: list[dict[str, str]] = []
    touched: list[dict[str, Any]] = []
    team = workspace.team
    if approve:
        assert team is not None  # check_may_decide made sure
        if memory.status != "active":  # replaced or expired since the request was filed
            raise ValidationError(
                f"{memory.id} is {memory.status} since the promotion was requested; only an "
                "active memory can be promoted",
                field="status",
                hint="reject the request, or request the promotion of the record that replaced it",
            )
        rules = [f.rule_id for text in promotion_texts(memory) for f in secrets.scan(text)]
        if rules:  # a fresh scan, whatever the queue showed earlier
            raise SecretBlocked(f"promotion of {memory.id}", rules)
        reason = reason.strip() or f"promoted to team: {request.reason}"
    else:
        reason = reason.strip() or "stays private"
    # one change across both stores: both land or neither, whatever moment it is killed
    message = f"decide {item.id}: {'promoted' if approve else 'rejected'} {memory.id}"
    with contextlib.ExitStack() as stack:
        if approve:
            assert team is not None  # check_may_decide made sure
            tx, team_tx = stack.enter_context(
                joint_transaction(private, team, actor=actor, message=message)
            )
        else:
            tx = stack.enter_context(private.transaction(actor=actor, message=message))
        if approve:
            assert team is not None
            prior = dict(team_tx.view)
            team_id = _place_team_copy(
                team_tx,
                memory,
                private,
                reason=reason,
                request=request.id,
                decision=decision_id,
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
        closed = request.with_changes(
            status="approved" if approve else "rejected",
            decision=decision_id,
            decided_by=actor,
            decision_reason=reason,
        )
        tx.write_file(request.path, closed.to_yaml())
        decision = Decision(
            id=decision_id,
            item=item.id,
            kind="promotion",
            option="approve" if approve else "reject",
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(private.root),
            request=request.id,
            before={memory.id: front(memory)},
            after={memory.id: front(memory)},
            created=created,
            touched=touched,
        )
        return record_decision(tx, decision)


def _carry_evidence(
    tx: Transaction, private: Store, sources: tuple[Source, ...]
) -> tuple[Source, ...]:
    """Copy each source's quoted message line into the team store's daily log, so the
    team record's sources resolve there too. Nothing else of the private log travels."""
    carried = []
    for source in sources:
        excerpt = logs.resolve(private.root, source, context=0, outside_ok=True)
        if source.file is not None or excerpt is None:
            carried.append(source)
            continue
        rel = excerpt.file
        current = tx.files.get(rel)
        if current is None and (tx.store.root / rel).is_file():
            current = (tx.store.root / rel).read_text(encoding="utf-8")
        day = rel.rsplit("/", 1)[-1].removesuffix(".md")
        text = logs.with_message_line(current, day=day, task=source.task, line=excerpt.lines[0][1])
        tx.write_file(rel, text)
        carried.append(
            Source(
                task=source.task,
                message_index=source.message_index,
                evidence=source.evidence,
                log=rel,
            )
        )
    return tuple(carried)


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
    match, same_key = team_matches(team.memories.values(), memory)
    if match is not None:
        return f"merges into {match.id}"
    if same_key:
        return "opens a conflict with " + ", ".join(m.id for m in same_key)
    return "a new active team record"


def _place_team_copy(
    tx: Transaction, memory: Memory, private: Store, *, reason: str, request: str, decision: str
) -> str:
    """The team record: a new id, scope team, every source kept; through the same
    duplicate and conflict rules as any write."""
    sources = _carry_evidence(tx, private, memory.all_sources)
    copy = memory.with_changes(
        id=new_memory_id(memory.attribute, f"team|{memory.id}|{tx.now.isoformat()}"),
        scope="team",
        status="active",
        path="",
        source=sources[0] if sources else None,
        sources=tuple(sources[1:]),
        supersedes=None,
        created_at=tx.now,
        verified_at=tx.now,
        usage_count=0,
        last_used_at=None,
    )
    match, same_key = team_matches(tx.view.values(), memory)
    details = {"promoted_from": memory.id}
    if match is not None:
        merged = values.with_sources(match, sources)
        tx.update(
            match.id,
            action="merge",
            reason=f"promotion of {memory.id}: same value",
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


# --------------------------------------------------------------------------- revert
DECISION_ID = re.compile(r"dec-[0-9]{8}T[0-9]{6}-[0-9a-f]{6}")
MAX_DECISION_BYTES = 4 * 1024 * 1024


def load_decision(store: Store, decision_id: str) -> Decision:
    """A decision record, validated: the id must be a decision id (never a path), the
    file a plain JSON object with the fields memgov writes, of the right types."""
    if not isinstance(decision_id, str) or not DECISION_ID.fullmatch(decision_id):
        raise ValidationError(
            "not a decision id",
            field="decision",
            hint="decision ids look like dec-20261114T093200-1a2b3c; 'memgov history ID' "
            "lists them",
        )
    rel = f"{DECISION_DIR}/{decision_id}.json"
    try:
        data = read_confined(store.root, rel, limit=MAX_DECISION_BYTES)
    except UnsafePath as exc:
        raise ValidationError(str(exc), path=rel, field="decision") from None
    if data is None:
        raise NotFoundError(f"no decision {shown_id(decision_id)} in {store.root}")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        raise ValidationError(
            "is not valid JSON", path=rel, hint="'memgov doctor' reports it; restore it from git"
        ) from None
    return _decision_from(raw, rel, decision_id)


_DECISION_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "item": str,
    "kind": str,
    "option": str,
    "actor": str,
    "reason": str,
    "ts": str,
    "store": str,
    "before": dict,
    "after": dict,
    "created": list,
    "touched": list,
    "request": (str, type(None)),
    "erased": list,
    "reverted_by": (str, type(None)),
    "note": (str, type(None)),
}


def _decision_from(raw: Any, rel: str, decision_id: str) -> Decision:
    if not isinstance(raw, dict):
        raise ValidationError("is not a JSON object", path=rel)
    data = {k: v for k, v in raw.items() if k in _DECISION_FIELDS}
    for name, kind in _DECISION_FIELDS.items():
        if name not in data:
            if name in ("id", "item", "kind", "option", "actor", "ts", "store"):
                raise ValidationError("is missing", path=rel, field=name)
            continue
        if not isinstance(data[name], kind):
            raise ValidationError(
                f"has the wrong type ({type(data[name]).__name__})", path=rel, field=name
            )
    if data["id"] != decision_id:
        raise ValidationError("does not match its file name", path=rel, field="id")
    for name in ("created", "touched"):
        if not all(
            isinstance(e, dict) and isinstance(e.get("store"), str) and isinstance(e.get("id"), str)
            for e in data.get(name, [])
        ):
            raise ValidationError("holds an entry without store and id", path=rel, field=name)
    for name in ("before", "after"):
        if not all(isinstance(v, dict) for v in data.get(name, {}).values()):
            raise ValidationError("holds a record that is not a mapping", path=rel, field=name)
    return Decision(**data)


def find_decision(workspace: Workspace, decision_id: str) -> tuple[Store, Decision]:
    for store in workspace.stores:
        try:
            return store, load_decision(store, decision_id)
        except NotFoundError:
            continue
    raise NotFoundError(
        f"no decision {shown_id(decision_id)} in "
        + ", ".join(str(s.root) for s in workspace.stores)
    )


def revert(workspace: Workspace, decision_id: str, *, actor: str, reason: str = "") -> Decision:
    """Restore the exact prior states of a decision, as a new event and commit.

    Exactly once: the decision is read again under every store's lock, so of two
    reverts of one decision the second gets :class:`AlreadyDecided`."""
    with workspace.locked():
        store, decision = find_decision(workspace, decision_id)
        if decision.reverted_by:
            try:
                by = load_decision(store, decision.reverted_by)
                who, when = by.actor, by.ts
            except (NotFoundError, ValidationError):
                who, when = "someone", "an earlier time"
            raise AlreadyDecided(
                f"revert of {decision_id}", actor=who, ts=when, decision=decision.reverted_by
            )
        return _revert(workspace, store, decision, actor=actor, reason=reason)


def _revert(
    workspace: Workspace, store: Store, decision: Decision, *, actor: str, reason: str
) -> Decision:
    decision_id = decision.id
    if decision.kind == "consolidation":  # undone by rolling back to the baseline before it
        from core.consolidation import consolidate

        return consolidate.revert_decision(store, decision, actor=actor, reason=reason)
    if decision.erased:
        raise ValidationError(
            f"{decision_id} erased {', '.join(decision.erased)}: an erasure "
            "cannot be reverted, its content is gone",
            field="decision",
        )
    if decision.reverted_by:
        raise ValidationError(
            f"{decision_id} was already reverted by {decision.reverted_by}", field="decision"
        )
    if decision.option in ("defer", "revert"):
        raise ValidationError(
            f"{decision_id} is a deferral: it changed nothing, there is nothing to revert"
            if decision.option == "defer"
            else f"{decision_id} is itself a revert ({decision.note}); decide the item again",
            field="decision",
        )
    probe = Item(
        kind=decision.kind,
        id=decision.item,
        title=decision.item,
        opened_at=decision.ts,
        store=store,
        scope=store.config.scope,
    )
    check_may_decide(probe, actor, workspace)  # who may decide may revert
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
                store.transaction(actor=actor, message=f"revert {decision_id}")
            )
        _restore_all(tx, decision.before, decision.after, decision_id, reason, revert_id)
        if decision.request:
            request = get_request(store, decision.request)
            tx.write_file(
                request.path,
                request.with_changes(
                    status="open", decision=None, decided_by=None, decision_reason=None
                ).to_yaml(),
            )
        undone = _with_reverted(decision, revert_id)
        tx.write_file(decision.path, undone.to_json())
        for created in decision.created:  # e.g. a correction's new record, in this store
            if created["store"] == str(store.root) and created["id"] in tx.view:
                # kept as superseded: a revert never rewrites this store's history
                made = tx.view[created["id"]]
                if lifecycle.is_legal(made.status, "superseded"):
                    tx.transition(
                        made.id,
                        "superseded",
                        action="revert",
                        reason=reason,
                        decision=revert_id,
                        details=details,
                    )
                else:
                    erase_record(
                        tx,
                        created["id"],
                        action="revert-erase",
                        reason=reason,
                        decision=revert_id,
                        details=details,
                    )
        for root in elsewhere:  # a promotion's team copy leaves the team store
            assert other_tx is not None
            other = other_tx
            touched = [t for t in decision.touched if t["store"] == root]
            _restore_all(
                other,
                {t["id"]: t["before"] for t in touched},
                {t["id"]: t["after"] for t in touched},
                decision_id,
                reason,
                revert_id,
            )
            for created in decision.created:
                if created["store"] == root and created["id"] in other.view:
                    erase_record(
                        other,
                        created["id"],
                        action="revert-erase",
                        reason=reason,
                        decision=revert_id,
                        details=details,
                    )
        result = Decision(
            id=revert_id,
            item=decision.item,
            kind=decision.kind,
            option="revert",
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(store.root),
            before=decision.after,
            after=decision.before,
            request=decision.request,
            note=f"reverts {decision_id}",
        )
        return record_decision(tx, result)


def _restore_all(
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


def _with_reverted(decision: Decision, revert_id: str) -> Decision:
    data = json.loads(decision.to_json())
    data["reverted_by"] = revert_id
    return Decision(**data)


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
    probe = Item(
        kind="correction",
        id=memory_id,
        title=old.display_title,
        opened_at=old.created_at.isoformat(),
        store=store,
        scope=old.scope,
        subject=old.subject,
    )
    check_may_decide(probe, actor, workspace)
    if store.config.scope == "team":
        rules = [f.rule_id for f in secrets.scan(content)]
        if rules:
            raise SecretBlocked(f"correction of {memory_id}", rules)
    reason = reason.strip() or "corrected by the person it is about"
    decision_id = new_decision_id(store, f"correct|{memory_id}|{content}")
    with store.transaction(actor=actor, message=f"correct {memory_id}") as tx:
        new = old.with_changes(
            id=new_memory_id(old.attribute, f"{old.id}|{content}|{tx.now.isoformat()}"),
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
        tx.create(
            new, action="correct", reason=reason, decision=decision_id, details={"corrects": old.id}
        )
        tx.transition(
            old.id,
            "superseded",
            action="supersede",
            reason=reason,
            decision=decision_id,
            details={"by": new.id},
        )
        decision = Decision(
            id=decision_id,
            item=memory_id,
            kind="correction",
            option="supersede",
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(store.root),
            before={old.id: front(old)},
            after={old.id: front(tx.view[old.id])},
            created=[{"store": str(store.root), "id": new.id}],
        )
        return record_decision(tx, decision)
