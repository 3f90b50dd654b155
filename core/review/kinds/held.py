"""Memories an import or a sync held for a person (core.review.held,
core.importers.held): each reason has its own options."""

from __future__ import annotations

from core.review.evidence import Evidence
from core.review.items import HeldAnalysis, Item, Kind
from core.review.kinds.base import Choice, ReviewKind
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace

#: the ids of held memories (core.importers.held.PREFIX; a test checks they agree): the
#: importers and the held review load when a held item is built or decided, not for
#: every decision of another kind
PREFIX = "held-"


class HeldKind(ReviewKind):
    kind = Kind.HELD
    prefixes = (PREFIX,)
    actions = ("redact", "keep", "drop", "learn", "forget", "agent", "memgov")
    checks_own_options = True

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        from core.review import held

        return held.held_items(evidence, evidence.store)

    def open_ids(self, store: Store) -> set[str]:
        if store.config.scope != "private":
            return set()
        from core.importers.held import load_held

        return {h.id for h in load_held(store)[0] if h.status == "open"}

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        from core.review import held

        return next(iter(held.held_items(evidence, evidence.store, [item_id])), None)

    def applies(self, item: Item, action: str) -> bool:
        return action in item.analysis_as(HeldAnalysis).options  # each reason has its own

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        from core.review import held

        return held.decide_held(
            session,
            workspace,
            item,
            choice.approve,
            actor=actor,
            reason=choice.reason,
            option=choice.option,
        )

    def unwrites(self, store: Store, decision: Decision) -> bool:
        # a consent item's words wait in the store: its records stay, superseded
        from core.review import held

        return not held.holds_words(store, decision)


KIND = HeldKind()
