"""Consolidation batches: what a consolidation proposes, decided by change or by file
(core.review.batch, core.consolidation). The consolidation's modules load when a batch
is listed, decided or undone, not for every decision of another kind."""

from __future__ import annotations

from core.review.authority import check_may_decide
from core.review.evidence import Evidence
from core.review.items import BatchAnalysis, Item, Kind
from core.review.kinds.base import Choice, ReviewKind
from core.review.preview import Preview
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace


class BatchKind(ReviewKind):
    kind = Kind.CONSOLIDATION
    prefixes = ("batch-",)
    actions = ("approve", "reject")
    decides_by_file = True
    decided_alone = "a consolidation batch"

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        from core.review.batch import pending_items

        return list(pending_items(evidence.store))

    def open_ids(self, store: Store) -> set[str]:
        from core.consolidation.batch import pending_ids

        return set(pending_ids(store))

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        from core.review.batch import pending_items

        return next(iter(pending_items(evidence.store, [item_id])), None)

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        analysis = item.analysis_as(BatchAnalysis)
        if action == "approve" and analysis.error:
            return f"the batch cannot be read: {analysis.error}"
        return None

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        # its own commits and refs (core.consolidation.apply), outside the session
        from core.review.batch import decide_batch

        return decide_batch(
            item, choice.approve, actor=actor, reason=choice.reason, files=choice.files
        )

    def preview(
        self, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Preview | None:
        check_may_decide(item, actor, workspace)
        self.check_arguments(item, choice)
        from core.review.batch import preview_batch

        approved, rejected, paths = preview_batch(item, choice.approve, choice.files)
        return Preview.of_batch(item, choice.approve, approved, rejected, paths)

    def why_not_revertible(self, decision: Decision) -> str | None:
        if decision.option == "reject":
            return (
                f"{decision.id} rejected the batch {decision.item}: it changed no record and "
                "the batch's branch is gone, so there is nothing to undo; 'memgov consolidate' "
                "proposes its changes again"
            )
        return None

    def revert(
        self, store: Store, decision: Decision, *, actor: str, reason: str
    ) -> Decision | None:
        # undone by rolling back to the baseline before it
        from core.consolidation.rollback import revert_decision

        return revert_decision(store, decision, actor=actor, reason=reason)


KIND = BatchKind()
