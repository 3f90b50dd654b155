"""Shared by the consolidation tests (``test_consolidate*.py``): records with a
source in the day's log (``mem``), a message said later (``say``), and the one
pending batch of a store (``item_of``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conftest import FIXED_NOW, FakeClock

from core.domain.record import Memory, Source
from core.review.batch import pending_items
from core.store import logs
from core.store.store import Store

LOG = logs.log_path(FIXED_NOW)
SUBJECT = "user:alice/project:demo"


def src(task: str, index: int = 1, evidence: str = "said so") -> Source:
    return Source(task=task, message_index=index, evidence=evidence, log=LOG)


def mem(
    make_memory: Callable[..., Memory],
    ident: str,
    attribute: str,
    value: str | None,
    content: str,
    **extra: Any,
) -> Memory:
    extra.setdefault("source", src(f"tr_{ident}", 1, content[:30]))
    return make_memory(id=ident, attribute=attribute, value=value, content=content, **extra)


def say(
    store: Store,
    clock: FakeClock,
    text: str,
    *,
    task: str = "tr_new",
    index: int = 1,
    days: float = 1,
) -> None:
    clock.advance(days=days)
    store.log_message(task=task, index=index, role="user", text=text, actor="agent")


def item_of(store: Store) -> Any:
    items = list(pending_items(store))
    assert len(items) == 1
    return items[0]
