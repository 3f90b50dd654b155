"""Running git: the one environment builder and the one way to start a git process.

:func:`git_env` gives the identity and dates of every commit, tag and ref
update memgov makes: the author is the actor, the committer is memgov, and the
dates are the store's clock. :func:`run` runs one git command to completion and
raises :class:`GitFailed` (a :class:`~core.domain.errors.StoreError`) naming the
command, never a blob's bytes; :func:`popen` starts one for a stream (fast-import,
cat-file --batch). No hook of the repository runs (:data:`GIT_SETTINGS`). Every git
child dies with this process, so a killed memgov leaves no orphan fast-import or
gc running beside the rerun.

How a child is tied to this process: on Linux, ``setpriv --pdeathsig KILL`` (from
util-linux) starts git with the parent-death signal set, a flag that survives the
exec. A ``preexec_fn`` doing the same forces Python to ``fork`` the whole process
instead of ``vfork``; in a process of a few hundred MB (the desk) that costs 10 to
30 ms a git command, and a commit runs five. Without setpriv, the ``preexec_fn``.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from core.domain.errors import StoreError
from core.domain.policy import canonical
from core.store.gitstore.objects import clean_ident

COMMITTER = ("memgov", "memgov@localhost")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
#: what every git memgov starts is told, outranking the repository's own config. No
#: hook of a store's repository ever runs: a hook is untrusted input (``.git/hooks``
#: or a ``core.hooksPath`` in the repository's config), and plumbing runs some too
#: (``post-index-change`` on every index write, ``reference-transaction`` on every
#: ref update). The index is split (``core.splitIndex``): a write of one file
#: rewrites a small index of what changed, not the entry of every file (1 MB at
#: 10,000 memories); any git reads a split index, and folds it back into the shared
#: one now and then. New loose objects are compressed at zlib level 1
#: (``core.looseCompression``): hashing ``MEMORY.md`` (1.2 MB at 10,000 memories)
#: takes 20 ms instead of 60; ``git gc`` packs them at git's usual level.
GIT_SETTINGS = {
    "GIT_CONFIG_COUNT": "3",
    "GIT_CONFIG_KEY_0": "core.hooksPath",
    "GIT_CONFIG_VALUE_0": os.devnull,
    "GIT_CONFIG_KEY_1": "core.splitIndex",
    "GIT_CONFIG_VALUE_1": "true",
    "GIT_CONFIG_KEY_2": "core.looseCompression",
    "GIT_CONFIG_VALUE_2": "1",
}


class GitFailed(StoreError):
    """A git command failed; the message names the command, never a blob's bytes."""


#: for a git process that writes a whole history (fast-import, repack): glibc's
#: malloc keeps what it frees instead of giving the heap back after every tree and
#: blob (fast-import made 108,000 ``brk`` calls writing 8,000 commits: 1.7 s of
#: system time out of 5.4). Other C libraries ignore these variables.
BULK_MALLOC = {"MALLOC_TOP_PAD_": str(16 << 20), "MALLOC_TRIM_THRESHOLD_": str(64 << 20)}


#: the domain of the address a name (an actor with no ``@``) commits under
NAME_DOMAIN = "memgov.invalid"


def actor_identity(actor: str) -> tuple[str, str]:
    """(name, email) for a git author from an actor string (an email or a name).

    One address per actor, whichever path commits (a write, a decision, a batch,
    a tag, a recovery): the actor in the form :func:`core.domain.policy.canonical`
    compares (outer spaces trimmed, ASCII letters in lower case), so ``Alice`` and
    ``alice``, which are one actor to every rule, are one author too; an email
    keeps its address and is named by its local part, a name gets
    ``name@memgov.invalid``; both cleaned as git cleans an identity, so the commit
    memgov writes itself, ``git commit-tree`` and ``git fast-import`` all record the
    same one. ``memgov`` itself (a recovery's actor) is the committer of every
    commit: :data:`COMMITTER`.
    """
    text = canonical(actor) or CONTROL.sub("", actor).strip()
    if text == COMMITTER[0]:
        return COMMITTER
    if "@" in text:
        name, email = text.split("@", 1)[0], text
    else:
        name, email = text, f"{text}@{NAME_DOMAIN}"
    name, email = clean_ident(name), clean_ident(email)
    if not email or email.startswith("@"):
        return "unknown", f"unknown@{NAME_DOMAIN}"
    return name or email, email


