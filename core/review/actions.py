"""What an actor may do with one review item, and why not: before walking through it.

:func:`actions_for` lists every action of an item's kind, each with ``refused``:
None when the actor may take it, else why not, in words. It asks the rules the
decision itself checks (core.review.authority, the kind's module), so what the desk
disables at an item and what ``memgov show`` lists are what ``decide`` would refuse,
found before the person walks through the decision. (A decision still checks
everything again under the locks: a list made earlier may be out of date.)

The actions are named as the core names the options: a conflict's ``newer``,
``older``, ``parallel``, ``neither`` and ``defer``; a promotion's ``approve``,
``reject``, ``withdraw`` and ``rerequest``; a deletion's ``approve`` and ``reject``;
a secret's ``erase``, ``correct`` and ``defer``; a batch's ``approve`` and ``reject``;
a stale report's ``expire``, ``correct`` and ``keep``. Each kind lists its own, and
says which apply to an item and what of the item refuses one (core.review.kinds).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.domain.data import AsData
from core.domain.errors import AuthorizationError
from core.review.authority import check_may_close_request, check_may_decide
from core.review.items import Item
from core.review.kinds import review_kind
from core.store.workspace import Workspace


@dataclass(frozen=True)
class Action(AsData):
    """One thing the actor may do with an item, or why not (``refused``)."""

    name: str
    refused: str | None = None

    DATA_PROPERTIES = ("allowed",)

    @property
    def allowed(self) -> bool:
        return self.refused is None


def actions_for(item: Item, actor: str, workspace: Workspace) -> tuple[Action, ...]:
    """Each action of ``item``'s kind that applies to it, allowed or refused with the
    reason."""
    kind = review_kind(item.kind)
    decider = _refusal(lambda: check_may_decide(item, actor, workspace))
    out = []
    for name in kind.actions:
        if not kind.applies(item, name):
            continue
        if kind.closes_request(name):
            refused = _refusal(lambda: check_may_close_request(item, actor))
        else:
            refused = decider
        out.append(Action(name, refused or kind.why_not(item, name, workspace)))
    return tuple(out)


def allowed(actions: tuple[Action, ...], name: str) -> bool:
    return any(a.name == name and a.allowed for a in actions)


def _refusal(check: Callable[[], None]) -> str | None:
    try:
        check()
    except AuthorizationError as exc:
        return str(exc)
    return None
