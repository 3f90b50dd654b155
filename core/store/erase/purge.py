"""Erasure (SPEC section 3): deleted means the content is gone for good.

After the erasing commit, :func:`purge_history` rewrites every commit of a
private store so that no object anywhere in ``.git`` holds the memory's file or
its content, then expires the reflog and prunes. Team stores are never
rewritten (clones already pushed keep their history: the desk says so plainly).

What goes, in every historical blob of every ref: the erased files themselves
(``drop_paths``), and what the rules of :mod:`core.store.erase.scrub` remove from
any other file (the ones :func:`~core.store.erase.scrub.scrub_file` applies to a
current file). :func:`~core.store.erase.needles.history_needles` finds the needles
in every earlier version of the files (a consolidation rewrite, a correction).

The rewrite is one streaming pass: ``git fast-export --no-data`` lists every
commit and the blobs it changes; one ``git cat-file --batch`` reads each blob
version once (a version that extends or edits the previous one of its path is
searched only where it differs); one ``git fast-import`` writes the changed
blobs, trees and commits, from the first commit that changes onward. Commits
keep their author, committer, dates, encoding and message byte for byte, refs
keep their names (branches, ``memgov/batch/<id>``, annotated tags with their
messages), HEAD stays on its branch.

Rerunnable: the rewrite is deterministic and a rewritten history rewrites to
itself, so a call killed at any moment and called again with the same arguments
finishes the job: it first clears what killed git processes leave (stale ref
locks, temporary packs, fast-import's keep files and crash reports, the scratch
ref), and it needs no state of its own. The caller holds the store lock: nothing
else drives this repository's git meanwhile.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from core.store import gitstore
from core.store.erase.export import SCRATCH_REF, commit_record, dropped, parent_mark, parse_export
from core.store.erase.scrub import (
    Edit,
    Patterns,
    Version,
    apply_edits,
    edits_since,
    kind_of,
    patterns,
    rule_edits,
    transform,
)
from core.store.erase.tidy import clear_leftovers, compact, sync_worktree
from core.store.gitstore import GitFailed

_INCREMENTAL_MIN = 16 * 1024  # blobs this large are searched only where they changed
_KEPT_BYTES = 256 << 20  # the versions to rewrite the scan keeps for the writing, at most


# ------------------------------------------------------------------ the purge
def purge_history(
    root: Path | str,
    *,
    drop_paths: Iterable[str],
    needles: Iterable[bytes],
    erased_ids: Iterable[str] = (),
) -> int:
    """Rewrite all history without ``drop_paths``, the needles and the structured
    traces of ``erased_ids``; expire the reflog and prune. Returns the number of
    commits this call rewrote (0 when a killed earlier call had already done it).
    Called again with the same arguments after a crash, it finishes the job."""
    root = Path(root).resolve()
    gitdir = Path(gitstore.run(root, "rev-parse", "--absolute-git-dir").decode().strip())
    clear_leftovers(root, gitdir)
    pats = patterns(tuple(needles), tuple(erased_ids))
    drop = {p.strip("/") for p in drop_paths if p.strip("/")}
    rewritten = 0
    if (pats or drop) and gitstore.run(root, "rev-parse", "--verify", "-q", "HEAD", check=False):
        rewritten = _rewrite(root, gitdir, drop, pats)
        sync_worktree(root, gitdir)
    for leftover in ("ORIG_HEAD", "FETCH_HEAD"):
        (gitdir / leftover).unlink(missing_ok=True)
    gitstore.run(root, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    compact(root, gitdir)
    clear_leftovers(root, gitdir)
    return rewritten


def _rewrite(root: Path, gitdir: Path, drop: set[str], pats: Patterns) -> int:
    refs: list[tuple[bytes, bytes]] = []  # (name, commit) of each ref to a commit
    listing = gitstore.run(root, "for-each-ref", "--format=%(objecttype) %(objectname) %(refname)")
    for row in listing.splitlines():
        kind, oid, name = row.split(b" ", 2)
        if kind == b"commit" and name != SCRATCH_REF.encode():
            refs.append((name, oid))
    detached = None
    if not gitstore.run(root, "symbolic-ref", "-q", "HEAD", check=False).strip():
        detached = gitstore.run(root, "rev-parse", "HEAD").strip()
    stream = gitstore.run(
        root,
        "-c",
        "core.quotepath=false",
        "fast-export",
        "--all",
        "--reencode=no",
        "--show-original-ids",
        "--no-data",
        "--signed-tags=verbatim",
        "--use-done-feature",
    )
    if not stream.rstrip().endswith(b"done"):
        raise GitFailed(f"{root}: git fast-export stopped early; nothing was changed")
    commits, tags = parse_export(stream)

    # 1. every blob version, once, in stream order: which change, and how
    wanted: list[tuple[bytes, str, str]] = []
    seen: set[tuple[bytes, str]] = set()
    for commit in commits:
        for op, mode, sha, path in commit.changes:
            if op != b"M" or mode == b"160000" or dropped(path, drop):
                continue
            key = (sha, kind_of(path))
            if key not in seen:
                seen.add(key)
                wanted.append((sha, path, key[1]))
    blob_edits: dict[tuple[bytes, str], list[Edit]] = {}
    rank: dict[bytes, int] = {}
    kept: dict[tuple[bytes, str], bytes] = {}  # read by the scan: not read again
    if pats:
        blob_edits, rank, kept = _scan(root, wanted, pats)
    dirty = {key for key, found in blob_edits.items() if found}

    # 2. which commits change: a dirty or dropped file, or a changed parent
    changed: set[int] = set()
    by_mark = {c.mark: c for c in commits}
    mark_of = {c.original: c.mark for c in commits}
    for commit in commits:
        if any(parent_mark(p) in changed for p in commit.parents) or any(
            op == b"M" and (dropped(path, drop) or (sha, kind_of(path)) in dirty)
            for op, _m, sha, path in commit.changes
        ):
            changed.add(commit.mark)
    if not changed:
        return 0

    # 3. one fast-import: the new blobs (each file's versions in a row, so that
    #    each is stored as a delta of the one before), then the changed commits
    order: dict[str, list[tuple[bytes, str]]] = {}
    placed: set[tuple[bytes, str]] = set()
    for commit in commits:
        if commit.mark not in changed:
            continue
        for op, _mode, sha, path in commit.changes:
            key = (sha, kind_of(path))
            if op == b"M" and key in dirty and key not in placed and not dropped(path, drop):
                placed.add(key)
                order.setdefault(path, []).append(key)
    # within a file, in pack order: each version is read right after its delta base
    queue = [key for keys in order.values() for key in sorted(keys, key=lambda k: rank[k[0]])]
    next_mark = max(by_mark, default=0) + 1
    blob_marks: dict[tuple[bytes, str], int] = {}
    with tempfile.TemporaryDirectory(prefix="memgov-purge-") as tmp:
        marks_file = Path(tmp) / "marks"
        errors = (Path(tmp) / "stderr").open("w+b")
        importer = gitstore.popen(
            root,
            "fast-import",
            "--force",
            "--quiet",
            "--done",
            f"--export-marks={marks_file}",
            stdout=subprocess.DEVNULL,
            stderr=errors,
            env=gitstore.BULK_MALLOC,
        )
        assert importer.stdin is not None
        sink = importer.stdin
        try:
            sink.write(b"feature done\n")
            reader = gitstore.BlobStream(
                root, [sha for sha, kind in queue if (sha, kind) not in kept]
            )
            try:
                for key in queue:
                    raw = kept.pop(key) if key in kept else reader.next()
                    data = apply_edits(raw, blob_edits[key])
                    blob_marks[key] = next_mark
                    sink.write(b"blob\nmark :%d\ndata %d\n" % (next_mark, len(data)))
                    sink.write(data)
                    sink.write(b"\n")
                    next_mark += 1
            finally:
                reader.close()
            for commit in commits:
                if commit.mark in changed:
                    sink.write(commit_record(commit, changed, by_mark, blob_marks, drop))
            for name, tip in refs:
                mark = mark_of.get(tip, -1)
                if mark in changed:
                    sink.write(b"reset %s\nfrom :%d\n\n" % (name, mark))
            for tag in tags:
                if tag.target.startswith(b":") and int(tag.target[1:]) in changed:
                    sink.write(b"tag %s\nfrom %s\n%s" % (tag.name, tag.target, tag.body))
            sink.write(b"done\n")
            sink.close()
        except BrokenPipeError:
            pass
        code = importer.wait()
        errors.seek(0)
        message = errors.read().decode("utf-8", "replace").strip()[:500]
        errors.close()
        if code != 0:
            raise GitFailed(f"{root}: git fast-import failed (exit {code}): {message}")
        new_ids: dict[int, bytes] = {}
        for entry in marks_file.read_bytes().splitlines():
            mark_text, _sp, new_id = entry.partition(b" ")
            new_ids[int(mark_text[1:])] = new_id
    if detached is not None:
        mark = mark_of.get(detached, -1)
        if mark in changed:
            gitstore.run(root, "update-ref", "--no-deref", "HEAD", new_ids[mark].decode())
    gitstore.run(root, "update-ref", "-d", SCRATCH_REF, check=False)
    return sum(1 for c in commits if c.mark in changed and new_ids.get(c.mark) != c.original)


def _scan(
    root: Path, wanted: list[tuple[bytes, str, str]], pats: Patterns
) -> tuple[dict[tuple[bytes, str], list[Edit]], dict[bytes, int], dict[tuple[bytes, str], bytes]]:
    """The edits every blob version needs; [] for a clean one. A large version is
    compared with the previous version of its path and searched where it differs.
    Also each version's rank in pack order, and the versions to rewrite as read
    (up to :data:`_KEPT_BYTES`), which the writing then does not read again."""
    found: dict[tuple[bytes, str], list[Edit]] = {}
    kept: dict[tuple[bytes, str], bytes] = {}
    budget = _KEPT_BYTES
    last: dict[str, Version] = {}
    # in pack order: each delta comes right after its base, which git then keeps in
    # its cache, and the version seen before is mostly the one next to it in time
    listing = gitstore.run(
        root, "cat-file", "--batch-all-objects", "--unordered", "--batch-check=%(objectname)"
    )
    rank = {sha: n for n, sha in enumerate(listing.split())}
    wanted = sorted(wanted, key=lambda item: rank.setdefault(item[0], -1))
    reader = gitstore.BlobStream(root, [sha for sha, _path, kind_of in wanted])
    try:
        for sha, path, kind in wanted:
            data = reader.next()
            if kind == "decision":
                new = transform(path, data, pats)
                found[(sha, kind)] = [] if new == data else [(0, len(data), new)]
                if new != data and len(data) <= budget:
                    kept[(sha, kind)], budget = data, budget - len(data)
                continue
            previous = last.get(path)
            if previous is not None and len(data) >= _INCREMENTAL_MIN:
                result = edits_since(kind, data, previous, pats)
            else:
                result = rule_edits(kind, data, pats)
            found[(sha, kind)] = result
            if result and len(data) <= budget:
                kept[(sha, kind)], budget = data, budget - len(data)
            if len(data) >= _INCREMENTAL_MIN:
                last[path] = Version(data, result)
            else:
                last.pop(path, None)
    finally:
        reader.close()
    return found, rank, kept
