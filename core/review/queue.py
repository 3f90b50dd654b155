"""The review queue (SPEC section 10): what people decide, with the evidence.

Five kinds of item, oldest first: conflict sets (grouped by key), promotion
requests, deletion requests, consolidation batches, and secrets in a record
(``secret-<memory id>``: a stored record whose file holds a credential, opened
when the record was written; core.review.secret_records). Every item carries, for
each record involved, the source quote, task and message, the resolved log
excerpt with context, dates, confidence, source count, and what points at it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core.domain import secrets
from core.domain.errors import NotFoundError
from core.domain.record import Memory, Source
from core.review import secret_records
from core.store import logs, promoted
from core.store.index import INDEX_FILE, parse_index, read_index_text
from core.store.requests import Request, load_requests
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id

KINDS = ("conflict", "promotion", "deletion", "consolidation", "secret")
KIND_OF_REQUEST = {"promote": "promotion", "delete": "deletion"}

# words in the evidence that suggest the values hold at different times or in different places
SEQUENTIAL_HINTS = re.compile(
    r"from next week|starting|from now on|switched|no longer|instead"
    r"|改用|从下周|以后|不再|换成",
    re.IGNORECASE,
)
PARALLEL_HINTS = re.compile(
    r"\b(?:production|prod|staging|testing|test env|dev(?:elopment)?)\b"
    r"|生产|测试|预发|开发环境",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SourceEvidence:
    source: Source
    excerpt: logs.Excerpt | None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.source.to_dict(),
            "resolves": self.excerpt is not None,
            "excerpt": self.excerpt.to_dict() if self.excerpt else None,
        }


@dataclass(frozen=True)
class RecordEvidence:
    memory: Memory
    store: str
    sources: tuple[SourceEvidence, ...]
    pointers: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        m = self.memory
        return {
            "id": m.id,
            "store": self.store,
            "status": m.status,
            "type": m.type,
            "scope": m.scope,
            "subject": m.subject,
            "attribute": m.attribute,
            "condition": m.condition,
            "value": m.value,
            "content": m.content,
            "confidence": m.confidence,
            "created_at": m.created_at.isoformat(),
            "verified_at": m.verified_at.isoformat(),
            "source_count": len(self.sources),
            "sources": [s.to_dict() for s in self.sources],
            "pointers": list(self.pointers),
        }


@dataclass(frozen=True)
class Item:
    kind: str
    id: str
    title: str
    opened_at: str
    store: Store = field(compare=False, repr=False)
    scope: str = "private"
    subject: str = ""
    records: tuple[RecordEvidence, ...] = ()
    request: Request | None = None
    team_records: tuple[RecordEvidence, ...] = ()
    scan: tuple[dict[str, Any], ...] = ()
    analysis: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "title": self.title,
            "opened_at": self.opened_at,
            "store": str(self.store.root),
            "scope": self.scope,
            "subject": self.subject,
            "records": [r.to_dict() for r in self.records],
            "request": self.request.to_dict() if self.request else None,
            "team_records": [r.to_dict() for r in self.team_records],
            "secret_scan": list(self.scan),
            "analysis": self.analysis,
        }


class _Context:
    """What evidence-building needs from one store, computed once."""

    def __init__(self, store: Store, workspace_stores: Iterable[Store] = ()) -> None:
        self.store = store
        self.workspace_stores = list(workspace_stores) or [store]
        self._team_copies: dict[str, list[tuple[Store, str]]] | None = None
        self.tasks = logs.task_index(store.root)
        text = read_index_text(store.root)[0] or ""  # doctor reports an unreadable index
        self.index_lines = {line.target: line.number for line in parse_index(text)}
        self.replaced_by = {m.supersedes: m.id for m in store.memories.values() if m.supersedes}
        self.requests = load_requests(store)

    def team_copies(self, memory_id: str) -> list[tuple[Store, str]]:
        """The team copies of a promoted private record (decision records read once)."""
        if self._team_copies is None:
            self._team_copies = promoted.copies_by_record(self.workspace_stores)
        return self._team_copies.get(memory_id, [])

    def evidence(self, memory: Memory) -> RecordEvidence:
        sources = tuple(
            SourceEvidence(
                s,
                logs.resolve(
                    self.store.root,
                    s,
                    task_logs=self.tasks,
                    outside_ok=self.store.config.scope == "private",
                ),
            )
            for s in memory.all_sources
        )
        pointers = []
        if memory.path in self.index_lines:
            pointers.append(f"{INDEX_FILE} line {self.index_lines[memory.path]}")
        if memory.supersedes:
            pointers.append(f"supersedes {memory.supersedes}")
        if memory.id in self.replaced_by:
            pointers.append(f"superseded by {self.replaced_by[memory.id]}")
        pointers += [
            f"{r.kind} request {r.id} ({r.status})"
            for r in self.requests
            if r.memory_id == memory.id and r.status == "open"
        ]
        return RecordEvidence(memory, str(self.store.root), sources, tuple(pointers))


def weigh(records: Iterable[RecordEvidence]) -> dict[str, Any]:
    """Step 2 and 3 of adjudication: which record the sources favour, and hints
    from reading the evidence about conditions (the reader decides)."""
    recs = list(records)
    if not recs:
        return {}
    newest = max(recs, key=lambda r: r.memory.created_at)
    verified = max(recs, key=lambda r: r.memory.verified_at)
    most = max(recs, key=lambda r: len(r.sources))
    surest = max(recs, key=lambda r: r.memory.confidence)
    votes: dict[str, list[str]] = {r.memory.id: [] for r in recs}
    votes[newest.memory.id].append("newer")
    votes[verified.memory.id].append("verified more recently")
    if len({len(r.sources) for r in recs}) > 1:
        votes[most.memory.id].append("more sources")
    if len({r.memory.confidence for r in recs}) > 1:
        votes[surest.memory.id].append("higher confidence")
    favoured = max(recs, key=lambda r: (len(votes[r.memory.id]), r.memory.created_at))
    hints = {}
    for r in recs:
        text = " ".join(
            [s.source.evidence for s in r.sources]
            + [line for s in r.sources if s.excerpt for _n, line in s.excerpt.lines]
        )
        hints[r.memory.id] = {
            "sequential": sorted({m.group(0).lower() for m in SEQUENTIAL_HINTS.finditer(text)}),
            "parallel": sorted({m.group(0).lower() for m in PARALLEL_HINTS.finditer(text)}),
        }
    return {
        "favoured": favoured.memory.id,
        "why": votes[favoured.memory.id],
        "votes": votes,
        "condition_hints": hints,
        "newer": newest.memory.id,
        "older": min(recs, key=lambda r: r.memory.created_at).memory.id,
    }


def _conflict_items(ctx: _Context) -> list[Item]:
    groups: dict[tuple[str, str, str, str | None], list[Memory]] = {}
    for memory in ctx.store.memories.values():
        if memory.status == "conflict":
            groups.setdefault(memory.key, []).append(memory)
    items = []
    for key, members in groups.items():
        members.sort(key=lambda m: m.created_at)
        records = tuple(ctx.evidence(m) for m in members)
        scope, subject, attribute, condition = key
        title = f"{subject} #{attribute}" + (f" [{condition}]" if condition else "")
        items.append(
            Item(
                kind="conflict",
                id=conflict_item_id(key),
                title=title,
                opened_at=max(m.created_at for m in members).isoformat(),
                store=ctx.store,
                scope=scope,
                subject=subject,
                records=records,
                analysis={
                    "key": {
                        "scope": scope,
                        "subject": subject,
                        "attribute": attribute,
                        "condition": condition,
                    },
                    **weigh(records),
                },
            )
        )
    return items


def promotion_texts(memory: Memory) -> list[str]:
    """What a promotion's secret scan reads (in the queue and again at approval): the
    record's free text, i.e. content, title, value and source quotes."""
    return [memory.content, memory.title or "", memory.value or ""] + [
        s.evidence for s in memory.all_sources
    ]


