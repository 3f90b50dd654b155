"""The one entry point agents call to remember something (SPEC sections 5 to 8).

:func:`remember` takes a :class:`Candidate` and answers with exactly one
:class:`Outcome`: written, merged, conflict, refused or empty. In order:

1. empty content is a valid outcome, logged as an event;
2. working memory and task scope never reach disk (refused, with the reason);
3. the write gate (exclusions, then min(s1, s2, s3, s4) >= theta; s1 or s2 the
   caller does not give is settled by :func:`core.domain.gate.settle`, from the
   memory's type and its source message's role, and the record's event says so);
4. the key (scope, subject, attribute, condition) decides, never text alone:
   same key and same value merges the sources (active -> active, or
   expired -> active when it was expired); same key and a different value
   opens a conflict (both records -> conflict), except that a newer
   preference supersedes the older one by policy (recorded, reviewable).

Confidence with independent sources (different tasks) is a noisy OR
(:func:`core.domain.values.noisy_or`). Two pointers into the same task are not
independent and only keep the higher confidence.

The candidate and its validation are :mod:`core.writing.candidate` (``Candidate``
and ``candidate_from_dict`` are importable from here too); which store of a
workspace a write goes to, and the team rule, are :mod:`core.writing.remember`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from core.domain import gate, secrets
from core.domain.data import AsData, shown_as
from core.domain.keys import conflict_item_id as conflict_item_id
from core.domain.provenance import Provenance
from core.domain.record import Memory, Source
from core.domain.values import noisy_or, same_value, with_source
from core.store import logs
from core.store.reaching import source_role
from core.store.store import Store, new_memory_id
from core.store.transaction import transaction
from core.writing import quarantine
from core.writing.candidate import Candidate, candidate_from_dict

if TYPE_CHECKING:
    from core.store.transaction import Transaction

__all__ = [
    "Candidate",
    "Outcome",
    "candidate_from_dict",
    "conflict_item_id",
    "merged_confidence",
    "remember",
    "remember_in_transaction",
    "remember_many",
]


@dataclass(frozen=True)
class Outcome(AsData):
    """What happened to one candidate. ``kind`` is one of the five outcomes."""

    #: written | merged | conflict | refused | empty | quarantined (held for review:
    #: not written; ``item`` names the review item, :mod:`core.writing.quarantine`)
    kind: str = field(metadata=shown_as(key="outcome"))
    memory_ids: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    item: str | None = None  # the review item a conflict opened or joined
    gate: gate.GateResult | None = None
    superseded: tuple[str, ...] = ()
    #: a team candidate from someone who is not a maintainer: the promotion request that
    #: holds its private copy for a maintainer's review (see
    #: :func:`core.writing.remember.remember_in`)
    held_for_review: str | None = None
    store: str | None = None  # the store written to, when ``remember_in`` chose it


def merged_confidence(memory: Memory, candidate: Candidate, source: Source) -> float:
    independent = source.task not in {s.task for s in memory.all_sources}
    merged = noisy_or(memory.confidence, candidate.confidence, independent=independent)
    return round(merged, 4) if independent else merged


def merged_provenance(kept: Mapping[str, Any] | None, found: Provenance) -> dict[str, Any]:
    """A record's provenance when a new source says the same: the roles of both; external
    only while every source's words came from outside (the user saying it settles it).
    A record written before provenance was kept is weighed by the message it cites, as
    it was: a new source does not make it external."""
    if kept is None:
        return {"roles": list(found.roles), "external": False}
    roles = sorted({*kept.get("roles", ()), *found.roles})
    external = bool(kept.get("external")) and found.external
    if not external:
        return {"roles": roles, "external": False}
    seen = sorted({*kept.get("seen", ()), *found.seen})[:16]
    return {"roles": roles, "external": True} | ({"seen": seen} if seen else {})


@dataclass(frozen=True)
class _Checked:
    """A candidate after the checks that need no records (emptiness, scope, source, the
    write gate): ``kind`` is empty, refused or place (the key decides, in a transaction)."""

    candidate: Candidate
    kind: str
    reasons: tuple[str, ...] = ()
    result: gate.GateResult | None = None
    #: the steering detector's flags (kind place only), and the excerpt they came with
    assessment: quarantine.Assessment | None = None
    excerpt: logs.Excerpt | None = None
    #: where its words came from (None: a file's source, an imported memory)
    provenance: Provenance | None = None

    @property
    def message(self) -> str:
        """The commit message of a transaction of this candidate alone."""
        if self.kind == "empty":
            return "remember: nothing to write"
        if self.kind == "refused":
            return "remember: refused by the write gate"
        return f"remember: {self.candidate.subject} {self.candidate.attribute}"


def remember(store: Store, candidate: Candidate, *, actor: str) -> Outcome:
    """Run one candidate through the pipeline and record what happened."""
    return remember_many(store, [candidate], actor=actor)[0]


def remember_many(store: Store, candidates: Sequence[Candidate], *, actor: str) -> list[Outcome]:
    """Run candidates through the pipeline, in order, in one transaction and one commit.

    Each gets exactly what :func:`remember` would give it after the ones before it: a
    later candidate sees what an earlier one wrote (the same key twice merges or
    conflicts as two calls in a row would), so the outcomes, ids and events are those of
    sequential calls, grouped into one commit. An error raised by any candidate (after
    validation, e.g. an id already taken) refuses the whole batch: nothing is written.
    No candidates: no transaction, no commit.
    """
    checked = [_check(store, c) for c in candidates]
    if not checked:
        return []
    message = checked[0].message if len(checked) == 1 else f"remember: {len(checked)} candidates"
    with transaction(store, actor=actor, message=message) as tx:
        return [_run(tx, c) for c in checked]


def remember_in_transaction(
    tx: Transaction, candidate: Candidate, *, released: str | None = None
) -> Outcome:
    """:func:`remember` inside an open transaction of the candidate's store (an import
    that writes many into one commit); the transaction's commit records it.

    ``released``: the held item (core.review.quarantine) a person released this
    candidate from: the steering detector is not asked again, the rest of the gate is."""
    return _run(tx, _check(tx.store, candidate, released=released is not None))


def gate_verdict(store: Store, candidate: Candidate, excerpt: logs.Excerpt) -> str:
    """What the gate would do with ``candidate``, whose source message is ``excerpt``,
    writing nothing: ``refused`` (a criterion or a secret), ``held`` (the steering
    detector would quarantine it) or ``pass`` (core.writing.redteam replays with it)."""
    checked = _check(store, candidate, excerpt=excerpt)
    if checked.kind != "place":
        return "refused"
    assessment = checked.assessment
    return "held" if assessment is not None and assessment.flags else "pass"


def _check(
    store: Store,
    candidate: Candidate,
    *,
    released: bool = False,
    excerpt: logs.Excerpt | None = None,
) -> _Checked:
    """The pipeline's steps 1 to 3: what needs no record of the store (``excerpt``:
    the source message, given instead of read from the log)."""
    if not candidate.content.strip():
        return _Checked(candidate, "empty")
    refusal = _refuse_early(store, candidate)
    if refusal:
        return _Checked(candidate, "refused", refusal)
    source = candidate.source
    assert source is not None
    # the candidate is the local caller's: its own file (an agent folder being imported)
    # may be read; what a store holds is read only inside the store (queue, doctor)
    if excerpt is None:
        excerpt = logs.resolve(store.root, source, context=0, outside_ok=True)
    # a message of a daily log must hold the quote; a file's evidence may describe it
    quoted = (
        excerpt is None
        or source.file is not None
        or any(
            gate.quoted_in(quote, text)
            for quote in _quotes(store, source.evidence)
            for _n, text in excerpt.lines
        )
    )
    result = gate.evaluate(
        settled=_settled(store, candidate, excerpt),
        content=candidate.content,
        evidence=source.evidence,
        s1=candidate.s1,
        s2=candidate.s2,
        source_resolves=excerpt is not None,
        quote_found=quoted,
        theta=store.config.theta,
        also=_persisted_text(candidate),
        # the store's own scope (refused early otherwise): a team store's words are shared
        shared=candidate.scope != "private",
        vouched=candidate.vouched,
        keep_likely=candidate.keep_likely or candidate.vouched,
    )
    if not result.passed:
        return _Checked(candidate, "refused", tuple(result.reasons()), result)
    found = quarantine.derived(store, candidate, excerpt)
    assessment = None if released else quarantine.assess_candidate(store, candidate, excerpt, found)
    return _Checked(
        candidate,
        "place",
        result=result,
        assessment=assessment,
        excerpt=excerpt,
        provenance=found,
    )


def _quotes(store: Store, evidence: str) -> tuple[str, ...]:
    """The quote as the agent sent it and, when it holds a credential, as the daily log
    keeps that (core.store.logs.redacted; a hook's or a transcript's line:
    :func:`core.domain.secrets.redact`)."""
    if secrets.is_clean(evidence):
        return (evidence,)
    return (evidence, logs.redacted(store.state_dir, evidence), secrets.redact(evidence))


def _settled(
    store: Store, candidate: Candidate, excerpt: logs.Excerpt | None
) -> dict[str, gate.Settled]:
    """s1 and s2 the candidate does not give, settled by the gate's rule."""
    missing = [name for name in ("s1", "s2") if getattr(candidate, name) is None]
    if not missing:
        return {}
    role = source_role(candidate.source, excerpt)
    days = None
    if candidate.expires_at is not None:
        days = (candidate.expires_at - store.now()).total_seconds() / 86_400
    return {
        name: gate.settle(name, memory_type=candidate.type, role=role, expires_in_days=days)
        for name in missing
    }


