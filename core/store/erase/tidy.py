"""After a rewrite, and after a killed one: the index, the working tree and ``.git``.

:func:`sync_worktree` makes the index and the clean files of the working tree
follow a rewritten HEAD, for the paths the rewrite changed only (:func:`note_head`
keeps the old HEAD for a rerun); :func:`compact` leaves ``.git`` with one pack of the
reachable objects and nothing else; :func:`clear_leftovers` removes what killed
git processes leave (stale locks, temporary packs, fast-import's keep files and
crash reports, the scratch ref). The caller holds the store lock: no other git
process of this repository is running.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.store import gitstore
from core.store.erase.export import NULL_ID, SCRATCH_REF, dropped
from core.store.erase.scrub import Patterns, transform
from core.store.fsutil import UnsafePath, confined

_TEMP_INDEX = "memgov-purge.index"  # what an earlier version synced through
_LOOSE_NAME = re.compile(r"^(?:[0-9a-f]{38}|[0-9a-f]{62})$")  # objects/xx/<rest of the id>


# -------------------------------------------------------- working tree, index
_HEAD_NOTE = "memgov-purge.head"  # HEAD before the rewrite, until the sync is done
_SYNC_TEMP = ".memgov-purge"  # .<name><this>: a file being put back as HEAD has it
_HEX = re.compile(rb"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


@dataclass(frozen=True)
class _Change:
    """A path the rewrite changed: HEAD had (old_mode, old) before it, has (new_mode,
    new) after it (``new`` None: the path went)."""

    path: str
    old_mode: bytes
    old: bytes
    new_mode: bytes
    new: bytes | None


def _object_id(data: bytes, algorithm: str) -> bytes:
    digest = hashlib.new(algorithm)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest().encode()


def note_head(root: Path, gitdir: Path) -> bytes:
    """The HEAD commit before the rewrite, noted in ``.git`` until :func:`sync_worktree`
    is done: a rerun after a crash finds the refs already rewritten and needs the
    note to know which paths the rewrite changed. A note a killed run left is kept."""
    note = gitdir / _HEAD_NOTE
    with contextlib.suppress(OSError):
        found = note.read_bytes().strip()
        if _HEX.match(found):
            return found
    current = gitstore.run(root, "rev-parse", "--verify", "HEAD^{commit}").strip()
    temp = gitdir / (_HEAD_NOTE + ".tmp")
    temp.write_bytes(current + b"\n")
    os.replace(temp, note)
    return current


def _same_commit(root: Path, old: bytes, new: bytes) -> bool:
    """Whether ``new`` is ``old`` rewritten: the same commit but for its tree and
    parents (the rewrite keeps everything else byte for byte). A stale note, from a
    history that has moved on since, is not."""
    if old == new:
        return True
    out = gitstore.run(root, "cat-file", "--batch", data=old + b"\n" + new + b"\n")
    bodies: list[bytes] = []
    pos = 0
    for _ in range(2):
        end = out.find(b"\n", pos)
        header = out[pos:end].split()
        if len(header) != 3 or header[1] != b"commit":
            return False
        size = int(header[2])
        body = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
        head, _sep, message = body.partition(b"\n\n")
        kept = [x for x in head.split(b"\n") if not x.startswith((b"tree ", b"parent "))]
        bodies.append(b"\n".join(kept) + b"\n\n" + message)
    return bodies[0] == bodies[1]


def _rewritten_paths(root: Path, old: bytes, new: bytes) -> list[_Change]:
    """The files whose blob or presence differs between the two commits' trees."""
    diff = gitstore.run(
        root, "diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev",
        old.decode(), new.decode(),
    )  # fmt: skip
    fields = diff.split(b"\0")
    changes = []
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        mode_old, mode_new, sha_old, sha_new = meta[1:].split(b" ")[:4]
        if NULL_ID.match(sha_old):
            continue  # a path the rewrite added: it never adds one
        new_id = None if NULL_ID.match(sha_new) else sha_new
        path = raw_path.decode("utf-8", "surrogateescape")
        changes.append(_Change(path, mode_old, sha_old, mode_new, new_id))
    return changes


