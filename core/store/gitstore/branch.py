"""Moving the branch after a commit, as ``git update-ref -m MSG HEAD NEW OLD`` does.

A commit's last git process only moved the branch: start git, lock the ref,
check its old value, append two reflog lines, rename the lock. That is a few
milliseconds of process start for a few hundred bytes of file work, so
:func:`advance_branch` does the same steps here, with git's files-backend
protocol: ``refs/heads/NAME.lock`` created exclusively (a lock someone holds
means git must decide), the ref read again under the lock and compared with
the old value, the reflogs of the branch and of ``HEAD`` appended (each line
``OLD NEW committer <email> seconds +zone<TAB>message``, the message's white
space folded as git folds it), then the lock renamed over the ref. A killed
writer leaves the ``.lock`` that a killed git would leave, which the store's
recovery removes (:mod:`core.store.recovery`).

Anything this does not do exactly as git does returns False and the caller
runs ``git update-ref``: ``HEAD`` not a branch, a branch only in
``packed-refs`` (after ``git gc``), a reflog missing (git would decide from
``core.logAllRefUpdates`` whether to create it), a symlink anywhere on the way,
a SHA-256 repository. A test compares the ref and both reflogs byte for byte
with git's.
"""

from __future__ import annotations

import contextlib
import os
import re
from datetime import datetime
from pathlib import Path

from core.store.gitstore.objects import clean_ident, raw_date

#: a branch name this module handles: plain path components, none hidden or a lock
_BRANCH = re.compile(r"refs/heads/(?:[A-Za-z0-9_-][A-Za-z0-9._-]*/)*[A-Za-z0-9_-][A-Za-z0-9._-]*")
_SHA1 = re.compile(r"[0-9a-f]{40}")
#: git's isspace (git-compat-util.h): not \v or \f, unlike Python's
_GIT_SPACE = " \t\n\r"


def reflog_message(message: str) -> str:
    """The message as git writes it in a reflog: leading white space dropped, each
    run of white space one space, trailing white space trimmed."""
    out: list[str] = []
    was_space = True
    for char in message:
        space = char in _GIT_SPACE
        if was_space and space:
            continue
        was_space = space
        out.append(" " if space else char)
    return "".join(out).rstrip(_GIT_SPACE)


def _regular(path: Path) -> bool:
    try:
        return path.is_file() and not path.is_symlink()
    except OSError:
        return False


def advance_branch(
    root: Path,
    new: str,
    old: str,
    message: str,
    committer: tuple[str, str],
    now: datetime | None = None,
) -> bool:
    """Move the branch ``HEAD`` names from ``old`` to ``new``; False where git must."""
    git_dir = root / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return False
    if not (_SHA1.fullmatch(new) and _SHA1.fullmatch(old)) or old == "0" * 40:
        return False
    try:
        head = (git_dir / "HEAD").read_bytes()
    except OSError:
        return False
    if not head.startswith(b"ref: ") or not head.endswith(b"\n"):
        return False
    branch = head[5:-1].decode("ascii", "replace")
    if not _BRANCH.fullmatch(branch) or branch.endswith(".lock") or ".." in branch:
        return False
    ref = git_dir / branch
    logs = (git_dir / "logs" / branch, git_dir / "logs" / "HEAD")
    folders = [ref.parent, *(log.parent for log in logs)]
    if (git_dir / "HEAD").is_symlink() or any(p.is_symlink() for p in folders):
        return False
    if not (_regular(ref) and all(_regular(log) for log in logs)):
        return False
    name, email = (clean_ident(part) for part in committer)
    if not name or not email:
        return False
    moment = now if now is not None else datetime.now().astimezone()
    line = f"{old} {new} {name} <{email}> {raw_date(moment)}"
    text = reflog_message(message)
    record = (f"{line}\t{text}\n" if text else f"{line}\n").encode("utf-8")
    lock = ref.with_name(ref.name + ".lock")
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError:
        return False  # held by another writer, or not creatable: git says which
    try:
        with os.fdopen(fd, "wb") as handle:
            moved = ref.read_bytes() != f"{old}\n".encode("ascii")
            if not moved:
                handle.write(f"{new}\n".encode("ascii"))
        if not moved:
            for log in logs:
                with open(log, "ab") as out:
                    out.write(record)
            os.replace(lock, ref)
    except BaseException:
        with contextlib.suppress(OSError):
            lock.unlink()
        raise
    if moved:  # someone moved the branch: git reports it
        with contextlib.suppress(OSError):
            lock.unlink()
        return False
    return True
