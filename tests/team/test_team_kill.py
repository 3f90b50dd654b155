"""A sync killed with SIGKILL at any moment: the real ``memgov sync`` in its
own process, on real clones of a real bare remote, killed at moments spread over its
run; the next sync finishes the work, and every clone ends whole and equal."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support_team import ALICE, BOB, decide_conflict, event_lines, git, make_team, sync, tree

from core.reports.doctor import diagnose
from core.store.store import Store

KILLS = int(__import__("os").environ.get("MEMGOV_TEST_KILLS", "8"))


def _memgov(store: Path, actor: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "sync", "--store", str(store), "--as", actor],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # a pinned clock: every run writes the same bytes, so the trees compare
        env={**os.environ, "MEMGOV_NOW": "2026-11-20T10:00:00+01:00"},
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Alice decided and pushed; Bob decided two items offline, one of them hers."""
    root = tmp_path_factory.mktemp("kill") / "team"
    root.mkdir()
    team = make_team(root)
    decide_conflict(team.alice, 0, "newer", ALICE)
    sync(team.alice, ALICE)
    decide_conflict(team.bob, 0, "older", BOB)  # the same item: undone at sync
    decide_conflict(team.bob, 1, "older", BOB)
    return root


def _copy(template: Path, target: Path) -> Path:
    shutil.copytree(template, target, symlinks=True)
    for clone in ("alice", "bob"):
        git(target / clone, "remote", "set-url", "origin", str(target / "remote.git"))
    return target


def test_a_killed_sync_is_finished_by_the_next(template: Path, tmp_path: Path) -> None:
    control = _copy(template, tmp_path / "control")
    started = time.monotonic()
    done = _memgov(control / "bob", BOB)
    assert done.wait(60) == 0, done.stderr.read() if done.stderr else ""
    duration = time.monotonic() - started
    expected = tree(control / "bob")
    killed = 0
    for round_ in range(KILLS):
        work = _copy(template, tmp_path / f"round{round_}")
        proc = _memgov(work / "bob", BOB)
        time.sleep(duration * (round_ + 0.5) / KILLS)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait(30)
        again = _memgov(work / "bob", BOB)
        assert again.wait(60) == 0, (round_, again.stderr.read() if again.stderr else "")
        bob = Store(work / "bob")
        assert tree(work / "bob") == expected, round_
        assert git(work / "bob", "status", "--porcelain") == "", round_
        assert not list((work / "bob" / ".git" / "memgov").glob("*journal*")), round_
        assert git(work / "remote.git", "rev-parse", "main") == git(
            work / "bob", "rev-parse", "HEAD"
        )
        ids = [e["id"] for e in event_lines(work / "bob")]
        assert len(ids) == len(set(ids)), round_
        assert [e for e in event_lines(work / "bob") if e["action"] == "sync-undone"], round_
        assert not [f for f in diagnose(bob) if f.severity == "error"], round_
    assert killed >= KILLS // 2, f"only {killed} of {KILLS} runs were killed before they ended"


def test_any_command_after_a_killed_checkout_sees_the_store_whole(tmp_path: Path) -> None:
    """The state a kill leaves between moving the working tree and moving the branch
    (made with the same git commands the sync runs): the next command that opens the
    store puts the working tree back to HEAD before it reads anything."""
    import json

    from core.store.checkout import journal_path

    team = make_team(tmp_path)
    decide_conflict(team.alice, 0, "newer", ALICE)
    sync(team.alice, ALICE)
    bob = team.bob.root
    git(bob, "fetch", "-q", "origin")
    old, new = git(bob, "rev-parse", "HEAD").strip(), git(bob, "rev-parse", "origin/main").strip()
    paths = git(bob, "diff", "--name-only", old, new).split()
    journal_path(bob).write_text(json.dumps({"from": old, "to": new, "paths": paths}))
    git(bob, "read-tree", "-m", "-u", old, new)  # the tree moved, the branch not yet
    assert git(bob, "status", "--porcelain") != ""
    store = Store(bob)
    assert len(store.records.all()) == 8  # reading finished the checkout's undo first
    assert git(bob, "status", "--porcelain") == ""
    assert not journal_path(bob).exists()
    assert git(bob, "rev-parse", "HEAD").strip() == old
    report = sync(store, BOB)  # and the next sync takes the remote's commit as usual
    assert report.integration.kind == "fast-forward"
