"""Deciding what tries to steer the agent: review items of kind ``quarantine``.

Two origins, one kind of item, the detector's flags with their spans in both:

- **a held candidate** (``quarantine-<hash>``, :mod:`core.store.quarantine`): the
  write gate held it instead of writing it. *Release* sends it through the write
  pipeline as it was sent (every other check of the gate again, the detector not),
  and what that writes is the decision's: a revert takes it out and opens the item
  again. *Discard* (reject) writes nothing; the file keeps the text's hash, and the
  same text sent again is refused at once, naming who discarded it.
- **a stored record** the detector flags (``steering-<memory id>``; doctor lists
  them too): *erase* it for good, *correct* it (a new record with the words the
  person writes supersedes it), or *keep* it (reject: a person vouches for these
  words). Erasing or correcting leaves a discarded mark of the old words' hash, so
  an agent writing them again is refused; keeping leaves a released mark, so the
  record is not flagged again while its words stay the same.

Which records may be flagged is the catalog's steering hint (a superset, kept per
file); only those are assessed in full, with the role of their source's message
and the config's known hosts. Under the store lock the decision reads the held
file or the record again (core.review.decide binds it to what was shown).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.domain import secrets, steering
from core.domain.errors import AlreadyDecided, NotFoundError, SecretBlocked, ValidationError
from core.domain.record import Memory
from core.review.evidence import Evidence
from core.review.items import Item, Key, Kind, QuarantineAnalysis
from core.review.session import Session
from core.store.decisions import (
    Decision,
    decision_for,
    erase_record,
    front,
    key_only,
    last_decision_for,
    new_decision_id,
    record_decision,
)
from core.store.quarantine import (
    PREFIX,
    Quarantined,
    held_for,
    item_id,
    load_quarantined,
    read_quarantined,
    text_hash,
    write_quarantined,
)
from core.store.store import Store, new_memory_id
from core.store.transaction import Transaction
from core.store.workspace import Workspace
from core.writing.candidate import held_candidate
from core.writing.pipeline import remember_in_transaction
from core.writing.quarantine import flagged_records

RECORD_PREFIX = "steering-"
CANDIDATE_OPTIONS = ("release", "discard")
RECORD_OPTIONS = ("erase", "correct", "keep")
MEANING = {
    "release": "write it: it goes through the write pipeline as any candidate does",
    "discard": "do not write it; the same text sent again is refused",
    "erase": "erase the record for good; the same text written again is refused",
    "correct": "replace it with a record in your words; the old text is refused if it comes back",
    "keep": "keep the record as it is: you vouch for these words",
}
DEFAULT_REASONS = {
    "release": "released from quarantine: a person read it and lets it in",
    "discard": "discarded from quarantine: it tries to steer the agent",
    "erase": "it tries to steer the agent: erased",
    "correct": "it tried to steer the agent: replaced by a corrected record",
    "keep": "a person read it and vouches for it",
}


# ------------------------------------------------------------------------- items
def candidate_items(evidence: Evidence, store: Store, ids: list[str] | None = None) -> list[Item]:
    """The store's open held candidates (``ids``: only those)."""
    if ids is None:
        found = load_quarantined(store, status="open")
    else:
        found = []
        for held_id in ids:
            try:
                held = read_quarantined(store, held_id)
            except (NotFoundError, ValidationError):
                continue
            if held.status == "open":
                found.append(held)
    return [_candidate_item(store, held) for held in found]


def _candidate_item(store: Store, held: Quarantined) -> Item:
    scope, subject, attribute, condition = held.key
    data = held.candidate or {}
    source = None
    raw = data.get("source")
    if isinstance(raw, dict):
        try:
            source = held_candidate(data).source
        except ValidationError:
            source = None
    return Item(
        kind=Kind.QUARANTINE,
        id=held.id,
        title=f"quarantined: {_title(data, subject, attribute)}",
        opened_at=held.held_at,
        store=store,
        analysis=QuarantineAnalysis(
            origin="candidate",
            text=held.content,
            flags=held.flags,
            options=CANDIDATE_OPTIONS,
            meanings={o: MEANING[o] for o in CANDIDATE_OPTIONS},
            key=Key(scope, subject, attribute, condition),
            type=held.type,
            role=held.role,
            source=source,
            excerpt_file=held.excerpt_file,
            excerpt=held.excerpt,
            held_by=held.held_by,
            seen=held.seen,
            text_hash=held.text_hash,
            triage=steering.triage(held.flags)[1],
        ),
        scope=scope,
        subject=subject,
    )


