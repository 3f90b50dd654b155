"""The view of each kind of item: :data:`SCREENS` and :func:`screen_for`.

Every view is an :class:`~tui.screens.item.ItemScreen`: the evidence side by side,
one keystroke per outcome, a reason asked for each decision (prefilled; enter
accepts), what it will change shown first, and ``u`` to undo it afterwards.
"""

from __future__ import annotations

from core.api.review import Item
from tui.screens.batch import BatchScreen
from tui.screens.conflict import ConflictScreen
from tui.screens.deletion import DeletionScreen
from tui.screens.held import HeldScreen
from tui.screens.item import ItemScreen
from tui.screens.promotion import PromotionScreen
from tui.screens.quarantine import QuarantineScreen
from tui.screens.secret import SecretScreen
from tui.screens.stale import StaleScreen
from tui.screens.untrusted import UntrustedScreen

#: the view of each kind of item, by the kind each declares (a test checks that every
#: kind of the queue has one)
SCREENS: dict[str, type[ItemScreen]] = {
    view.KIND: view
    for view in (
        ConflictScreen,
        PromotionScreen,
        DeletionScreen,
        BatchScreen,
        SecretScreen,
        StaleScreen,
        HeldScreen,
        QuarantineScreen,
        UntrustedScreen,
    )
    if view.KIND is not None
}


def screen_for(item: Item) -> ItemScreen:
    """The view of one queue item, by its kind; a kind no view declares is an error."""
    view = SCREENS.get(item.kind)
    if view is None:
        raise LookupError(f"no desk view shows a {item.kind} item ({item.id})")
    return view(item)