def _recognised_paths(root: Path, pats: Patterns, drop: frozenset[str]) -> list[_Change]:
    """Without a note of the old HEAD (lost after a crash): the index entries that
    differ from HEAD and that the rewrite turns into HEAD's version (or drops, for a
    dropped path) are taken for the old HEAD's. What someone staged is not."""
    diff = gitstore.run(
        root, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "HEAD"
    )
    fields = diff.split(b"\0")
    found: list[tuple[str, bytes, bytes, bytes, bytes | None]] = []
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        mode_head, mode_index, sha_head, sha_index = meta[1:].split(b" ")[:4]
        if NULL_ID.match(sha_index):
            continue  # not in the index at all
        path = raw_path.decode("utf-8", "surrogateescape")
        head_id = None if NULL_ID.match(sha_head) else sha_head
        if head_id is None and not dropped(path, drop):
            continue  # a file someone added
        if head_id is not None and mode_head != mode_index:
            continue
        found.append((path, mode_index, sha_index, mode_head, head_id))
    contents = gitstore.read_blob_ids(
        root, list(dict.fromkeys(s for _p, _m, i, _n, h in found for s in (i, h) if s))
    )
    changes = []
    for path, mode_index, sha_index, mode_head, head_id in found:
        if head_id is not None and transform(path, contents[sha_index], pats) != contents[head_id]:
            continue
        changes.append(_Change(path, mode_index, sha_index, mode_head, head_id))
    return changes


def _index_entries(root: Path) -> dict[str, tuple[bytes, bytes, bytes]]:
    """{path: (mode, blob, stage)} of every index entry."""
    listing = gitstore.run(root, "ls-files", "--stage", "-z")
    entries: dict[str, tuple[bytes, bytes, bytes]] = {}
    for row in listing.split(b"\0"):
        if not row:
            continue
        meta, _tab, raw_path = row.partition(b"\t")
        mode, sha, stage = meta.split(b" ")[:3]
        path = raw_path.decode("utf-8", "surrogateescape")
        if path in entries or stage != b"0":
            entries[path] = (b"", b"", b"conflict")  # an unmerged path: left alone
            continue
        entries[path] = (mode, sha, stage)
    return entries


def sync_worktree(
    root: Path, gitdir: Path, old_head: bytes, pats: Patterns, drop: frozenset[str]
) -> None:
    """The index and the clean files of the working tree follow the rewritten HEAD,
    so that nothing keeps the old blobs alive and ``git status`` stays as it was.
    Only the paths the rewrite changed (``old_head``'s tree against HEAD's), and of
    those only where the index entry is still the old HEAD's: a file someone staged,
    or staged a change of, is left alone, index entry and file. Where the index is
    the old HEAD's but the file was changed, the entry follows HEAD and the file is
    left as it is. Rerunnable: what is done already is as HEAD has it."""
    new_head = gitstore.run(root, "rev-parse", "--verify", "HEAD^{commit}").strip()
    if old_head != new_head and _same_commit(root, old_head, new_head):
        changes = _rewritten_paths(root, old_head, new_head)
    else:  # no rewrite of HEAD in this call: a killed one may have done it
        changes = _recognised_paths(root, pats, drop)
    if not changes:
        (gitdir / _HEAD_NOTE).unlink(missing_ok=True)
        return
    algorithm = gitstore.run(root, "rev-parse", "--show-object-format").decode().strip() or "sha1"
    null = b"0" * (64 if algorithm == "sha256" else 40)
    entries = _index_entries(root)
    updates: list[bytes] = []
    files: list[tuple[Path, _Change]] = []
    for change in changes:
        modes = {change.old_mode, change.new_mode}
        if modes & {b"120000", b"160000"}:
            continue  # links and submodules: never written by a purge
        mode, sha, _stage = entries.get(change.path, (b"", b"", b""))
        if (mode, sha) != (change.old_mode, change.old):
            continue  # someone staged something else here (or removed it): theirs
        raw = change.path.encode("utf-8", "surrogateescape")
        if change.new is None:
            updates.append(b"0 %s\t%s\0" % (null, raw))
        else:
            updates.append(b"%s %s\t%s\0" % (change.new_mode, change.new, raw))
        try:
            target = confined(root, change.path)
        except UnsafePath:
            continue  # never through a link: the index entry alone follows HEAD
        temp = target.with_name(f".{target.name}{_SYNC_TEMP}")
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(temp).st_mode):
                temp.unlink()  # a killed sync's
        try:
            st = os.lstat(target)
        except OSError:
            continue  # removed by someone: stays removed
        if not stat.S_ISREG(st.st_mode) or st.st_size > 1 << 30:
            continue
        if _object_id(target.read_bytes(), algorithm) == change.old:
            files.append((target, change))  # as the old HEAD had it: follows HEAD
    contents = gitstore.read_blob_ids(root, [c.new for _t, c in files if c.new])
    for target, change in files:  # the files first: a crash before the index is rerun
        if change.new is None:
            target.unlink(missing_ok=True)
            continue
        temp = target.with_name(f".{target.name}{_SYNC_TEMP}")
        perms = 0o777 if change.new_mode == b"100755" else 0o666  # less the umask
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, perms)
        with os.fdopen(fd, "wb") as out:
            out.write(contents[change.new])
        os.replace(temp, target)
    if updates:
        gitstore.run(root, "update-index", "-z", "--index-info", data=b"".join(updates))
        gitstore.run(root, "update-index", "-q", "--refresh", check=False)
    (gitdir / _HEAD_NOTE).unlink(missing_ok=True)


