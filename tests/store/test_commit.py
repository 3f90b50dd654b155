"""gitstore.commit: exactly the given paths, with plumbing, and no hook ever runs.

The commit's contract (added, changed or removed paths; a removal a crash already
staged, see tests/store/test_store.py) and what the plumbing must keep: other changes
staged by hand stay out of the commit, nothing to commit is None, a folder among
the paths commits its files, and no hook of the repository runs (a store's hooks
are untrusted input), neither from ``.git/hooks`` nor from a ``core.hooksPath``.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import ACTOR, git_status

from core.store import gitstore
from core.store.gitstore import objects

HOOKS = (
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
)


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def head_files(root: Path) -> list[str]:
    return git(root, "ls-tree", "-r", "--name-only", "HEAD").split()


def plant_hooks(folder: Path, marker: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        hook = folder / name
        hook.write_text(f"#!/bin/sh\necho {name} >> '{marker}'\n")
        hook.chmod(0o755)


def test_a_commit_is_exactly_its_paths(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "a.md").write_text("a\n")
    (root / "b.md").write_text("b\n")
    first = gitstore.commit(repo, ["a.md", "b.md"], actor=ACTOR, message="first\n\nbody")
    assert first == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "log", "-1", "--format=%an <%ae>|%cn|%B", "HEAD").strip() == (
        f"{gitstore.actor_identity(ACTOR)[0]} <{ACTOR}>|memgov|first\n\nbody"
    )
    (root / "a.md").write_text("a2\n")
    (root / "c.md").write_text("c\n")
    (root / "b.md").unlink()
    assert gitstore.commit(repo, ["a.md", "b.md", "c.md"], actor=ACTOR, message="second")
    assert head_files(root) == ["a.md", "c.md"]
    assert git_status(root) == []
    assert git(root, "rev-list", "--count", "HEAD").strip() == "2"
    # the branch's reflog says what moved it, as git commit's does
    assert "commit: second" in git(root, "reflog", "-1", "main")


def test_nothing_to_commit_is_none(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "a.md").write_text("a\n")
    gitstore.commit(repo, ["a.md"], actor=ACTOR, message="first")
    assert gitstore.commit(repo, ["a.md"], actor=ACTOR, message="again") is None
    # a file a rolled-back change created and removed again: on disk nowhere, in git never
    assert gitstore.commit(repo, ["never.md"], actor=ACTOR, message="none") is None
    assert gitstore.commit(repo, [], actor=ACTOR, message="none") is None
    assert git(root, "rev-list", "--count", "HEAD").strip() == "1"


def test_changes_staged_by_hand_stay_out_of_the_commit(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "a.md").write_text("a\n")
    gitstore.commit(repo, ["a.md"], actor=ACTOR, message="first")
    (root / "mine.txt").write_text("staged by hand\n")
    git(root, "add", "mine.txt")
    (root / "a.md").write_text("a2\n")
    assert gitstore.commit(repo, ["a.md"], actor=ACTOR, message="second")
    assert head_files(root) == ["a.md"]
    assert git(root, "show", "HEAD:a.md") == "a2\n"
    assert git(root, "diff", "--cached", "--name-only").split() == ["mine.txt"]


def test_a_folder_among_the_paths_commits_its_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "memories").mkdir()
    (root / "memories" / "m-1.md").write_text("one\n")
    (root / "memories" / "m-2.md").write_text("two\n")
    assert gitstore.commit(repo, ["memories"], actor=ACTOR, message="bulk")
    assert head_files(root) == ["memories/m-1.md", "memories/m-2.md"]


@pytest.mark.parametrize("where", ["hooks folder", "core.hooksPath"])
def test_no_hook_of_the_repository_ever_runs(tmp_path: Path, where: str) -> None:
    root = tmp_path / "repo"
    marker = tmp_path / "ran.txt"
    repo = gitstore.init_repo(root)
    if where == "hooks folder":
        plant_hooks(root / ".git" / "hooks", marker)
    else:
        plant_hooks(tmp_path / "planted", marker)
        git(root, "config", "core.hooksPath", str(tmp_path / "planted"))
    (root / "a.md").write_text("a\n")
    gitstore.commit(repo, ["a.md"], actor=ACTOR, message="plumbing")
    (root / "d").mkdir()
    (root / "d" / "f.md").write_text("f\n")
    gitstore.commit(repo, ["d"], actor=ACTOR, message="porcelain")  # git add + git commit
    (root / "a.md").write_text("a2\n")
    repo = gitstore.open_repo(root)
    gitstore.commit(repo, ["a.md"], actor=ACTOR, message="reopened")
    gitstore.status_porcelain(repo)
    gitstore.run(root, "update-index", "--refresh")
    assert head_files(root) == ["a.md", "d/f.md"]
    assert not marker.exists(), marker.read_text()
    git(root, "update-ref", "refs/heads/probe", "HEAD")  # by hand, outside memgov
    assert marker.exists()  # the planted hooks were live all along


AWKWARD_ACTORS = [
    ACTOR,
    "Ada Lovelace <ada@example.com>",
    ",;:'\"lead\\ name.,",
    "张三@例子.cn",
    "  spaced  out  ",
    "a<b>c@example.com",
    "dots.at.the.end.",
]
MESSAGES = ["one line", "subject\n\nbody\n", "trailing spaces  \n\n\n", "中文的提交说明\n- 列表"]
DATES = [
    datetime(2026, 3, 1, 9, 30, tzinfo=UTC),
    datetime(2025, 12, 31, 23, 59, 59, tzinfo=timezone(timedelta(hours=8))),
    datetime(2024, 2, 29, 1, 2, 3, 456789, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
]


@pytest.mark.parametrize("actor", AWKWARD_ACTORS)
def test_the_commit_object_is_the_one_git_commit_tree_writes(tmp_path: Path, actor: str) -> None:
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "a.md").write_text("a\n")
    parent = gitstore.commit(repo, ["a.md"], actor=ACTOR, message="first")
    assert parent is not None
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    for message in MESSAGES:
        for when in DATES:
            body = objects.commit_body(
                tree, [parent], gitstore.actor_identity(actor), gitstore.COMMITTER, when, message
            )
            assert body is not None
            ours = objects.write_commit_object(root, body, tree=tree)
            theirs = gitstore.run(
                root,
                "commit-tree",
                tree,
                "-p",
                parent,
                "-F",
                "-",
                data=message.encode(),
                actor=actor,
                when=when,
            )
            assert ours == theirs.decode().strip(), (actor, message, when)
            assert git(root, "cat-file", "-t", ours).strip() == "commit"
    git(root, "fsck", "--strict", "--no-dangling")


def test_an_identity_git_would_refuse_is_left_to_git() -> None:
    when = DATES[0]
    assert objects.commit_body("0" * 40, [], (",,,", "x@y"), ("m", "m@l"), when, "m") is None
    assert objects.clean_ident("  <a\nb>  ") == "ab"


def test_a_history_moved_under_the_same_index_is_diffed_again(tmp_path: Path) -> None:
    """The stamp that skips the diff holds only while HEAD is memgov's last commit:
    after ``git reset --soft`` the undone commit's change is staged, by hand as far
    as memgov knows, and stays out of the next commit."""
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "a.md").write_text("a\n")
    gitstore.commit(repo, ["a.md"], actor=ACTOR, message="first")
    (root / "b.md").write_text("b\n")
    gitstore.commit(repo, ["b.md"], actor=ACTOR, message="second")
    assert (root / ".git" / "memgov" / objects.STAMP_FILE).is_file()
    git(root, "reset", "--soft", "HEAD~")
    (root / "a.md").write_text("a2\n")
    assert gitstore.commit(repo, ["a.md"], actor=ACTOR, message="third")
    assert head_files(root) == ["a.md"]
    assert git(root, "diff", "--cached", "--name-only").split() == ["b.md"]


def test_a_broken_stamp_costs_only_the_diff(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "a.md").write_text("a\n")
    gitstore.commit(repo, ["a.md"], actor=ACTOR, message="first")
    (root / ".git" / "memgov" / objects.STAMP_FILE).write_text('{"index": "x"')
    assert gitstore.commit(repo, ["a.md"], actor=ACTOR, message="same") is None
    (root / "a.md").write_text("a2\n")
    assert gitstore.commit(repo, ["a.md"], actor=ACTOR, message="second")
    assert git(root, "show", "HEAD:a.md") == "a2\n"
    assert git(root, "rev-list", "--count", "HEAD").strip() == "2"