def _settled_notes(result: gate.GateResult) -> tuple[str, ...]:
    """The receipt's lines for scores the gate settled, which the caller did not give."""
    return tuple(
        f"{c.name} settled by the gate ({c.settled}): {c.why}" for c in result.criteria if c.settled
    )


def _gate_details(result: gate.GateResult, content: str = "") -> dict[str, Any]:
    """What a write's event keeps of the gate: its score, each settled score's rule, and
    the likely credentials a person said are none (their rules and the hash of the words
    they were kept in: core.store.secret_files asks no more about those words)."""
    details: dict[str, Any] = {"gate": round(result.score, 4)}
    settled = {c.name: {"score": c.score, "rule": c.settled} for c in result.criteria if c.settled}
    if settled:
        details["settled"] = settled
    if result.kept_likely:
        from core.store.quarantine import text_hash

        details["kept_likely"] = {"rules": list(result.kept_likely), "hash": text_hash(content)}
    return details


def _run(tx: Transaction, checked: _Checked) -> Outcome:
    """Step 4 (the key decides) or the record of an empty or refused candidate."""
    candidate = checked.candidate
    if checked.kind == "empty":
        tx.event("empty-write", reason="the candidate was empty: nothing worth remembering")
        return Outcome(
            "empty", reasons=("nothing to write: an empty candidate is a valid, logged outcome",)
        )
    if checked.kind == "refused":
        return _refused(tx, candidate, checked.reasons, checked.result)
    source = candidate.source
    assert source is not None and checked.result is not None
    if checked.assessment is not None:
        held = quarantine.hold(tx, candidate, checked.assessment, checked.excerpt)
        if held.kind == "held" and held.item is not None:
            return Outcome(
                "quarantined",
                reasons=quarantine.reasons(held.item),
                item=held.item.id,
                gate=checked.result,
            )
        if held.kind == "discarded" and held.item is not None:
            why = quarantine.discarded_reason(held.item)
            tx.event(
                "refuse",
                reason="discarded from quarantine before",
                request=held.item.id,
                details={
                    "key": {
                        "scope": candidate.scope,
                        "subject": _withheld(candidate.subject),
                        "attribute": _withheld(candidate.attribute),
                        "condition": _withheld(candidate.condition),
                    },
                    "criteria": [],
                    "excluded": False,
                    "secret_rules": [],
                    "quarantine": held.item.id,
                },
            )
            return Outcome("refused", reasons=(why,), item=held.item.id, gate=checked.result)
    return _place(tx, candidate, source, checked.result, checked.provenance)


