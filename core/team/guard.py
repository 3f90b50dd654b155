"""Nothing secret leaves the machine: the scan of every commit about to be pushed.

:func:`scan_push` reads what a push would send (every commit not yet on the
remote, each commit's own diff, a merge against its first parent, the remote's
line) and runs the credential scanner of the write gate
(:mod:`core.domain.secrets`) on the lines each commit adds. A hit blocks the push:
:class:`PushBlocked` names the commit, file, line and rule id, never the value,
and says how to fix it. A secret added by one commit and removed by a later one
still blocks: the push would carry the first commit.

memgov's own sync runs the scan before it pushes. :func:`install_hook` puts the
same scan in the clone's ``pre-push`` hook (``memgov team init`` and ``clone`` do),
so a plain ``git push`` from that folder is guarded too: git runs the hook with
the refs it is about to push on its input (:func:`check_hook_input`).
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from core.domain import secrets
from core.domain.data import AsData
from core.domain.errors import SecretBlocked
from core.store import gitstore
from core.team.remote import REMOTE

ZERO = "0" * 40
HOOK_MARK = "# memgov pre-push: scans what a push sends for credentials"


@dataclass(frozen=True)
class Leak(AsData):
    """A credential in a commit about to be pushed: where, and which rule. No value."""

    commit: str
    path: str
    line: int
    rule: str

    def render(self) -> str:
        return f"{self.path}:{self.line}: {self.rule} (commit {self.commit[:10]})"


class PushBlocked(SecretBlocked):
    """A push would send a credential: nothing was pushed."""

    def __init__(self, root: Path, leaks: list[Leak]) -> None:
        self.leaks = leaks
        self.rules = sorted({leak.rule for leak in leaks})
        where = "; ".join(leak.render() for leak in leaks[:10])
        more = f" and {len(leaks) - 10} more" if len(leaks) > 10 else ""
        Exception.__init__(
            self,
            f"{root}: push blocked by the secret scanner: {where}{more}. The value is not "
            "shown. Nothing was pushed. Remove the credential from the record (memgov "
            "decide with --option correct, or erase it), and if the commit that added it "
            "is not yet pushed, the next sync sends the fixed history only after the "
            "commit itself is rewritten: 'git -C STORE rebase -i' or ask a maintainer",
        )


def _unquote(path: str) -> str:
    """A path as ``git diff`` prints it, C-quoted when it holds odd characters."""
    if not path.startswith('"'):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def added_lines(diff: str) -> list[tuple[str, str, list[int], list[str]]]:
    """(commit, path, line numbers, lines) of what each file of each commit adds."""
    found: list[tuple[str, str, list[int], list[str]]] = []
    commit = path = ""
    numbers: list[int] = []
    lines: list[str] = []
    at = 0

    def flush() -> None:
        if lines:
            found.append((commit, path, list(numbers), list(lines)))
        numbers.clear()
        lines.clear()

    header = False  # between "diff --git" and the first hunk: "---"/"+++" name the file
    for raw in diff.split("\n"):
        if raw.startswith("\0"):
            flush()
            commit, header = raw[1:].strip(), False
        elif raw.startswith("diff --git "):
            flush()
            path, header = "", True
        elif header and raw.startswith("+++ "):
            target = raw[4:]
            path = "" if target == "/dev/null" else _unquote(target)
            path = path[2:] if path.startswith("b/") else path
        elif raw.startswith("@@ ") and path:
            header = False
            plus = raw.split(" ")[2]  # +start,count
            at = int(plus[1:].split(",")[0])
        elif not header and raw.startswith("+") and path:
            numbers.append(at)
            lines.append(raw[1:])
            at += 1
    flush()
    return found


def scan_range(root: Path, *revisions: str) -> list[Leak]:
    """The credentials added by the commits ``revisions`` select (``git log`` syntax:
    ``A..B``, or ``B --not --remotes=origin``)."""
    out = gitstore.run(
        root,
        "log",
        "-p",
        "-U0",
        "--text",
        "--no-color",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--diff-merges=first-parent",
        "--format=%x00%H",
        *revisions,
        "--",
    )
    leaks = _messages(root, revisions)
    for commit, path, numbers, lines in added_lines(out.decode("utf-8", "replace")):
        for finding in secrets.scan("\n".join(lines)):
            line = numbers[min(finding.line, len(numbers)) - 1]
            leaks.append(Leak(commit, path, line, finding.rule_id))
    return leaks


def _messages(root: Path, revisions: tuple[str, ...]) -> list[Leak]:
    """Credentials in the commit messages themselves (a push carries them too)."""
    token = f"<{os.urandom(12).hex()}>"
    out = gitstore.run(root, "log", f"--format={token}%H%n%B", *revisions, "--")
    leaks = []
    for chunk in out.decode("utf-8", "replace").split(token)[1:]:
        commit, _, message = chunk.partition("\n")
        for finding in secrets.scan(message):
            leaks.append(Leak(commit.strip(), "(commit message)", finding.line, finding.rule_id))
    return leaks


def scan_push(root: Path, local: str, remote: str | None) -> list[Leak]:
    """What pushing ``local`` over ``remote`` (None: a new branch) would send."""
    if remote and remote != ZERO:
        return scan_range(root, f"{remote}..{local}")
    return scan_range(root, local, "--not", f"--remotes={REMOTE}")


def check_push(root: Path, local: str, remote: str | None) -> None:
    leaks = scan_push(root, local, remote)
    if leaks:
        raise PushBlocked(root, leaks)


def check_hook_input(root: Path, text: str) -> list[Leak]:
    """The pre-push hook's input, ``<local ref> <local sha> <remote ref> <remote sha>``
    a line: every ref pushed is scanned (a deletion sends nothing)."""
    leaks: list[Leak] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[1] == ZERO:
            continue
        leaks += scan_push(root, parts[1], parts[3])
    return leaks


def hook_script() -> str:
    """The ``pre-push`` hook: this interpreter's memgov, ``-P`` so that the store's
    folder (anyone's files) is not on its import path."""
    command = shlex.join([sys.executable, "-P", "-m", "tui.cli", "team", "check-push"])
    return f'#!/bin/sh\n{HOOK_MARK}\nexec {command} "$@"\n'


def install_hook(root: Path) -> Path:
    """Write the ``pre-push`` hook into the clone's own ``.git/hooks`` (never carried by
    a clone or a push). A hook someone else put there is kept beside it, renamed."""
    hooks = root / ".git" / "hooks"
    if hooks.is_symlink() or not (root / ".git").is_dir():
        raise SecretBlocked(f"{root}: cannot install the pre-push hook (.git/hooks)", [])
    hooks.mkdir(exist_ok=True)
    path = hooks / "pre-push"
    if path.is_symlink():
        path.unlink()
    elif path.exists() and HOOK_MARK not in path.read_text("utf-8", "replace"):
        os.replace(path, hooks / "pre-push.before-memgov")
    path.write_text(hook_script(), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path
