"""A commit object written by memgov itself, byte for byte as ``git commit-tree``
writes it, and what lets a commit skip the diff against its parent.

Every git process costs a few milliseconds to start and to read the index, and
a store write used to run five of them. Two are now done here:

- :func:`write_commit_object`: the commit is a loose object (a zlib-compressed
  ``commit N\\0`` header and body, named by its SHA-1) in ``.git/objects``. The
  identities are cleaned as git cleans them (:func:`clean_ident`); a test
  compares the bytes with ``git commit-tree``'s for awkward names, messages and
  dates. Anything unusual (a SHA-256 repository, ``.git`` not a folder, an
  identity git would refuse) returns None and the caller runs git.
- :class:`IndexStamp`: after each commit, the index file's identity (inode, size,
  mtime) with the commit and its tree. When the next commit finds the same index
  and the same HEAD, nothing but memgov has touched the index since, so the new
  tree can differ from the parent's only in the paths memgov staged: no
  ``diff-tree`` is needed to check for changes someone staged by hand. The stamp
  is local state in ``.git/memgov``; a missing, stale or unreadable one costs
  only the diff.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from core.store.fsutil import new_temp_file

#: the characters git trims from both ends of a name or an email (ident.c ``crud``)
_CRUD = frozenset(chr(c) for c in range(33)) | frozenset(".,:;<>\"\\'")
STAMP_FILE = "commit-stamp"


def clean_ident(text: str) -> str:
    """A name or email as git writes it: crud trimmed from both ends, and the
    delimiters ``<``, ``>`` and newline dropped inside."""
    start, end = 0, len(text)
    while start < end and text[start] in _CRUD:
        start += 1
    while end > start and text[end - 1] in _CRUD:
        end -= 1
    return "".join(c for c in text[start:end] if c not in "<>\n")


def raw_date(when: datetime) -> str:
    """``<seconds since the epoch> <+hhmm>``: git's raw date of an aware datetime."""
    offset = when.utcoffset() or timedelta(0)
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{int(when.timestamp())} {sign}{minutes // 60:02d}{minutes % 60:02d}"


def commit_body(
    tree: str,
    parents: list[str],
    author: tuple[str, str],
    committer: tuple[str, str],
    when: datetime,
    message: str,
) -> bytes | None:
    """The commit object's body, or None when git would refuse an identity (empty
    after cleaning)."""
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    for role, (name, email) in (("author", author), ("committer", committer)):
        name, email = clean_ident(name), clean_ident(email)
        if not name or not email:
            return None
        lines.append(f"{role} {name} <{email}> {raw_date(when)}")
    return ("\n".join(lines) + "\n\n" + message).encode("utf-8")


def _objects_dir(root: Path) -> Path | None:
    git_dir = root / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return None
    objects = git_dir / "objects"
    return objects if objects.is_dir() and not objects.is_symlink() else None


def write_commit_object(root: Path, body: bytes, *, tree: str) -> str | None:
    """Write a commit object; its SHA-1, or None where git must do it."""
    objects = _objects_dir(root)
    if objects is None or len(tree) != 40:  # a SHA-256 repository: leave it to git
        return None
    data = b"commit %d\0" % len(body) + body
    sha = hashlib.sha1(data, usedforsecurity=False).hexdigest()
    folder = objects / sha[:2]
    target = folder / sha[2:]
    if target.exists():
        return sha
    folder.mkdir(exist_ok=True)
    fd, tmp = new_temp_file(objects, "tmp_obj_")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(zlib.compress(data, 1))
        os.chmod(tmp, 0o444)
        os.replace(tmp, target)  # the same bytes whoever wins: git's own rule
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return sha


@dataclass(frozen=True)
class IndexStamp:
    index: tuple[int, int, int]  # inode, size, mtime_ns of .git/index
    head: str
    tree: str


def _index_identity(root: Path) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(root / ".git" / "index")
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def read_stamp(root: Path) -> IndexStamp | None:
    """The stamp of memgov's last commit, if the index still is what it left."""
    now = _index_identity(root)
    if now is None:
        return None
    try:
        data = json.loads((root / ".git" / "memgov" / STAMP_FILE).read_text("utf-8"))
        ino, size, mtime = (int(v) for v in data["index"])
        stamp = IndexStamp((ino, size, mtime), str(data["head"]), str(data["tree"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return stamp if stamp.index == now else None


def write_stamp(root: Path, head: str, tree: str) -> None:
    """Remember the index as this commit leaves it (best effort: local state)."""
    identity = _index_identity(root)
    git_dir = root / ".git"
    state = git_dir / "memgov"
    if identity is None or git_dir.is_symlink() or state.is_symlink():
        return
    text = json.dumps({"index": list(identity), "head": head, "tree": tree})
    with contextlib.suppress(OSError):
        state.mkdir(exist_ok=True)
        fd, tmp = new_temp_file(state, ".stamp.")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, state / STAMP_FILE)


def forget_stamp(root: Path) -> None:
    with contextlib.suppress(OSError):
        (root / ".git" / "memgov" / STAMP_FILE).unlink()


#: present in a clone whose commits memgov signs (a team store with the user's SSH key,
#: core.team.signing): its commits are written by ``git commit-tree -S``, which signs
#: with the key git's config names (``gpg.format=ssh``, ``user.signingkey``)
SIGNING_MARK = ".git/memgov/sign-commits"


def signs(root: Path) -> bool:
    return (root / SIGNING_MARK).is_file()
