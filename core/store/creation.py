"""Creating a store: the defaults a new store gets from who creates it.

The contract: a private store created with no owner is owned by its creator (a
private store with no owner would refuse every decision); a team store needs at
least one maintainer, named (who decides for a team is not guessed from who
typed the command), and nothing is created without one; a team store's owner
stays as given. Everything else is :meth:`Store.init`'s.
"""

from __future__ import annotations

from pathlib import Path

from core.domain.errors import ValidationError
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
    signers: tuple[str, ...] = (),
) -> Store:
    if owner is None and scope == "private":
        owner = actor
    if scope == "team" and not any(m.strip() for m in maintainers):
        raise ValidationError(
            "a team store needs at least one maintainer: only maintainers decide its items",
            field="maintainers",
            where=str(root),
            hint="memgov init --scope team --maintainer EMAIL (repeat for each)",
        )
    return Store.init(
        root,
        scope=scope,
        owner=owner,
        maintainers=maintainers,
        team_store=team_store,
        signers=signers,
        actor=actor,
        clock=clock,
    )
