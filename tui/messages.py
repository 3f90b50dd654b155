"""Messages the desk posts: small, named for what happened.

The store messages go from the app to each screen (they do not bubble back):
:class:`StoresChanged` after any change (with the decision, when one made it),
:class:`ItemsChanged` when some items were read again or closed (the rest of the
queue as it was), :class:`QueueLoaded` when the queue was read again (of the
kinds it names), and :class:`WorkerDone` carries a worker's result to the UI
thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from textual.message import Message

from core.api.review import KINDS, Decision, Item


class StoresChanged(Message, bubble=False):
    """Something was written: a screen that shows store data reads it again.
    ``decisions``: the decisions that wrote it, when decisions did (they say what
    changed: one, or a list decided in one commit)."""

    def __init__(self, decisions: Sequence[Decision] = ()) -> None:
        super().__init__()
        self.decisions = tuple(decisions)


class ItemsChanged(Message, bubble=False):
    """These items are now as given, or closed (None); every other item is unchanged."""

    def __init__(self, changed: Mapping[str, Item | None]) -> None:
        super().__init__()
        self.changed = dict(changed)


class QueueLoaded(Message, bubble=False):
    """The queue as read now: every open item of the ``kinds`` read (the others were
    not read yet: an item of those is not closed because it is missing here)."""

    def __init__(self, items: list[Item], kinds: Iterable[str] = KINDS) -> None:
        super().__init__()
        self.items = items
        self.kinds = frozenset(str(k) for k in kinds)


class WorkerDone(Message, bubble=False):
    """A store read or write finished in a worker: ``show`` its result on the UI thread."""

    def __init__(self, show: Callable[[], None]) -> None:
        super().__init__()
        self.show = show


class DecisionApplied(Message):
    def __init__(self, decision: Decision, label: str) -> None:
        super().__init__()
        self.decision = decision
        self.label = label


class DecisionsApplied(Message):
    """A list of decisions landed in one commit (core.review.decide.decide_many)."""

    def __init__(self, decisions: Sequence[Decision], label: str) -> None:
        super().__init__()
        self.decisions = tuple(decisions)
        self.label = label


class DecisionFailed(Message):
    def __init__(self, error: str, label: str) -> None:
        super().__init__()
        self.error = error
        self.label = label


class NextItem(Message, bubble=False):
    """An item view is done with ``after`` and it stays open (deferred: marked as looked
    at): the queue shows the item after it, in the order and filters on screen, and
    opens it (none after it: the queue stays, its cursor on the next row there is)."""

    def __init__(self, after: str) -> None:
        super().__init__()
        self.after = after
