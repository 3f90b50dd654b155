"""The network side of a team store: its remote, fetch and push, with git doing the work.

memgov builds no server: a team store's remote is any git URL (a bare repository
on disk, GitHub, GitLab, Gitea, an ssh host). Every command here runs through
:func:`core.store.gitstore.run` (no hook of the repository runs) with a network
environment that never waits on a person: no password prompt
(``GIT_TERMINAL_PROMPT=0``), ssh in batch mode unless the user set their own ssh
command, and a time limit. A failure is a :class:`RemoteFailed` that says what
happened in words (cannot reach the remote, the push was rejected, the remote has
no such branch) and that nothing local was lost.

What a remote sends is untrusted: fetch brings objects into
``refs/remotes/origin/*`` only, never into the checked-out branch; what the sync
does with them is :mod:`core.team.merge`'s.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.domain.errors import StoreError
from core.store import gitstore
from core.store.gitstore.run import GIT_SETTINGS

REMOTE = "origin"
BRANCH = "main"
#: where fetched branches land: the remote's main, and its proposal branches
TRACKING = f"refs/remotes/{REMOTE}"
PROPOSALS = "memgov/proposals"
#: a network command that takes longer than this is stopped (a hung ssh, a dead host)
NETWORK_TIMEOUT = float(os.environ.get("MEMGOV_NETWORK_TIMEOUT", "600"))
_SECRET_IN_URL = re.compile(r"(?<=://)[^/@\s]+@")


class RemoteFailed(StoreError):
    """A fetch or push did not happen; the message says why and that nothing was lost."""


def shown_url(url: str) -> str:
    """A URL as messages show it: a password or token in it (``https://user:tok@host``)
    is never printed."""
    return _SECRET_IN_URL.sub("***@", url)


def network_env() -> dict[str, str]:
    env = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    if "GIT_SSH_COMMAND" not in os.environ and "GIT_SSH" not in os.environ:
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes -o ConnectTimeout=20"
    return env


def remote_url(root: Path) -> str | None:
    """The team store's remote (``origin``), or None when it has none."""
    out = gitstore.run(root, "config", "--get", f"remote.{REMOTE}.url", check=False)
    return out.decode("utf-8", "replace").strip() or None


def _network(
    root: Path, *args: str, what: str, url: str, progress: Progress | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run a git network command; a failure or a time-out is a RemoteFailed. With
    ``progress``, git's own progress lines ("Receiving objects:  45% (450/1000)") are
    passed on as they come."""
    env = {**os.environ, **gitstore.git_env("memgov", None), **GIT_SETTINGS}
    env.update(network_env())
    command = ["git", *args]
    if progress is not None:  # after the verb; --quiet would silence the progress
        command = [
            command[0],
            command[1],
            "--progress",
            *(a for a in command[2:] if a != "--quiet"),
        ]
    try:
        if progress is None:
            result = subprocess.run(
                command,
                cwd=root,
                capture_output=True,
                check=False,
                env=env,
                timeout=NETWORK_TIMEOUT,
            )
        else:
            result = _streamed(command, root, env, progress)
    except subprocess.TimeoutExpired:
        raise RemoteFailed(
            f"{root}: {what} {shown_url(url)} took over {NETWORK_TIMEOUT:.0f} s and was "
            "stopped; nothing local was changed, and your decisions are pushed on the next "
            "sync (MEMGOV_NETWORK_TIMEOUT sets the limit)"
        ) from None
    return result


Progress = Callable[[str], None]
_PROGRESS = re.compile(rb"^(remote: )?[A-Z][a-z]+ objects: +\d+%")


def _streamed(
    command: list[str], root: Path, env: dict[str, str], progress: Progress
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command``, passing each progress line of its stderr on as it comes; both
    outputs read as they arrive (a full pipe never stalls git) and the time limit
    holds however quiet the remote is."""
    import selectors
    import time

    deadline = time.monotonic() + NETWORK_TIMEOUT
    proc = subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None and proc.stdout is not None
    out, kept, pending = bytearray(), bytearray(), b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ, "out")
        selector.register(proc.stderr, selectors.EVENT_READ, "err")
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                proc.wait()
                raise subprocess.TimeoutExpired(command, NETWORK_TIMEOUT)
            for key, _events in selector.select(timeout=min(left, 1.0)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                if key.data == "out":
                    out += chunk
                    continue
                pending += chunk
                *lines, pending = re.split(rb"[\r\n]", pending)
                for line in lines:
                    if _PROGRESS.match(line):
                        progress(line.decode("utf-8", "replace").removeprefix("remote: ").strip())
                    elif line.strip():
                        kept += line + b"\n"
    code = proc.wait()
    return subprocess.CompletedProcess(command, code, bytes(out), bytes(kept + pending))


def _git_says(result: subprocess.CompletedProcess[bytes]) -> str:
    """git's own message, first lines, without any URL's password."""
    text = result.stderr.decode("utf-8", "replace").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("hint:", "To ", "From "))]
    return shown_url("; ".join(lines[:3]))[:400] or f"exit {result.returncode}"