# ------------------------------------------------ what killed git leaves behind
def _leftovers(gitdir: Path) -> Iterator[Path]:
    names = ("packed-refs.lock", "HEAD.lock", "gc.pid", _TEMP_INDEX, _TEMP_INDEX + ".lock")
    for name in (*names, _HEAD_NOTE + ".tmp"):  # the note itself is kept for the rerun
        yield gitdir / name
    yield from gitdir.glob("fast_import_crash_*")
    for folder in ("refs", "logs"):
        if (gitdir / folder).is_dir():
            yield from (gitdir / folder).rglob("*.lock")
    objects = gitdir / "objects"
    info = objects / "info"
    yield from info.glob("*.lock")
    yield from info.glob("tmp_*")
    yield from info.glob("commit-graphs/*.lock")
    yield from info.glob("commit-graphs/tmp_*")
    yield from objects.glob("tmp_*")
    yield from objects.glob("??/tmp_*")
    pack = objects / "pack"
    yield from pack.glob("tmp_*")
    yield from pack.glob(".tmp-*")
    yield from pack.glob("*.lock")
    for keep in pack.glob("pack-*.keep"):
        with contextlib.suppress(OSError):
            if keep.read_bytes().strip() == b"fast-import":
                yield keep
    for item in pack.glob("pack-*.pack"):  # a pack written without its index
        if not item.with_suffix(".idx").exists():
            yield item
    for suffix in (".idx", ".rev", ".bitmap"):
        for item in pack.glob(f"pack-*{suffix}"):
            if not item.with_suffix(".pack").exists():
                yield item


def clear_leftovers(root: Path, gitdir: Path) -> None:
    """Remove what a killed purge's git processes left: stale locks, temporary
    and half-written packs, fast-import's keep files and crash reports (which
    quote the stream), the scratch ref. Safe because the caller holds the store
    lock, so no git process of this repository is still running."""
    for item in list(_leftovers(gitdir)):
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            item.unlink()
    if gitstore.run(root, "rev-parse", "--verify", "-q", SCRATCH_REF, check=False).strip():
        gitstore.run(root, "update-ref", "-d", SCRATCH_REF, check=False)


# ------------------------------------------------------------ one pack, no more
def compact(root: Path, gitdir: Path) -> None:
    """What ``git gc --prune=now`` does for a purge, without its second walk of the
    history: the refs packed (the rewritten ones' old ids leave ``packed-refs``),
    the stale commit graph dropped (it lists the rewritten commits; the history
    view writes a new one when it needs one), every reachable object into one new
    pack (``repack -a -d``: from the refs, the index and the reflogs, which the
    caller has expired; the old packs go, also those marked ``.keep``, which repack
    would leave as they are), then every loose object that is left.
    Those are unreachable: ``repack -a`` packs every reachable one and removes the
    loose copies of what it packed (``prune-packed``), so this is what ``git prune
    --expire=now`` would remove, found without walking 10,000 commits again."""
    gitstore.run(root, "pack-refs", "--all", "--prune")
    info = gitdir / "objects" / "info"
    graphs = info / "commit-graphs"
    stale = [graphs / "commit-graph-chain", *graphs.glob("graph-*.graph"), info / "commit-graph"]
    for item in stale:  # the chain first: a half-removed chain is then no chain at all
        item.unlink(missing_ok=True)
    # a kept pack is one repack leaves as it is, whatever it holds: a purge keeps none
    # (its reachable objects go into the new pack like any other's)
    for keep in (gitdir / "objects" / "pack").glob("pack-*.keep"):
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            keep.unlink()
    gitstore.run(root, "repack", "-a", "-d", "-q", env=gitstore.BULK_MALLOC)
    objects = gitdir / "objects"
    for folder in objects.iterdir():
        if len(folder.name) != 2 or not folder.is_dir() or folder.is_symlink():
            continue
        if not all(c in "0123456789abcdef" for c in folder.name):
            continue
        for item in folder.iterdir():
            if _LOOSE_NAME.match(item.name):
                item.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            folder.rmdir()  # empty now, as prune leaves it
