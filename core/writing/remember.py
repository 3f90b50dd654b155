"""The team rule for writes into a workspace: who writes where.

A team store is written only by its maintainers (:mod:`core.domain.policy`).
Anyone else's team write is not refused outright when it can become a request:

- :func:`remember_in` (and :func:`remember_many_in`, a list in one commit per
  store): a team candidate from someone who is not a maintainer
  goes through the pipeline into their private store, and when it lands as an
  active record a promotion request is filed for it, for a maintainer to decide;
- :func:`log_in`: their message goes to the private store's daily log; evidence
  for team records arrives with an approved promotion.

With no private store to hold it, the write is refused
(:class:`core.domain.errors.AuthorizationError`) and nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from core.domain import policy
from core.domain.data import AsData
from core.domain.errors import AuthorizationError, StoreError
from core.store.requests import file_request
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.candidate import Candidate
from core.writing.pipeline import Outcome, remember_many


def _target(workspace: Workspace, scope: str) -> Store:
    if not workspace.stores:
        raise StoreError("no store given: pass --store PATH")
    if scope in ("private", "team") and len(workspace.stores) > 1:
        return workspace.for_scope(scope)
    return workspace.stores[0]


def remember_in(
    workspace: Workspace, candidate: Candidate, *, actor: str, hold_team: bool = False
) -> Outcome:
    """:func:`remember` into the workspace's store of the candidate's scope, with the
    team store's authorization (:mod:`core.domain.policy`).

    A team candidate from a maintainer of the team store is written there. From
    anyone else it becomes a request instead of a direct write: the memory goes
    through the pipeline into the actor's private store (scope private), and when
    it lands as an active record a promotion request is filed for it
    (``held_for_review`` is the request id), so a maintainer sees it in the queue
    and decides. A conflict, refusal or empty candidate files no request (the
    reasons say what to do). With no private store to hold it, the write is
    refused (:class:`AuthorizationError`) and nothing is written.

    ``hold_team``: every team candidate is held so, a maintainer's too. An agent
    writing through the MCP server (:mod:`tui.mcp`) never writes the team store
    directly: what it wants the team to know waits for a person's review.
    """
    return remember_many_in(workspace, [candidate], actor=actor, hold_team=hold_team)[0]


def remember_many_in(
    workspace: Workspace,
    candidates: Sequence[Candidate],
    *,
    actor: str,
    hold_team: bool = False,
) -> list[Outcome]:
    """:func:`remember_in` for many candidates: each store of the workspace gets its
    candidates, in order, in one transaction and one commit
    (:func:`core.writing.pipeline.remember_many`); the outcomes are in the candidates'
    order. A team candidate held for review files its promotion request after its
    store's batch. A team candidate that no private store can hold refuses the whole
    list before anything is written."""
    routes = [_route(workspace, c, actor, hold_team) for c in candidates]
    by_store: dict[Path, list[int]] = {}
    for index, (store, _, _) in enumerate(routes):
        by_store.setdefault(store.root, []).append(index)
    outcomes: dict[int, Outcome] = {}
    for indices in by_store.values():
        store = routes[indices[0]][0]
        done = remember_many(store, [routes[i][1] for i in indices], actor=actor)
        for index, outcome in zip(indices, done, strict=True):
            team = routes[index][2]
            outcomes[index] = (
                replace(outcome, store=str(store.root))
                if team is None
                else _held(outcome, team, store, actor, hold_team)
            )
    return [outcomes[i] for i in range(len(routes))]


def _route(
    workspace: Workspace, candidate: Candidate, actor: str, hold_team: bool
) -> tuple[Store, Candidate, Store | None]:
    """The store a candidate goes to, the candidate as written there, and the team
    store it is held for review of (None: a direct write)."""
    store = _target(workspace, candidate.scope)
    if (
        candidate.scope != "team"
        or store.config.scope != "team"
        or (policy.is_maintainer(store, actor) and not hold_team)
    ):
        return store, candidate, None
    private = workspace.private
    if private is None and hold_team:
        raise AuthorizationError(
            f"{store.root}: an agent's team memory is held in the private store as a "
            "promotion request, and no private store was given: start the server with "
            "the private store too (--store PATH, or a folder holding private/ and team/), "
            "or ask a maintainer to write it"
        )
    if private is None:
        policy.check_maintainer(
            store,
            actor,
            "write team memories",
            hint="A team memory from anyone else is held in their private store as a "
            "promotion request, and no private store was given: pass it with --store "
            "(or a folder holding private/ and team/), or ask a maintainer to write it",
        )
        raise AssertionError("check_maintainer refused")  # pragma: no cover
    return private, replace(candidate, scope="private"), store


def _held(outcome: Outcome, team: Store, private: Store, actor: str, hold_team: bool) -> Outcome:
    """A team candidate written into the private store: its promotion request."""
    who = (
        "a team memory from an agent is never written to the team store directly"
        if hold_team
        else f"{policy.shown(actor)} is not a maintainer of the team store ({team.root})"
    )
    why = f"{who}: the memory goes to the private store and waits for a maintainer's review"
    target = outcome.memory_ids[0] if outcome.memory_ids else None
    memory = private.memories.get(target) if target else None
    if outcome.kind not in ("written", "merged") or memory is None or memory.status != "active":
        then = (
            f"; once the conflict {outcome.item} is resolved, ask for the promotion "
            f"with `memgov request-promote ID --reason ...`"
            if outcome.kind in ("conflict", "merged") and outcome.item
            else "; nothing was filed for review"
        )
        return replace(outcome, reasons=(*outcome.reasons, why + then), store=str(private.root))
    request = file_request(
        private,
        kind="promote",
        memory_id=memory.id,
        reason=(
            "a team memory written by an agent: held for review"
            if hold_team
            else "a team memory written by someone who is not a maintainer of the team "
            "store: held for review"
        ),
        actor=actor,
    )
    return replace(
        outcome,
        reasons=(*outcome.reasons, f"{why}: promotion request {request.id}"),
        held_for_review=request.id,
        store=str(private.root),
    )


@dataclass(frozen=True)
class Logged(AsData):
    """Where :func:`log_in` appended a message: the store, the log file and line."""

    store: str
    log: str
    line: int
    note: str | None = None  # why it is not the store that was asked for


def log_store(
    workspace: Workspace, actor: str, *, scope: str | None = None
) -> tuple[Store, str | None]:
    """The store a message of ``actor`` is logged in, and a note when it is not the one
    asked for: the store of ``scope``, or by default the private store when there is
    one, else the only store given; a team store only for its maintainers, anyone
    else's message going to the private store (refused with no private store:
    :class:`AuthorizationError`). ``memgov log`` and a transcript read both ask here."""
    if scope is not None:
        store = workspace.for_scope(scope)
    elif not workspace.stores:
        raise StoreError("no store given: pass --store PATH")
    else:
        store = workspace.private or workspace.stores[0]
    note = None
    if store.config.scope == "team" and not policy.is_maintainer(store, actor):
        private = workspace.private
        if private is None:
            policy.check_maintainer(
                store,
                actor,
                "write to the team store's daily log",
                hint="Evidence for team records arrives with an approved promotion: log "
                "into your private store (pass it with --store) and request the promotion "
                "of what you remember from it",
            )
            raise AssertionError("check_maintainer refused")  # pragma: no cover
        note = (
            f"{policy.shown(actor)} is not a maintainer of the team store ({store.root}): "
            f"logged in the private store; evidence for team records arrives with an "
            f"approved promotion"
        )
        store = private
    return store, note


def log_in(
    workspace: Workspace,
    *,
    task: str,
    index: int,
    role: str,
    text: str,
    actor: str,
    scope: str | None = None,
) -> Logged:
    """Append a message to a daily log of the workspace, with the team's authorization.

    The log goes to the store of ``scope``, or by default to the private store
    when there is one, else to the only store given. A team store's logs are
    written only by its maintainers: evidence for team records arrives with an
    approved promotion (the decision copies the quoted lines). Anyone else's
    message goes to the private store's log when there is one (``note`` says so)
    and is refused otherwise (:class:`AuthorizationError`), nothing written.
    """
    store, note = log_store(workspace, actor, scope=scope)
    rel, line = store.log_message(task=task, index=index, role=role, text=text, actor=actor)
    return Logged(str(store.root), rel, line, note)
