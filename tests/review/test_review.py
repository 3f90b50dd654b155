"""The review layer's own contracts: one item built alone is the item the queue
shows, a preview is what the decision then does and writes nothing, and the
typed items turn into plain data one way.

The rules of each decision kind are tested in ``test_decisions.py``."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support_desk import workspace

from core.demo import OWNER
from core.domain.data import AsData, shown_as, to_data
from core.domain.errors import AlreadyDecided, AuthorizationError, NotFoundError, ValidationError
from core.review.decide import decide, preview
from core.review.items import KINDS, Kind
from core.review.labels import workspace_label_items
from core.review.queue import build_queue, get_item
from core.store.events import FIRST_SHARD

#: a way to decide each kind of demo item
CHOICES: dict[str, dict[str, Any]] = {
    Kind.CONFLICT: {"approve": True, "option": "newer"},
    Kind.PROMOTION: {"approve": False},
    Kind.DELETION: {"approve": True},
    Kind.CONSOLIDATION: {"approve": False},
    Kind.SECRET: {"approve": True, "option": "erase"},
    Kind.STALE: {"approve": True, "option": "expire"},
    Kind.HELD: {"approve": True, "option": "redact"},
    Kind.QUARANTINE: {"approve": True, "option": "release"},
    Kind.LABEL: {"approve": True, "option": "confirm"},  # the oldest sample: a repeat
}


def every_item(ws: Any) -> list[Any]:
    """The queue and the measures' samples (label items, drawn apart from the queue)."""
    return build_queue(ws) + workspace_label_items(ws)


def snapshot(root: Path) -> tuple[str, dict[str, bytes]]:
    """HEAD and every file of the working tree (git's own folder aside)."""
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
    files = {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
    return head, files


def stores_of(demo: Path) -> list[Path]:
    return [s.root for s in workspace(demo).stores]


#: the kinds the demo shows: an untrusted change needs a team remote and signing keys
#: (tests/team/test_team_untrusted.py builds its items, shows and decides them)
DEMO_KINDS = [k for k in Kind if k is not Kind.UNTRUSTED]


def test_get_item_builds_the_item_the_queue_shows(demo: Path) -> None:
    ws = workspace(demo)
    queue = every_item(ws)
    assert {i.kind for i in build_queue(ws)} == set(KINDS) - {Kind.UNTRUSTED}
    assert {i.kind for i in queue} == set(DEMO_KINDS)
    for item in queue:
        # (but what deciding it would do to a batch: the queue's reading of the items
        # together, Item.discards, which an item built alone has no batch to read)
        assert get_item(workspace(demo), item.id).to_dict() == {**item.to_dict(), "discards": []}


def test_get_item_of_an_id_no_store_has_open_is_not_found(demo: Path) -> None:
    for missing in ("conflict-0000000000", "promote-20260101-abcdef", "secret-nope", "batch-x"):
        with pytest.raises(NotFoundError):
            get_item(workspace(demo), missing)


@pytest.mark.parametrize("kind", DEMO_KINDS)
def test_a_preview_writes_nothing_and_says_what_the_decision_does(demo: Path, kind: str) -> None:
    item = next(i for i in every_item(workspace(demo)) if i.kind == kind)
    before = {root: snapshot(root) for root in stores_of(demo)}
    shown = preview(workspace(demo), item.id, actor=OWNER, **CHOICES[kind])
    assert {root: snapshot(root) for root in stores_of(demo)} == before
    assert shown.item == item.id and shown.kind == kind
    decision = decide(workspace(demo), item.id, actor=OWNER, **CHOICES[kind])
    assert decision.option == shown.option
    if kind == Kind.CONSOLIDATION:
        return  # a batch's preview is its selection: approved and rejected changes
    done = {
        (e["memory_ids"][0], e["from"], e["to"], e["action"])
        for root in stores_of(demo)
        for e in map(json.loads, (root / FIRST_SHARD).read_text().splitlines())
        if e.get("decision") == decision.id and (e["from"] or e["to"])
    }
    said = {(t.memory_id, t.before, t.after, t.action) for s in shown.stores for t in s.transitions}
    assert said == done


def test_the_preview_of_an_erasure_names_the_pending_batch_it_discards(demo: Path) -> None:
    ws = workspace(demo)
    batch = next(i for i in build_queue(ws) if i.kind == Kind.CONSOLIDATION)
    deletion = next(i for i in build_queue(ws) if i.kind == Kind.DELETION)
    shown = preview(ws, deletion.id, approve=True, actor=OWNER)
    assert shown.discards == (batch.id,)
    assert any(batch.id in line and "discarded" in line for line in shown.lines())
    assert [m for s in shown.stores for m in s.erased] == [deletion.records[0].memory.id]


def test_a_preview_refuses_what_the_decision_refuses(demo: Path) -> None:
    conflict = next(i for i in build_queue(workspace(demo)) if i.kind == Kind.CONFLICT)
    with pytest.raises(AuthorizationError):
        preview(workspace(demo), conflict.id, approve=True, option="newer", actor="mallory")
    with pytest.raises(ValidationError) as caught:
        preview(workspace(demo), conflict.id, approve=True, option=None, actor=OWNER)
    assert caught.value.field == "option"


def test_a_preview_of_a_decided_item_says_who_decided_it(demo: Path) -> None:
    conflict = next(i for i in build_queue(workspace(demo)) if i.kind == Kind.CONFLICT)
    done = decide(workspace(demo), conflict.id, approve=True, option="older", actor=OWNER)
    with pytest.raises(AlreadyDecided) as caught:
        preview(workspace(demo), conflict.id, approve=True, option="newer", actor=OWNER)
    assert done.id in str(caught.value)


# --------------------------------------------------------------------- to_data
@dataclass(frozen=True)
class Inner(AsData):
    when: Any
    kind: Kind


@dataclass(frozen=True)
class Outer(AsData):
    name: str
    inner: Inner = field(metadata=shown_as(flatten=True))
    hidden: str = field(default="x", metadata=shown_as(skip=True))
    renamed: tuple[int, ...] = field(default=(1, 2), metadata=shown_as(key="numbers"))
    path: Path = field(default=Path("/a/b"), metadata=shown_as(convert=lambda p: p.name))

    DATA_PROPERTIES = ("shout",)

    @property
    def shout(self) -> str:
        return self.name.upper()


def test_to_data_shows_a_dataclass_as_its_fields_say() -> None:
    from datetime import date

    data = Outer("memo", Inner(date(2026, 12, 1), Kind.SECRET)).to_dict()
    assert data == {
        "name": "memo",
        "when": "2026-12-01",
        "kind": "secret",
        "numbers": [1, 2],
        "path": "b",
        "shout": "MEMO",
    }
    assert json.loads(json.dumps(data)) == data


def test_to_data_refuses_what_it_cannot_show() -> None:
    with pytest.raises(TypeError):
        to_data(object())
