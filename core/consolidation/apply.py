"""Deciding a batch, and the baselines that approved batches become.

Approving (all, or the changes that touch some files) replays the approved
changes onto ``main`` in one :func:`~core.store.transaction.transaction`: every edit is a
lifecycle transition or an update with an event naming the decision, the
index is regenerated, one commit is made, and that commit is tagged as the
next baseline (``baseline/NNNN``, annotated, with the decision and batch ids).
Rejecting records the decision and drops the batch branch; ``main`` never had
the batch's changes, so it stays at its baseline. A change whose records moved
since the batch was made (an ordinary write in between) is refused with the
file's name, never half-applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from core.consolidation.batch import Batch, load_batch
from core.consolidation.changes import Change, fingerprint
from core.consolidation.model import edit_changes
from core.consolidation.refs import BASELINE_TAG, BATCH_REF
from core.domain import policy
from core.domain.data import AsData, shown_as
from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import Memory
from core.domain.words import counted
from core.store import decisions, gitstore
from core.store.decisions import Decision, load_decisions, new_decision_id
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import Transaction, transaction


# --------------------------------------------------------------------- baselines
@dataclass(frozen=True)
class Baseline(AsData):
    name: str
    number: int
    commit: str
    when: str
    decision: str | None
    batch: str | None
    actor: str | None
    message: str = field(metadata=shown_as(skip=True))

    DATA_PROPERTIES = ("summary",)

    @property
    def summary(self) -> str:
        return self.message.splitlines()[0] if self.message else ""


def baselines(store: Store) -> list[Baseline]:
    """Every approved baseline of the store, oldest first."""
    out = []
    for tag in gitstore.tags(store.root, BASELINE_TAG):
        number = tag.name.removeprefix(BASELINE_TAG)
        if number.isdigit():
            out.append(
                Baseline(
                    tag.name,
                    int(number),
                    tag.commit,
                    tag.when,
                    tag.field("decision"),
                    tag.field("batch"),
                    tag.field("actor"),
                    tag.message,
                )
            )
    return sorted(out, key=lambda b: b.number)


def find_baseline(store: Store, name: str) -> Baseline:
    known = baselines(store)
    wanted = name.strip().removeprefix(BASELINE_TAG)
    for baseline in known:
        if wanted.isdigit() and baseline.number == int(wanted):
            return baseline
    listed = ", ".join(b.name for b in known) or "none yet"
    raise NotFoundError(f"no baseline {shown_id(name)} in {store.root} (baselines: {listed})")


def make_baseline(
    store: Store,
    commit: str,
    *,
    actor: str,
    summary: str,
    decision: str | None = None,
    batch: str | None = None,
) -> Baseline:
    """Tag ``commit`` as the next baseline."""
    known = baselines(store)
    number = known[-1].number + 1 if known else 0
    name = f"{BASELINE_TAG}{number:04d}"
    lines = [summary, "", f"actor: {actor}"]
    lines += [f"decision: {decision}"] if decision else []
    lines += [f"batch: {batch}"] if batch else []
    gitstore.tag(store.root, name, commit, actor=actor, message="\n".join(lines), when=store.now())
    return find_baseline(store, name)


def ensure_initial_baseline(store: Store, *, actor: str) -> Baseline | None:
    """``baseline/0000``: the store before its first consolidation."""
    if baselines(store):
        return None
    return make_baseline(
        store,
        gitstore.head(store.root),
        actor=actor,
        summary="the store before its first consolidation",
    )


def commit_of(store: Store, decision: Decision) -> str:
    """The commit that recorded ``decision`` (the one that added its file)."""
    out = gitstore.run(
        store.root, "log", "-1", "--diff-filter=A", "--format=%H", "--", decision.path
    )
    return out.decode().strip()


# --------------------------------------------------------------------- decisions
@dataclass(frozen=True)
class BatchDecision(Decision):
    """A decision on a consolidation batch (a :class:`Decision` with its outcome)."""

    approved: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    baseline: str | None = None
    commit: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # path -> approved | rejected

    def render(self) -> str:
        lines = [f"{self.id}: consolidation {self.item} -> {self.option} ({self.reason})"]
        lines.append(f"  approved: {', '.join(self.approved) or 'nothing'}")
        if self.rejected:
            lines.append(f"  rejected: {', '.join(self.rejected)}")
        if self.baseline:
            lines.append(f"  new baseline: {self.baseline} ({(self.commit or '')[:10]})")
            lines.append(f"  undo with: memgov rollback (or memgov revert {self.id})")
        return "\n".join(lines)


def summaries(memories: Iterable[Memory]) -> dict[str, dict[str, Any]]:
    """Before/after of each record a decision touched: status and hashes, never content."""
    return {
        m.id: {
            "status": m.status,
            "content_hash": m.content_hash,
            "verified_at": m.verified_at.isoformat(),
            "confidence": m.confidence,
            "sources": len(m.all_sources),
            "path": m.path,
        }
        for m in memories
    }


def record_decision(tx: Transaction, decision: BatchDecision, details: dict[str, Any]) -> None:
    """The decision record (core.store.decisions); its event names the batch."""
    decisions.record_decision(tx, decision, details=details, request=decision.item)


def _check_current(tx: Transaction, batch: Batch, changes: Sequence[Change]) -> None:
    for change in changes:
        for memory_id, expected in change.expect.items():
            current = tx.view.get(memory_id)
            if fingerprint(current) == expected:
                continue
            path = current.path if current else memory_path(memory_id)
            what = "it no longer exists" if current is None else f"it is {current.status} now"
            raise ValidationError(
                f"changed since batch {batch.id} was made ({what}, or its sources, "
                f"text or confidence changed): change {change.id} cannot apply as proposed",
                path=path,
                hint=f"decide without it (memgov decide {batch.id} --reject --file {path}), "
                f"or reject the batch and run 'memgov consolidate' again",
            )


def apply_changes(
    tx: Transaction, batch: Batch, changes: Sequence[Change], *, decision: str
) -> None:
    """Replay ``changes`` as transitions and updates, each an event naming the decision."""
    _check_current(tx, batch, changes)
    for change in changes:
        base = {"batch": batch.id, "change": change.id, "automatic": change.automatic}
        for edit in change.edits:
            details = {**base, **edit.details}
            if edit.create is not None:
                tx.create(
                    edit.create.with_changes(id=edit.memory_id, path=""),
                    action=edit.action,
                    reason=change.reason,
                    request=batch.id,
                    decision=decision,
                    details=details,
                )
                continue
            if edit.to_status == "deleted":  # erasure: only ever with a person's approval
                tx.erase(
                    edit.memory_id,
                    action="erase",
                    reason=change.reason,
                    request=batch.id,
                    decision=decision,
                    details=details,
                )
                continue
            updates = edit_changes(tx.get(edit.memory_id), edit)
            if edit.to_status is not None:
                tx.transition(
                    edit.memory_id,
                    edit.to_status,
                    action=edit.action,
                    reason=change.reason,
                    request=batch.id,
                    decision=decision,
                    details=details,
                    **updates,
                )
            elif updates:
                tx.update(
                    edit.memory_id,
                    action=edit.action,
                    reason=change.reason,
                    request=batch.id,
                    decision=decision,
                    details=details,
                    **updates,
                )
        if not change.edits:  # index changes: they take effect as the index is regenerated
            ids = tuple(str(e["id"]) for e in change.evidence if e.get("kind") == "record")
            tx.event(
                change.action,
                ids,
                reason=change.reason,
                request=batch.id,
                decision=decision,
                details=base,
            )


def _normalise_path(store: Store, batch: Batch, raw: str) -> str:
    path = raw.strip()
    if path.startswith(str(store.root) + "/"):
        path = path[len(str(store.root)) + 1 :]
    known = {p for c in batch.changes for p in c.files}
    if path not in known:  # a file name alone, as the desk and the batch's diff show it
        named = sorted(p for p in known if p.endswith("/" + path))
        if len(named) == 1:
            path = named[0]
    if path not in known:
        raise ValidationError(
            f"{raw} is not a file of batch {batch.id}",
            field="file",
            hint="its files: " + ", ".join(sorted(known)),
        )
    return path


def select(
    store: Store, batch: Batch, approve: bool, files: Sequence[str] | None
) -> tuple[list[Change], list[Change]]:
    """(approved, rejected). With ``files``: approve (or reject) the changes that
    touch them, and decide the rest the other way; a change touching several
    files goes wherever any of them goes."""
    if not files:
        return (list(batch.changes), []) if approve else ([], list(batch.changes))
    paths = {_normalise_path(store, batch, f) for f in files}
    chosen = [c for c in batch.changes if paths & set(c.files)]
    others = [c for c in batch.changes if c not in chosen]
    return (chosen, others) if approve else (others, chosen)


def apply_batch(
    store: Store,
    batch: Batch,
    approved: Sequence[Change],
    rejected: Sequence[Change],
    *,
    actor: str,
    reason: str,
    option: str,
) -> BatchDecision:
    """Apply ``approved`` to main, record the decision, tag the new baseline."""
    decision_id = new_decision_id(store, f"{batch.id}|{option}|{len(approved)}")
    verdict = {p: "rejected" for c in rejected for p in c.files}
    verdict.update({p: "approved" for c in approved for p in c.files})
    with transaction(
        store,
        actor=actor,
        message=f"consolidation {batch.id}: {option} "
        f"({len(approved)} applied, {len(rejected)} rejected)",
    ) as tx:
        touched = {i for c in approved for i in c.expect}
        before = summaries(tx.view[i] for i in sorted(touched) if i in tx.view)
        if approved:
            apply_changes(tx, batch, approved, decision=decision_id)
        decision = BatchDecision(
            id=decision_id,
            item=batch.id,
            kind="consolidation",
            option=option,
            actor=actor,
            reason=reason,
            ts=tx.now.isoformat(),
            store=str(store.root),
            before=before,
            after=summaries(tx.view[i] for i in sorted(touched) if i in tx.view),
            note=f"approved {len(approved)}, rejected {len(rejected)} of {len(batch.changes)} "
            f"changes of {batch.id}",
            approved=tuple(c.id for c in approved),
            rejected=tuple(c.id for c in rejected),
            files=verdict,
        )
        record_decision(
            tx,
            decision,
            {
                "batch": batch.id,
                "approved": list(decision.approved),
                "rejected": list(decision.rejected),
                # what health's reverse signal compares the cut with (seed 8.2)
                "replay": {
                    k: v for k, v in batch.replay.items() if isinstance(v, int) and k != "queries"
                }
                | {"queries": int(batch.replay.get("queries", 0) or 0)},
            },
        )
    if not approved:
        return decision
    commit = commit_of(store, decision)
    baseline = make_baseline(
        store,
        commit,
        actor=actor,
        decision=decision_id,
        batch=batch.id,
        summary=f"consolidation {batch.id}: {option}, {counted(len(approved), 'change')} applied",
    )
    return replace(decision, baseline=baseline.name, commit=commit)


def _already_decided(store: Store, batch_id: str) -> Decision | None:
    for decision in load_decisions(store):
        # the automatic part of the same run is not the batch's decision
        if (decision.item, decision.kind) == (batch_id, "consolidation") and (
            decision.option != "auto"
        ):
            return decision
    return None


def decide_batch(
    store: Store,
    batch_id: str,
    approve: bool,
    *,
    actor: str,
    reason: str = "",
    files: Sequence[str] | None = None,
) -> BatchDecision:
    """Approve all, approve the changes touching ``files`` and reject the rest,
    reject all, or reject those touching ``files`` and approve the rest."""
    policy.check_may_decide_in(store, actor, batch_id)
    ref = BATCH_REF + batch_id
    done = _already_decided(store, batch_id)
    if done is not None:  # an earlier run stopped between its commit and its tag: finish it
        mine = next((b for b in baselines(store) if b.decision == done.id), None)
        if mine is None and done.option in ("approve", "partial"):
            mine = make_baseline(
                store,
                commit_of(store, done),
                actor=done.actor,
                decision=done.id,
                batch=batch_id,
                summary=f"consolidation {batch_id}: {done.option}",
            )
        gitstore.delete_ref(store.root, ref)
        common = {f.name: getattr(done, f.name) for f in fields(Decision)}
        return BatchDecision(
            **common, baseline=mine.name if mine else None, commit=mine.commit if mine else None
        )
    batch = load_batch(store, batch_id)
    approved, rejected = select(store, batch, approve, files)
    option = "approve" if not rejected else "reject" if not approved else "partial"
    reason = (
        reason.strip()
        or {
            "approve": "consolidation approved",
            "reject": "consolidation rejected: the store stays at its baseline",
            "partial": "some changes approved, the others rejected",
        }[option]
    )
    decision = apply_batch(
        store, batch, approved, rejected, actor=actor, reason=reason, option=option
    )
    gitstore.delete_ref(store.root, ref)
    return decision
