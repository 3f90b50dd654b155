"""Nothing secret leaves the machine: the scan of every commit about to be pushed.

:func:`scan_push` reads what a push would send (every commit not yet on the
remote, each commit's own change, a merge against its first parent, the
remote's line) and runs the credential scanner of the write gate
(:mod:`core.domain.secrets`) on all of it:

* the commit object itself, read raw (``git cat-file``, not ``git log``, which
  stops a message at a NUL and re-encodes it): the author's and committer's name
  and e-mail, the message, and every other header (a signature, an encoding, one
  written by hand);
* every path the commit adds (a file named after a token is sent as its name),
  as it is and with its folders run together;
* every blob it adds or changes, decoded (:mod:`core.domain.secrets.decoding`:
  UTF-16/32, gzip, bzip2, xz, the strings of a binary file; base64 as the
  scanner reads it), the lines that were not in the file before;
* for a plain ``git push`` (the hook), the names of the refs and every
  annotated tag pushed (its tagger and message).

A hit blocks the push: :class:`PushBlocked` names the commit, the field (a
file and line, the path, the author's or committer's name or e-mail, the
message, a header) and the rule id, never the value, and says how to fix it. A
secret added by one commit and removed by a later one still blocks: the push
would carry the first commit. A compressed file too large to scan whole blocks
too (``too-large-to-scan``).

memgov's own sync runs the scan before it pushes. :func:`install_hook` puts the
same scan in the clone's ``pre-push`` hook (``memgov team init`` and ``clone`` do),
so a plain ``git push`` from that folder is guarded too: git runs the hook with
the refs it is about to push on its input (:func:`check_hook_input`).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from core.domain import secrets
from core.domain.data import AsData
from core.domain.errors import SecretBlocked
from core.domain.secrets import decoding
from core.domain.terminal import printable
from core.store import gitstore
from core.team.remote import REMOTE

ZERO = "0" * 40
MAX_BLOB = 256 * 1024 * 1024  # a blob larger than this is not read: too large to scan
HOOK_MARK = "# memgov pre-push: scans what a push sends for credentials"


#: what a leak is in (:attr:`Leak.field`): a file's content, or a part of the commit
FIELDS = (
    "blob",
    "path",
    "author name",
    "author e-mail",
    "committer name",
    "committer e-mail",
    "tagger name",
    "tagger e-mail",
    "message",
    "header",
    "tag",
    "ref",
)
TOO_LARGE = "too-large-to-scan"  # the rule of a file too large to scan whole


@dataclass(frozen=True)
class Leak(AsData):
    """A credential in a commit about to be pushed: where, and which rule. No value.

    ``path`` is the file for a blob (redacted: a name can hold a token too), the
    path itself, redacted, for a path, and a label in parentheses for the rest
    (``(commit message)``, ``(author name)``); ``line`` is 0 where there is none;
    ``how`` says how a blob was decoded (``utf16le``, ``gzip``)."""

    commit: str
    path: str
    line: int
    rule: str
    field: str = "blob"
    how: str = ""

    def render(self) -> str:
        where = self.path
        if self.how:
            where += f" ({self.how})"
        if self.field == "path":
            where = f"(path) {where}"
        if self.line:
            where += f":{self.line}"
        return f"{where}: {self.rule} (commit {self.commit[:10]})"


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
            "commit itself is rewritten: 'git -C STORE rebase -i' (a file's name, an "
            "author's or committer's name or e-mail, a message: 'git commit --amend' "
            "with them changed) or ask a maintainer",
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
    """The credentials the commits ``revisions`` select would send (``git rev-list``
    syntax: ``A..B``, or ``B --not --remotes=origin``): see the module's docstring."""
    out = gitstore.run(root, "rev-list", "--parents", *revisions, "--")
    commits = [line.split() for line in out.splitlines() if line.strip()]
    if not commits:
        return []
    leaks: list[Leak] = []
    reader = gitstore.BlobStream(root, [c[0] for c in commits])
    try:
        for commit in commits:
            leaks += scan_object(commit[0].decode("ascii"), reader.next(), "commit")
    finally:
        reader.close()
    return leaks + _changes(root, commits)


