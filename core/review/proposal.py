"""A contributor's proposal (a branch of the team's remote) as a maintainer's review item.

A proposal is a promotion request that arrived through git (:mod:`core.store.proposals`):
its item is a promotion item of the team store, with the proposed record as its
record, the team records of the same key beside it, the secret scan of the record
and of the log lines it carries, and where it came from (branch, tip, who pushed).
The desk and the CLI show and decide it as any promotion.

Approving writes the proposed record into the team's main as one decision, through
the same duplicate and conflict rules as a local promotion, with the quoted log
lines it carries; rejecting records the decision and its reason. Either closes the
proposal: the next sync deletes its branch on the remote, and the contributor's
next sync closes their private request with the maintainer's decision and reason.
"""

from __future__ import annotations

from core.domain import gate
from core.domain.errors import NotFoundError, shown_id
from core.review.evidence import Evidence
from core.review.items import Item, Kind, PromotionAnalysis, ProposalInfo, ScanHit
from core.review.promotion import (
    place_copy,
    promotion_outcome,
    promotion_texts,
    unshareable_error,
    unshareable_rules,
)
from core.review.session import Session
from core.store import gitstore, logs
from core.store.decisions import Decision, decision_for, new_decision_id, record_decision
from core.store.proposals import (
    PROPOSAL_DIR,
    Proposal,
    closed_json,
    closed_proposal,
    read_proposals,
)
from core.store.requests import Request
from core.store.store import Store


def proposal_texts(proposal: Proposal) -> list[str]:
    """What a proposal's secret scan reads: its record's free text and the log lines."""
    return [*promotion_texts(proposal.memory), *proposal.evidence]


def proposal_item(evidence: Evidence, proposal: Proposal) -> Item:
    team = evidence.store
    memory = proposal.memory
    scan = tuple(
        ScanHit(f.rule_id, f.line, f.column, f.description)
        for text in proposal_texts(proposal)
        for f in gate.unshareable(text)
    )
    same_key = tuple(
        evidence.of(m)
        for m in team.memories.by_subject_attribute(memory.subject, memory.attribute)
        if m.status in ("active", "conflict")
    )
    return Item(
        kind=Kind.PROMOTION,
        id=proposal.id,
        title=f"proposal: promote to team: {memory.display_title}",
        opened_at=proposal.requested_at,
        store=team,
        scope="team",
        subject=memory.subject,
        records=(evidence.of(memory),),
        request=Request(
            id=proposal.id,
            kind="promote",
            memory_id=memory.id,
            reason=proposal.reason,
            requested_by=proposal.by,
            requested_at=proposal.requested_at,
        ),
        team_records=same_key,
        scan=scan,
        analysis=PromotionAnalysis(
            secret_hits=len(scan),
            outcome=promotion_outcome(team, memory),
            proposal=ProposalInfo(
                proposal.ref, proposal.tip, proposal.by, proposal.private_record, proposal.evidence
            ),
        ),
    )


def open_proposals(team: Store, ids: set[str] | None = None) -> list[Proposal]:
    """The team clone's proposal branches (``ids``: these only) that no decision on its
    main has closed yet."""
    good, _bad = read_proposals(team.root, ids)
    return [p for p in good if closed_proposal(team.root, p.id) is None]


def decide_proposal(
    session: Session, item: Item, approve: bool, *, actor: str, reason: str
) -> Decision:
    """Approve: the proposed record lands in the team store (duplicates merge, another
    value opens a conflict) with the log lines it quotes; reject: nothing but the
    decision. Both are one commit of the team store."""
    team = item.store
    found = {p.id: p for p in open_proposals(team, {item.id})}
    proposal = found.get(item.id)
    if proposal is None:
        raise NotFoundError(f"no proposal branch {shown_id(item.id)} on the remote any more")
    decision_id = new_decision_id(team, f"{item.id}|{approve}")
    if approve:
        rules = unshareable_rules(proposal_texts(proposal))
        if rules:
            raise unshareable_error(f"proposal {item.id}", rules)
    reason = reason.strip() or (
        f"promoted to team: {proposal.reason}" if approve else "not for the team"
    )
    verb = "promoted" if approve else "rejected"
    message = f"decide {item.id}: {verb} the proposal of {proposal.by}"
    with session.transaction(team, actor=actor, message=message) as tx:
        created = []
        if approve:
            for rel, text in proposal.logs.items():
                current = tx.files.get(rel)
                if current is None and (team.root / rel).is_file():
                    current = (team.root / rel).read_text(encoding="utf-8")
                day = rel.rsplit("/", 1)[-1].removesuffix(".md")
                merged = current
                for task, line in logs.lines_by_task(text):
                    if line in proposal.evidence:
                        merged = logs.with_message_line(merged, day=day, task=task, line=line)
                if merged is not None and merged != current:
                    tx.write_file(rel, merged)
            prior = set(tx.view)
            landed = place_copy(
                tx,
                proposal.memory.with_changes(path=""),
                proposal.private_record,
                reason=reason,
                request=proposal.id,
                decision=decision_id,
                contributor=proposal.by,
            )
            if landed not in prior:
                created.append({"store": str(team.root), "id": landed})
        tx.write_file(
            f"{PROPOSAL_DIR}/{proposal.id}.json",
            closed_json(
                request_id=proposal.id,
                approved=approve,
                decision=decision_id,
                actor=actor,
                reason=reason,
                by=proposal.by,
            ),
        )
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="promotion",
            option="approve" if approve else "reject",
            actor=actor,
            reason=reason,
            request=proposal.id,
            created=created,
            note=f"proposal {proposal.ref} by {proposal.by} (commit {proposal.tip[:10]})",
        )
        decision = record_decision(tx, decision, details={"proposal": proposal.tip})
    if approve and not session.dry_run and session.shared is None:
        # the proposal's branch joins main's history: a forge shows its pull request merged
        gitstore.adopt_as_merge(team.root, proposal.tip, actor=actor, when=team.now())
    return decision
