"""Git plumbing on a store's repository: revisions, blobs, diffs, refs, tags, and
commits written with ``git fast-import`` from changed files alone.

Nothing here touches the working tree or the checked-out branch (but
:func:`checkout_head`, which puts one file back as HEAD has it). Every command
runs through :func:`core.store.gitstore.run.run`; a failure is a ``GitFailed``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from core.domain.errors import StoreError
from core.store.gitstore.objects import raw_date
from core.store.gitstore.run import (
    COMMITTER,
    GitFailed,
    Started,
    actor_identity,
    actor_of,
    run,
    started,
)


def head(root: Path) -> str:
    return run(root, "rev-parse", "HEAD").decode().strip()


def resolve(root: Path, rev: str) -> str | None:
    out = run(root, "rev-parse", "--verify", "--quiet", rev + "^{commit}", check=False)
    return out.decode().strip() or None


def read_blobs(root: Path, specs: Iterable[str]) -> dict[str, bytes | None]:
    """``{"<rev>:<path>": bytes or None when absent}`` in one ``cat-file`` call."""
    wanted = list(dict.fromkeys(specs))
    if not wanted:
        return {}
    out = run(root, "cat-file", "--batch", data="".join(s + "\n" for s in wanted).encode())
    found: dict[str, bytes | None] = {}
    pos = 0
    for spec in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            found[spec] = None
            continue
        size = int(header[2])
        found[spec] = out[pos : pos + size]
        pos += size + 1
    return found


def changed_paths(root: Path, old: str, new: str, *pathspec: str) -> list[str]:
    return [path for path, _a, _b in changed_blobs(root, old, new, *pathspec)]


def changed_blobs(
    root: Path, old: str, new: str, *pathspec: str
) -> list[tuple[str, str | None, str | None]]:
    """(path, blob at ``old``, blob at ``new``) for each file that differs; None
    where the file is absent. Reading blobs by id is much faster than by
    ``rev:path`` in a folder of 10,000 files."""
    out = run(root, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", old, new, "--", *pathspec)
    # a name that is not UTF-8 (someone else's push) stays readable: its bytes escaped
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        _mode_a, _mode_b, sha_a, sha_b, _status = meta[1:].split(" ")
        found.append(
            (path, None if set(sha_a) == {"0"} else sha_a, None if set(sha_b) == {"0"} else sha_b)
        )
    return found


def odd_entries(root: Path, old: str, new: str) -> list[tuple[str, str]]:
    """(path, what it is) of each entry ``new`` adds or changes that is not a plain
    file: a symbolic link, a submodule."""
    out = run(root, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", old, new)
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    odd = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if meta.startswith(":"):
            mode = meta[1:].split(" ")[1]
            if mode == "120000":
                odd.append((path, "a symbolic link"))
            elif mode == "160000":
                odd.append((path, "a submodule"))
    return odd


def tracked(root: Path, paths: Iterable[str]) -> set[str]:
    """Which of ``paths`` git's index knows."""
    out = run(root, "ls-files", "-z", "--", *paths)
    return set(out.decode("utf-8").split("\0")) - {""}


def checkout_head(root: Path, rel: str) -> None:
    """One file of the working tree (and the index) back as HEAD has it."""
    run(root, "checkout", "HEAD", "--", rel)


