"""Who may decide a review item: the one rule of core.domain.policy, applied to items.

A promotion is decided by the team store's maintainers (it writes there); any
other item by whoever may decide in the item's own store: a team store's
maintainers, a private store's owner (and nobody while it has none). A promotion
request is withdrawn, or asked again for the record that replaced it, by who asked
for it or the private store's owner (:func:`check_may_close_request`).
"""

from __future__ import annotations

from core.domain import policy
from core.domain.errors import AuthorizationError
from core.review.items import Item, Kind
from core.store.store import Store
from core.store.workspace import Workspace

NO_TEAM = (
    "no team store is configured: a promotion needs one "
    "(pass it with --store, or set team_store in the private store's memgov.yaml)"
)


def deciding_store(kind: str, store: Store, workspace: Workspace) -> Store:
    """The store whose people decide an item of ``kind`` opened in ``store``."""
    if kind == Kind.PROMOTION:
        if workspace.team is None:
            raise AuthorizationError(NO_TEAM)
        return workspace.team
    return store


def check_may_decide_on(
    kind: str, store: Store, subject: str, actor: str, workspace: Workspace
) -> None:
    """Refuse (AuthorizationError naming the config and the field) unless ``actor``
    may decide an item of ``kind`` about ``subject`` (an item, a decision to revert,
    a record to correct) opened in ``store``."""
    policy.check_may_decide_in(deciding_store(kind, store, workspace), actor, subject)


def check_may_decide(item: Item, actor: str, workspace: Workspace) -> None:
    """:func:`check_may_decide_on` for a queue item."""
    check_may_decide_on(item.kind, item.store, item.id, actor, workspace)


def may_decide(item: Item, actor: str, workspace: Workspace) -> bool:
    """Whether ``actor`` may decide ``item`` (what the desk's banner says)."""
    try:
        decider = deciding_store(item.kind, item.store, workspace)
    except AuthorizationError:
        return False
    return policy.may_decide(decider, actor)


def check_may_close_request(item: Item, actor: str) -> None:
    """Refuse unless ``actor`` may withdraw ``item``'s request (or ask again for the
    record that replaced its record): who filed it, or the owner of its store."""
    request = item.request
    if request is None:
        raise AuthorizationError(f"{item.id} is no request: there is nothing to withdraw")
    if policy.same_actor(actor, request.requested_by) or policy.is_owner(item.store, actor):
        return
    owner = item.store.config.owner
    raise AuthorizationError(
        f"{policy.shown(actor)} may not withdraw {item.id}: only who asked for it "
        f"({policy.shown(request.requested_by)})"
        + (f" or the store's owner ({policy.shown(owner)})" if owner else "")
        + " may (names and emails match exactly)"
    )