def _persisted_text(candidate: Candidate) -> tuple[str, ...]:
    """Every text of the candidate, besides content and evidence, that a write keeps:
    the key, title, value, environment, and the source's task, log and file."""
    fields = (candidate.title, candidate.value, candidate.condition, candidate.subject)
    env = candidate.environment or {}
    source = candidate.source
    pointers = (source.task, source.log, source.file) if source is not None else ()
    kept = (candidate.origin or {}).values()  # an imported file's front matter, its index line
    return (
        *(f for f in fields if f),
        *kept,
        candidate.attribute,
        *(f"{tool} {version}" for tool, version in env.items()),
        *(p for p in pointers if p),
    )


def _withheld(text: str | None) -> str | None:
    """A key field for the refusal event, unless it holds a secret or sensitive pattern."""
    if text and (secrets.scan(text) or gate.sensitive_patterns(text)):
        return "[withheld: matches a secret or sensitive pattern]"
    return text


def _refuse_early(store: Store, candidate: Candidate) -> tuple[str, ...]:
    if candidate.type == "working" or candidate.scope == "task":
        return (
            "working memory and task scope are never persisted past the task: keep it "
            "in the task's state",
        )
    if candidate.source is None:
        return (
            "s3 (has a source): no source pointer; every write needs {task, "
            "message_index, evidence}",
        )
    if candidate.scope != store.config.scope:
        return (
            f"scope {candidate.scope}: this is the {store.config.scope} store; "
            f"write {candidate.scope} memories to a {candidate.scope} store",
        )
    return ()


