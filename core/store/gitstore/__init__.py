"""The one place memgov runs git: the store, erasure and consolidation all go through here.

- :mod:`~core.store.gitstore.run`: the identity environment (:func:`git_env`) and
  running one git command (:func:`run`, :func:`popen`), failures as :class:`GitFailed`;
- :mod:`~core.store.gitstore.repo`: the repository through gitpython (init, the
  commit of every change, a file's log, status);
- :mod:`~core.store.gitstore.plumbing`: revisions, blobs, diffs, refs, tags and
  commits written with fast-import;
- :mod:`~core.store.gitstore.blobs`: many blobs through one ``cat-file --batch``.

gitpython loads only when a repository is opened: the names from
:mod:`~core.store.gitstore.repo` are imported on first use (:func:`__getattr__`),
so reading a store, scanning a text or printing the help costs no gitpython.
"""

from typing import TYPE_CHECKING, Any

from core.store.gitstore.blobs import BlobReader, BlobStream, blob_sizes, read_blob_ids
from core.store.gitstore.plumbing import (
    CommitInfo,
    Tag,
    adopt_as_merge,
    changed_blobs,
    changed_paths,
    checkout_head,
    delete_ref,
    dirty,
    head,
    log_for,
    log_read,
    log_started,
    odd_entries,
    read_blobs,
    refs,
    resolve,
    tag,
    tags,
    tracked,
    update_commit_graph,
    write_commit,
)
from core.store.gitstore.run import (
    BULK_MALLOC,
    COMMITTER,
    GitFailed,
    actor_identity,
    actor_of,
    git_env,
    popen,
    run,
)

if TYPE_CHECKING:
    from core.store.gitstore.repo import (
        commit,
        init_repo,
        open_repo,
        status_porcelain,
    )

#: what :mod:`~core.store.gitstore.repo` gives, imported (with gitpython) on first use
_THROUGH_GITPYTHON = frozenset(("commit", "init_repo", "open_repo", "status_porcelain"))


def __getattr__(name: str) -> Any:
    if name in _THROUGH_GITPYTHON:
        from core.store.gitstore import repo

        value = getattr(repo, name)
        globals()[name] = value  # the next access is a plain attribute
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BULK_MALLOC",
    "COMMITTER",
    "BlobReader",
    "BlobStream",
    "CommitInfo",
    "GitFailed",
    "Tag",
    "actor_identity",
    "actor_of",
    "adopt_as_merge",
    "blob_sizes",
    "changed_blobs",
    "changed_paths",
    "checkout_head",
    "commit",
    "delete_ref",
    "dirty",
    "git_env",
    "head",
    "init_repo",
    "log_for",
    "log_read",
    "log_started",
    "odd_entries",
    "open_repo",
    "popen",
    "read_blob_ids",
    "read_blobs",
    "refs",
    "resolve",
    "run",
    "status_porcelain",
    "tag",
    "tags",
    "tracked",
    "update_commit_graph",
    "write_commit",
]