def _request_items(ctx: _Context, team: Store | None) -> list[Item]:
    items = []
    for request in ctx.requests:
        if request.status != "open" or request.memory_id not in ctx.store.memories:
            continue
        memory = ctx.store.memories[request.memory_id]
        record = ctx.evidence(memory)
        kind = KIND_OF_REQUEST[request.kind]
        team_records: tuple[RecordEvidence, ...] = ()
        scan: tuple[dict[str, Any], ...] = ()
        if kind == "promotion":
            scan = tuple(
                f.to_dict() for text in promotion_texts(memory) for f in secrets.scan(text)
            )
            if team is not None:
                team_ctx = _Context(team)
                team_records = tuple(
                    team_ctx.evidence(m)
                    for m in team.memories.values()
                    if (m.subject, m.attribute) == (memory.subject, memory.attribute)
                    and m.status in ("active", "conflict")
                )
        verb = "promote to team" if kind == "promotion" else "delete"
        items.append(
            Item(
                kind=kind,
                id=request.id,
                title=f"{verb}: {memory.display_title}",
                opened_at=request.requested_at,
                store=ctx.store,
                scope=memory.scope,
                subject=memory.subject,
                records=(record,),
                request=request,
                team_records=team_records,
                scan=scan,
                analysis={"secret_hits": len(scan)}
                if kind == "promotion"
                else {
                    # erasing a promoted record leaves its team copies: the deletion says so
                    "team_copies": [
                        {"store": str(s.root), "id": cid} for s, cid in ctx.team_copies(memory.id)
                    ]
                },
            )
        )
    return items