def dirty(root: Path, *pathspec: str) -> list[str]:
    out = run(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", *pathspec)
    return [entry[3:] for entry in out.decode("utf-8").split("\0") if len(entry) > 3]


def write_commit(
    root: Path,
    ref: str,
    *,
    parent: str,
    files: Mapping[str, bytes | None],
    actor: str,
    message: str,
    when: datetime,
) -> str:
    """A commit on ``ref`` (which must not exist yet): ``parent``'s tree with ``files``
    written (``None``: the file is removed)."""
    name, email = actor_identity(actor)
    msg = message.encode("utf-8")
    parts = [
        f"commit {ref}\n".encode(),
        f"author {name} <{email}> {raw_date(when)}\n".encode(),
        f"committer {COMMITTER[0]} <{COMMITTER[1]}> {raw_date(when)}\n".encode(),
        f"data {len(msg)}\n".encode() + msg + b"\n",
        f"from {parent}\n".encode(),
    ]
    for path, data in sorted(files.items()):
        if "\n" in path or path.startswith('"'):
            raise StoreError(f"{path!r}: a path git fast-import cannot take; rename the file")
        if data is None:
            parts.append(f"D {path}\n".encode())
        else:
            parts.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    if resolve(root, ref) is not None:
        raise StoreError(f"{root}: {ref} already exists; decide or delete that batch first")
    run(root, "fast-import", "--quiet", "--date-format=raw", data=b"".join(parts))
    sha = resolve(root, ref)
    if sha is None:  # pragma: no cover - fast-import failed without saying so
        raise StoreError(f"{root}: git fast-import did not create {ref}")
    return sha


def refs(root: Path, prefix: str) -> list[tuple[str, str]]:
    """(ref name without ``prefix``, commit) for each ref under ``prefix``."""
    out = run(root, "for-each-ref", "--format=%(refname)%00%(objectname)", prefix)
    found = []
    for line in out.decode("utf-8").splitlines():
        ref, _, sha = line.partition("\0")
        found.append((ref[len(prefix) :], sha))
    return sorted(found)


def delete_ref(root: Path, ref: str) -> None:
    run(root, "update-ref", "-d", ref)


@dataclass(frozen=True)
class Tag:
    name: str  # baseline/0003
    commit: str
    when: str
    message: str

    def field(self, name: str) -> str | None:
        """A ``name: value`` line of the tag's message."""
        for line in self.message.splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() == name:
                return value.strip()
        return None


def tag(root: Path, name: str, commit: str, *, actor: str, message: str, when: datetime) -> None:
    """An annotated tag; the tagger is memgov, the actor is named in the message."""
    run(root, "tag", "-a", name, "-m", message, commit, actor=actor, when=when)


def tags(root: Path, prefix: str) -> list[Tag]:
    fmt = (
        "%(refname:short)%00%(*objectname)%00%(objectname)%00"
        "%(creatordate:iso-strict)%00%(contents)%01"
    )
    out = run(root, "for-each-ref", f"--format={fmt}", f"refs/tags/{prefix}")
    found = []
    for record in out.decode("utf-8").split("\x01"):
        record = record.lstrip("\n")
        if not record:
            continue
        name, peeled, obj, when, message = record.split("\0", 4)
        found.append(Tag(name, peeled or obj, when, message.strip()))
    return sorted(found, key=lambda t: t.name)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    author: str  # the actor it stands for (:func:`~core.store.gitstore.run.actor_of`)
    when: str
    message: str


def log_for(root: Path, path: str, *, limit: int = 200) -> list[CommitInfo]:
    """Commits touching one path, oldest first, the last ``limit`` of them (one
    ``git log``; over the commit graph's changed-path filters it skips the commits
    that did not touch it; following renames is not needed: memory files never
    move). The path is literal: a name with ``*`` in it matches only itself."""
    return log_read(log_started(root, path, limit=limit))


def log_started(root: Path, path: str, *, limit: int = 200) -> Started:
    """:func:`log_for`'s ``git log``, started: its answer is :func:`log_read`'s (the
    caller works while git walks the history)."""
    return started(
        root,
        "--literal-pathspecs",
        "log",
        f"-n{limit}",
        "--format=%H%x00%an%x00%ae%x00%aI%x00%B%x1e",
        "HEAD",
        "--",
        path,
    )


def log_read(log: Started) -> list[CommitInfo]:
    """The commits a :func:`log_started` git printed, oldest first (none when it
    failed: no commit yet, no history)."""
    out = log.finished(check=False)
    found = []
    for record in out.decode("utf-8", "replace").split("\x1e"):
        record = record.lstrip("\n")
        if not record:
            continue
        sha, name, email, when, message = record.split("\x00", 4)
        author = actor_of(name, email)
        found.append(CommitInfo(sha=sha, author=author, when=when, message=message.strip()))
    return list(reversed(found))


def update_commit_graph(root: Path) -> None:
    """Bring git's commit graph up to date, with changed-path (Bloom) filters: ``git
    log -- FILE`` then reads the trees only of commits that may have touched the
    file. Incremental (``--split``): a few milliseconds when current, a walk of the
    new commits otherwise. Local state of ``.git``; a failure only makes log slower.
    Not even started while HEAD is the commit the last update saw (a note in
    ``.git/memgov``): reading a memory's history twice costs one git process, not two."""
    current = head_commit(root)
    note = root / ".git" / "memgov" / "commit-graph-head"
    if current is not None and not note.is_symlink():
        with contextlib.suppress(OSError):
            if note.read_text("ascii") == current:
                return
    try:
        run(root, "commit-graph", "write", "--reachable", "--changed-paths", "--split")
    except GitFailed:
        return  # tried again next time
    if current is not None and note.parent.is_dir() and not note.parent.is_symlink():
        with contextlib.suppress(OSError):
            note.write_text(current, "ascii")


def head_commit(root: Path) -> str | None:
    """The commit ``HEAD`` names, read from ``.git`` without running git (None when
    there is none yet, or ``.git`` is not a plain folder: ask git then)."""
    git_dir = root / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return None
    try:
        head = (git_dir / "HEAD").read_text("ascii", "replace").strip()
    except OSError:
        return None
    if not head.startswith("ref: "):
        return head if _is_sha(head) else None
    ref = head[5:].strip()
    if ".." in ref or not ref.startswith("refs/"):
        return None
    try:
        found = (git_dir / ref).read_text("ascii", "replace").strip()
        return found if _is_sha(found) else None
    except OSError:
        pass
    try:
        packed = (git_dir / "packed-refs").read_text("ascii", "replace")
    except OSError:
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == ref and _is_sha(sha):
            return sha
    return None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def gc_due(root: Path) -> bool:
    """Whether ``git gc --auto`` would do anything, estimated as git does (loose
    objects in ``objects/17`` times 256 over ``gc.auto``'s 6,700, or over 50 packs),
    so a commit does not start a process to learn that it would not."""
    objects = root / ".git" / "objects"
    if not objects.is_dir():
        return True  # not a plain repository: let git decide
    try:
        loose = sum(1 for name in os.listdir(objects / "17") if len(name) >= 38)
    except OSError:
        loose = 0
    try:
        packs = sum(1 for name in os.listdir(objects / "pack") if name.endswith(".pack"))
    except OSError:
        packs = 0
    return loose * 256 > 6_700 or packs > 50


def adopt_as_merge(root: Path, other: str, *, actor: str, when: datetime) -> str | None:
    """The branch's last commit made again with ``other`` as its second parent (same
    tree, message, author and date): ``other``'s history joins the branch, as a merge
    on a forge would show it (a proposal approved). Signed when the clone signs. None
    when the last commit is not a commit of one parent (nothing is changed)."""
    from core.store.gitstore.objects import forget_stamp, signs

    last = head(root)
    parents = run(root, "rev-list", "--parents", "-n", "1", last).decode().split()[1:]
    if len(parents) != 1:
        return None
    tree = run(root, "rev-parse", f"{last}^{{tree}}").decode().strip()
    message = run(root, "log", "-1", "--format=%B", last)
    new = (
        run(
            root,
            "commit-tree",
            tree,
            "-p",
            parents[0],
            "-p",
            other,
            *(["-S"] if signs(root) else []),
            "-F",
            "-",
            data=message,
            actor=actor,
            when=when,
        )
        .decode()
        .strip()
    )
    run(root, "update-ref", "-m", "memgov: approved proposal", "HEAD", new, last)
    forget_stamp(root)
    return new
