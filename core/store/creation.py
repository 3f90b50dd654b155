"""Creating a store: the defaults a new store gets from who creates it.

The contract: a private store created with no owner is owned by its creator (a
private store with no owner would refuse every decision); a team store's owner
stays as given. Everything else is :meth:`Store.init`'s.
"""

from __future__ import annotations

from pathlib import Path

from core.store.store import Clock, Store


def create_store(
    root: Path | str,
    *,
    scope: str,
    owner: str | None,
    maintainers: tuple[str, ...],
    team_store: str | None,
    actor: str,
    clock: Clock | None = None,
) -> Store:
    if owner is None and scope == "private":
        owner = actor
    return Store.init(
        root,
        scope=scope,
        owner=owner,
        maintainers=maintainers,
        team_store=team_store,
        actor=actor,
        clock=clock,
    )
