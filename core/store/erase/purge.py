"""Erasure (SPEC section 3): deleted means the content is gone for good.

After the erasing commit, :func:`purge_history` rewrites every commit of a
private store so that no object anywhere in ``.git`` holds the memory's file or
its content, then expires the reflog and repacks. Team stores are never
rewritten (clones already pushed keep their history: the desk says so plainly).

What goes, in every historical blob of every ref: the erased files themselves
(``drop_paths``), and what the rules of :mod:`core.store.erase.scrub` remove from
any other file (the ones :func:`~core.store.erase.scrub.scrub_file` applies to a
current file). :func:`~core.store.erase.needles.history_needles` finds the needles
in every earlier version of the files (a consolidation rewrite, a correction).

The rewrite is one streaming pass: ``git fast-export --no-data`` lists every
commit and the blobs it changes; then, at once, one ``git cat-file --batch`` reads
each blob version once in commit order (a version that extends or edits the
previous one of its path is searched only where it differs), this process decides
each commit as its versions arrive, and one ``git fast-import`` writes the changed
blobs, trees and commits, from the first commit that changes onward. Then one
``git repack -a -d`` keeps the reachable objects (:func:`~core.store.erase.tidy.compact`). Commits
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
from core.store.erase.tidy import clear_leftovers, compact, note_head, sync_worktree
from core.store.gitstore import GitFailed

_INCREMENTAL_MIN = 16 * 1024  # blobs this large are searched only where they changed


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
    drop = frozenset(p.strip("/") for p in drop_paths if p.strip("/"))
    rewritten = 0
    if (pats or drop) and gitstore.run(root, "rev-parse", "--verify", "-q", "HEAD", check=False):
        old_head = note_head(root, gitdir)
        rewritten = _rewrite(root, gitdir, drop, pats)
        sync_worktree(root, gitdir, old_head, pats, drop)
    for leftover in ("ORIG_HEAD", "FETCH_HEAD"):
        (gitdir / leftover).unlink(missing_ok=True)
    gitstore.run(root, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    compact(root, gitdir)
    clear_leftovers(root, gitdir)
    return rewritten


def _rewrite(root: Path, gitdir: Path, drop: frozenset[str], pats: Patterns) -> int:
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

    # every blob version once, in the order the commits change them
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
    by_mark = {c.mark: c for c in commits}
    mark_of = {c.original: c.mark for c in commits}
    changed: set[int] = set()
    blob_marks: dict[tuple[bytes, str], int] = {}  # the new version of each dirty one
    next_mark = max(by_mark, default=0) + 1
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
        versions = _Versions(root, wanted, pats)
        try:
            sink.write(b"feature done\n")
            # one pass, three processes at once: git cat-file reads the versions,
            # this one searches them, git fast-import writes what changes (a dirty
            # version just before the first commit that has it, so each is stored
            # as a delta of the one written before it, mostly its previous version)
            for commit in commits:
                touched = False
                for op, mode, sha, path in commit.changes:
                    if op != b"M" or mode == b"160000":
                        continue
                    if dropped(path, drop):
                        touched = True
                        continue
                    key = (sha, kind_of(path))
                    if key in seen:
                        seen.discard(key)  # its first change: the next version read
                        data, edits = versions.next()
                        if edits:
                            data = apply_edits(data, edits)
                            blob_marks[key] = next_mark
                            sink.write(b"blob\nmark :%d\ndata %d\n" % (next_mark, len(data)))
                            sink.write(data)
                            sink.write(b"\n")
                            next_mark += 1
                    touched = touched or key in blob_marks
                if touched or any(parent_mark(p) in changed for p in commit.parents):
                    changed.add(commit.mark)
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
        except BaseException:  # nothing of it is a ref yet: the next call clears the rest
            importer.kill()
            importer.wait()
            errors.close()
            raise
        finally:
            versions.close()
        code = importer.wait()
        errors.seek(0)
        message = errors.read().decode("utf-8", "replace").strip()[:500]
        errors.close()
        if code != 0:
            raise GitFailed(f"{root}: git fast-import failed (exit {code}): {message}")
        if not changed:
            return 0
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


class _Versions:
    """Each version of ``wanted`` in turn with the edits it needs ([] for a clean
    one), read by one ``git cat-file --batch`` ahead of the caller. A large version
    is compared with the previous version of its path and searched where it
    differs. Without patterns nothing is read: no version needs an edit."""

    def __init__(self, root: Path, wanted: list[tuple[bytes, str, str]], pats: Patterns) -> None:
        self.wanted = iter(wanted)
        self.pats = pats
        self.last: dict[str, Version] = {}
        self.reader = gitstore.BlobStream(root, [sha for sha, _p, _k in wanted]) if pats else None

    def next(self) -> tuple[bytes, list[Edit]]:
        _sha, path, kind = next(self.wanted)
        if self.reader is None:
            return b"", []
        data = self.reader.next()
        if kind == "decision":
            new = transform(path, data, self.pats)
            return data, ([] if new == data else [(0, len(data), new)])
        previous = self.last.get(path)
        if previous is not None and len(data) >= _INCREMENTAL_MIN:
            edits = edits_since(kind, data, previous, self.pats)
        else:
            edits = rule_edits(kind, data, self.pats)
        if len(data) >= _INCREMENTAL_MIN:
            self.last[path] = Version(data, edits)
        else:
            self.last.pop(path, None)
        return data, edits

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
