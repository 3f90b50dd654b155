"""Deciding a conflict set (SPEC section 10): which record holds, and how the others go.

The options: ``newer`` or ``older`` (that record is confirmed, ``verified_at``
now; every other record is superseded by it), ``parallel`` (both hold, each
under a condition the reviewer writes after reading the sources; the
conditions must differ and clash with no other record), ``neither`` (every
record is erased) and ``defer`` (nothing changes, the item stays open). Each
is one transaction with one decision record.
"""

from __future__ import annotations

import re
from typing import Any

from core.domain.errors import ValidationError
from core.domain.record import Memory
from core.review.items import CONFLICT_OPTIONS, Item
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
)

#: words in a source quote that state where a value holds, and the condition they state
CONDITION_WORDS = (
    (re.compile(r"production|\bprod\b|生产", re.I), "env=production"),
    (re.compile(r"staging|预发", re.I), "env=staging"),
    (re.compile(r"testing|test env|\btest\b|测试", re.I), "env=testing"),
    (re.compile(r"\bdev(elopment)?\b|开发环境", re.I), "env=development"),
)
#: where one clause of a quote ends and the next begins
_CLAUSE = re.compile(r"[,，;；。!?！？\n]|\s(?:but|while|whereas)\s|但|而")


def suggested_conditions(item: Item) -> dict[str, str]:
    """A condition for each record of a conflict set, from what the sources say (for the
    parallel outcome; the person reads them and corrects): the condition a clause of any
    record's quote states next to that record's value ("生产环境部署改用 bash deploy.sh,
    测试环境还是 npm run deploy" states one for each of two records), else one its own
    quotes state that no other record took, else its own condition, else nothing."""
    records = sorted((r.memory for r in item.records), key=lambda m: (m.created_at, m.id))
    quotes = [s.source.evidence for r in item.records for s in r.sources]
    clauses = [c.strip() for q in quotes for c in _CLAUSE.split(q) if c and c.strip()]
    marks = {m.id: _marks(m) for m in records}
    out: dict[str, str] = {}
    for memory in records:
        others = {k for mid, ms in marks.items() if mid != memory.id for k in ms}
        for clause in clauses:
            mine = [k for k in marks[memory.id] if k in clause]
            if not mine or any(k in clause for k in others if k not in mine):
                continue  # not about this record, or about another one too
            condition = _stated(clause)
            if condition and condition not in out.values():
                out[memory.id] = condition
                break
    for rec in sorted(item.records, key=lambda r: (r.memory.created_at, r.memory.id)):
        memory = rec.memory
        if memory.id in out:
            continue
        for source in rec.sources:
            condition = _stated(source.source.evidence, taken=set(out.values()))
            if condition:
                out[memory.id] = condition
                break
        else:
            out[memory.id] = memory.condition or ""
    return {m.id: out[m.id] for m in records}


def _marks(memory: Memory) -> list[str]:
    """What names a record's value in a quote: the value, and each `code span` of its
    content (longest first)."""
    found = [memory.value] if memory.value else []
    found += re.findall(r"`([^`]+)`", memory.content)
    return sorted({f.strip() for f in found if f and f.strip()}, key=len, reverse=True)


def _stated(text: str, taken: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The first condition ``text`` states that is not ``taken``."""
    for pattern, condition in CONDITION_WORDS:
        if condition not in taken and pattern.search(text):
            return condition
    return None


def decide_conflict(
    session: Session,
    item: Item,
    option: str | None,
    *,
    actor: str,
    reason: str,
    conditions: dict[str, str],
) -> Decision:
    """Adjudicate a conflict set: ``newer`` or ``older`` wins (the others are
    superseded), ``parallel`` (each record under its own condition), ``neither``
    (every record erased) or ``defer`` (nothing changes; the decision is recorded)."""
    if option not in CONFLICT_OPTIONS:
        raise ValidationError(
            "unknown option", field="option", hint="newer, older, parallel, neither or defer"
        )
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
    with session.transaction(store, actor=actor, message=f"decide {item.id}: {option}") as tx:
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
                    where=item.id,
                    hint="e.g. --condition ID=env=production (read the sources first)",
                )
            chosen = [conditions[m.id].strip() for m in members]
            if len(set(chosen)) != len(chosen):
                raise ValidationError(
                    "parallel conditions must differ, or the records would share a key again",
                    field="condition",
                    where=item.id,
                )
            for memory in members:
                condition = conditions[memory.id].strip()
                key = (memory.scope, memory.subject, memory.attribute, condition)
                clash = [
                    m.id
                    for m in tx.view.by_key(key)
                    if m.id not in before and m.status in ("active", "conflict")
                ]
                if clash:
                    raise ValidationError(
                        f"the condition for {memory.id} clashes with {', '.join(clash)}",
                        field="condition",
                        where=item.id,
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
            before = {mid: key_only(state) for mid, state in before.items()}
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="conflict",
            option=option,
            actor=actor,
            reason=reason,
            before=before,
            after=after,
            erased=erased,
            note=TEAM_HISTORY_NOTE if erased and store.config.scope == "team" else None,
        )
        return record_decision(tx, decision)
