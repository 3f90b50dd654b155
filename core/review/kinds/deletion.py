"""Deletion requests: erase a record for good (core.review.deletion)."""

from __future__ import annotations

from core.domain.record import Memory
from core.review import deletion
from core.review.evidence import Evidence
from core.review.items import (
    Analysis,
    DeletionAnalysis,
    Item,
    Kind,
    RecordEvidence,
    ScanHit,
    TeamCopy,
)
from core.review.kinds.base import Choice, Touch
from core.review.kinds.request import RequestKind
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace


class DeletionKind(RequestKind):
    kind = Kind.DELETION
    prefixes = ("delete-",)
    request_kind = "delete"
    verb = "delete"
    actions = ("approve", "reject")

    def touches(self, item: Item) -> Touch:
        return Touch(erases=("approve",))  # the record is erased for good

    def analysed(
        self, evidence: Evidence, memory: Memory, team: Store | None
    ) -> tuple[Analysis, tuple[ScanHit, ...], tuple[RecordEvidence, ...]]:
        copies = tuple(TeamCopy(str(s.root), cid) for s, cid in evidence.team_copies(memory.id))
        return DeletionAnalysis(copies), (), ()

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        memory = item.records[0].memory
        if action == "approve" and memory.status == "conflict":
            return (
                f"{memory.id} is in conflict since the deletion was requested: resolve the "
                "conflict first ('neither' erases both records)"
            )
        return None

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        return deletion.decide_deletion(
            session, workspace, item, choice.approve, actor=actor, reason=choice.reason
        )


KIND = DeletionKind()
