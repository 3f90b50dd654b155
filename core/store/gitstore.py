"""The store's git repository, driven through gitpython.

Every change to the store is one commit whose author is the actor. The
committer identity is set explicitly, so a machine without a global git
identity (CI) still commits.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import git

COMMITTER = ("memgov", "memgov@localhost")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def actor_identity(actor: str) -> tuple[str, str]:
    """(name, email) for a git author from an actor string (an email or a name)."""
    actor = _CONTROL.sub("", actor).strip() or "unknown"
    if "@" in actor:
        return actor.split("@", 1)[0], actor
    return actor, f"{actor}@memgov.invalid"


def _env(actor: str, when: datetime | None) -> dict[str, str]:
    name, email = actor_identity(actor)
    env = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": COMMITTER[0],
        "GIT_COMMITTER_EMAIL": COMMITTER[1],
        # an automatic gc runs inside the commit, under the store lock, never detached
        # beside a later history purge
        "GIT_CONFIG_PARAMETERS": "'gc.autoDetach=false'",
    }
    if when is not None:  # commits carry the store's clock, like its events
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    return env


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
    missing = [p for p in paths if not os.path.lexists(root / p)]
    if missing:
        # known: in the index, or in HEAD (a removal already staged before a crash)
        known = set(repo.git.ls_files("-z", "--", *missing).split("\0"))
        if repo.head.is_valid():
            known |= set(repo.git.ls_tree("-z", "--name-only", "HEAD", "--", *missing).split("\0"))
        paths = [p for p in paths if p not in missing or p in known]
        if not paths:
            return None
    message = _CONTROL.sub(" ", message)  # a NUL in a commit message breaks every later write
    repo.git.add("--all", "--", *paths)
    with repo.git.custom_environment(**_env(actor, when)):
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
