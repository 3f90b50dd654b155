"""Stale reports: a record someone says is wrong or out of date (core.review.stale)."""

from __future__ import annotations

from core.domain.record import Memory
from core.review import stale
from core.review.evidence import Evidence
from core.review.items import Analysis, Item, Kind, RecordEvidence, ScanHit, StaleAnalysis
from core.review.kinds.base import Choice, Touch
from core.review.kinds.request import RequestKind
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace


class StaleKind(RequestKind):
    kind = Kind.STALE
    prefixes = ("stale-",)
    request_kind = "stale"
    verb = "out of date?"
    actions = ("expire", "correct", "keep")

    def touches(self, item: Item) -> Touch:
        return Touch(changes=("expire", "correct", "keep"))  # keep: verified now

    approve_options = stale.OPTIONS

    def analysed(
        self, evidence: Evidence, memory: Memory, team: Store | None
    ) -> tuple[Analysis, tuple[ScanHit, ...], tuple[RecordEvidence, ...]]:
        analysis = StaleAnalysis(
            verified_days=max(0, (evidence.store.now() - memory.verified_at).days),
            usage_count=memory.usage_count,
            last_used_at=memory.last_used_at.isoformat() if memory.last_used_at else None,
            expires_at=memory.expires_at.isoformat() if memory.expires_at else None,
        )
        return analysis, (), ()

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        return stale.why_not(item, action)

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        return stale.decide_stale(
            session,
            item,
            choice.approve,
            actor=actor,
            reason=choice.reason,
            option=choice.option,
            content=choice.content,
        )


KIND = StaleKind()
