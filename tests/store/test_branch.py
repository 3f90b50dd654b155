"""branch.advance_branch: the branch moved as ``git update-ref -m MSG HEAD NEW OLD``
moves it, byte for byte (the ref and both reflogs), and git left to decide
wherever this module would not do exactly what git does."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.store.gitstore.branch import advance_branch, reflog_message

WHEN = datetime(2026, 11, 3, 9, 30, 15, tzinfo=timezone(timedelta(hours=-3, minutes=-30)))
COMMITTER = ("memgov", "memgov@localhost")


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    ).stdout


def repo_with_two_commits(root: Path) -> tuple[str, str]:
    """A repository on ``main`` at its first commit, and a second commit not on it."""
    git(root.parent, "init", "-q", "-b", "main", root.name)
    env = {
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        "GIT_AUTHOR_DATE": "2026-11-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-11-01T00:00:00Z",
    }
    (root / "f").write_text("one\n")
    git(root, "add", "f")
    git(root, "commit", "-q", "-m", "one", env=env)
    first = git(root, "rev-parse", "HEAD").strip()
    tree = git(root, "write-tree").strip()
    second = git(root, "commit-tree", tree, "-p", first, "-m", "two", env=env).strip()
    return first, second


def snapshot(root: Path) -> dict[str, bytes]:
    git_dir = root / ".git"
    return {
        name: (git_dir / name).read_bytes()
        for name in ("refs/heads/main", "logs/refs/heads/main", "logs/HEAD")
    }


@pytest.mark.parametrize(
    "message",
    ["commit: remember: project:x", "  lead\tand\n\nruns   of  space  ", "", "é unicode ✓"],
)
def test_the_same_bytes_as_git_update_ref(tmp_path: Path, message: str) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    first, second = repo_with_two_commits(ours)
    assert repo_with_two_commits(theirs) == (first, second)  # same dates: same commits
    assert advance_branch(ours, second, first, message, COMMITTER, now=WHEN)
    args = ["update-ref", *(["-m", message] if message else []), "HEAD", second, first]
    git(
        theirs,
        *args,
        env={
            "GIT_COMMITTER_NAME": COMMITTER[0],
            "GIT_COMMITTER_EMAIL": COMMITTER[1],
            "GIT_COMMITTER_DATE": WHEN.isoformat(),
        },
    )
    assert snapshot(ours) == snapshot(theirs)
    assert not (ours / ".git" / "refs" / "heads" / "main.lock").exists()
    assert git(ours, "rev-parse", "HEAD").strip() == second
    git(ours, "fsck", "--no-progress")


def test_reflog_message_folds_white_space_as_git_does() -> None:
    assert reflog_message("  a \t b\n\nc  ") == "a b c"
    assert reflog_message("\v kept \f") == "\v kept \f"  # not git's white space


def test_a_moved_branch_is_left_to_git(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    first, second = repo_with_two_commits(root)
    before = snapshot(root)
    # the caller believes the branch is at `second`; it is at `first`
    assert not advance_branch(root, first, second, "x", COMMITTER, now=WHEN)
    assert snapshot(root) == before
    assert not (root / ".git" / "refs" / "heads" / "main.lock").exists()


def test_a_held_lock_is_left_to_git_and_kept(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    first, second = repo_with_two_commits(root)
    lock = root / ".git" / "refs" / "heads" / "main.lock"
    lock.write_text("someone else's\n")
    assert not advance_branch(root, second, first, "x", COMMITTER, now=WHEN)
    assert lock.read_text() == "someone else's\n"
    assert git(root, "rev-parse", "HEAD").strip() == first


@pytest.mark.parametrize("case", ["packed", "no-reflog", "detached", "symlinked-ref"])
def test_what_git_must_decide(tmp_path: Path, case: str) -> None:
    root = tmp_path / "r"
    root.mkdir()
    first, second = repo_with_two_commits(root)
    git_dir = root / ".git"
    if case == "packed":  # the branch only in packed-refs, as after git gc
        git(root, "pack-refs", "--all", "--prune")
    elif case == "no-reflog":  # git would decide from core.logAllRefUpdates
        (git_dir / "logs" / "HEAD").unlink()
    elif case == "detached":
        git(root, "checkout", "-q", "--detach")
    else:  # a ref that is a symlink out of the repository
        outside = tmp_path / "outside"
        outside.write_text(first + "\n")
        ref = git_dir / "refs" / "heads" / "main"
        ref.unlink()
        ref.symlink_to(outside)
    assert not advance_branch(root, second, first, "x", COMMITTER, now=WHEN)
    if case == "symlinked-ref":
        assert (tmp_path / "outside").read_text() == first + "\n"
    assert not (git_dir / "refs" / "heads" / "main.lock").exists()