def build_queue(workspace: Workspace, *, kinds: Iterable[str] | None = None) -> list[Item]:
    wanted = set(kinds or KINDS)
    items: list[Item] = []
    for store in workspace.stores:
        ctx = _Context(store, workspace.stores)
        if "conflict" in wanted:
            items += _conflict_items(ctx)
        if wanted & {"promotion", "deletion"}:
            items += [i for i in _request_items(ctx, workspace.team) if i.kind in wanted]
        if "consolidation" in wanted:
            items += _batch_items(store)
        if "secret" in wanted:
            items += _secret_items(ctx)
    items.sort(key=lambda i: (i.opened_at, i.id))
    return items


def _secret_items(ctx: _Context) -> list[Item]:
    """One item per record whose file holds a credential: the record's evidence, the
    scan (rule ids, lines and columns, never the value) and what may be done."""
    items = []
    for hit in secret_records.record_hits(ctx.store):
        memory = hit.memory
        assert memory is not None
        items.append(
            Item(
                kind="secret",
                id=secret_records.item_id(memory.id),
                title=f"secret in a record: {secrets.redact(memory.display_title)}",
                opened_at=memory.created_at.isoformat(),
                store=ctx.store,
                scope=memory.scope,
                subject=memory.subject,
                records=(ctx.evidence(memory),),
                scan=hit.scan,
                analysis={
                    "file": hit.path,
                    "status": memory.status,
                    "rules": hit.rules,
                    "options": list(secret_records.options_for(memory)),
                },
            )
        )
    return items


def _batch_items(store: Store) -> list[Item]:
    """The store's pending consolidation batch (core.consolidation.consolidate)."""
    from core.consolidation import consolidate  # imported here: it builds on this module

    return list(consolidate.pending_items(store))


def find_item(workspace: Workspace, item_id: str) -> Item:
    for item in build_queue(workspace):
        if item.id == item_id:
            return item
    raise NotFoundError(f"no open review item {item_id!r}; 'memgov queue' lists them")


def evidence_for(store: Store, memory: Memory) -> RecordEvidence:
    """One record's evidence, outside any queue item (about me, history)."""
    return _Context(store).evidence(memory)