def _fields(raw: bytes) -> tuple[list[tuple[str, bytes]], bytes]:
    """A commit or tag object's headers (a continued one joined) and its message."""
    head, _, message = raw.partition(b"\n\n")
    fields: list[tuple[str, bytes]] = []
    for line in head.split(b"\n"):
        if line.startswith(b" ") and fields:
            fields[-1] = (fields[-1][0], fields[-1][1] + b"\n" + line[1:])
        else:
            key, _, value = line.partition(b" ")
            fields.append((key.decode("utf-8", "replace"), value))
    return fields, message


def _texts(value: bytes, encoding: str | None) -> list[str]:
    """A header's or message's texts: as UTF-8, and in the object's own encoding."""
    texts = [value.decode("utf-8", "replace")]
    if encoding:
        with contextlib.suppress(LookupError):  # no such codec, or not a text one
            texts.append(value.decode(encoding, "replace"))
    return texts


def _rules(texts: list[str]) -> list[str]:
    return sorted({f.rule_id for text in texts for f in secrets.scan(text)})


def scan_object(sha: str, raw: bytes, kind: str) -> list[Leak]:
    """The credentials in a commit or annotated tag object (``kind``): its identities
    (name and e-mail apart), its message, every other header; not its tree, parents
    or target, which are object ids."""
    fields, message = _fields(raw)
    encoding = next((v.decode("ascii", "replace") for k, v in fields if k == "encoding"), None)
    leaks: list[Leak] = []
    for key, value in fields:
        if key in ("tree", "parent", "object"):
            continue
        if key in ("author", "committer", "tagger"):
            name, bracket, rest = value.rpartition(b" <")
            email, _, date = rest.rpartition(b">")
            parts = [("name", name), ("e-mail", email), ("date", date)] if bracket else []
            for part, said in parts or [("name", value)]:
                label = f"{key} {part}" if part != "date" else "header"
                for rule in _rules(_texts(said, encoding)):
                    leaks.append(Leak(sha, f"({key} {part})", 0, rule, label))
            continue
        field = "tag" if kind == "tag" and key == "tag" else "header"
        for rule in _rules(_texts(value, encoding)):
            leaks.append(Leak(sha, f"({kind} header {printable(key)[:40]})", 0, rule, field))
    seen: set[tuple[int, str]] = set()
    # git log stops a message at a NUL: read to its end, and decoded if it has one
    views = [v.text for v in decoding.decoded(message)] if b"\0" in message else []
    for text in [*_texts(message, encoding), *views]:
        for finding in secrets.scan(text):
            if (finding.line, finding.rule_id) not in seen:
                seen.add((finding.line, finding.rule_id))
                label = f"({kind} message)"
                leaks.append(Leak(sha, label, finding.line, finding.rule_id, "message"))
    return leaks


def _path_leaks(commit: str, path: str, field: str, label: str = "") -> list[Leak]:
    """A path's credentials: as it is, and its folders run together (a token cut by
    slashes, ``ghp_ab/cd...``; then the path is not shown at all)."""
    rules = _rules([path])
    shown = label + shown_path(path)
    leaks = [Leak(commit, shown, 0, rule, field) for rule in rules]
    if "/" in path:
        hidden = f"{label}<a path of {len(path)} characters, not shown>"
        for rule in _rules([path.replace("/", "")]):
            if rule not in rules:
                leaks.append(Leak(commit, hidden, 0, rule, field))
    return leaks


def shown_path(path: str) -> str:
    """A path as a message may print it: each credential in it replaced by its rule,
    each control character named."""
    return printable(secrets.redact(path))


