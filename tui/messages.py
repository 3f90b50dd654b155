"""Messages the desk posts: small, named for what happened.

The store messages go from the app to each screen (they do not bubble back):
:class:`StoresChanged` after any change, :class:`QueueLoaded` when the queue was
read again, and :class:`WorkerDone` carries a worker's result to the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from core.review.items import Item
from core.store.decisions import Decision


class StoresChanged(Message, bubble=False):
    """Something was written: a screen that shows store data reads it again."""


class QueueLoaded(Message, bubble=False):
    def __init__(self, items: list[Item]) -> None:
        super().__init__()
        self.items = items


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


class DecisionFailed(Message):
    def __init__(self, error: str, label: str) -> None:
        super().__init__()
        self.error = error
        self.label = label
