"""Promotion requests (a private record to the team store) and a team's proposals
(core.review.promotion, core.review.proposal)."""

from __future__ import annotations

from core.domain import gate
from core.domain.errors import ValidationError
from core.domain.record import Memory
from core.review import promotion
from core.review.authority import check_may_close_request
from core.review.evidence import Evidence
from core.review.items import Analysis, Item, Kind, PromotionAnalysis, RecordEvidence, ScanHit
from core.review.kinds.base import Choice
from core.review.kinds.request import RequestKind
from core.review.promotion import (
    REQUEST_OPTIONS,
    blocked_rules,
    blocked_what,
    promotion_outcome,
    promotion_texts,
    successor,
)
from core.review.proposal import decide_proposal, open_proposals, proposal_item
from core.review.session import Session
from core.store.decisions import Decision
from core.store.requests import open_requests
from core.store.store import Store
from core.store.workspace import Workspace


class PromotionKind(RequestKind):
    kind = Kind.PROMOTION
    prefixes = ("promote-",)
    request_kind = "promote"
    verb = "promote to team"
    actions = ("approve", "reject", "withdraw", "rerequest")

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        items = super().build(evidence, workspace)
        if evidence.store.config.scope == "team":
            items += proposal_items(evidence, workspace)
        return items

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        if evidence.store.config.scope == "team":
            found = proposal_items(evidence, workspace, {item_id})
            if found:
                return found[0]
        return super().find(evidence, workspace, item_id)

    def analysed(
        self, evidence: Evidence, memory: Memory, team: Store | None
    ) -> tuple[Analysis, tuple[ScanHit, ...], tuple[RecordEvidence, ...]]:
        scan = tuple(
            ScanHit(f.rule_id, f.line, f.column, f.description)
            for text in promotion_texts(memory)
            for f in gate.unshareable(text)
        )
        team_records: tuple[RecordEvidence, ...] = ()
        if team is not None:
            team_evidence = Evidence(team)
            team_records = tuple(
                team_evidence.of(m)
                for m in team.memories.by_subject_attribute(memory.subject, memory.attribute)
                if m.status in ("active", "conflict")
            )
        analysis = PromotionAnalysis(
            secret_hits=len(scan),
            outcome=promotion_outcome(team, memory) if team is not None else None,
        )
        return analysis, scan, team_records

    def applies(self, item: Item, action: str) -> bool:
        # asking again for the record that replaced the requested one applies once replaced
        if action == "rerequest":
            return item.records[0].memory.status != "active"
        return True

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        memory = item.records[0].memory
        newer = successor(item.store, memory) if memory.status != "active" else None
        if action == "approve":
            rules = blocked_rules(item)
            if rules:
                return (
                    f"blocked: {blocked_what(rules)}: correct the record first (the request "
                    "moves to the correction), or withdraw the request"
                )
            if memory.status != "active":
                return f"{memory.id} is {memory.status} since the request: " + (
                    f"ask again for {newer.id}, which replaced it, or withdraw the request"
                    if newer is not None
                    else "withdraw the request"
                )
            if workspace.team is None:
                return "no team store is configured: a promotion needs one"
        if action == "rerequest" and newer is None:
            return f"{memory.id} is {memory.status} and no active record replaced it"
        return None

    def closes_request(self, option: str | None) -> bool:
        return option in REQUEST_OPTIONS

    def decide(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        if not self.closes_request(choice.option):
            return super().decide(session, workspace, item, choice, actor=actor)
        self.check_arguments(item, choice)
        check_may_close_request(item, actor)
        assert choice.option is not None
        return promotion.close_request(
            session, workspace, item, choice.option, actor=actor, reason=choice.reason
        )

    def check_arguments(self, item: Item, choice: Choice) -> None:
        if not self.closes_request(choice.option):
            super().check_arguments(item, choice)
        elif choice.approve:
            raise ValidationError(
                f"{choice.option} closes the request unapproved: it goes with --reject",
                field="option",
                where=item.id,
                hint=f"--reject --option {choice.option}",
            )

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        if item.store.config.scope == "team":  # a contributor's proposal
            return decide_proposal(session, item, choice.approve, actor=actor, reason=choice.reason)
        return promotion.decide_promotion(
            session, workspace, item, choice.approve, actor=actor, reason=choice.reason
        )


def proposal_items(
    evidence: Evidence, workspace: Workspace, ids: set[str] | None = None
) -> list[Item]:
    """The open proposals of a team clone's remote, as promotion items; not one that
    is a request of a private store given here (the contributor sees their request)."""
    mine = {
        request.id
        for store in workspace.stores
        if store.config.scope == "private"
        for request in open_requests(store, kind="promote")
    }
    return [
        proposal_item(evidence, p) for p in open_proposals(evidence.store, ids) if p.id not in mine
    ]


KIND = PromotionKind()