def _changes(root: Path, commits: list[list[bytes]]) -> list[Leak]:
    """The credentials in the paths each commit adds and in the blobs it adds or
    changes (against its first parent), the lines that are new to each file."""
    feed = b"".join(b" ".join(c[:2]) + b"\n" for c in commits)
    out = gitstore.run(
        root, "diff-tree", "--stdin", "-r", "-z", "--root", "--no-renames", "--no-abbrev",
        data=feed,
    )  # fmt: skip
    changes: list[tuple[str, str, bytes, bytes]] = []  # commit, path, old blob, new blob
    leaks: list[Leak] = []
    commit = ""
    parts = out.split(b"\0")
    k = 0
    while k < len(parts):
        part = parts[k]
        k += 1
        if not part:
            continue
        if not part.startswith(b":"):
            commit = part.split()[0].decode("ascii", "replace")
            continue
        meta = part[1:].split(b" ")
        path = parts[k].decode("utf-8", "surrogateescape") if k < len(parts) else ""
        k += 1
        if len(meta) < 5:
            continue
        new_mode, old_sha, new_sha, status = meta[1], meta[2], meta[3], meta[4][:1]
        if status == b"A":
            leaks += _path_leaks(commit, path, "path")
        if status in (b"A", b"M", b"T") and new_mode != b"160000":  # not a submodule
            old = b"" if set(old_sha) == {ord("0")} or status == b"T" else old_sha
            changes.append((commit, path, old, new_sha))
    return leaks + _blobs(root, changes)


def _blobs(root: Path, changes: list[tuple[str, str, bytes, bytes]]) -> list[Leak]:
    """The credentials in each changed blob's lines that its old version lacks."""
    if not changes:
        return []
    wanted = list(dict.fromkeys(s for _, _, old, new in changes for s in (old, new) if s))
    sizes = gitstore.blob_sizes(root, wanted)
    small = [s for s in wanted if sizes[s] <= MAX_BLOB]
    blobs: dict[bytes, list[decoding.Decoded] | str] = {}
    reader = gitstore.BlobStream(root, small)
    try:
        for sha in small:
            try:
                blobs[sha] = decoding.decoded(reader.next())
            except decoding.TooLarge as large:
                blobs[sha] = large.how
    finally:
        reader.close()
    leaks: list[Leak] = []
    for commit, path, old, new in changes:
        shown = shown_path(path)
        views = blobs.get(new, f"{sizes[new] // (1024 * 1024)} MB")
        if isinstance(views, str):
            leaks.append(Leak(commit, shown, 0, TOO_LARGE, "blob", views))
            continue
        before = blobs.get(old, []) if old else []
        known = {v.how: set(v.text.split("\n")) for v in before} if isinstance(before, list) else {}
        seen: set[tuple[str, int, str]] = set()
        for view in views:
            lines = view.text.split("\n")
            old_lines = known.get(view.how, set())
            numbers = [n for n, line in enumerate(lines, 1) if line not in old_lines]
            if not numbers:
                continue
            for finding in secrets.scan("\n".join(lines[n - 1] for n in numbers)):
                line = numbers[min(finding.line, len(numbers)) - 1] if view.whole else 0
                if (finding.rule_id, line, view.how) not in seen:
                    seen.add((finding.rule_id, line, view.how))
                    leaks.append(Leak(commit, shown, line, finding.rule_id, "blob", view.how))
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
    a line: every ref pushed is scanned (a deletion sends nothing but its name), its
    names too, and an annotated tag's object (tagger, message) with what it points at."""
    leaks: list[Leak] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        for ref in dict.fromkeys((parts[0], parts[2])):
            leaks += _path_leaks(parts[1], ref, "ref", "(ref name) ")
        if parts[1] == ZERO:
            continue
        leaks += _tags(root, parts[1])
        leaks += scan_push(root, parts[1], parts[3])
    return leaks


def _tags(root: Path, sha: str) -> list[Leak]:
    """The credentials in the annotated tag ``sha`` and the tags it points at."""
    leaks: list[Leak] = []
    for _ in range(16):  # a tag of a tag of ...: a few levels
        kind = gitstore.run(root, "cat-file", "-t", sha, check=False).strip()
        if kind != b"tag":
            break
        raw = gitstore.run(root, "cat-file", "tag", sha)
        leaks += scan_object(sha, raw, "tag")
        fields, _ = _fields(raw)
        sha = next((v.decode("ascii", "replace") for k, v in fields if k == "object"), ZERO)
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
