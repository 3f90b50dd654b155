"""A private store of open conflicts, one key a pair: what the tests of the queue's
window, of decision lists and of the desk's selection decide."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from core.domain.record import Memory, Source
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import open_workspace
from tui.app import MemgovDesk

OWNER = "owner@example.com"
START = datetime(2026, 6, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))


class Clock:
    def __init__(self) -> None:
        self.now = START + timedelta(days=10)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def memory(i: int, side: int, value: str) -> Memory:
    """Side 0 (older) or 1 (newer) of conflict ``i``: ``tool-<i>-<side>``, key
    ``project:p<i>`` ``#tool_<i>``."""
    when = START + timedelta(hours=i, minutes=side)
    return Memory(
        id=f"tool-{i:04d}-{side}",
        type="semantic",
        scope="private",
        status="conflict",
        subject=f"project:p{i:02d}",
        attribute=f"tool_{i}",
        content=f"The tool {i} is {value}.",
        value=value,
        confidence=0.8,
        created_at=when,
        verified_at=when,
        source=Source(task=f"tr_{i:04d}", message_index=1, evidence=f"we use {value}"),
    )


def conflict_store(
    root: Path, count: int, values: Callable[[int], tuple[str, str]] = lambda i: ("npm", "pnpm")
) -> Path:
    """A private store at ``root`` with ``count`` open conflicts, made in one commit."""
    store = Store.init(root, owner=OWNER, actor=OWNER, clock=Clock())
    with transaction(store, actor=OWNER, message="test: conflicts") as tx:
        for i in range(count):
            for side, value in enumerate(values(i)):
                tx.create(memory(i, side, value), action="conflict", reason="test")
    return root


def conflict_desk(root: Path) -> MemgovDesk:
    """The desk on such a store, acting as its owner, with a clock of its own."""
    return MemgovDesk(open_workspace([root], clock=Clock()), actor=OWNER, cursor_blink=False)
