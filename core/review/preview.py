"""What a decision will change, before it is made: the preview.

Built from the transactions a dry run prepared (core.review.session), so it is
what the decision would write, store by store: the lifecycle transitions, the
records it creates, the records it erases (and whether the git history is
rewritten), the files it writes or removes, and what else it discards, such
as a pending consolidation batch that an erasure drops. Never a value: ids,
statuses, paths and counts only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.consolidation.refs import BATCH_REF
from core.domain.data import AsData
from core.domain.words import counted
from core.review.items import Item
from core.store.decisions import Consequence, Decision
from core.store.prepared import Prepared
from core.store.transaction import Transaction


@dataclass(frozen=True)
class Transition(AsData):
    memory_id: str
    before: str | None  # None: a new record
    after: str | None  # None: the record is erased
    action: str


@dataclass(frozen=True)
class StoreChange(AsData):
    """What one store would go through."""

    store: str
    transitions: tuple[Transition, ...] = ()
    created: tuple[str, ...] = ()
    erased: tuple[str, ...] = ()
    #: an erasure in a private store rewrites every commit that held the content
    history_rewritten: bool = False
    writes: tuple[str, ...] = ()
    removes: tuple[str, ...] = ()
    #: pending consolidation batches the decision drops
    discarded_batches: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preview(AsData):
    item: str
    kind: str
    option: str
    decision: str | None
    stores: tuple[StoreChange, ...] = ()
    #: a batch decision: the changes it approves and rejects
    approved: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: what else the decision changes or discards (core.review.consequences): the
    #: same facts its notification and ``memgov decide`` say afterwards
    consequences: tuple[Consequence, ...] = ()

    @property
    def changes_nothing(self) -> bool:
        return (
            not self.approved
            and not self.consequences
            and not any(
                s.transitions or s.created or s.erased or s.discarded_batches for s in self.stores
            )
        )

    @property
    def discards(self) -> tuple[str, ...]:
        """What the decision throws away besides the records it decides."""
        return tuple(b for s in self.stores for b in s.discarded_batches)

    @classmethod
    def of_batch(
        cls,
        item: Item,
        approve: bool,
        approved: Sequence[str],
        rejected: Sequence[str],
        paths: Sequence[str],
    ) -> Preview:
        option = "approve" if not rejected else "reject" if not approved else "partial"
        notes = (
            (
                f"a new baseline tags the result; {counted(len(paths), 'file')} "
                + ("changes" if len(paths) == 1 else "change"),
            )
            if approved
            else ()
        )
        return cls(
            item=item.id,
            kind=item.kind,
            option=option,
            decision=None,
            stores=(StoreChange(str(item.store.root), writes=tuple(paths)),),
            approved=tuple(approved),
            rejected=tuple(rejected),
            notes=notes,
        )

    def lines(self, *, besides: bool = True) -> list[str]:
        """The preview in words, one fact a line (the desk and ``--dry-run``);
        ``besides``: with what else the decision changes or discards (the desk's
        confirmation shows those apart, first)."""
        out = [f"{self.item}: {self.kind}, {self.option}"]
        if self.approved or self.rejected:
            out.append(
                f"  approves {counted(len(self.approved), 'change')}: {', '.join(self.approved)}"
            )
            if self.rejected:
                out.append(
                    f"  rejects {counted(len(self.rejected), 'change')}: {', '.join(self.rejected)}"
                )
        for change in self.stores:
            out.append(f"  in the {Path(change.store).name} store:")
            out += [f"    {_transition_text(t)}" for t in change.transitions]
            for memory_id in change.erased:
                out.append(
                    f"    {memory_id} is erased for good, its content scrubbed from the store"
                )
            if change.writes or change.removes:
                out.append(
                    f"    files: {len(change.writes)} written, {len(change.removes)} removed"
                )
        if besides and self.consequences:
            out.append("  and besides:")
            out += [f"    {c.text}" for c in self.consequences]
        out += [f"  {note}" for note in self.notes]
        if self.changes_nothing:
            out.append("  no record changes; the decision is recorded")
        return out


def _transition_text(t: Transition) -> str:
    if t.before is None:
        return f"{t.memory_id}: new record, {t.after} ({t.action})"
    if t.after is None or t.after == "deleted":
        return f"{t.memory_id}: {t.before} -> erased ({t.action})"
    if t.before == t.after:
        return f"{t.memory_id}: stays {t.after} ({t.action})"
    return f"{t.memory_id}: {t.before} -> {t.after} ({t.action})"


def preview_of(
    item: Item, decision: Decision, prepared: Sequence[tuple[Transaction, Prepared | None]]
) -> Preview:
    """The preview of a dry run's transactions (``decision``: the dry run's, with its
    consequences)."""
    shown = Preview(
        item=item.id,
        kind=item.kind,
        option=decision.option,
        decision=decision.id,
        notes=(decision.note,) if decision.note else (),
        consequences=decision.consequences,
    )
    return preview_of_list(shown, prepared)


def preview_of_list(
    shown: Preview, prepared: Sequence[tuple[Transaction, Prepared | None]]
) -> Preview:
    """``shown`` (what was decided) with what the dry run's transactions would write."""
    stores = []
    for tx, prep in prepared:
        if prep is None:
            continue
        transitions = tuple(
            Transition(memory_id, e.from_status, e.to_status, e.action)
            for e in tx.events
            if e.from_status is not None or e.to_status is not None
            for memory_id in e.memory_ids
        )
        stores.append(
            StoreChange(
                store=str(tx.store.root),
                transitions=transitions,
                created=tuple(sorted(set(tx.changed) - set(tx.store.memories))),
                erased=tuple(prep.erased_ids),
                history_rewritten=prep.purge,
                writes=tuple(sorted(prep.writes)),
                removes=tuple(prep.removes),
                discarded_batches=tuple(
                    r.removeprefix(BATCH_REF) for r in prep.discards if r.startswith(BATCH_REF)
                ),
            )
        )
    return replace(shown, stores=tuple(stores))
