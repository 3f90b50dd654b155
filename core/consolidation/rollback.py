"""Rolling back to an approved baseline (SPEC 9: "any earlier approved baseline").

:func:`rollback` returns every memory record that differs from an earlier
baseline to its state there (usage counters excepted: they are the decay's
record of use, not a conclusion), as ``rollback`` events and one new commit;
history is never rewritten. The result is tagged as a new baseline, so that
rolling forward again is a rollback too. Records erased since stay erased,
records in conflict since are left to their adjudication, and records written
since the baseline are kept (they came through the write gate, not a batch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.consolidation.apply import (
    Baseline,
    BatchDecision,
    baselines,
    commit_of,
    find_baseline,
    make_baseline,
    record_decision,
    summaries,
)
from core.consolidation.batch import pending_ids
from core.domain import policy
from core.domain.data import AsData, shown_as
from core.domain.errors import NotFoundError, StoreError, ValidationError
from core.domain.record import parse_memory
from core.domain.words import counted
from core.store import gitstore
from core.store.decisions import Decision, load_decision, new_decision_id, with_reverted
from core.store.store import MEMORY_DIR, Store
from core.store.transaction import transaction


@dataclass(frozen=True)
class RollbackResult(AsData):
    decision: Decision
    target: str  # the baseline returned to
    baseline: str | None  # the new baseline tagging the result
    restored: tuple[str, ...]
    #: (memory id or file, why)
    skipped: tuple[tuple[str, str], ...] = field(
        metadata=shown_as(convert=lambda pairs: [{"id": i, "why": w} for i, w in pairs])
    )
    kept: tuple[str, ...]  # records written since the baseline: kept as they are

    def render(self) -> str:
        lines = [f"{self.decision.id}: rolled back to {self.target}"]
        lines.append(
            f"  restored {counted(len(self.restored), 'record')}: "
            + (", ".join(self.restored[:20]) or "none")
            + (" ..." if len(self.restored) > 20 else "")
        )
        lines += [f"  skipped {i}: {why}" for i, why in self.skipped]
        if self.kept:
            lines.append(f"  kept {counted(len(self.kept), 'record')} written since {self.target}")
        if self.baseline:
            lines.append(f"  new baseline: {self.baseline}")
        return "\n".join(lines)


def rollback(
    store: Store, baseline: str | None = None, *, actor: str, reason: str = ""
) -> RollbackResult:
    """Return the records to an approved baseline (by default the one before the last
    approved batch still in effect: a batch a revert already undid is not put back).

    Checked and done under the store lock: what it rolls back from is the store as it
    is when it runs, not as it was when the command started."""
    with store.locked():
        store.reread()
        return _rollback(store, baseline, actor=actor, reason=reason)


def _rollback(store: Store, baseline: str | None, *, actor: str, reason: str) -> RollbackResult:
    policy.check_may_decide_in(store, actor, f"rollback of {store.root.name}")
    pending = pending_ids(store)
    if pending:
        raise StoreError(
            f"batch {pending[0]} is pending in {store.root}: decide it first "
            f"(memgov decide {pending[0]} --approve or --reject), then roll back"
        )
    known = baselines(store)
    target = find_baseline(store, baseline) if baseline is not None else _default(store, known)
    erased = {i for e in store.events()[0] if e.to_status == "deleted" for i in e.memory_ids}
    decision_id = new_decision_id(store, f"rollback|{target.name}|{gitstore.head(store.root)}")
    reason = reason.strip() or f"rollback to {target.name}"
    restored: list[str] = []
    skipped: list[tuple[str, str]] = []
    with transaction(store, actor=actor, message=f"rollback to {target.name}") as tx:
        changed = [
            (path, then)
            for path, then, _now in gitstore.changed_blobs(
                store.root, target.commit, "HEAD", MEMORY_DIR
            )
            if path.endswith(".md")
        ]
        blobs = gitstore.read_blobs(store.root, (sha for _p, sha in changed if sha))
        by_path = {m.path: m for m in tx.view.values()}
        kept = sorted(by_path[p].id for p, sha in changed if sha is None and p in by_path)
        before, after = [], []
        for path, sha in changed:
            blob = blobs.get(sha) if sha else None
            if blob is None:
                continue
            try:
                then = parse_memory(blob.decode("utf-8", "replace"), path=path, rel_path=path)
            except ValidationError as exc:
                skipped.append((path, f"unreadable at {target.name}: {exc.message}"))
                continue
            current = tx.view.get(then.id)
            if current is None:
                why = "erased since; erasure is final" if then.id in erased else "missing"
                skipped.append((then.id, why))
                continue
            if current.status == "conflict":
                skipped.append((then.id, "in conflict since: adjudicate it in the queue"))
                continue
            want = then.with_changes(
                usage_count=current.usage_count, last_used_at=current.last_used_at
            )
            if want == current:
                continue
            before.append(current)
            after.append(
                tx.restore(
                    want,
                    reason=reason,
                    decision=decision_id,
                    action="rollback",
                    details={"baseline": target.name},
                )
            )
            restored.append(then.id)
        undone = [b for b in known if b.number > target.number and b.decision]
        for later in undone:
            assert later.decision is not None
            try:
                earlier = load_decision(store, later.decision)
            except (NotFoundError, ValidationError):
                continue  # doctor reports a decision record that cannot be read
            if not earlier.reverted_by:
                tx.write_file(earlier.path, with_reverted(earlier, decision_id).to_json())
        decision = BatchDecision(
            id=decision_id,
            item=target.name,
            kind="consolidation",
            option="rollback",
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(store.root),
            before=summaries(before),
            after=summaries(after),
            note=f"rollback to {target.name}; undoes "
            + (", ".join(b.name for b in undone) or "changes since it"),
        )
        record_decision(tx, decision, {"baseline": target.name, "restored": len(restored)})
    new = None
    if restored:
        new = make_baseline(
            store,
            commit_of(store, decision),
            actor=actor,
            decision=decision_id,
            summary=f"rollback to {target.name}",
        ).name
    return RollbackResult(decision, target.name, new, tuple(restored), tuple(skipped), tuple(kept))


def _undone_by(store: Store, baseline: Baseline) -> str | None:
    """The decision that undid the batch this baseline tagged (a revert, a rollback
    to before it), or None while it is in effect."""
    if not baseline.decision:
        return None
    try:
        return load_decision(store, baseline.decision).reverted_by
    except (NotFoundError, ValidationError):
        return None  # doctor reports a decision record that cannot be read


def _default(store: Store, known: list[Baseline]) -> Baseline:
    """The baseline before the last approved batch still in effect. A batch that a
    revert or a rollback undid is not rolled back to (that would put it back)."""
    batches = [b for b in known if b.batch]
    in_effect = [b for b in batches if _undone_by(store, b) is None]
    if not in_effect:
        if not batches:
            raise NotFoundError(
                f"{store.root}: no approved batch to roll back ("
                + (", ".join(b.name for b in known) or "no baseline yet")
                + "); baselines are made when a consolidation batch is approved"
            )
        last = batches[-1]
        raise NotFoundError(
            f"{store.root}: no approved batch is in effect: the last one, {last.name} "
            f"(batch {last.batch}), was undone by {_undone_by(store, last)}; to put it "
            f"back: memgov rollback {last.name}"
        )
    last = in_effect[-1]
    before = [b for b in known if b.number < last.number]
    if not before:
        raise NotFoundError(f"{store.root}: no baseline before {last.name} to roll back to")
    return before[-1]


def revert_decision(store: Store, decision: Decision, *, actor: str, reason: str = "") -> Decision:
    """``memgov revert`` on a consolidation decision: roll back to the baseline before it."""
    known = baselines(store)
    mine = next((b for b in known if b.decision == decision.id), None)
    if mine is None:
        raise ValidationError(
            f"{decision.id} ({decision.option}) made no baseline: it changed no record",
            field="decision",
        )
    later = [b.name for b in known if b.number > mine.number]
    earlier = [b for b in known if b.number < mine.number]
    if later or not earlier:
        raise ValidationError(
            f"{decision.id} made {mine.name}"
            + (f", and later baselines exist ({', '.join(later)})" if later else "")
            + (
                f"; roll back to {earlier[-1].name} to undo it and what came after"
                if earlier
                else "; there is no earlier baseline"
            ),
            field="decision",
            hint=f"memgov rollback {earlier[-1].name}" if earlier else None,
        )
    return rollback(
        store, earlier[-1].name, actor=actor, reason=reason or f"revert {decision.id}"
    ).decision
