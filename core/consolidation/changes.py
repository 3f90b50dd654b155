"""A batch's reviewable changes: each change, the files it touches, their diffs.

A :class:`Change` is one engine proposal as the reviewer sees it: automatic or
needs approval, its reason and evidence, its edits, the files it touches, and
what it expects of each record it changes (:func:`fingerprint`: the record's
meaning, not its usage counters, so a change made stale by a later write is
detected). A :class:`FileChange` is one changed file's old and new text and the
changes behind it; :func:`unified_diff` renders it. The index is regenerated
from the records, so :func:`index_change_ids` finds the changes behind its diff.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.consolidation.model import Edit
from core.domain.record import Memory
from core.store.index import INDEX_FILE, parse_index

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


def index_change_ids(old: str, new: str, changes: Iterable[Change]) -> tuple[str, ...]:
    """The changes behind an index diff: its own (pruning), and those of the records
    whose lines come or go (the index is regenerated from the records)."""
    moved = {
        line.target
        for line in parse_index("\n".join(set(old.splitlines()) ^ set(new.splitlines())))
    }
    return tuple(c.id for c in changes if INDEX_FILE in c.files or moved & set(c.files))
