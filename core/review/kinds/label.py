"""A measure's sample a person labels (core.review.labels): not in the queue, found
by id, decided and reverted like any item."""

from __future__ import annotations

from core.review import labels
from core.review.evidence import Evidence
from core.review.items import Item, Kind, LabelAnalysis
from core.review.kinds.base import Choice, ReviewKind
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace


class LabelKind(ReviewKind):
    kind = Kind.LABEL
    prefixes = tuple(labels.PREFIXES.values())
    actions = tuple(dict.fromkeys(o for options in labels.OPTIONS.values() for o in options))
    in_queue = False
    checks_own_options = True

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        return []  # drawn apart (core.review.labels.workspace_label_items)

    def open_ids(self, store: Store) -> set[str]:
        return set()

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        return labels.label_item(evidence, evidence.store, item_id)

    def applies(self, item: Item, action: str) -> bool:
        return action in item.analysis_as(LabelAnalysis).options  # each measure its labels

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        return labels.decide_label(
            session,
            item,
            choice.approve,
            actor=actor,
            reason=choice.reason,
            option=choice.option,
            content=choice.content,
        )


KIND = LabelKind()