def _title(data: dict[str, Any], subject: str, attribute: str) -> str:
    """A held candidate's title: the one it was sent with, else its key (redacted)."""
    title = data.get("title")
    shown = title if isinstance(title, str) and title.strip() else f"{subject} #{attribute}"
    return secrets.redact(" ".join(shown.split())[:120])


def record_items(evidence: Evidence, store: Store, ids: list[str] | None = None) -> list[Item]:
    """The store's active and conflicting records the detector flags, that no person
    kept as they are (``ids``: only those items)."""
    memory_ids = None
    if ids is not None:
        memory_ids = [i.removeprefix(RECORD_PREFIX) for i in ids if i.startswith(RECORD_PREFIX)]
    return [
        _record_item(evidence, store, memory, assessment.flags, assessment.role)
        for memory, assessment in flagged_records(store, memory_ids)
    ]


def _record_item(
    evidence: Evidence,
    store: Store,
    memory: Memory,
    flags: tuple[steering.Flag, ...],
    role: str | None,
) -> Item:
    options = RECORD_OPTIONS if memory.status == "active" else ("erase", "keep")
    return Item(
        kind=Kind.QUARANTINE,
        id=f"{RECORD_PREFIX}{memory.id}",
        title=f"steers the agent: {secrets.redact(memory.display_title)}",
        opened_at=memory.created_at.isoformat(),
        store=store,
        analysis=QuarantineAnalysis(
            origin="record",
            text=memory.content,
            flags=flags,
            options=options,
            meanings={o: MEANING[o] for o in options},
            key=Key(memory.scope, memory.subject, memory.attribute, memory.condition),
            type=memory.type,
            role=role,
            source=memory.source,
            text_hash=text_hash(memory.content),
            memory_id=memory.id,
            triage=steering.triage(flags)[1],
        ),
        scope=memory.scope,
        subject=memory.subject,
        records=(evidence.of(memory),),
    )


# ---------------------------------------------------------------------- deciding
def decide_quarantine(
    session: Session,
    workspace: Workspace,
    item: Item,
    approve: bool,
    *,
    actor: str,
    reason: str,
    option: str | None,
    content: str | None = None,
) -> Decision:
    """Decide a quarantine item (see the module's table). ``content``: a correction's
    words (``correct`` only, and required there)."""
    analysis = item.analysis_as(QuarantineAnalysis)
    chosen: str | None
    allowed: tuple[str, ...]
    if analysis.origin == "candidate":
        chosen = (option or "release") if approve else "discard"
        allowed = CANDIDATE_OPTIONS
    else:
        chosen = option if approve else "keep"
        allowed = RECORD_OPTIONS
    if chosen is None or chosen not in allowed or (approve and chosen in ("discard", "keep")):
        raise ValidationError(
            "say what to do with it" if chosen is None else f"unknown option {chosen!r}",
            field="option",
            hint=(
                "approve releases it (--option release); --reject discards it"
                if analysis.origin == "candidate"
                else "--option erase or --option correct --content TEXT; --reject keeps it"
            ),
        )
    if content is not None and chosen != "correct":
        raise ValidationError(
            "a content goes with the option correct only", field="content", hint="drop it"
        )
    reason = reason.strip() or DEFAULT_REASONS[chosen]
    for what, text in (("reason", reason), ("corrected content", content or "")):
        rules = [f.rule_id for f in secrets.scan(text)]
        if rules:
            raise SecretBlocked(f"the {what} for {item.id}", rules)
    store = item.store
    decision_id = new_decision_id(store, f"{item.id}|{chosen}")
    with session.transaction(store, actor=actor, message=f"decide {item.id}: {chosen}") as tx:
        if analysis.origin == "candidate":
            return _decide_candidate(workspace, tx, item, chosen, decision_id, actor, reason)
        return _decide_record(workspace, tx, item, chosen, decision_id, actor, reason, content)


