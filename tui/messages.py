"""Messages the desk posts: small, named for what happened."""

from __future__ import annotations

from textual.message import Message

from core.review.items import Item
from core.store.decisions import Decision


class QueueLoaded(Message):
    def __init__(self, items: list[Item]) -> None:
        super().__init__()
        self.items = items


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