def _refused(
    tx: Transaction,
    candidate: Candidate,
    reasons: tuple[str, ...],
    result: gate.GateResult | None,
) -> Outcome:
    if result is not None:
        failing = [c.name for c in result.criteria if not c.passed]
        settled = any(c.settled for c in result.criteria)
    else:
        failing = [r.split(" ")[0] for r in reasons if r.startswith("s3 ")]
        settled = False
    # only the key and the failing criteria: a refused candidate's content (which may
    # hold a secret) never reaches the log
    tx.event(
        "refuse",
        reason="; ".join(r.split(":")[0] for r in reasons),
        details={
            "key": {
                "scope": candidate.scope,
                "subject": _withheld(candidate.subject),
                "attribute": _withheld(candidate.attribute),
                "condition": _withheld(candidate.condition),
            },
            "criteria": failing,
            "excluded": bool(result and result.excluded),
            "secret_rules": list(result.secret_rules) if result else [],
            **({"settled": _gate_details(result)["settled"]} if result and settled else {}),
        },
    )
    return Outcome("refused", reasons=reasons, gate=result)


def _fresh_id(taken: Mapping[str, Memory], candidate: Candidate, now: datetime) -> str:
    """A reproducible id (key, content, time) that no record of the store uses yet: the
    same statement can come back at the same instant (a pinned clock) after the record
    it made was superseded or expired.

    A statement read from a file (an import: its source is the original file and
    line) is named after that file and line instead of the time, so an import's dry
    run makes the ids its real run makes, whenever each runs, on the stores as they
    are. Only the file's name counts, not the folder it is in: the same folder
    imported from another place (a clone, the demo) makes the same ids."""
    source = candidate.source
    if source is not None and source.file is not None:
        name = source.file.replace("\\", "/").rsplit("/", 1)[-1]
        basis = f"{candidate.key}|{candidate.content}|{name}:{source.line}"
    else:
        basis = f"{candidate.key}|{candidate.content}|{now.isoformat()}"
    memory_id = new_memory_id(candidate.attribute, basis)
    attempt = 1
    while memory_id in taken:
        memory_id = new_memory_id(candidate.attribute, f"{basis}|{attempt}")
        attempt += 1
    return memory_id