def _decide_candidate(
    workspace: Workspace,
    tx: Transaction,
    item: Item,
    chosen: str,
    decision_id: str,
    actor: str,
    reason: str,
) -> Decision:
    store = tx.store
    try:
        held = read_quarantined(store, item.id)
    except NotFoundError:
        raise NotFoundError(
            f"{item.id} is no longer held in {store.root}; reload the queue"
        ) from None
    if held.status != "open":
        raise _decided_before(workspace, item.id, held)
    at = tx.now.isoformat(timespec="seconds")
    before: dict[str, dict[str, Any]] = {}
    after: dict[str, dict[str, Any]] = {}
    created: list[dict[str, str]] = []
    released_as: str | None = None
    released_ids: tuple[str, ...] = ()
    if chosen == "release":
        candidate = held_candidate(held.candidate)
        existing = {m.id for m in tx.view.by_key(candidate.key)}
        before = {i: front(tx.view[i]) for i in sorted(existing)}
        # what the pipeline writes is this decision's (its events name it)
        tx.decision, earlier = decision_id, tx.decision
        try:
            outcome = remember_in_transaction(tx, candidate, released=held.id)
        finally:
            tx.decision = earlier
        released_as, released_ids = outcome.kind, outcome.memory_ids
        for memory_id in outcome.memory_ids:
            if memory_id in existing:
                after[memory_id] = front(tx.view[memory_id])
            elif memory_id in tx.view:
                created.append({"store": str(store.root), "id": memory_id})
        for memory_id in outcome.superseded:
            after[memory_id] = front(tx.view[memory_id])
        before = {i: s for i, s in before.items() if i in after}
    closed = held.decided(
        "released" if chosen == "release" else "discarded",
        decision=decision_id,
        actor=actor,
        at=at,
        reason=reason,
        released_as=released_as,
        released_ids=tuple(released_ids),
    )
    write_quarantined(tx, closed)
    tx.event(
        f"quarantine-{chosen}",
        tuple(released_ids),
        reason=reason,
        request=held.id,
        decision=decision_id,
        details={"text_hash": held.text_hash, "outcome": released_as},
    )
    decision = decision_for(
        tx,
        decision_id,
        item=held.id,
        kind="quarantine",
        option=chosen,
        actor=actor,
        reason=reason,
        before=before,
        after=after,
        created=created,
        note=f"outcome: {released_as}" if released_as else None,
    )
    return record_decision(tx, decision)


def _mark(
    tx: Transaction, memory: Memory, status: str, *, decision: str, actor: str, reason: str
) -> None:
    """The mark of a stored record's words: released (kept) or discarded (erased,
    corrected), so they are known when they come back."""
    digest = text_hash(memory.content)
    mark = Quarantined(
        id=item_id(digest),
        text_hash=digest,
        status=status,
        held_at=tx.now.isoformat(timespec="seconds"),
        held_by=actor,
        key=memory.key,
        type=memory.type,
        flags=(),
        decision=decision,
        decided_by=actor,
        decided_at=tx.now.isoformat(timespec="seconds"),
        decision_reason=reason,
        released_ids=(memory.id,),
    )
    write_quarantined(tx, mark)


