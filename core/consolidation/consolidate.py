"""Consolidation (SPEC 9, seed 6.4 and 6.5): a reviewable batch, baselines, rollback.

``consolidate(store, actor=...)`` runs the four steps in their order
(orient, gather, consolidate, prune; see :mod:`core.consolidation.gather` and
:mod:`core.consolidation.engine`) and leaves the result as a pending batch in
the review queue. The batch is split into changes, each with a reason, the
evidence behind it, and a class:

- automatic (adds no meaning): merging exact duplicates, reconfirming a record
  from a newer message that restates it (``verified_at``, source added),
  relative dates made absolute on the statement's own date, date formats,
  repointed links, index pointers to inactive records, over-long index lines
  whose text is already in their file;
- needs approval (changes a conclusion): retiring a record whose value a
  newer message disproves, merging records that say the same value in other
  words, moving index text into a file, anything an engine proposes that
  creates a record, rewrites text, or changes scope, type or conditions.

Where the batch lives, and why. A batch is a commit on its own branch,
``memgov/batch/<id>``, whose parent is the store's HEAD when consolidation ran
(the last approved state: everything on ``main`` came through the write gate
or a decision). ``git diff <base> memgov/batch/<id>`` is the batch. It is
written with git plumbing from the changed files only: no second checkout of
a 10,000-file store, and nothing left in working files that an erasure would
have to chase (the branch is ordinary history, which erasure rewrites). The
store's own working tree and ``main`` are never touched by a pending batch,
so ordinary writes (remember, recall, sweep, decisions) go on while it waits
and are never mixed into it. Only one batch is pending at a time: a second
consolidation refuses until the first is decided, because two batches made
against different bases would propose overlapping changes and compete for the
next baseline. Approval replays the approved changes onto ``main`` through a
normal :func:`~core.store.transaction.transaction` (lifecycle transitions and updates, one event
each with the decision id, the index regenerated, one commit); a change whose
records moved since the batch was made is refused with the file's name.

Decisions (:func:`decide_batch`, reached through ``core.review.decide.decide``):
approve all; approve the changes touching some files and reject the rest;
reject all (the store stays at its baseline); or reject the changes touching
some files and approve the rest. An approved batch's commit is tagged as the
next baseline, ``baseline/NNNN`` (annotated: decision, batch, actor).
``baseline/0000`` marks the store before its first consolidation.
:func:`rollback` returns the records to any earlier baseline as new events
and a new commit, and tags the result as a baseline in turn. Consolidation
never erases: a disproved record is retired (``active -> superseded``, its
file kept, off the index), so that every change has a way back; erasure stays
a person's deletion request.

Policy: ``consolidation_auto_apply: true`` in ``memgov.yaml`` applies the
automatic changes at once (actor: whoever ran consolidation; events, a
decision record with option ``auto``, a commit, a baseline), and only the
changes that need approval wait in the batch. By default everything waits.
On a team store the policy applies only when a maintainer runs consolidation:
anyone else's batch is proposed whole, the automatic changes wait in it for a
maintainer too, and the report says why (``auto_apply_held``).

The review queue shows a pending batch as an item (``kind="consolidation"``,
``id`` = batch id; core.review.batch) whose analysis holds::

    batch, base, branch, since, engine, created_at, actor
    summary   {records, input, unused, signals, changes, automatic, needs_approval, files}
    changes   [{id, action, class, automatic, reason, evidence, memory_ids, files, stale}]
    files     [{path, status, class, automatic, changes, reasons, evidence, derived, diff}]
    index     {before, after, caps, over_caps_after, warnings, unused_with_lines}
    replay    {queries, same, changed, lost, gained, weaker}
    findings  [text]

``class`` is ``automatic`` or ``needs-approval``; ``diff`` is a unified diff
with 3 lines of context (:func:`file_diff` gives any other context);
``stale`` lists records that changed since the batch was made. The engine is
pluggable (:class:`Engine`: :class:`Gathered` in, :class:`Proposal` out); the
review code above does not depend on which engine made a batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.consolidation.apply import (
    Baseline,
    BatchDecision,
    apply_batch,
    baselines,
    decide_batch,
    ensure_initial_baseline,
)
from core.consolidation.batch import (
    Batch,
    file_diff,
    load_batch,
    new_batch_id,
    pending_ids,
    write_batch,
)
from core.consolidation.changes import Change, FileChange, unified_diff
from core.consolidation.engine import DeterministicEngine
from core.consolidation.model import Edit, Engine, Gathered, Proposal, Signal
from core.consolidation.plan import Plan, make_plan
from core.consolidation.rollback import RollbackResult, revert_decision, rollback
from core.domain import policy
from core.domain.data import AsData
from core.domain.errors import StoreError
from core.domain.words import counted
from core.store import gitstore
from core.store.fsutil import file_lock
from core.store.index import INDEX_FILE
from core.store.recovery import recover
from core.store.store import MEMORY_DIR, Store

__all__ = [
    "Baseline",
    "Batch",
    "BatchDecision",
    "Change",
    "ConsolidationReport",
    "DeterministicEngine",
    "Edit",
    "Engine",
    "FileChange",
    "Gathered",
    "Proposal",
    "RollbackResult",
    "Signal",
    "baselines",
    "consolidate",
    "decide_batch",
    "file_diff",
    "load_batch",
    "revert_decision",
    "rollback",
    "unified_diff",
]

AUTO_APPLY = "consolidation_auto_apply"


@dataclass(frozen=True)
class ConsolidationReport(AsData):
    """What one run of ``memgov consolidate`` found and did."""

    status: str  # dry-run | pending | applied | nothing-to-do
    store: str
    base: str
    since: str | None
    engine: str
    counts: dict[str, int]
    changes: tuple[dict[str, Any], ...]  # the pending (or dry-run) changes
    files: tuple[dict[str, Any], ...]  # their files, each with its diff
    index: dict[str, Any]
    replay: dict[str, Any]
    findings: tuple[str, ...]
    batch: str | None = None
    applied: dict[str, Any] | None = None  # {decision, baseline, changes} under the auto policy
    initial_baseline: str | None = None
    #: why the automatic changes were not applied although the policy says so
    auto_apply_held: str | None = None
    #: a dry run's: why a real run now would be refused (a batch still pending)
    refused: str | None = None

    def render(self, *, diffs: bool = False, limit: int = 50) -> str:
        """A summary for people: the counts, up to ``limit`` changes (``to_dict`` has
        them all), the findings, and with ``diffs`` every file's diff."""
        c = self.counts
        before = self.index.get("before", {})
        head = {
            "dry-run": "dry run, nothing written",
            "pending": f"batch {self.batch} waits for review",
            "applied": "automatic changes applied, nothing waits",
            "nothing-to-do": "nothing to consolidate",
        }[self.status]
        lines = [f"consolidation of {self.store} ({self.engine} engine): {head}"]
        if self.refused:
            lines.append(f"  a real run now is refused: {self.refused}")
        lines += [
            f"  orient: {counted(c.get('records', 0), 'record')}; index "
            f"{counted(before.get('lines', 0), 'line')}, {before.get('bytes', 0):,} bytes",
            f"  gather: {c.get('input', 0)} input, {c.get('unused', 0)} unused (excluded, "
            f"kept), {counted(c.get('signals', 0), 'log message')} since "
            f"{self.since or 'the first log'}",
        ]
        if self.applied:
            done = counted(len(self.applied["changes"]), "automatic change")
            lines.append(
                f"  applied by policy: {done}, "
                f"{self.applied['decision']}, baseline {self.applied['baseline']}"
            )
        if self.auto_apply_held:
            lines.append(f"  not applied by policy: {self.auto_apply_held}")
        lines.append(
            f"  changes: {c.get('changes', 0)} ({c.get('automatic', 0)} automatic, "
            f"{counted(c.get('needs_approval', 0), 'needs', 'need')} approval) in "
            f"{counted(c.get('files', 0), 'file')}"
        )
        for ch in self.changes[:limit]:
            lines.append(
                f"    {ch['id']} {ch['class']:<14} {ch['action']:<14} {', '.join(ch['files'])}"
            )
            lines.append(f"         {ch['reason']}")
        if len(self.changes) > limit:
            lines.append(f"    ... and {len(self.changes) - limit} more (--json lists them all)")
        r = self.replay
        if r:
            lines.append(
                f"  replay: {counted(r.get('queries', 0), 'query', 'queries')}, "
                f"{r.get('same', 0)} same answer, "
                f"{len(r.get('changed', []))} changed, {len(r.get('lost', []))} lost"
            )
        lines += [f"  finding: {f}" for f in self.findings]
        if diffs:
            lines += [f["diff"].rstrip("\n") for f in self.files]
        if self.status == "pending":
            lines.append(
                f"  decide: memgov decide {self.batch} --approve | --reject [--file PATH ...]"
            )
        return "\n".join(lines)