def _place(
    tx: Transaction,
    candidate: Candidate,
    source: Source,
    result: gate.GateResult,
    found: Provenance | None = None,
) -> Outcome:
    now = tx.now
    same_key = [
        m for m in tx.view.by_key(candidate.key) if m.status in ("active", "conflict", "expired")
    ]
    rivals = [
        m for m in same_key if m.status in ("active", "conflict") and not same_value(m, candidate)
    ]
    # an expired record of the same value comes back (expired -> active) only when no
    # other value holds the key now; otherwise the candidate is new evidence against
    # that value (a conflict, or a newer preference), and the expired record stays
    match = next(
        (
            m
            for m in sorted(same_key, key=lambda m: m.status == "expired")
            if same_value(m, candidate) and not (m.status == "expired" and rivals)
        ),
        None,
    )
    if match is not None:
        changes: dict[str, Any] = {
            "verified_at": now,
            "sources": with_source(match, source),
            "confidence": merged_confidence(match, candidate, source),
        }
        if match.origin is None and candidate.origin:
            changes["origin"] = candidate.origin  # the agent's file now names this record
        if found is not None:
            changes["provenance"] = merged_provenance(match.provenance, found)
        new_source = len(changes["sources"]) != len(match.sources)
        why = (
            "same key and same value from a new source: sources merged"
            if new_source
            else "same key and same value: reconfirmed"
        )
        if match.status == "conflict":
            tx.update(match.id, action="merge", reason=why, **changes)
            return Outcome(
                "merged",
                (match.id,),
                (why, *_settled_notes(result)),
                item=conflict_item_id(match.key),
                gate=result,
            )
        if match.status == "expired":
            # re-verified now: a past expiry date or the environment it was learnt in
            # would expire it again at the next sweep
            if match.expires_at is not None and match.expires_at <= now:
                changes["expires_at"] = candidate.expires_at
            if candidate.environment:
                changes["environment"] = candidate.environment
        tx.transition(
            match.id,
            "active",
            action="reconfirm" if match.status == "active" else "reverify",
            reason=why,
            **changes,
        )
        return Outcome("merged", (match.id,), (why, *_settled_notes(result)), gate=result)

    memory = Memory(
        id=_fresh_id(tx.view, candidate, now),
        type=candidate.type,
        scope=candidate.scope,
        status="active",
        subject=candidate.subject,
        attribute=candidate.attribute,
        condition=candidate.condition,
        value=candidate.value,
        title=candidate.title,
        content=candidate.content,
        confidence=candidate.confidence,
        created_at=now,
        verified_at=now,
        expires_at=candidate.expires_at,
        source=source,
        environment=candidate.environment,
        origin=candidate.origin,
        provenance=found.to_dict() if found is not None else None,
    )
    contradicted = rivals
    if not contradicted:
        tx.create(
            memory,
            action="create",
            reason="write gate passed, no contradiction",
            details=_gate_details(result, memory.content),
        )
        return Outcome("written", (memory.id,), ("written", *_settled_notes(result)), gate=result)

    if candidate.type == "preference" and all(
        m.type == "preference" and m.status == "active" for m in contradicted
    ):
        # a newer preference overrides the older one (seed 3): recorded and revertible
        older = contradicted[0]
        memory = memory.with_changes(supersedes=older.id)
        tx.create(
            memory,
            action="create",
            reason="newer preference for the same key",
            details=_gate_details(result, memory.content),
        )
        for old in contradicted:
            tx.transition(
                old.id,
                "superseded",
                action="supersede",
                reason=f"a newer preference ({memory.id}) overrides it",
                details={"by": memory.id, "policy": "preference-override"},
            )
        return Outcome(
            "written",
            (memory.id,),
            ("newer preference supersedes the older", *_settled_notes(result)),
            gate=result,
            superseded=tuple(m.id for m in contradicted),
        )

    item = conflict_item_id(candidate.key)
    tx.create(
        memory.with_changes(status="conflict"),
        action="conflict",
        reason="contradicts a record of the same key",
        request=item,
        details={**_gate_details(result, memory.content), "against": [m.id for m in contradicted]},
    )
    opened = False
    for other in contradicted:
        if other.status == "active":
            tx.transition(
                other.id,
                "conflict",
                action="conflict",
                request=item,
                reason=f"contradicting evidence arrived ({memory.id})",
                details={"against": [memory.id]},
            )
            opened = True
    if opened:
        tx.event(
            "conflict-opened",
            (memory.id, *(m.id for m in contradicted)),
            reason="same key, different values: waiting for a person",
            request=item,
        )
    ids = (memory.id, *(m.id for m in contradicted))
    return Outcome(
        "conflict",
        ids,
        ("same key, different value: review item " + item, *_settled_notes(result)),
        item=item,
        gate=result,
    )