def _decide_record(
    workspace: Workspace,
    tx: Transaction,
    item: Item,
    chosen: str,
    decision_id: str,
    actor: str,
    reason: str,
    content: str | None,
) -> Decision:
    store = tx.store
    analysis = item.analysis_as(QuarantineAnalysis)
    memory_id = analysis.memory_id or ""
    current = tx.view.get(memory_id)
    if current is None or current.status not in ("active", "conflict"):
        earlier = last_decision_for(workspace.stores, item.id)
        if earlier is not None:
            raise AlreadyDecided(item.id, actor=earlier.actor, ts=earlier.ts, decision=earlier.id)
        raise NotFoundError(f"{item.id}: {memory_id} is no longer active in {store.root}")
    kept = {memory_id: front(current)}
    base: dict[str, Any] = {
        "item": item.id,
        "kind": "quarantine",
        "option": chosen,
        "actor": actor,
        "reason": reason,
    }
    if chosen == "keep":
        _mark(tx, current, "released", decision=decision_id, actor=actor, reason=reason)
        tx.event(
            "quarantine-keep",
            (memory_id,),
            reason=reason,
            request=item.id,
            decision=decision_id,
            details={"text_hash": text_hash(current.content)},
        )
        return record_decision(tx, decision_for(tx, decision_id, **base, before=kept, after=kept))
    _mark(tx, current, "discarded", decision=decision_id, actor=actor, reason=reason)
    tx.event(
        "quarantine-discard",
        (memory_id,),
        reason=reason,
        request=item.id,
        decision=decision_id,
        details={"text_hash": text_hash(current.content), "option": chosen},
    )
    if chosen == "correct":
        if current.status != "active":
            raise ValidationError(
                f"{memory_id} is {current.status}: decide its conflict first, or erase it",
                field="option",
                hint="--option erase",
            )
        text = (content or "").strip()
        if not text:
            raise ValidationError(
                "a correction needs the words that replace the record",
                field="content",
                hint="--content 'what the memory should say'",
            )
        replacement = current.with_changes(
            id=new_memory_id(current.attribute, f"steering|{current.id}|{text}"),
            path="",
            content=text,
            title=None,
            value=None,
            supersedes=current.id,
            created_at=tx.now,
            verified_at=tx.now,
            usage_count=0,
            last_used_at=None,
        )
        tx.create(
            replacement,
            action="correct",
            reason=reason,
            request=item.id,
            decision=decision_id,
            details={"corrects": memory_id},
        )
        tx.transition(
            memory_id,
            "superseded",
            action="supersede",
            reason=reason,
            request=item.id,
            decision=decision_id,
            details={"by": replacement.id},
        )
        return record_decision(
            tx,
            decision_for(
                tx,
                decision_id,
                **base,
                before=kept,
                after={
                    memory_id: front(tx.view[memory_id]),
                    replacement.id: front(tx.view[replacement.id]),
                },
                created=[{"store": str(store.root), "id": replacement.id}],
            ),
        )
    erase_record(
        tx, memory_id, action="erase", reason=reason, request=item.id, decision=decision_id
    )
    return record_decision(
        tx,
        decision_for(
            tx,
            decision_id,
            **base,
            before={memory_id: key_only(front(current))},
            after={},
            erased=[memory_id],
        ),
    )


def _decided_before(workspace: Workspace, item: str, held: Quarantined) -> Exception:
    if held.decision and held.decided_by and held.decided_at:
        return AlreadyDecided(
            item, actor=held.decided_by, ts=held.decided_at, decision=held.decision
        )
    earlier = last_decision_for(workspace.stores, item)
    if earlier is not None:
        return AlreadyDecided(item, actor=earlier.actor, ts=earlier.ts, decision=earlier.id)
    return NotFoundError(f"{item} is no longer open; reload the queue")


def reopen_on_revert(tx: Transaction, decision: Decision) -> None:
    """A revert of a quarantine decision: a held candidate's item opens again; a
    record's mark (kept, corrected) no longer stands."""
    if decision.kind != "quarantine":
        return
    if decision.item.startswith(PREFIX):
        try:
            held = read_quarantined(tx.store, decision.item)
        except (NotFoundError, ValidationError):
            return
        reopened = replace(
            held,
            status="open",
            decision=None,
            decided_by=None,
            decided_at=None,
            decision_reason=None,
            released_as=None,
            released_ids=(),
        )
        write_quarantined(tx, reopened)
        tx.event("quarantine-reopened", reason="its decision was reverted", request=held.id)
        return
    memory_id = decision.item.removeprefix(RECORD_PREFIX)
    memory = tx.view.get(memory_id)
    mark = held_for(tx.store, text_hash(memory.content)) if memory is not None else None
    if mark is not None and mark.decision == decision.id and mark.candidate is None:
        write_quarantined(tx, replace(mark, status="reverted"))
    tx.event(
        "quarantine-reopened",
        (memory_id,) if memory is not None else (),
        reason="its decision was reverted",
        request=decision.item,
    )
