"""A batch: a consolidation plan, stored for review on its own git branch.

:func:`write_batch` stores a plan (:mod:`core.consolidation.plan`) as a commit
on ``memgov/batch/<id>`` (the changed files plus the manifest
``.memgov-batch.json``); ``git diff <base> memgov/batch/<id>`` is the batch.
:func:`load_batch` reads a pending batch back, :func:`batch_files` and
:func:`file_diff` its files, and :func:`stale` the changes whose records moved
since it was made.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from core.consolidation.changes import (
    Change,
    FileChange,
    fingerprint,
    index_change_ids,
    unified_diff,
)
from core.consolidation.refs import BATCH_REF
from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.store import gitstore
from core.store.index import INDEX_FILE
from core.store.store import Store

if TYPE_CHECKING:  # a batch read or listed needs no planning
    from core.consolidation.plan import Plan

MANIFEST = ".memgov-batch.json"


def new_batch_id(store: Store, base: str) -> str:
    """``batch-<time>-<digest of the base commit>``: the same on a pinned replay."""
    now = store.now()
    return f"batch-{now:%Y%m%dT%H%M%S}-{hashlib.sha256(f'{base}|{now}'.encode()).hexdigest()[:6]}"


@dataclass(frozen=True)
class Batch:
    """A pending batch as stored in its manifest on ``memgov/batch/<id>``."""

    id: str
    base: str
    created_at: str
    actor: str
    engine: str
    since: str | None
    changes: tuple[Change, ...]
    counts: Mapping[str, int]
    index: Mapping[str, Any]
    replay: Mapping[str, Any]
    findings: tuple[str, ...]
    commit: str = ""

    @property
    def branch(self) -> str:
        return "memgov/batch/" + self.id

    def by_file(self, path: str) -> list[Change]:
        return [c for c in self.changes if path in c.files]

    def to_json(self) -> str:
        data = {
            "id": self.id,
            "base": self.base,
            "created_at": self.created_at,
            "actor": self.actor,
            "engine": self.engine,
            "since": self.since,
            "changes": [c.to_dict(internal=True) for c in self.changes],
            "counts": dict(self.counts),
            "index": dict(self.index),
            "replay": dict(self.replay),
            "findings": list(self.findings),
        }
        return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, *, commit: str) -> Batch:
        data = json.loads(text)
        return cls(
            id=data["id"],
            base=data["base"],
            created_at=data["created_at"],
            actor=data["actor"],
            engine=data["engine"],
            since=data.get("since"),
            changes=tuple(Change.from_dict(c) for c in data["changes"]),
            counts=data.get("counts") or {},
            index=data.get("index") or {},
            replay=data.get("replay") or {},
            findings=tuple(data.get("findings") or ()),
            commit=commit,
        )


def write_batch(store: Store, plan: Plan, *, batch_id: str, actor: str) -> Batch:
    batch = Batch(
        id=batch_id,
        base=plan.base,
        created_at=plan.gathered.now.isoformat(),
        actor=actor,
        engine=plan.engine,
        since=plan.gathered.since,
        changes=tuple(plan.changes),
        counts=plan.counts,
        index=plan.index,
        replay=plan.replay,
        findings=tuple(plan.findings),
    )
    files: dict[str, bytes | None] = {
        f.path: f.new.encode("utf-8") if f.new is not None else None for f in plan.files
    }
    files[MANIFEST] = batch.to_json().encode("utf-8")
    message = (
        f"consolidation {batch_id}: {len(plan.changes)} proposed changes\n\n"
        f"actor: {actor}\nengine: {plan.engine}\nbase: {plan.base}\n"
        f"since: {plan.gathered.since or 'the first log'}"
    )
    commit = gitstore.write_commit(
        store.root,
        BATCH_REF + batch_id,
        parent=plan.base,
        files=files,
        actor=actor,
        message=message,
        when=plan.gathered.now,
    )
    return replace(batch, commit=commit)


def pending_ids(store: Store) -> list[str]:
    return [name for name, _sha in gitstore.refs(store.root, BATCH_REF)]


def load_batch(store: Store, batch_id: str) -> Batch:
    commit = gitstore.resolve(store.root, BATCH_REF + batch_id)
    if commit is None:
        pending = ", ".join(pending_ids(store)) or "none"
        raise NotFoundError(
            f"no pending consolidation batch {shown_id(batch_id)} in {store.root} "
            f"(pending: {pending}); 'memgov queue --kind consolidation' lists them"
        )
    blob = gitstore.read_blobs(store.root, [f"{commit}:{MANIFEST}"])[f"{commit}:{MANIFEST}"]
    if blob is None:
        raise ValidationError(
            f"{BATCH_REF}{batch_id} has no {MANIFEST}",
            hint="it was not made by memgov; delete the branch with "
            f"'git -C {store.root} branch -D memgov/batch/{batch_id}'",
        )
    return Batch.from_json(blob.decode("utf-8"), commit=commit)


def batch_files(store: Store, batch: Batch) -> list[FileChange]:
    """The batch's files, read back from git (base and batch commits)."""
    changed = [
        c for c in gitstore.changed_blobs(store.root, batch.base, batch.commit) if c[0] != MANIFEST
    ]
    blobs = gitstore.read_blobs(store.root, (sha for _p, *shas in changed for sha in shas if sha))
    out = []
    for path, old_sha, new_sha in changed:
        old = blobs[old_sha] if old_sha else None
        new = blobs[new_sha] if new_sha else None
        ids = tuple(c.id for c in batch.by_file(path))
        if path == INDEX_FILE and old is not None and new is not None:
            ids = index_change_ids(old.decode("utf-8"), new.decode("utf-8"), batch.changes)
        out.append(
            FileChange(
                path,
                old.decode("utf-8", "replace") if old is not None else None,
                new.decode("utf-8", "replace") if new is not None else None,
                ids,
                all(c.automatic for c in batch.changes if c.id in ids),
            )
        )
    return out


def file_diff(store: Store, batch_id: str, path: str, *, context: int = 3) -> str:
    """One file's unified diff in a pending batch, with ``context`` lines of context."""
    batch = load_batch(store, batch_id)
    blobs = gitstore.read_blobs(store.root, [f"{batch.base}:{path}", f"{batch.commit}:{path}"])
    old, new = blobs[f"{batch.base}:{path}"], blobs[f"{batch.commit}:{path}"]
    if old == new:
        files = ", ".join(f.path for f in batch_files(store, batch)) or "none"
        raise NotFoundError(f"{path} is not changed by batch {batch_id} (its files: {files})")
    return unified_diff(
        path,
        old.decode("utf-8", "replace") if old is not None else None,
        new.decode("utf-8", "replace") if new is not None else None,
        context,
    )


def stale(batch: Batch, store: Store) -> dict[str, list[str]]:
    """change id -> records changed since the batch was made (it cannot apply as is)."""
    current = store.memories
    out: dict[str, list[str]] = {}
    for change in batch.changes:
        moved = [i for i, fp in change.expect.items() if fingerprint(current.get(i)) != fp]
        if moved:
            out[change.id] = moved
    return out