def actor_of(name: str, email: str) -> str:
    """The actor a commit's author stands for: the inverse of :func:`actor_identity`
    (``agent:x <agent:x@memgov.invalid>`` is ``agent:x``, as its events say; an
    author memgov did not make is its email)."""
    if (name, email) == COMMITTER:
        return name
    local, at, domain = email.rpartition("@")
    return local if at and domain == NAME_DOMAIN and local else email


def git_env(actor: str, when: datetime | None) -> dict[str, str]:
    """The author (the actor), the committer (memgov) and, given ``when``, the dates."""
    name, email = actor_identity(actor)
    env = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": COMMITTER[0],
        "GIT_COMMITTER_EMAIL": COMMITTER[1],
    }
    if when is not None:  # commits carry the store's clock, like its events
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when.isoformat()
    return env


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    import ctypes  # only where setpriv is missing

    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


def _on_path(name: str) -> str | None:
    """The program ``name`` on PATH, as ``shutil.which`` finds it (which is not
    imported for this: ``shutil`` brings the compression modules into start-up)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or os.curdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


_LINUX = sys.platform.startswith("linux")
_SETPRIV = _on_path("setpriv") if _LINUX else None
#: the command prefix that ties a child to this process, and the preexec_fn without it
_LAUNCH: tuple[str, ...] = (_SETPRIV, "--pdeathsig", "KILL", "--") if _SETPRIV else ()
_PREEXEC: Callable[[], None] | None = _die_with_parent if _LINUX and not _SETPRIV else None


def _environment(actor: str | None, when: datetime | None, extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **git_env(actor or COMMITTER[0], when), **GIT_SETTINGS, **extra}


def run(
    root: Path,
    *args: str,
    data: bytes | None = None,
    actor: str | None = None,
    when: datetime | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
) -> bytes:
    """``git ARGS`` in ``root``, ``data`` on its input; its output. A failure is a
    :class:`GitFailed` unless ``check`` is false."""
    result = subprocess.run(
        [*_LAUNCH, "git", *args],
        cwd=root,
        input=data,
        capture_output=True,
        check=False,
        env=_environment(actor, when, env or {}),
        preexec_fn=_PREEXEC,
    )
    if check and result.returncode != 0:
        raise _failed(root, args, result.returncode, result.stderr)
    return result.stdout


def _failed(root: Path, args: tuple[str, ...], code: int, stderr: bytes) -> GitFailed:
    verb = next((a for a in args if not a.startswith("-")), args[0])
    return GitFailed(
        f"{root}: git {verb} failed (exit {code}): "
        f"{stderr.decode('utf-8', 'replace').strip()[:500] or 'no message'}"
    )


@dataclass
class Started:
    """A git started by :func:`started`: where, with what, and the process."""

    root: Path
    args: tuple[str, ...]
    process: subprocess.Popen[bytes]

    def finished(self, *, check: bool = True) -> bytes:
        """Its output, once it has ended (a :class:`GitFailed` unless ``check`` is
        false)."""
        out, err = self.process.communicate()
        if check and self.process.returncode != 0:
            raise _failed(self.root, self.args, self.process.returncode, err)
        return out

    def stop(self) -> None:
        """Killed and reaped: its answer is no longer wanted."""
        self.process.kill()
        self.process.wait()


def started(root: Path, *args: str) -> Started:
    """``git ARGS`` in ``root``, started as :func:`run` starts it (nothing on its
    input); :meth:`Started.finished` gives its output."""
    process = subprocess.Popen(
        [*_LAUNCH, "git", *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_environment(None, None, {}),
        preexec_fn=_PREEXEC,
    )
    return Started(root, args, process)


def popen(
    root: Path,
    *args: str,
    stdout: int | IO[Any] | None = None,
    stderr: IO[Any] | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """``git ARGS`` in ``root`` reading a stream from its stdin (a pipe)."""
    return subprocess.Popen(
        [*_LAUNCH, "git", *args],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=stdout,
        stderr=stderr,
        bufsize=1 << 20,
        env=_environment(None, None, env or {}),
        preexec_fn=_PREEXEC,
    )
