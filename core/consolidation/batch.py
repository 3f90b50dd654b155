"""A batch: the engine's proposals, numbered, checked, materialised and stored.

:func:`make_plan` runs the four steps in order (orient, gather, consolidate,
prune) and materialises the proposals on a copy of the records: that gives
every changed file's old and new text, the index after the batch, and the
replay of the recall queries the batch touches. :func:`write_batch` stores
the plan as a commit on ``memgov/batch/<id>`` (the changed files plus the
manifest ``.memgov-batch.json``); ``git diff <base> memgov/batch/<id>`` is the
batch. :func:`batch_item` turns a stored batch into a review-queue item.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from core.consolidation.gather import gather, index_stats, prune
from core.consolidation.model import Edit, Engine, Gathered, Proposal, classify, edit_changes
from core.consolidation.refs import BATCH_REF
from core.domain import lifecycle
from core.domain.errors import MemgovError, NotFoundError, ValidationError
from core.domain.record import Memory
from core.domain.values import normalise
from core.store import gitstore
from core.store.index import INDEX_FILE, parse_index, render_index
from core.store.store import MEMORY_DIR, Store
from core.writing.decay import rank

MANIFEST = ".memgov-batch.json"
ABSENT = "absent"


def fingerprint(memory: Memory | None) -> str:
    """What a change expects of a record: its meaning, not its usage counters."""
    if memory is None:
        return ABSENT
    data = [
        memory.status,
        memory.content_hash,
        memory.title,
        memory.confidence,
        memory.value,
        memory.condition,
        memory.verified_at.isoformat(),
        sorted(repr(s.key) for s in memory.all_sources),
    ]
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Change:
    """One reviewable change: automatic or needs approval, with reason and evidence."""

    id: str
    action: str
    automatic: bool
    reason: str
    evidence: tuple[Mapping[str, Any], ...]
    edits: tuple[Edit, ...]
    files: tuple[str, ...]
    expect: Mapping[str, str] = field(default_factory=dict)  # memory id -> fingerprint

    @property
    def classification(self) -> str:
        return "automatic" if self.automatic else "needs-approval"

    @property
    def memory_ids(self) -> tuple[str, ...]:
        ids = [e.memory_id for e in self.edits]
        ids += [str(e["id"]) for e in self.evidence if e.get("kind") == "record"]
        return tuple(dict.fromkeys(ids))

    def to_dict(self, *, internal: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "action": self.action,
            "class": self.classification,
            "automatic": self.automatic,
            "reason": self.reason,
            "evidence": [dict(e) for e in self.evidence],
            "memory_ids": list(self.memory_ids),
            "files": list(self.files),
        }
        if internal:
            out["edits"] = [e.to_dict() for e in self.edits]
            out["expect"] = dict(self.expect)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Change:
        return cls(
            id=data["id"],
            action=data["action"],
            automatic=bool(data["automatic"]),
            reason=data["reason"],
            evidence=tuple(data.get("evidence") or ()),
            edits=tuple(Edit.from_dict(e) for e in data.get("edits") or ()),
            files=tuple(data.get("files") or ()),
            expect=dict(data.get("expect") or {}),
        )


def unified_diff(path: str, old: str | None, new: str | None, context: int = 3) -> str:
    """A file's unified diff with ``context`` lines around each hunk."""
    a = old.splitlines(keepends=True) if old is not None else []
    b = new.splitlines(keepends=True) if new is not None else []
    lines = difflib.unified_diff(
        a,
        b,
        fromfile=f"a/{path}" if old is not None else "/dev/null",
        tofile=f"b/{path}" if new is not None else "/dev/null",
        n=max(int(context), 0),
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


@dataclass(frozen=True)
class FileChange:
    path: str
    old: str | None
    new: str | None
    changes: tuple[str, ...]  # ids of the changes that touch it
    automatic: bool

    @property
    def status(self) -> str:
        return "added" if self.old is None else "deleted" if self.new is None else "modified"

    def to_dict(self, changes: Mapping[str, Change], *, context: int = 3) -> dict[str, Any]:
        return {
            "path": self.path,
            "status": self.status,
            "class": "automatic" if self.automatic else "needs-approval",
            "automatic": self.automatic,
            "changes": list(self.changes),
            "reasons": [changes[c].reason for c in self.changes if c in changes],
            "evidence": [
                dict(e) for c in self.changes if c in changes for e in changes[c].evidence
            ],
            "derived": self.path == INDEX_FILE,
            "diff": unified_diff(self.path, self.old, self.new, context),
        }


@dataclass
class Plan:
    gathered: Gathered
    base: str
    engine: str
    changes: list[Change]
    final: dict[str, Memory]
    files: list[FileChange]
    index: dict[str, Any]
    replay: dict[str, Any]
    findings: list[str]

    @property
    def counts(self) -> dict[str, int]:
        g = self.gathered
        auto = sum(c.automatic for c in self.changes)
        return {
            "records": len(g.records),
            "input": len(g.inputs),
            "unused": len(g.unused),
            "signals": len(g.signals),
            "changes": len(self.changes),
            "automatic": auto,
            "needs_approval": len(self.changes) - auto,
            "files": len(self.files),
        }


def index_change_ids(old: str, new: str, changes: Iterable[Change]) -> tuple[str, ...]:
    """The changes behind an index diff: its own (pruning), and those of the records
    whose lines come or go (the index is regenerated from the records)."""
    moved = {
        line.target
        for line in parse_index("\n".join(set(old.splitlines()) ^ set(new.splitlines())))
    }
    return tuple(c.id for c in changes if INDEX_FILE in c.files or moved & set(c.files))


def _materialise(view: dict[str, Memory], proposal: Proposal) -> dict[str, Memory]:
    """The records ``proposal`` touches, changed (``view`` is left alone)."""
    out: dict[str, Memory] = {}
    for edit in proposal.edits:
        if edit.create is not None:
            if edit.memory_id in view or edit.memory_id in out:
                raise ValidationError(f"{edit.memory_id}: the engine creates an id already used")
            lifecycle.check(lifecycle.NEW, edit.create.status, memory_id=edit.memory_id)
            out[edit.memory_id] = edit.create.with_changes(
                id=edit.memory_id, path=f"{MEMORY_DIR}/{edit.memory_id}.md"
            )
            continue
        current = out.get(edit.memory_id) or view.get(edit.memory_id)
        if current is None:
            raise NotFoundError(f"the engine edits {edit.memory_id}, which is not in the store")
        status = edit.to_status or current.status
        if edit.to_status is not None:
            lifecycle.check(current.status, status, memory_id=current.id)
        out[edit.memory_id] = current.with_changes(status=status, **edit_changes(current, edit))
    return out


def _answers(
    records: Iterable[Memory], keys: set[tuple[str, str]], g: Gathered
) -> dict[tuple[str, str], tuple[str, float, str]]:
    groups: dict[tuple[str, str], list[Memory]] = {}
    for m in records:
        if m.status == "active" and (m.subject, m.attribute) in keys:
            groups.setdefault((m.subject, m.attribute), []).append(m)
    out = {}
    for key, members in groups.items():
        top = rank(members, g.now, g.config)[0]
        out[key] = (normalise(top.memory.value or top.memory.hook), top.weight, top.memory.id)
    return out


def replay(g: Gathered, after: Mapping[str, Memory], changes: list[Change]) -> dict[str, Any]:
    """Recall, before and after, for every (subject, attribute) the batch touches
    (seed 8: a consolidation that shrinks counts but worsens answers is a ritual)."""
    keys = {
        (g.records[i].subject, g.records[i].attribute)
        for c in changes
        for i in c.memory_ids
        if i in g.records
    }
    before = _answers(g.records.values(), keys, g)
    now = _answers(after.values(), keys, g)
    result: dict[str, Any] = {
        "queries": len(keys),
        "same": 0,
        "changed": [],
        "lost": [],
        "gained": [],
        "weaker": [],
    }
    for key in sorted(keys):
        query = f"{key[0]}#{key[1]}"
        b, a = before.get(key), now.get(key)
        if b is None and a is None:
            result["same"] += 1
        elif b is None:
            result["gained"].append({"query": query, "after": a[2] if a else None})
        elif a is None:
            result["lost"].append({"query": query, "before": b[2]})
        elif a[0] != b[0]:
            result["changed"].append({"query": query, "before": b[2], "after": a[2]})
        else:
            result["same"] += 1
            if a[1] < b[1] - 1e-9:
                result["weaker"].append(
                    {"query": query, "before": round(b[1], 4), "after": round(a[1], 4)}
                )
    return result


def make_plan(store: Store, engine: Engine, *, since: tuple[str, str] | None) -> Plan:
    """Orient, gather, consolidate (the engine), prune; nothing is written.

    ``since`` is the last baseline, (name, commit): the signal window starts there.
    """
    g = gather(store, since=since[1] if since else None, since_name=since[0] if since else None)
    base = gitstore.head(store.root)
    view = dict(g.records)
    findings = [f"{p.path}: {p.reason} (not read, not changed)" for p in store.load().problems]
    accepted: list[tuple[Proposal, dict[str, Memory]]] = []

    def take(proposals: list[Proposal]) -> None:
        for proposal in proposals:
            try:
                touched = _materialise(view, proposal)
            except MemgovError as exc:
                findings.append(f"{engine.name} engine proposal {proposal.action} dropped: {exc}")
                continue
            view.update(touched)
            accepted.append((proposal, touched))

    take(engine.propose(g))
    take(prune(g, view))
    index_after = render_index(view.values(), g.config)
    changes = []
    for number, (proposal, touched) in enumerate(accepted, start=1):
        paths = [view[i].path for i in touched]
        if proposal.action.startswith("index-"):
            paths.append(INDEX_FILE)
        changes.append(
            Change(
                id=f"c{number:03d}",
                action=proposal.action,
                automatic=classify(proposal),
                reason=proposal.reason,
                evidence=tuple(proposal.evidence),
                edits=proposal.edits,
                files=tuple(dict.fromkeys(paths)),
                expect={i: fingerprint(g.records.get(i)) for i in touched},
            )
        )
    by_path: dict[str, list[Change]] = {}
    for change in changes:
        for path in change.files:
            by_path.setdefault(path, []).append(change)
    files: list[FileChange] = []
    for memory_id in dict.fromkeys(i for _p, touched in accepted for i in touched):
        memory = view[memory_id]
        on_disk = store.root / memory.path
        old = on_disk.read_text(encoding="utf-8") if on_disk.is_file() else None
        new = None if memory.status == "deleted" else memory.to_markdown()
        if old != new:
            mine = by_path[memory.path]
            files.append(
                FileChange(
                    memory.path, old, new, tuple(c.id for c in mine), all(c.automatic for c in mine)
                )
            )
    if index_after != g.index_text:
        ids = index_change_ids(g.index_text, index_after, changes)
        files.append(
            FileChange(
                INDEX_FILE,
                g.index_text,
                index_after,
                ids,
                all(c.automatic for c in changes if c.id in ids),
            )
        )
    conflicts = sum(m.status == "conflict" for m in g.records.values())
    if conflicts:
        findings.append(
            f"{conflicts} record(s) in conflict are not consolidation input: "
            "adjudicate them in the review queue"
        )
    due = [
        m.id
        for m in g.records.values()
        if m.status == "active" and m.expires_at and m.expires_at <= g.now
    ]
    if due:
        findings.append(f"{len(due)} active record(s) past expires_at: 'memgov sweep' expires them")
    stats = index_stats(g, index_after)
    if stats["over_caps_after"]:
        findings += [
            w + f" ({stats['unused_with_lines']} of its lines point at records unused for "
            f"{g.config.unused_days}+ days)"
            for w in stats["warnings"]
        ]
    return Plan(
        g, base, engine.name, changes, view, files, stats, replay(g, view, changes), findings
    )


# ------------------------------------------------------------------- storing
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
            f"no pending consolidation batch {batch_id!r} in {store.root} (pending: {pending}); "
            f"'memgov queue --kind consolidation' lists them"
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
