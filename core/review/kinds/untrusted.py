"""A team's untrusted changes: a commit on main no listed maintainer signed
(core.review.untrusted). The team layer decides it (core.team.untrusted.decide_item,
which the CLI and the desk call): a signed commit, not a decision file."""

from __future__ import annotations

from core.domain.errors import ValidationError
from core.review.evidence import Evidence
from core.review.items import Item, Kind, UntrustedAnalysis
from core.review.kinds.base import Choice, ReviewKind
from core.review.session import Session
from core.review.untrusted import OPTIONS, PREFIX, untrusted_items, waiting
from core.review.untrusted import item_id as untrusted_id
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace


class UntrustedKind(ReviewKind):
    kind = Kind.UNTRUSTED
    prefixes = (PREFIX,)
    actions = OPTIONS
    checks_own_options = True
    team_commit = True

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        return untrusted_items(evidence.store)

    def open_ids(self, store: Store) -> set[str]:
        if store.config.scope != "team":
            return set()
        return {untrusted_id(w.commit) for w in waiting(store)}

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        return next(iter(untrusted_items(evidence.store, [item_id])), None)

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        if not item.analysis_as(UntrustedAnalysis).first:
            return "it waits behind another untrusted change: decide that one first"
        return None

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        raise ValidationError(
            f"{item.id} is an untrusted change of the team store: a maintainer ratifies or "
            "rejects it with 'memgov decide ITEM --approve|--reject' or the desk, which "
            "make the signed commit that resolves it (core.team.untrusted)",
            field="item",
        )

    def why_not_revertible(self, decision: Decision) -> str | None:
        return (
            f"{decision.option} of {decision.item} is a commit you signed for every clone, "
            "not a decision memgov can revert; decide what it brought in as any other record"
        )


KIND = UntrustedKind()