def _report(store: Store, plan: Plan, *, status: str, **extra: Any) -> ConsolidationReport:
    changes = {c.id: c for c in plan.changes}
    return ConsolidationReport(
        status=status,
        store=str(store.root),
        base=plan.base,
        since=plan.gathered.since,
        engine=plan.engine,
        counts=plan.counts,
        changes=tuple(c.to_dict() for c in plan.changes),
        files=tuple(f.to_dict(changes) for f in plan.files),
        index=plan.index,
        replay=plan.replay,
        findings=tuple(plan.findings),
        **extra,
    )


def _plan(store: Store, engine: Engine, since: tuple[str, str] | None) -> Plan:
    recover(store)
    store.forget()  # the next read checks the store for changes again
    dirty = gitstore.dirty(store.root, MEMORY_DIR, INDEX_FILE)
    if dirty:
        raise StoreError(
            f"{store.root}: {', '.join(dirty[:5])} changed outside memgov and not committed; "
            f"a batch is a diff against the last commit: commit or discard those changes first"
        )
    return make_plan(store, engine, since=since)


def consolidate(
    store: Store,
    *,
    actor: str,
    dry_run: bool = False,
    engine: Engine | None = None,
    auto_apply: bool | None = None,
) -> ConsolidationReport:
    """Orient, gather, consolidate, prune; leave the result as a pending batch.

    ``auto_apply`` overrides the store's ``consolidation_auto_apply`` policy. On a team
    store nothing is applied unless ``actor`` is one of its maintainers.
    """
    engine = engine or DeterministicEngine()
    auto = bool(store.config.extra.get(AUTO_APPLY, False)) if auto_apply is None else auto_apply
    held = None
    if auto and store.config.scope == "team" and not policy.is_maintainer(store, actor):
        auto = False
        held = (
            f"{policy.shown(actor)} is not a maintainer of this team store (field "
            f"'maintainers' in {store.root}/memgov.yaml): the automatic changes wait in "
            f"the batch for a maintainer's decision too"
        )
    pending = pending_ids(store)
    waiting = (
        f"batch {pending[0]} is still pending in {store.root}: decide it first "
        f"(memgov decide {pending[0]} --approve or --reject); one batch at a time"
        if pending
        else None
    )
    if waiting and not dry_run:
        raise StoreError(waiting)
    known = baselines(store)
    since = (known[-1].name, known[-1].commit) if known else None
    batch_id = new_batch_id(store, gitstore.head(store.root))
    with file_lock(store.state_dir / "lock"):
        store.reread()  # recovers a crash, clears a killed writer's temporary files
        if not dry_run and pending_ids(store):  # another consolidation got there first
            raise StoreError(f"{store.root}: a batch became pending meanwhile; decide it first")
        plan = _plan(store, engine, since)
        if dry_run or not plan.changes:
            return _report(
                store,
                plan,
                status="dry-run" if dry_run else "nothing-to-do",
                auto_apply_held=held if plan.changes else None,
                refused=waiting if dry_run else None,
            )
        first = ensure_initial_baseline(store, actor=actor)
        initial = first.name if first else None
        automatic = [c for c in plan.changes if c.automatic]
        if not (auto and automatic):
            batch = write_batch(store, plan, batch_id=batch_id, actor=actor)
            return _report(
                store,
                plan,
                status="pending",
                batch=batch.id,
                initial_baseline=initial,
                auto_apply_held=held,
            )
    # the automatic part, by policy: a transaction of its own (it takes the store lock)
    draft = Batch(
        batch_id,
        plan.base,
        plan.gathered.now.isoformat(),
        actor,
        plan.engine,
        plan.gathered.since,
        tuple(plan.changes),
        plan.counts,
        plan.index,
        plan.replay,
        tuple(plan.findings),
    )
    decision = apply_batch(
        store,
        draft,
        automatic,
        [],
        actor=actor,
        option="auto",
        reason=f"automatic changes applied by policy ({AUTO_APPLY}: true)",
    )
    applied = {
        "decision": decision.id,
        "baseline": decision.baseline,
        "changes": [c.to_dict() for c in automatic],
    }
    with file_lock(store.state_dir / "lock"):
        rest = _plan(store, engine, since)  # the same signal window as the first pass
        if not rest.changes:
            return _report(store, rest, status="applied", applied=applied, initial_baseline=initial)
        batch = write_batch(store, rest, batch_id=batch_id, actor=actor)
    return _report(
        store, rest, status="pending", batch=batch.id, applied=applied, initial_baseline=initial
    )
