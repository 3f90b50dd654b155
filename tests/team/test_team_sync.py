"""Team memory over a real bare remote: clone, sync, concurrent decisions."""

from __future__ import annotations

import collections
import os
from pathlib import Path

from support_team import (
    ALICE,
    BOB,
    decide_conflict,
    event_lines,
    git,
    make_team,
    statuses,
    sync,
    tree,
)

from core.review.queue import build_queue
from core.store.decisions import last_decision_for
from core.store.workspace import Workspace


def test_init_and_clone_share_one_history(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    assert git(team.remote, "rev-parse", "main") == git(team.alice.root, "rev-parse", "HEAD")
    assert tree(team.bob.root) == tree(team.alice.root)
    hook = team.bob.root / ".git" / "hooks" / "pre-push"
    assert os.access(hook, os.X_OK) and "check-push" in hook.read_text()
    assert len(build_queue(Workspace([team.bob]), kinds=["conflict"])) == 4


def test_two_maintainers_decide_different_items_offline(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    a = decide_conflict(team.alice, 0, "newer", ALICE)
    b = decide_conflict(team.bob, 1, "older", BOB)
    first = sync(team.alice, ALICE)
    assert first.pushed == 1 and first.integration.kind == "ahead"
    second = sync(team.bob, BOB)
    assert second.integration.kind == "merge" and not second.integration.undone
    third = sync(team.alice, ALICE)
    assert third.integration.kind == "fast-forward"
    assert tree(team.alice.root) == tree(team.bob.root)
    for store in (team.alice, team.bob):
        ids = [e["id"] for e in event_lines(store.root)]
        assert len(ids) == len(set(ids)), "an event twice"
        decided = [e for e in event_lines(store.root) if e["action"] == "decide"]
        assert {e["decision"] for e in decided} == {a, b}
        left = build_queue(Workspace([store]), kinds=["conflict"])
        assert len(left) == 2
        assert statuses(store)["deploy-0-1"] == "active"
        assert statuses(store)["deploy-0-0"] == "superseded"
        assert statuses(store)["deploy-1-0"] == "active"
        assert statuses(store)["deploy-1-1"] == "superseded"
        assert git(store.root, "status", "--porcelain") == ""
        assert (
            b"<<<<<<<" not in git(store.root, "grep", "-I", "-c", "<<<<<<<", check=False).encode()
        )


def test_the_same_item_decided_twice_lands_once(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    a = decide_conflict(team.alice, 0, "newer", ALICE)
    b = decide_conflict(team.bob, 0, "older", BOB)
    sync(team.alice, ALICE)
    report = sync(team.bob, BOB)
    (undone,) = report.integration.undone
    assert undone.decision == b and undone.winner is not None
    assert undone.winner.actor == ALICE and undone.winner.option == "newer"
    assert "already decided by alice@example.com (newer" in report.render()
    assert statuses(team.bob)["deploy-0-1"] == "active"  # Alice's "newer" holds
    assert statuses(team.bob)["deploy-0-0"] == "superseded"
    events = event_lines(team.bob.root)
    assert not [e for e in events if e.get("decision") == b and e["action"] != "sync-undone"]
    (note,) = [e for e in events if e["action"] == "sync-undone"]
    assert note["actor"] == BOB and note["details"]["first"]["decision"] == a
    assert not (team.bob.root / "decisions" / f"{b}.json").exists()
    ws = Workspace([team.bob])
    assert last_decision_for(ws.stores, undone.item).id == a
    sync(team.alice, ALICE)
    assert tree(team.alice.root) == tree(team.bob.root)
    counts = collections.Counter(e["id"] for e in event_lines(team.alice.root))
    assert max(counts.values()) == 1


def test_an_erasure_reaches_every_clone_and_says_what_history_keeps(tmp_path: Path) -> None:
    from core.reports.doctor import diagnose

    team = make_team(tmp_path)
    decide_conflict(team.alice, 0, "neither", ALICE)  # erase both records
    sync(team.alice, ALICE)
    report = sync(team.bob, BOB)
    assert report.erased_here == ["deploy-0-0", "deploy-0-1"]
    assert "this clone's own git history" in report.render()
    assert "deploy-0-0" not in statuses(team.bob)
    tracked = git(team.bob.root, "grep", "-c", "Service 0 deploys", check=False)
    assert tracked == ""  # gone from every file of the working tree
    assert "Service 0 deploys" in git(team.bob.root, "log", "-p", "--all")  # history keeps it
    (warning,) = [f for f in diagnose(team.bob) if "still holds" in f.reason]
    assert "deploy-0-0" in warning.reason and warning.severity == "warning"
