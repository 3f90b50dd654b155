"""The store's repository through gitpython: creating it, committing, its log.

Every change to the store is one commit whose author is the actor. The
committer identity is set explicitly (:func:`core.store.gitstore.run.git_env`),
so a machine without a global git identity (CI) still commits.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import git

from core.store.gitstore.run import CONTROL, git_env

#: an automatic gc runs inside the commit, under the store lock, never detached beside
#: a later history purge
NO_DETACHED_GC = {"GIT_CONFIG_PARAMETERS": "'gc.autoDetach=false'"}


def init_repo(root: Path) -> git.Repo:
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("core", "quotepath", "false")
    return repo


def open_repo(root: Path) -> git.Repo:
    return git.Repo(root)


def commit(
    repo: git.Repo,
    paths: Iterable[str],
    *,
    actor: str,
    message: str,
    when: datetime | None = None,
) -> str | None:
    """Stage exactly these paths (added, changed or removed) and commit them.

    Returns the new commit's hexsha, or None when nothing changed.
    """
    paths = sorted(set(paths))
    if not paths:
        return None
    # a path that is neither on disk nor known to git (a file a rolled-back change had
    # created and removed again) would fail the whole add: "pathspec did not match"
    root = Path(repo.working_tree_dir or ".")
    missing = {p for p in paths if not os.path.lexists(root / p)}
    staged = paths  # what `git add` stages: on disk, or in the index
    if missing:
        # a missing path in the index is a removal to stage; one only in HEAD is a
        # removal a crash already staged (``git add`` refuses it, the commit takes it)
        indexed = set(repo.git.ls_files("-z", "--", *missing).split("\0"))
        in_head: set[str] = set()
        if repo.head.is_valid():
            in_head = set(repo.git.ls_tree("-z", "--name-only", "HEAD", "--", *missing).split("\0"))
        staged = [p for p in paths if p not in missing or p in indexed]
        paths = [p for p in paths if p not in missing or p in indexed or p in in_head]
        if not paths:
            return None
    message = CONTROL.sub(" ", message)  # a NUL in a commit message breaks every later write
    if staged:
        repo.git.add("--all", "--", *staged)
    with repo.git.custom_environment(**git_env(actor, when), **NO_DETACHED_GC):
        try:
            repo.git.commit("--no-verify", "--quiet", "-m", message, "--", *paths)
        except git.GitCommandError as exc:
            # one git process fewer than asking first: each reads a 10,000-file index
            if exc.status == 1 and "nothing to commit" in f"{exc.stdout}{exc.stderr}":
                return None
            raise
    return str(repo.head.commit.hexsha)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    author: str
    when: str
    message: str


def log_for(repo: git.Repo, path: str, *, limit: int = 200) -> list[CommitInfo]:
    """Commits touching one path, oldest first (following renames is not needed:
    memory files never move)."""
    if not repo.head.is_valid():
        return []
    out = []
    for c in repo.iter_commits(paths=path, max_count=limit):
        out.append(
            CommitInfo(
                sha=c.hexsha,
                author=str(c.author.email),
                when=c.authored_datetime.isoformat(),
                message=str(c.message).strip(),
            )
        )
    return list(reversed(out))


def status_porcelain(repo: git.Repo) -> list[str]:
    return [line for line in repo.git.status("--porcelain").splitlines() if line.strip()]
