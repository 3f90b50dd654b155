"""After a rewrite, and after a killed one: the index, the working tree and ``.git``.

:func:`sync_worktree` makes the index and the clean files of the working tree
follow a rewritten HEAD; :func:`compact` leaves ``.git`` with one pack of the
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
from collections.abc import Iterator
from pathlib import Path

from core.store import gitstore
from core.store.erase.export import NULL_ID, SCRATCH_REF

_TEMP_INDEX = "memgov-purge.index"
_LOOSE_NAME = re.compile(r"^(?:[0-9a-f]{38}|[0-9a-f]{62})$")  # objects/xx/<rest of the id>


# -------------------------------------------------------- working tree, index
def _object_id(data: bytes, algorithm: str) -> bytes:
    digest = hashlib.new(algorithm)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest().encode()


def sync_worktree(root: Path, gitdir: Path) -> None:
    """When the rewrite changed HEAD's tree (it held a needle), the index and the
    clean files of the working tree follow it, so that nothing keeps the old blobs
    alive and ``git status`` stays clean. A file someone changed is left alone."""
    diff = gitstore.run(
        root, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "HEAD"
    )
    if not diff:
        return
    algorithm = gitstore.run(root, "rev-parse", "--show-object-format").decode().strip() or "sha1"
    fields = diff.split(b"\0")
    plans: list[tuple[str, bytes, bytes]] = []
    for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        mode_head, mode_index, sha_head, sha_index = meta[1:].split(b" ")[:4]
        if {mode_head, mode_index} & {b"120000", b"160000"}:
            continue
        path = raw_path.decode("utf-8", "surrogateescape")
        target = root / path
        if target.is_symlink() or target.is_dir():
            continue
        current = _object_id(target.read_bytes(), algorithm) if target.is_file() else None
        head_id = None if NULL_ID.match(sha_head) else sha_head
        index_id = None if NULL_ID.match(sha_index) else sha_index
        if current == head_id or current != index_id:
            continue  # already as HEAD has it, or changed by someone: left alone
        plans.append((path, mode_head, sha_head if head_id else b""))
    contents = gitstore.read_blob_ids(root, [sha for _p, _m, sha in plans if sha])
    for path, mode, sha in plans:
        target = root / path
        if not sha:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.memgov-purge")
        temp.write_bytes(contents[sha])
        if mode == b"100755":
            temp.chmod(0o755)
        os.replace(temp, target)
    index = gitdir / "index"
    temp_index = gitdir / _TEMP_INDEX
    if index.exists():
        temp_index.write_bytes(index.read_bytes())
    env = {"GIT_INDEX_FILE": str(temp_index)}
    for args in (("read-tree", "--reset", "HEAD"), ("update-index", "-q", "--refresh")):
        gitstore.run(root, *args, env=env, check=args[0] == "read-tree")
    os.replace(temp_index, index)


# ------------------------------------------------ what killed git leaves behind
def _leftovers(gitdir: Path) -> Iterator[Path]:
    for name in ("packed-refs.lock", "HEAD.lock", "gc.pid", _TEMP_INDEX, _TEMP_INDEX + ".lock"):
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
    caller has expired; the old packs go), then every loose object that is left.
    Those are unreachable: ``repack -a`` packs every reachable one and removes the
    loose copies of what it packed (``prune-packed``), so this is what ``git prune
    --expire=now`` would remove, found without walking 10,000 commits again."""
    gitstore.run(root, "pack-refs", "--all", "--prune")
    info = gitdir / "objects" / "info"
    graphs = info / "commit-graphs"
    stale = [graphs / "commit-graph-chain", *graphs.glob("graph-*.graph"), info / "commit-graph"]
    for item in stale:  # the chain first: a half-removed chain is then no chain at all
        item.unlink(missing_ok=True)
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
