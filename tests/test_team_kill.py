"""A sync killed with SIGKILL at any moment (issue 16): the real ``memgov sync`` in its
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
