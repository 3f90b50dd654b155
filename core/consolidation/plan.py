"""A consolidation plan: the engine's proposals, materialised on a copy of the records.

:func:`make_plan` runs the four steps in order (orient, gather, consolidate,
prune) and materialises the proposals on a copy of the records: that gives
every changed file's old and new text, the index after the batch, and the
replay of the recall queries the batch touches (:func:`replay`). Nothing is
written: :func:`core.consolidation.batch.write_batch` stores a plan as a batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.consolidation.changes import Change, FileChange, fingerprint, index_change_ids
from core.consolidation.gather import gather, index_stats, prune
from core.consolidation.model import Engine, Gathered, Proposal, classify, edit_changes
from core.domain import lifecycle
from core.domain.errors import MemgovError, NotFoundError, ValidationError
from core.domain.record import Memory
from core.domain.values import normalise
from core.domain.words import counted
from core.store import gitstore
from core.store.index import INDEX_FILE, render_index
from core.store.layout import memory_path
from core.store.store import Store
from core.writing.decay import rank


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


def _materialise(view: dict[str, Memory], proposal: Proposal) -> dict[str, Memory]:
    """The records ``proposal`` touches, changed (``view`` is left alone)."""
    out: dict[str, Memory] = {}
    for edit in proposal.edits:
        if edit.create is not None:
            if edit.memory_id in view or edit.memory_id in out:
                raise ValidationError(f"{edit.memory_id}: the engine creates an id already used")
            lifecycle.check(lifecycle.NEW, edit.create.status, memory_id=edit.memory_id)
            out[edit.memory_id] = edit.create.with_changes(
                id=edit.memory_id, path=memory_path(edit.memory_id)
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
            f"{counted(conflicts, 'record')} in conflict are not consolidation input: "
            "adjudicate them in the review queue"
        )
    due = [
        m.id
        for m in g.records.values()
        if m.status == "active" and m.expires_at and m.expires_at <= g.now
    ]
    if due:
        findings.append(
            f"{counted(len(due), 'active record')} past expires_at: 'memgov sweep' expires "
            + ("it" if len(due) == 1 else "them")
        )
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
