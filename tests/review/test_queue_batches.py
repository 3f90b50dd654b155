"""The queue never leads into a silent loss of a pending consolidation batch: each
item says what its actions would do to a batch of its store (``Item.discards``), and
a batch comes before the first item whose first action would lose it. What the queue
says is what the decisions' previews say (core.review.consequences)."""

from __future__ import annotations

from pathlib import Path

from support_desk import OWNER, workspace

from core.review.decide import decide, preview
from core.review.items import Kind
from core.review.queue import build_queue, outline_queue

#: each action of the demo's items that touches records, as a decision takes it
CHOICES = {
    "conflict": {
        "newer": {"approve": True, "option": "newer"},
        "older": {"approve": True, "option": "older"},
        "neither": {"approve": True, "option": "neither"},
    },
    "secret": {
        "erase": {"approve": True, "option": "erase"},
        "correct": {"approve": True, "option": "correct", "content": "CI reads its token."},
    },
    "deletion": {"approve": {"approve": True}, "reject": {"approve": False}},
    "stale": {
        "expire": {"approve": True, "option": "expire"},
        "correct": {"approve": True, "option": "correct", "content": "The freeze is off."},
        "keep": {"approve": False},
    },
}


def test_what_the_queue_says_of_a_batch_is_what_each_decision_would_do(demo: Path) -> None:
    ws = workspace(demo)
    items = build_queue(ws)
    [batch] = [i for i in items if i.kind == Kind.CONSOLIDATION]
    checked = 0
    for item in items:
        for action, choice in CHOICES.get(str(item.kind), {}).items():
            if item.store.root != batch.store.root:
                continue
            shown = preview(ws, item.id, actor=OWNER, reason="r", **choice)  # type: ignore[arg-type]
            found = {
                ("discarded" if c.kind == "batch-discarded" else "stale", c.subject)
                for c in shown.consequences
                if c.kind in ("batch-discarded", "batch-stale")
            }
            said = {(loss.effect, loss.batch) for loss in item.discards if action in loss.actions}
            assert said == found, (item.id, action)
            checked += bool(found)
    assert checked >= 5  # the secret's two, the deletion, the stale report's three


def test_the_batch_comes_before_the_first_item_that_would_lose_it(demo: Path) -> None:
    items = build_queue(workspace(demo))
    ids = [i.id for i in items]
    batch = next(i for i in items if i.kind == Kind.CONSOLIDATION)
    losing = [i for i in items if any(d.batch == batch.id for d in i.discards)]
    assert {i.kind for i in losing} == {"conflict", "secret", "deletion", "stale"}
    first_losing = next(i for i in items if i.kind == "secret")
    assert ids.index(batch.id) == ids.index(first_losing.id) - 1
    # every other item keeps its place, oldest first
    others = [i for i in items if i.id != batch.id]
    assert [i.opened_at for i in others] == sorted(i.opened_at for i in others)
    # the outline the desk shows first (no secret read yet) has it before the deletion
    outline = [i.id for i in outline_queue(workspace(demo))]
    deletion = next(i.id for i in items if i.kind == "deletion")
    assert outline.index(batch.id) == outline.index(deletion) - 1
    # once the batch is decided, nothing says it loses one
    decide(workspace(demo), batch.id, approve=True, actor=OWNER, reason="looked at it")
    assert all(not i.discards for i in build_queue(workspace(demo)))


def test_with_no_batch_the_queue_is_oldest_first(demo: Path) -> None:
    batch = next(i for i in build_queue(workspace(demo)) if i.kind == Kind.CONSOLIDATION)
    decide(workspace(demo), batch.id, approve=False, actor=OWNER, reason="not now")
    items = build_queue(workspace(demo))
    assert [i.opened_at for i in items] == sorted(i.opened_at for i in items)
