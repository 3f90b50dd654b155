"""What tries to steer the agent (core.review.quarantine): a candidate the write gate
held, or a stored record the detector flags."""

from __future__ import annotations

from core.review import quarantine
from core.review.evidence import Evidence
from core.review.items import Item, Kind, QuarantineAnalysis
from core.review.kinds.base import Choice, ReviewKind, Touch
from core.review.quarantine import RECORD_PREFIX, candidate_items, record_items
from core.review.session import Session
from core.store.decisions import Decision
from core.store.quarantine import PREFIX as CANDIDATE_PREFIX
from core.store.quarantine import load_quarantined
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.quarantine import flagged_records


class QuarantineKind(ReviewKind):
    kind = Kind.QUARANTINE
    prefixes = (CANDIDATE_PREFIX, RECORD_PREFIX)
    actions = ("release", "discard", "erase", "correct", "keep")

    def touches(self, item: Item) -> Touch:
        if not self.applies(item, "erase"):
            return Touch()  # a held candidate: no record of the store yet
        return Touch(erases=("erase", "correct"), changes=("keep",))

    checks_own_options = True

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        store = evidence.store
        return candidate_items(evidence, store) + record_items(evidence, store)

    def open_ids(self, store: Store) -> set[str]:
        ids = {h.id for h in load_quarantined(store, status="open")}
        return ids | {f"{RECORD_PREFIX}{m.id}" for m, _flags in flagged_records(store)}

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        items = record_items if item_id.startswith(RECORD_PREFIX) else candidate_items
        return next(iter(items(evidence, evidence.store, [item_id])), None)

    def applies(self, item: Item, action: str) -> bool:
        # a held candidate's options, or a stored record's
        return action in item.analysis_as(QuarantineAnalysis).options

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        return quarantine.decide_quarantine(
            session,
            workspace,
            item,
            choice.approve,
            actor=actor,
            reason=choice.reason,
            option=choice.option,
            content=choice.content,
        )


KIND = QuarantineKind()
