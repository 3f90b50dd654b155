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
blobs, trees and commits, from the first commit that changes onward. A large
version of an append-only file (the event log's shards) is not read at all: its
object id proves it is the beginning of the next version of its path
(:class:`_Prover`, on threads meanwhile). Then one ``git repack -a -d`` keeps the
reachable objects (:func:`~core.store.erase.tidy.compact`, kept packs included).
Commits keep their author, committer, dates, encoding and message byte for byte,
refs keep their names (branches, ``memgov/batch/<id>``, annotated tags with their
messages), HEAD stays on its branch; the index and the working tree follow on the
paths the rewrite changed, where nobody staged or changed anything
(:func:`~core.store.erase.tidy.sync_worktree`).

Rerunnable: the rewrite is deterministic and a rewritten history rewrites to
itself, so a call killed at any moment and called again with the same arguments
finishes the job: it first clears what killed git processes leave (stale ref
locks, temporary packs, fast-import's keep files and crash reports, the scratch
ref); its one note, the HEAD before the rewrite (in ``.git``, until the index
and working tree have followed), tells a rerun which paths the first run
changed. The caller holds the store lock: nothing else drives this repository's
git meanwhile.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from core.store import gitstore
from core.store.erase.export import (
    SCRATCH_REF,
    ExportCommit,
    ExportTag,
    commit_record,
    dropped,
    parent_mark,
    parse_export,
)
from core.store.erase.scrub import (
    WHOLE_KINDS,
    Edit,
    Patterns,
    Version,
    apply_edits,
    edits_since,
    kind_of,
    needle_edits,
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
    """The one streaming pass (module docstring) over every ref's history; the number
    of commits whose id it changed (0 when none had to change)."""
    refs = _commit_refs(root)
    detached = _detached_head(root)
    commits, tags = _export(root)
    wanted, seen, kinds = _blob_versions(commits, drop)
    mark_of = {c.original: c.mark for c in commits}
    changed: set[int] = set()
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
            _write_commits(sink, commits, kinds, seen, versions, changed, drop)
            _write_tips(sink, refs, tags, mark_of, changed)
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
        new_ids = _new_ids(marks_file)
    if detached is not None:
        mark = mark_of.get(detached, -1)
        if mark in changed:
            gitstore.run(root, "update-ref", "--no-deref", "HEAD", new_ids[mark].decode())
    gitstore.run(root, "update-ref", "-d", SCRATCH_REF, check=False)
    return sum(1 for c in commits if c.mark in changed and new_ids.get(c.mark) != c.original)


def _commit_refs(root: Path) -> list[tuple[bytes, bytes]]:
    """(name, commit) of each ref to a commit, the scratch ref left out."""
    refs: list[tuple[bytes, bytes]] = []
    listing = gitstore.run(root, "for-each-ref", "--format=%(objecttype) %(objectname) %(refname)")
    for row in listing.splitlines():
        kind, oid, name = row.split(b" ", 2)
        if kind == b"commit" and name != SCRATCH_REF.encode():
            refs.append((name, oid))
    return refs


def _detached_head(root: Path) -> bytes | None:
    """HEAD's commit when HEAD is detached; None when it is on a branch."""
    if not gitstore.run(root, "symbolic-ref", "-q", "HEAD", check=False).strip():
        return gitstore.run(root, "rev-parse", "HEAD").strip()
    return None


def _export(root: Path) -> tuple[list[ExportCommit], list[ExportTag]]:
    """The commits and tags of every ref, as ``git fast-export`` lists them without
    their blobs; raises when the export stopped before its end."""
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
    return parse_export(stream)


def _blob_versions(
    commits: list[ExportCommit], drop: frozenset[str]
) -> tuple[list[tuple[bytes, str, str]], set[tuple[bytes, str]], dict[str, str | None]]:
    """Every blob version the commits change, once per (id, kind), in the order they
    change them (as (id, path, kind); dropped paths and submodules left out); the set
    of those (id, kind) keys; each path's kind, None for a dropped one."""
    wanted: list[tuple[bytes, str, str]] = []
    seen: set[tuple[bytes, str]] = set()
    kinds: dict[str, str | None] = {}  # a path's kind, None for a dropped one
    for commit in commits:
        for op, mode, sha, path in commit.changes:
            if op != b"M" or mode == b"160000":
                continue
            path_kind = kinds.get(path, "")
            if path_kind == "":
                path_kind = kinds[path] = None if dropped(path, drop) else kind_of(path)
            if path_kind is None:
                continue
            key = (sha, path_kind)
            if key not in seen:
                seen.add(key)
                wanted.append((sha, path, key[1]))
    return wanted, seen, kinds


def _write_commits(
    sink: IO[bytes],
    commits: list[ExportCommit],
    kinds: dict[str, str | None],
    seen: set[tuple[bytes, str]],
    versions: _Versions,
    changed: set[int],
    drop: frozenset[str],
) -> None:
    """Write to fast-import, in commit order, each dirty version (just before the first
    commit that has it) and each commit that changes: one that changes a dropped path,
    has a dirty version or a changed parent; ``changed`` gets their marks. ``seen``
    holds the versions not read yet; each leaves it when read, at its first change."""
    by_mark = {c.mark: c for c in commits}
    blob_marks: dict[tuple[bytes, str], int] = {}  # the new version of each dirty one
    next_mark = max(by_mark, default=0) + 1
    # one pass, three processes at once: git cat-file reads the versions,
    # this one searches them, git fast-import writes what changes (a dirty
    # version just before the first commit that has it, so each is stored
    # as a delta of the one written before it, mostly its previous version)
    for commit in commits:
        touched = False
        for op, mode, sha, path in commit.changes:
            if op != b"M" or mode == b"160000":
                continue
            path_kind = kinds[path]
            if path_kind is None:  # dropped
                touched = True
                continue
            key = (sha, path_kind)
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


def _write_tips(
    sink: IO[bytes],
    refs: list[tuple[bytes, bytes]],
    tags: list[ExportTag],
    mark_of: dict[bytes, int],
    changed: set[int],
) -> None:
    """Each ref and annotated tag whose commit changed, set to the rewritten one."""
    for name, tip in refs:
        mark = mark_of.get(tip, -1)
        if mark in changed:
            sink.write(b"reset %s\nfrom :%d\n\n" % (name, mark))
    for tag in tags:
        if tag.target.startswith(b":") and int(tag.target[1:]) in changed:
            sink.write(b"tag %s\nfrom %s\n%s" % (tag.name, tag.target, tag.body))


def _new_ids(marks_file: Path) -> dict[int, bytes]:
    """The id fast-import gave each mark, from its exported marks file."""
    new_ids: dict[int, bytes] = {}
    for entry in marks_file.read_bytes().splitlines():
        mark_text, _sp, new_id = entry.partition(b" ")
        new_ids[int(mark_text[1:])] = new_id
    return new_ids


class _Versions:
    """Each version of ``wanted`` in turn with the edits it needs ([] for a clean
    one). Without patterns nothing is read: no version needs an edit.

    Most of a long history's bytes are versions of append-only files (the event
    log's shards: 1.3 GB of them at 10,000 commits, for 5 MB of shards). A large
    version of a plain file is checked, by its object id, against the version that
    follows it on its path (``hash(b"blob <size>\\0" + next[:size]) == id``): when
    it is that version's beginning it is never read, and it holds a needle only
    where that one holds it within its first ``size`` bytes (:class:`_Prover`, on
    threads while this one goes on). Every other version is read by one ``git
    cat-file --batch`` ahead of the caller; a large one is compared with the
    previous version of its path and searched where it differs."""

    def __init__(self, root: Path, wanted: list[tuple[bytes, str, str]], pats: Patterns) -> None:
        self.wanted = wanted
        self.pos = 0
        self.pats = pats
        self.last: dict[str, Version] = {}
        self.reader: gitstore.BlobStream | None = None
        self.prover: _Prover | None = None
        if not pats:
            return
        self.prover = _Prover(root, wanted, pats)
        rest = [sha for at, (sha, _p, _k) in enumerate(wanted) if at not in self.prover.chain_of]
        self.reader = gitstore.BlobStream(root, rest)

    def next(self) -> tuple[bytes, list[Edit]]:
        at = self.pos
        self.pos += 1
        sha, path, kind = self.wanted[at]
        if self.reader is None or self.prover is None:
            return b"", []
        if at in self.prover.chain_of:
            known = self.prover.result(at)
            if isinstance(known, _Prefix):
                self.last.pop(path, None)
                if known.whole.clean:
                    return b"", []
                edits = rule_edits(kind, known.whole.data, self.pats, 0, known.size)
                return (known.whole.data[: known.size] if edits else b""), edits
            data = known if known is not None else self.prover.read(sha)
        else:
            data = self.reader.next()
        if kind in WHOLE_KINDS:
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
        if self.prover is not None:
            self.prover.close()
        if self.reader is not None:
            self.reader.close()


# ------------------------------------------- versions known without reading them
_PROVE_MIN = 16 * 1024  # smaller versions are read: a round trip costs more than them
_HELD_MAX = 256 << 20  # bytes of versions kept in memory to prove others with
_MISSES = 3  # versions in a row that are not the next one's beginning: stop trying


@dataclass
class _Whole:
    data: bytes
    clean: bool  # no needle anywhere in it, so in none of its beginnings


@dataclass
class _Prefix:
    whole: _Whole
    size: int


class _Prover:
    """Which large plain versions are the beginning of the next version of their path,
    checked by object id, each path walked from its last version back on a thread
    of its own (hashing releases the GIL), in the order the caller will need them.
    A version whose check fails is read and proves the ones before it; after a few
    in a row (a file rewritten rather than appended to) the path's earlier versions
    are read in one stream; past the memory budget, one by one when the caller gets
    there."""

    def __init__(self, root: Path, wanted: list[tuple[bytes, str, str]], pats: Patterns) -> None:
        self.root = root
        self.wanted = wanted
        self.pats = pats
        self.sizes = gitstore.blob_sizes(root, list(dict.fromkeys(s for s, _p, _k in wanted)))
        paths: dict[str, list[int]] = {}
        for at, (sha, path, kind) in enumerate(wanted):
            if kind in ("plain", "jsonl") and self.sizes[sha] >= _PROVE_MIN:
                paths.setdefault(path, []).append(at)
        chains = [ats for ats in paths.values() if len(ats) > 1]  # first needed first
        self.chain_of: dict[int, Future[dict[int, bytes | _Prefix]]] = {}
        self.pool: ThreadPoolExecutor | None = None
        self.reader: gitstore.BlobReader | None = None
        if not chains:
            return
        self.algorithm = (
            gitstore.run(root, "rev-parse", "--show-object-format").decode().strip() or "sha1"
        )
        self.reader = gitstore.BlobReader(root)
        self.lock = threading.Lock()
        self.budget = _HELD_MAX
        self.stopped = False
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(len(chains), os.cpu_count() or 1)))
        for ats in chains:
            future = self.pool.submit(self._walk, ats)
            self.chain_of.update((at, future) for at in ats)

    def result(self, at: int) -> bytes | _Prefix | None:
        """The version's bytes (read to prove others), its proof, or None (read it)."""
        return self.chain_of[at].result().pop(at, None)

    def read(self, sha: bytes) -> bytes:
        assert self.reader is not None
        with self.lock:
            return self.reader.get(sha)

    def _reserve(self, size: int) -> bool:
        with self.lock:
            if self.budget < size or self.stopped:
                return False
            self.budget -= size
            return True

    def _take(self, sha: bytes) -> _Whole | None:
        if not self._reserve(self.sizes[sha]):
            return None
        data = self.read(sha)
        return _Whole(data, not needle_edits(data, self.pats.needles))

    def _read_rest(self, ats: list[int], found: dict[int, bytes | _Prefix]) -> None:
        """A path that is not appended to: its remaining versions in one stream of
        their own (not a round trip each), within the budget; else left to the caller."""
        shas = [self.wanted[at][0] for at in ats]
        if not self._reserve(sum(self.sizes[sha] for sha in shas)):
            return
        stream = gitstore.BlobStream(self.root, shas)
        try:
            for at in ats:
                found[at] = stream.next()
        finally:
            stream.close()

    def _walk(self, ats: list[int]) -> dict[int, bytes | _Prefix]:
        found: dict[int, bytes | _Prefix] = {}
        whole: _Whole | None = None
        misses = 0
        for index in range(len(ats) - 1, -1, -1):
            if self.stopped:
                break  # the caller is gone
            at = ats[index]
            sha = self.wanted[at][0]
            size = self.sizes[sha]
            if whole is not None and size <= len(whole.data):
                digest = hashlib.new(self.algorithm)
                digest.update(b"blob %d\0" % size)
                digest.update(memoryview(whole.data)[:size])
                if digest.hexdigest().encode() == sha:
                    found[at] = _Prefix(whole, size)
                    misses = 0
                    continue
            if whole is not None:
                misses += 1
            if misses >= _MISSES:
                self._read_rest(ats[: index + 1], found)
                break
            got = self._take(sha)
            if got is None:
                break  # past the budget: this one and the earlier ones, one by one
            whole = got
            found[at] = got.data
        return found

    def close(self) -> None:
        self.stopped = True
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.reader is not None:
            self.reader.close()
