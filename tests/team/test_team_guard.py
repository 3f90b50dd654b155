"""What a team sync refuses: secrets in a push, broken records from the remote, a
remote that cannot be reached. Real bare remotes, real git pushes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import fake_token
from support_team import ALICE, BOB, decide_conflict, git, make_team, sync

from core.team.guard import PushBlocked
from core.team.remote import RemoteFailed
from core.team.sync import SyncRefused

IDENT = {
    "GIT_AUTHOR_NAME": "bob",
    "GIT_AUTHOR_EMAIL": BOB,
    "GIT_COMMITTER_NAME": "bob",
    "GIT_COMMITTER_EMAIL": BOB,
}


def hand_commit(root: Path, rel: str, text: str, message: str = "by hand") -> str:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)
    git(root, "add", rel)
    git(root, "commit", "-q", "--no-verify", "-m", message, env=IDENT)
    return git(root, "rev-parse", "HEAD").strip()


def test_a_secret_in_a_commit_blocks_the_push(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    token = fake_token("ghp_", 36, seed=16)
    remote_before = git(team.remote, "rev-parse", "main")
    decide_conflict(team.bob, 1, "newer", BOB)
    hand_commit(team.bob.root, "notes/ops.md", f"line one\nthe token is {token}\n")
    with pytest.raises(PushBlocked) as caught:
        sync(team.bob, BOB)
    text = str(caught.value)
    assert "notes/ops.md:2: github-pat" in text and token not in text
    assert git(team.remote, "rev-parse", "main") == remote_before  # nothing was pushed
    assert "decide" in git(team.bob.root, "log", "--format=%s", "-3")  # the decision is kept


def test_the_pre_push_hook_guards_a_plain_git_push(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    token = fake_token("ghp_", 36, seed=17)
    remote_before = git(team.remote, "rev-parse", "main")
    hand_commit(team.bob.root, "notes/ops.md", f"deploy with {token}\n")
    done = subprocess.run(
        ["git", "push", "origin", "main"], cwd=team.bob.root, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "notes/ops.md:1: github-pat" in done.stderr and token not in done.stderr
    assert git(team.remote, "rev-parse", "main") == remote_before
    # a clean commit passes the same hook
    git(team.bob.root, "reset", "-q", "--hard", "HEAD~1")
    hand_commit(team.bob.root, "notes/ops.md", "deploy with make release\n")
    done = subprocess.run(
        ["git", "push", "origin", "main"], cwd=team.bob.root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert git(team.remote, "rev-parse", "main") == git(team.bob.root, "rev-parse", "HEAD")


def test_the_hook_runs_this_memgov(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    hook = (team.bob.root / ".git" / "hooks" / "pre-push").read_text()
    assert sys.executable in hook and " -P -m tui.cli team check-push" in hook


def test_a_record_broken_on_the_remote_is_reported_not_merged(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    other = tmp_path / "carol"
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    record = next(p for p in (other / "memories").rglob("deploy-2-0.md"))
    rel = str(record.relative_to(other))
    text = record.read_text().replace("status: conflict", "status: maybe")
    hand_commit(other, rel, text, "a hand edit")
    git(other, "push", "-q", "origin", "main")
    decide_conflict(team.bob, 1, "newer", BOB)
    head = git(team.bob.root, "rev-parse", "HEAD")
    with pytest.raises(SyncRefused) as caught:
        sync(team.bob, BOB)
    assert rel in str(caught.value) and "'status'" in str(caught.value)
    assert git(team.bob.root, "rev-parse", "HEAD") == head  # nothing merged, decision kept
    assert git(team.bob.root, "status", "--porcelain") == ""


def test_an_unreachable_remote_keeps_the_decisions_for_the_next_sync(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    decide_conflict(team.alice, 0, "newer", ALICE)
    head = git(team.alice.root, "rev-parse", "HEAD")
    moved = tmp_path / "moved.git"
    team.remote.rename(moved)
    with pytest.raises(RemoteFailed) as caught:
        sync(team.alice, ALICE)
    assert "cannot fetch from" in str(caught.value) and "pushed on the next sync" in str(
        caught.value
    )
    assert git(team.alice.root, "rev-parse", "HEAD") == head
    moved.rename(team.remote)
    report = sync(team.alice, ALICE)
    assert report.pushed == 1
    assert git(team.remote, "rev-parse", "main") == head


def test_hand_edits_not_committed_stop_the_sync(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    (team.bob.root / "MEMORY.md").write_text("edited by hand\n")
    with pytest.raises(SyncRefused) as caught:
        sync(team.bob, BOB)
    assert "MEMORY.md" in str(caught.value) and "nothing was fetched" in str(caught.value)


def test_a_remote_that_is_not_a_team_store_is_not_cloned(tmp_path: Path) -> None:
    from core.store.store import Store
    from core.team.setup import clone_team

    private = tmp_path / "private"
    Store.init(private, owner=ALICE, actor=ALICE)
    with pytest.raises(Exception, match="not a team store"):
        clone_team(str(private), tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_a_push_the_remote_rejects_is_tried_again(tmp_path: Path) -> None:
    """The remote's own pre-receive hook refuses the first push (as a forge does while
    another push lands): the sync fetches again and pushes, nothing lost."""
    team = make_team(tmp_path)
    hook = team.remote / "hooks" / "pre-receive"
    hook.write_text(
        f"#!/bin/sh\nif [ ! -e '{tmp_path}/refused-once' ]; then\n"
        f"  touch '{tmp_path}/refused-once'; echo 'busy, try again' >&2; exit 1\nfi\n"
    )
    hook.chmod(0o755)
    decide_conflict(team.alice, 0, "newer", ALICE)
    report = sync(team.alice, ALICE)
    assert (tmp_path / "refused-once").exists()
    assert report.pushed == 1
    assert git(team.remote, "rev-parse", "main") == git(team.alice.root, "rev-parse", "HEAD")


def test_a_remote_with_another_history_is_refused(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    other = tmp_path / "other.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(other))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "main", str(seed))
    hand_commit(seed, "memgov.yaml", "scope: team\nmaintainers: [x@example.com]\n", "elsewhere")
    git(seed, "push", "-q", str(other), "main")
    git(team.bob.root, "remote", "set-url", "origin", str(other))
    head = git(team.bob.root, "rev-parse", "HEAD")
    with pytest.raises(SyncRefused, match="shares no commit"):
        sync(team.bob, BOB)
    assert git(team.bob.root, "rev-parse", "HEAD") == head
