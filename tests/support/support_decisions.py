"""Shared by the decision tests (``test_decisions*.py``): the demo's two stores and
items, and the checks every decision must pass on the stores as a whole.

Each path is driven through :func:`core.review.decide.decide` or the CLI on a copy
of the demo (a private store and a team store, each its own git repository), or on a
small store built for the case; after each one the stores are checked: the files, the
index, the events, git and ``memgov doctor``.

``unchanged`` remembers stores and says later that nothing changed; ``assert_clean``
says files, index, events and git agree; ``assert_recorded`` checks a decision's
record, events and commit; ``all_text`` is everything readable in a store.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import events, git, git_bytes, head, tree_state
from support_desk import doctor_errors, workspace

from core.review.items import Item
from core.review.queue import build_queue
from core.store.decisions import Decision
from core.store.gitstore import actor_identity
from core.store.store import Store

STRANGER = "dev@example.com"  # neither owner nor maintainer

DECISION_KEYS = {
    "id", "item", "kind", "option", "actor", "reason", "ts", "store", "before", "after",
    "created", "touched", "request", "erased", "reverted_by", "note", "revertible",
    "consequences",
}  # fmt: skip
#: what ``--json`` shows of a decision and its file does not keep (derived, or known only
#: as the decision is made: what else it changed)
NOT_SAVED = {"revertible", "consequences"}


def stores(path: Path) -> tuple[Store, Store]:
    ws = workspace(path)
    assert ws.private is not None and ws.team is not None
    return ws.private, ws.team


def the_item(path: Path, kind: str, **where: Any) -> Item:
    found = [
        i
        for i in build_queue(workspace(path), kinds=[kind])
        if all(
            getattr(i, k) == v if k != "attribute" else i.records[0].memory.attribute == v
            for k, v in where.items()
        )
    ]
    assert len(found) == 1, found
    return found[0]


def is_ancestor(root: Path, sha: str) -> bool:
    result = subprocess.run(["git", "merge-base", "--is-ancestor", sha, "HEAD"], cwd=root)
    return result.returncode == 0


def unchanged(*roots: Path) -> Callable[[], None]:
    """Remember each store's HEAD and files; the returned check says nothing changed."""
    saved = [(root, head(root), tree_state(root)) for root in roots]

    def check() -> None:
        for root, sha, files in saved:
            assert head(root) == sha, f"{root.name}: a commit was made"
            assert tree_state(root) == files, f"{root.name}: files changed"

    return check


def fronts(root: Path) -> dict[str, dict[str, Any]]:
    """The front matter and body of every record, read afresh from the files."""
    memories = Store(root).memories
    return {i: {**m.front_matter(), "body": m.content} for i, m in memories.items()}


def index_targets(root: Path) -> list[str]:
    text = (root / "MEMORY.md").read_text(encoding="utf-8")
    return [line.split("](", 1)[1].split(")", 1)[0] for line in text.splitlines() if "](" in line]


def assert_clean(path: Path) -> None:
    """Files, index, events and git agree: doctor finds no error, git status is clean."""
    errors = doctor_errors(path)
    assert errors == [], errors
    for store in workspace(path).stores:
        assert git(store.root, "status", "--porcelain") == "", store.root.name
        active = sorted(m.path for m in store.memories.values() if m.status == "active")
        assert sorted(index_targets(store.root)) == active


def assert_recorded(
    root: Path, decision: Decision, *, actor: str, reason: str, item: str, first_event: int
) -> list[dict[str, Any]]:
    """The decision's record, its events and its commit; returns its events."""
    saved = json.loads((root / f"decisions/{decision.id}.json").read_text(encoding="utf-8"))
    assert set(saved) == DECISION_KEYS - NOT_SAVED
    assert saved == {k: v for k, v in decision.to_dict().items() if k not in NOT_SAVED}
    assert (saved["actor"], saved["reason"], saved["item"]) == (actor, reason, item)
    new = events(root)[first_event:]
    assert new and all(e["actor"] == actor for e in new)
    # every event about a record names the decision (an erasure that discards a pending
    # consolidation batch adds one event about the batch, not about a record)
    assert [e for e in new if e["memory_ids"] and e.get("decision") != decision.id] == []
    new = [e for e in new if e["memory_ids"]]
    last = new[-1]
    assert (last["action"], last["reason"]) == ("decide", reason)
    undone = (
        {"reverts": decision.note.removeprefix("reverts ")} if decision.option == "revert" else {}
    )
    assert last["details"] == {
        "item": item,
        "kind": decision.kind,
        "option": decision.option,
        **undone,
    }
    assert git(root, "log", "-1", "--format=%ae").strip() == actor_identity(actor)[1]
    message = git(root, "log", "-1", "--format=%B")
    assert all(e["id"] in message for e in new[:20])
    return new


def transitions(new_events: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return [(e["memory_ids"][0], e["from"], e["to"]) for e in new_events if e["to"]]


def all_text(root: Path) -> bytes:
    """Everything readable in a store: its files, every commit's diff, and (a private
    store) every object git holds, reachable or not."""
    files = b"\n".join(
        p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    )
    history = git_bytes(root, "log", "-p", "--all", "--format=%H %B")
    objects = git_bytes(root, "cat-file", "--batch-all-objects", "--batch")
    return b"\n".join((files, history, objects))
