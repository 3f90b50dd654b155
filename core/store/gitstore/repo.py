"""The store's repository: creating it, committing, its log.

Every change to the store is one commit whose author is the actor. The
committer identity is set explicitly (:func:`core.store.gitstore.run.git_env`),
so a machine without a global git identity (CI) still commits.

A commit is written with plumbing (:func:`commit`): ``update-index`` stages only
the given paths, ``write-tree`` rehashes only the folders they are in (the
index's cache of trees keeps the rest), the commit object is written in
process (:mod:`core.store.gitstore.objects`, as ``git commit-tree`` would) and
the branch is moved as ``git update-ref`` would, checking its old value
(:mod:`core.store.gitstore.branch`). When the index is as memgov's last commit
left it, no diff against the parent runs either: two git processes a commit.
Unlike ``git add`` + ``git commit -- PATHS``, nothing writes a second, temporary
copy of the whole index, and no porcelain runs: no hook of the repository ever
runs (every git memgov starts has ``core.hooksPath=/dev/null``,
:data:`core.store.gitstore.run.GIT_SETTINGS`), as the hooks of a store are
untrusted.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.store.gitstore.branch import advance_branch
from core.store.gitstore.objects import (
    commit_body,
    read_stamp,
    signs,
    write_commit_object,
    write_stamp,
)
from core.store.gitstore.plumbing import gc_due, head_commit
from core.store.gitstore.run import (
    COMMITTER,
    CONTROL,
    GIT_SETTINGS,
    actor_identity,
    git_env,
    run,
)

if TYPE_CHECKING:
    import git

#: an automatic gc runs after the commit, under the store lock, never detached beside
#: a later history purge
NO_DETACHED_GC = {"GIT_CONFIG_PARAMETERS": "'gc.autoDetach=false'"}
#: the tree of no files (git's constant): the parent of a first commit's diff
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _guarded(repo: git.Repo) -> git.Repo:
    """Every git command gitpython runs for ``repo`` runs no hook of the repository."""
    repo.git.update_environment(**GIT_SETTINGS)
    return repo


def init_repo(root: Path) -> git.Repo:
    import git  # gitpython only where a repository object is needed

    repo = _guarded(git.Repo.init(root, initial_branch="main"))
    with repo.config_writer() as cfg:
        cfg.set_value("core", "quotepath", "false")
    return repo


def open_repo(root: Path) -> git.Repo:
    import git

    return _guarded(git.Repo(root))


def commit(
    repo: git.Repo | Path,
    paths: Iterable[str],
    *,
    actor: str,
    message: str,
    when: datetime | None = None,
) -> str | None:
    """Stage exactly these paths (added, changed or removed) and commit them.

    Returns the new commit's hexsha, or None when nothing changed. A path gone from
    disk is a removal (also one a crash already staged: gone from the index too,
    still in HEAD); a path neither on disk nor known to git (a file a rolled-back
    change created and removed again) is nothing to commit.
    """
    paths = sorted(set(paths))
    if not paths:
        return None
    # a path: no gitpython at all on the plumbing path (the CLI's writes start faster)
    root = repo if isinstance(repo, Path) else Path(repo.working_tree_dir or ".")
    message = CONTROL.sub(" ", message)  # a NUL in a commit message breaks every later write
    if any(os.path.isdir(root / p) and not os.path.islink(root / p) for p in paths):
        return _commit_porcelain(repo, root, paths, actor=actor, message=message, when=when)
    stamp = read_stamp(root)  # before this commit's own index write
    # --add: a new file; --remove: a file gone from disk leaves the index (a path in
    # neither is no error); a path on disk that is unchanged costs one stat
    run(root, "update-index", "--add", "--remove", "-z", "--stdin", data=_nul(paths))
    tree = run(root, "write-tree").decode().strip()
    parent_sha = head_commit(root) or ""  # read from .git, no process
    if not parent_sha and not (root / ".git").is_dir():  # a worktree, a linked .git
        parent = run(root, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        parent_sha = parent.decode().strip()
    if stamp is not None and parent_sha and stamp.head == parent_sha:
        # only memgov wrote the index since its last commit, HEAD: only ``paths`` differ
        if tree == stamp.tree:
            return None
    else:
        changed = _changed(root, parent_sha, tree)
        if not changed:
            return None
        if not changed <= set(paths):
            # the index held other staged changes (a `git add` by hand): they stay
            # staged, out of this commit, as `git commit -- PATHS` does
            return _commit_porcelain(repo, root, paths, actor=actor, message=message, when=when)
    parents = [parent_sha] if parent_sha else []
    sha = _commit_object(root, tree, parents, actor=actor, message=message, when=when)
    # the old value makes the update atomic against anything else moving the branch;
    # done here as git does it, or by git where this cannot be (branch.advance_branch)
    reflog = f"commit: {_subject(message)}"
    if not (parent_sha and advance_branch(root, sha, parent_sha, reflog, COMMITTER)):
        run(root, "update-ref", "-m", reflog, "HEAD", sha, parent_sha or "0" * 40)
    write_stamp(root, sha, tree)
    if gc_due(root):
        run(root, "gc", "--auto", "--quiet", env=NO_DETACHED_GC)
    return sha


def _changed(root: Path, parent_sha: str, tree: str) -> set[str]:
    """The paths where ``tree`` differs from the parent commit's."""
    out = run(
        root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", parent_sha or EMPTY_TREE, tree
    )
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


def _commit_object(
    root: Path, tree: str, parents: list[str], *, actor: str, message: str, when: datetime | None
) -> str:
    """The commit object: written here (:mod:`core.store.gitstore.objects`), or by
    ``git commit-tree`` where that cannot be done byte for byte."""
    moment = when if when is not None and when.utcoffset() is not None else None
    signed = signs(root)
    body = (
        None
        if signed
        else commit_body(
            tree,
            parents,
            actor_identity(actor),
            COMMITTER,
            moment or datetime.now().astimezone(),
            message,
        )
    )
    if body is not None and (when is None or moment is not None):
        sha = write_commit_object(root, body, tree=tree)
        if sha is not None:
            return sha
    args = [arg for p in parents for arg in ("-p", p)]
    out = run(
        root,
        "commit-tree",
        tree,
        *args,
        *(["-S"] if signed else []),
        "-F",
        "-",
        data=message.encode("utf-8"),
        actor=actor,
        when=when,
    )
    return out.decode().strip()


def _nul(paths: list[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def _subject(message: str) -> str:
    return (message.strip().splitlines() or [""])[0][:200]


def _commit_porcelain(
    repo: git.Repo | Path,
    root: Path,
    paths: list[str],
    *,
    actor: str,
    message: str,
    when: datetime | None,
) -> str | None:
    """``git add`` + ``git commit -- PATHS``: a folder among the paths (all its files),
    or other changes staged in the index that must stay out of the commit."""
    import git

    if isinstance(repo, Path):
        repo = open_repo(root)
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
    if staged:
        repo.git.add("--all", "--", *staged)
    with repo.git.custom_environment(**git_env(actor, when), **NO_DETACHED_GC):
        try:
            repo.git.commit("--no-verify", "--quiet", "-m", message, "--", *paths)
        except git.GitCommandError as exc:
            if exc.status == 1 and "nothing to commit" in f"{exc.stdout}{exc.stderr}":
                return None
            raise
    return str(repo.head.commit.hexsha)


def status_porcelain(repo: git.Repo) -> list[str]:
    return [line for line in repo.git.status("--porcelain").splitlines() if line.strip()]
