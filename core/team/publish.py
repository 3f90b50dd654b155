"""A contributor's side of proposals: open promotion requests out, decisions back in.

A contributor is anyone who is not a maintainer of the team store. Their team
writes are promotion requests in their private store (``memgov request-promote``, or
an agent's team memory held through MCP). At sync (:func:`publish`):

- each open request not yet on the remote becomes a proposal branch
  (:mod:`core.store.proposals`): one commit on top of the remote's main that adds
  the team record approval would write, the quoted log lines its sources point at,
  and the proposal file. The record is scanned before anything is built (a hit
  stops that proposal and says so) and the branch is scanned again before it is
  pushed, like every push (:mod:`core.team.guard`);
- each request whose proposal a maintainer decided (``proposals/<id>.json`` on the
  team's main) is closed in the private store with the maintainer's decision, name
  and reason, as one recorded change;
- a request withdrawn since it was proposed has its branch deleted on the remote.

A maintainer's sync deletes the branches of proposals decided on main
(:func:`closed_branches`), in the same atomic push as main.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.domain import policy
from core.domain.data import AsData
from core.review.promotion import (
    blocked_what,
    carried_sources,
    promotion_texts,
    team_copy,
    unshareable_rules,
)
from core.store import gitstore
from core.store.layout import memory_path
from core.store.proposals import (
    BRANCH_PREFIX,
    PROPOSAL_DIR,
    closed_proposal,
    proposal_json,
    proposal_refs,
)
from core.store.requests import Request, open_requests
from core.store.store import Store
from core.store.transaction import transaction
from core.team import guard, remote


@dataclass
class Published(AsData):
    """What a contributor's sync did with their promotion requests."""

    proposed: list[str] = field(default_factory=list)  # request ids pushed as branches
    closed: list[str] = field(default_factory=list)  # requests a maintainer decided
    withdrawn: list[str] = field(default_factory=list)  # branches deleted
    held_back: list[str] = field(default_factory=list)  # why a request was not proposed

    def lines(self) -> list[str]:
        out = [f"proposed for review: {rid} (branch {BRANCH_PREFIX}{rid})" for rid in self.proposed]
        out += [f"closed by a maintainer: {rid}" for rid in self.closed]
        out += [f"withdrawn: {rid} (its branch deleted)" for rid in self.withdrawn]
        return out + self.held_back


def closed_branches(team: Store) -> list[str]:
    """The delete refspecs of proposal branches a decision on main closed."""
    return [
        f":refs/heads/{BRANCH_PREFIX}{pid}"
        for pid, _tip in proposal_refs(team.root)
        if closed_proposal(team.root, pid) is not None
    ]


def close_decided(team: Store, private: Store, *, actor: str, done: Published) -> None:
    """Close each open promotion request whose proposal a maintainer decided."""
    decided = []
    for request in open_requests(private, kind="promote"):
        closed = closed_proposal(team.root, request.id)
        if closed is not None:
            decided.append((request, closed))
    if not decided:
        return
    with transaction(private, actor=actor, message="sync: proposals decided") as tx:
        for request, closed in decided:
            approved = closed["status"] == "approved"
            tx.write_file(
                request.path,
                request.decided(
                    approved,
                    decision=closed["decision"],
                    actor=closed["decided_by"],
                    reason=closed["reason"],
                ).to_yaml(),
            )
            tx.event(
                "proposal-closed",
                (request.memory_id,),
                reason=closed["reason"],
                request=request.id,
                details={
                    "status": closed["status"],
                    "decided_by": closed["decided_by"],
                    "team_decision": closed["decision"],
                    "team_store": str(team.root),
                },
            )
            done.closed.append(request.id)


def publish(team: Store, private: Store, *, actor: str, url: str) -> Published:
    """Push the contributor's open promotion requests as proposal branches, close the
    decided ones, delete the withdrawn ones' branches. Caller holds the team's lock."""
    done = Published()
    close_decided(team, private, actor=actor, done=done)
    if policy.is_maintainer(team, actor):
        return done  # a maintainer's promotion is decided here, not proposed
    main = remote.tracking(team.root)
    if main is None:
        return done
    on_remote = dict(proposal_refs(team.root))
    requests = {r.id: r for r in open_requests(private, kind="promote")}
    refspecs: list[str] = []
    for pid, _tip in on_remote.items():
        if pid not in requests and _mine(private, pid) and closed_proposal(team.root, pid) is None:
            refspecs.append(f":refs/heads/{BRANCH_PREFIX}{pid}")
            done.withdrawn.append(pid)
    for request in requests.values():
        if request.id in on_remote:
            continue
        memory = private.memories.get(request.memory_id)
        if memory is None or memory.status != "active":
            continue
        rules = unshareable_rules(promotion_texts(memory))
        if rules:
            done.held_back.append(
                f"not proposed: {request.id}: {memory.id}: {blocked_what(rules)}; correct it "
                "and sync again"
            )
            continue
        sha = _build(team, private, request, main, actor=actor)
        guard.check_push(team.root, sha, None)
        refspecs.append(f"{sha}:refs/heads/{BRANCH_PREFIX}{request.id}")
        done.proposed.append(request.id)
    if refspecs:
        rows = remote.push(team.root, refspecs, url=url)
        if any(row.rejected for row in rows):
            done.held_back.append("the remote refused the proposal branches; sync again")
            done.proposed.clear()
            done.withdrawn.clear()
    return done


def _mine(private: Store, pid: str) -> bool:
    """Whether ``pid`` is a request of this private store (closed since: withdrawn)."""
    return (private.root / "requests" / f"{pid}.yaml").is_file()


def _build(team: Store, private: Store, request: Request, main: str, *, actor: str) -> str:
    """The proposal's commit on top of the remote's main, written with plumbing (the
    clone's branch and working tree are not touched)."""
    memory = private.memories[request.memory_id]
    rid = request.id
    now = team.now()

    def at_main(rel: str) -> str | None:
        data = gitstore.read_blobs(team.root, [f"{main}:{rel}"])[f"{main}:{rel}"]
        return data.decode("utf-8") if data is not None else None

    sources, logs = carried_sources(private, memory.all_sources, at_main)
    copy = team_copy(memory, sources, now)
    files: dict[str, bytes | None] = {rel: text.encode() for rel, text in logs.items()}
    files[memory_path(copy.id)] = copy.to_markdown().encode()
    files[f"{PROPOSAL_DIR}/{rid}.json"] = proposal_json(
        request_id=rid,
        by=request.requested_by,
        reason=request.reason,
        requested_at=request.requested_at,
        private_record=memory.id,
        record=copy.id,
    )
    ref = f"refs/memgov/outgoing/{rid}"
    if gitstore.resolve(team.root, ref) is not None:
        gitstore.delete_ref(team.root, ref)
    return gitstore.write_commit(
        team.root,
        ref,
        parent=main,
        files=files,
        actor=actor,
        message=f"proposal {rid}: promote {memory.display_title[:80]} (by {request.requested_by})",
        when=now,
    )