def fetch(root: Path, progress: Progress | None = None) -> str:
    """Fetch the remote's branches into ``refs/remotes/origin/*`` (pruned); the URL."""
    url = remote_url(root)
    if url is None:
        raise RemoteFailed(
            f"{root}: this team store has no remote; give it one with "
            "'memgov team init --remote URL' or clone it with 'memgov team clone URL'"
        )
    result = _network(
        root,
        "fetch",
        "--quiet",
        "--prune",
        "--no-tags",
        "--no-recurse-submodules",
        REMOTE,
        f"+refs/heads/*:{TRACKING}/*",
        what="fetching from",
        url=url,
        progress=progress,
    )
    if result.returncode != 0:
        raise RemoteFailed(
            f"{root}: cannot fetch from {shown_url(url)}: {_git_says(result)}. Nothing local "
            "was changed; your decisions stay here and are pushed on the next sync"
        )
    return url


@dataclass(frozen=True)
class Pushed:
    ref: str
    rejected: bool
    message: str


def push(
    root: Path, refspecs: list[str], *, url: str, progress: Progress | None = None
) -> list[Pushed]:
    """Push ``refspecs`` (``sha:refs/heads/x``, ``:refs/heads/x`` deletes) atomically:
    all of them land or none. A rejection (the remote moved on) is returned, not raised;
    a remote that cannot be reached is a RemoteFailed."""
    if not refspecs:
        return []
    result = _network(
        root,
        "push",
        "--porcelain",
        "--atomic",
        "--no-verify",  # memgov ran the same scan itself (core.team.guard)
        REMOTE,
        *refspecs,
        what="pushing to",
        url=url,
        progress=progress,
    )
    rows = _porcelain(result.stdout.decode("utf-8", "replace"))
    if result.returncode != 0 and not any(row.rejected for row in rows):
        raise RemoteFailed(
            f"{root}: cannot push to {shown_url(url)}: {_git_says(result)}. Nothing was lost: "
            "your decisions stay here and are pushed on the next sync"
        )
    if result.returncode != 0:  # --atomic: one rejected, none landed
        rows = [
            Pushed(r.ref, True, r.message or "not pushed: another ref was rejected") for r in rows
        ]
    return rows


def _porcelain(text: str) -> list[Pushed]:
    """``git push --porcelain``: ``<flag>\\t<from>:<to>\\t<summary>`` a ref."""
    rows = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or len(parts[0]) != 1:
            continue
        flag, refs, summary = parts[0], parts[1], parts[2]
        rows.append(Pushed(refs.rpartition(":")[2], flag == "!", summary.strip()))
    return rows


def set_remote(root: Path, url: str) -> None:
    if remote_url(root) is None:
        gitstore.run(root, "remote", "add", REMOTE, url)
    else:
        gitstore.run(root, "remote", "set-url", REMOTE, url)


def clone(url: str, target: Path) -> None:
    """``git clone`` the remote's main branch into ``target`` (a new or empty folder).
    No hook runs and no submodule is fetched: the remote is untrusted."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    result = _network(
        parent,
        "clone",
        "--quiet",
        "--no-recurse-submodules",
        "--branch",
        BRANCH,
        "--origin",
        REMOTE,
        "--",
        url,
        str(target),
        what="cloning",
        url=url,
    )
    if result.returncode != 0:
        raise RemoteFailed(
            f"cannot clone {shown_url(url)} into {target}: {_git_says(result)}; nothing was created"
        )


def tracking(root: Path, branch: str = BRANCH) -> str | None:
    """The commit the remote's ``branch`` had at the last fetch, or None."""
    return gitstore.resolve(root, f"{TRACKING}/{branch}")
