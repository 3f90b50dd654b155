"""The review queue (SPEC section 10): what people decide, with the evidence.

Nine kinds of item (core.review.items.KINDS), oldest first: conflict sets
(grouped by key), promotion requests (and a team's proposals), deletion requests,
consolidation batches, secrets in a record (``secret-<memory id>``: a stored
record whose file holds a credential; core.store.secret_files), stale reports,
memories an import or a sync held (core.review.held), what tries to steer the
agent (core.review.quarantine), and a team's untrusted changes
(core.review.untrusted). A label (core.review.labels) is a measure's sample, found
by id but drawn apart.

:func:`build_queue` builds every item; :func:`outline_queue` is the queue at once,
its conflicts in outline (no record built), and :func:`conflict_texts` what a search
looks in for each conflict set, from the catalog's rows; :func:`get_item` builds the one item an
id names, reading only what that item shows (the decision path uses it, so
deciding one item costs that item, not the queue); :func:`open_ids` names the
open items without building any (the desk compares it with what it shows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from core.consolidation.batch import pending_ids
from core.domain import secrets
from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import Memory
from core.domain.record.mapping import parse_time
from core.importers.held import PREFIX as HELD_PREFIX
from core.importers.held import load_held
from core.review import view
from core.review.batch import pending_items
from core.review.evidence import Evidence, weigh
from core.review.held import held_items
from core.review.items import (
    KIND_OF_REQUEST,
    KINDS,
    REQUEST_KINDS,
    REQUEST_PREFIXES,
    ConflictAnalysis,
    DeletionAnalysis,
    Item,
    Key,
    Kind,
    PromotionAnalysis,
    RecordEvidence,
    ScanHit,
    SecretAnalysis,
    StaleAnalysis,
    TeamCopy,
)
from core.review.labels import is_label_id, label_item
from core.review.promotion import promotion_outcome, promotion_texts
from core.review.proposal import open_proposals, proposal_item
from core.review.quarantine import RECORD_PREFIX, candidate_items, record_items
from core.review.secret import options_for
from core.review.untrusted import PREFIX as UNTRUSTED_PREFIX
from core.review.untrusted import item_id as untrusted_id
from core.review.untrusted import untrusted_items, waiting
from core.store.decisions import deferrals
from core.store.quarantine import PREFIX as QUARANTINE_PREFIX
from core.store.quarantine import load_quarantined
from core.store.requests import Request, get_request, load_requests, open_requests
from core.store.secret_files import ITEM_PREFIX, Hit, record_hits, scan_file
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id
from core.writing.quarantine import flagged_records

MemoryKey = tuple[str, str, str, str | None]
#: the kinds of item a person may defer (leave open, recorded as looked at)
DEFERRABLE = (Kind.CONFLICT, Kind.SECRET)


def build_queue(workspace: Workspace, *, kinds: Iterable[str] | None = None) -> list[Item]:
    """Every open item of the workspace's stores, oldest first."""
    wanted = set(kinds or KINDS)
    items: list[Item] = []
    for store in workspace.stores:
        evidence = Evidence(store, workspace.stores)
        mine: list[Item] = []
        if Kind.CONFLICT in wanted:
            mine += [conflict_item(evidence, key, members) for key, members in _sets(store)]
        if Kind.SECRET in wanted:
            mine += [secret_item(evidence, hit) for hit in record_hits(store)]
        items += with_deferrals(store, mine)
        if wanted & REQUEST_KINDS:
            for request in evidence.requests:
                item = request_item(evidence, request, workspace.team)
                if item is not None and item.kind in wanted:
                    items.append(item)
        if Kind.PROMOTION in wanted and store.config.scope == "team":
            items += _proposal_items(evidence, workspace)
        if Kind.CONSOLIDATION in wanted:
            items += pending_items(store)
        if Kind.HELD in wanted:
            items += held_items(evidence, store)
        if Kind.QUARANTINE in wanted:
            items += candidate_items(evidence, store) + record_items(evidence, store)
        if Kind.UNTRUSTED in wanted:
            items += untrusted_items(store)
    items.sort(key=lambda i: (i.opened_at, i.id))
    return items


def with_deferrals(store: Store, items: Sequence[Item]) -> list[Item]:
    """``items`` of ``store``, each that someone deferred since it opened carrying its
    last deferral (:attr:`Item.deferred`: the queue's mark of an item looked at). A
    deferral from before the item opened (a new record joined the conflict, or the
    key's conflict was resolved and opened again) is no mark of it."""
    deferrable = [i for i in items if i.kind in DEFERRABLE]
    if not deferrable:
        return list(items)
    found = deferrals(store)
    if not found:
        return list(items)
    out = []
    for item in items:
        deferral = found.get(item.id)
        if deferral is not None and _not_before(deferral.ts, item.opened_at):
            item = replace(item, deferred=deferral)
        out.append(item)
    return out


def _not_before(ts: str, opened_at: str) -> bool:
    try:
        return datetime.fromisoformat(ts) >= datetime.fromisoformat(opened_at)
    except (TypeError, ValueError):
        return False


def outline_queue(workspace: Workspace, *, texts: dict[str, str] | None = None) -> list[Item]:
    """The queue but secrets, as :func:`build_queue` orders it, its conflict sets in
    outline: id, title, scope, subject and opening time from the catalog's columns, no
    record (``records`` empty, an analysis with the key alone: :func:`is_outline`);
    requests, batches and held memories built. What the desk shows while the records are read (a
    record that does not validate is left out by build_queue only).

    ``texts``, when given, gets each item's search text (what
    :func:`core.review.view.search_text` makes of the built item; a conflict set's
    from the catalog: :func:`conflict_texts`)."""
    items = build_queue(
        workspace,
        kinds=[*REQUEST_KINDS, Kind.CONSOLIDATION, Kind.HELD, Kind.QUARANTINE, Kind.UNTRUSTED],
    )
    if texts is not None:
        texts.update((i.id, view.search_text(i)) for i in items)
    for store in workspace.stores:
        items += _outline_sets(store, texts)
    items.sort(key=lambda i: (i.opened_at, i.id))
    return items


def conflict_texts(workspace: Workspace) -> dict[str, str]:
    """Each open conflict set's search text by its id, what
    :func:`core.review.view.search_text` makes of the built item, from its records'
    rows in the catalog (no record built): their ids, contents and values as the
    catalog holds them, redacted where the catalog flags a credential in the file (a
    file with no finding holds none in its content or value either)."""
    texts: dict[str, str] = {}
    for store in workspace.stores:
        _outline_sets(store, texts)
    return texts


def _outline_sets(store: Store, texts: dict[str, str] | None) -> list[Item]:
    """The store's conflict sets in outline, from the catalog's rows (``texts``: their
    search texts added)."""
    opened: dict[MemoryKey, datetime] = {}
    members: dict[MemoryKey, list[tuple[datetime, tuple[str, str, str]]]] = {}
    seen: set[str] = set()
    for (
        memory_id,
        scope,
        subject,
        attribute,
        condition,
        created,
        content,
        value,
        secret,
    ) in store.memories.catalog.key_rows("conflict"):
        if memory_id in seen:  # one record per id, as the records are listed
            continue
        seen.add(memory_id)
        try:
            when = parse_time(created, path=None, field_name="created_at", required=True)
        except (ValidationError, ValueError, TypeError):
            continue
        assert when is not None
        key = (scope, subject, attribute, condition)
        opened[key] = max(opened.get(key, when), when)
        if texts is not None:
            shown = (content, value or "")
            if secret:
                shown = (view.redacted(content), view.redacted(value or ""))
            members.setdefault(key, []).append((when, (memory_id, *shown)))
    sets = [
        Item(
            kind=Kind.CONFLICT,
            id=conflict_item_id(key),
            title=conflict_title(key),
            opened_at=when.isoformat(),
            store=store,
            scope=key[0],
            subject=key[1],
            analysis=ConflictAnalysis(Key(*key)),
        )
        for key, when in opened.items()
    ]
    if texts is not None:
        for key, item in zip(opened, sets, strict=True):
            rows = sorted(members[key], key=lambda m: m[0])  # oldest first, as built
            records = (record for _when, record in rows)
            texts[item.id] = view.joined_text(item.id, item.title, item.subject, records)
    return sets


def is_outline(item: Item) -> bool:
    """Whether the item is a conflict set in outline (:func:`outline_queue`)."""
    return item.kind == Kind.CONFLICT and not item.records


def conflict_title(key: MemoryKey) -> str:
    _scope, subject, attribute, condition = key
    return f"{subject} #{attribute}" + (f" [{condition}]" if condition else "")


def open_ids(workspace: Workspace, *, kinds: Iterable[str] | None = None) -> set[str]:
    """The ids of the open items :func:`build_queue` would build, none built: the
    conflict keys from the catalog's key columns, the open requests whose record is
    there, the pending batches, the records whose file holds a credential."""
    wanted = set(kinds or KINDS)
    ids: set[str] = set()
    for store in workspace.stores:
        if Kind.CONFLICT in wanted:
            keys = store.memories.catalog.keys_with_status("conflict")
            ids.update(conflict_item_id(key) for key in keys)
        if wanted & REQUEST_KINDS:
            ids.update(
                r.id
                for r in load_requests(store)
                if r.status == "open"
                and KIND_OF_REQUEST.get(r.kind) in wanted
                and r.memory_id in store.memories
            )
        if Kind.CONSOLIDATION in wanted:
            ids.update(pending_ids(store))
        if Kind.SECRET in wanted:
            ids.update(f"{ITEM_PREFIX}{hit.memory.id}" for hit in record_hits(store) if hit.memory)
        if Kind.HELD in wanted and store.config.scope == "private":
            ids.update(h.id for h in load_held(store)[0] if h.status == "open")
        if Kind.QUARANTINE in wanted:
            ids.update(h.id for h in load_quarantined(store, status="open"))
            ids.update(f"{RECORD_PREFIX}{m.id}" for m, _flags in flagged_records(store))
        if Kind.UNTRUSTED in wanted and store.config.scope == "team":
            ids.update(untrusted_id(w.commit) for w in waiting(store))
    return ids


def get_item(workspace: Workspace, item_id: str, *, marks: bool = True) -> Item:
    """The open item ``item_id``, built alone: the store it lives in, the records it
    names, their evidence (``marks``: and its last deferral, which deciding it does not
    need). NotFoundError when no store has it open."""
    found = find_items(workspace, [item_id], marks=marks)
    if item_id not in found:
        raise NotFoundError(f"no open review item {shown_id(item_id)}; 'memgov queue' lists them")
    return found[item_id]


def find_items(
    workspace: Workspace, item_ids: Sequence[str], *, marks: bool = True
) -> dict[str, Item]:
    """The open items among ``item_ids``, each built as :func:`get_item` builds it
    (absent: no store has it open). The conflict keys of a store are read once for
    all of them."""
    found: dict[str, Item] = {}
    for store in workspace.stores:
        finder = _Finder(store, workspace)
        mine = []
        for item_id in item_ids:
            if item_id not in found:
                item = finder.find(item_id)
                if item is not None:
                    found[item_id] = item
                    mine.append(item)
        if marks:
            found.update((i.id, i) for i in with_deferrals(store, mine))
    return found


class _Finder:
    """Builds the items of one store by id."""

    def __init__(self, store: Store, workspace: Workspace) -> None:
        self.store, self.workspace = store, workspace
        self.evidence = Evidence(store, workspace.stores)

    def conflict_key(self, item_id: str) -> MemoryKey | None:
        # the id is a digest of the key: the catalog indexes it, then only its records built
        return self.store.memories.catalog.conflict_key(item_id)

    def find(self, item_id: str) -> Item | None:
        store, evidence = self.store, self.evidence
        if item_id.startswith("conflict-"):
            key = self.conflict_key(item_id)
            if key is None:
                return None
            members = [m for m in store.memories.by_key(key) if m.status == "conflict"]
            if not members:
                return None
            members.sort(key=lambda m: m.created_at)
            return conflict_item(evidence, key, members)
        if item_id.startswith(REQUEST_PREFIXES):
            if store.config.scope == "team":
                found = _proposal_items(evidence, self.workspace, {item_id})
                if found:
                    return found[0]
            try:
                request = get_request(store, item_id)
            except NotFoundError:
                return None
            return request_item(evidence, request, self.workspace.team)
        if item_id.startswith(ITEM_PREFIX):
            memory = store.memories.get(item_id.removeprefix(ITEM_PREFIX))
            if memory is None:
                return None
            findings = scan_file(store.root / memory.path)
            return secret_item(evidence, Hit(memory.path, findings, memory)) if findings else None
        if item_id.startswith(HELD_PREFIX):
            return next(iter(held_items(evidence, store, [item_id])), None)
        if item_id.startswith(QUARANTINE_PREFIX):
            return next(iter(candidate_items(evidence, store, [item_id])), None)
        if item_id.startswith(RECORD_PREFIX):
            return next(iter(record_items(evidence, store, [item_id])), None)
        if item_id.startswith(UNTRUSTED_PREFIX):
            return next(iter(untrusted_items(store, [item_id])), None)
        if is_label_id(item_id):
            return label_item(evidence, store, item_id)
        return next(iter(pending_items(store, [item_id])), None)


def _proposal_items(
    evidence: Evidence, workspace: Workspace, ids: set[str] | None = None
) -> list[Item]:
    """The open proposals of a team clone's remote, as promotion items; not one that
    is a request of a private store given here (the contributor sees their request)."""
    mine = {
        request.id
        for store in workspace.stores
        if store.config.scope == "private"
        for request in open_requests(store, kind="promote")
    }
    return [
        proposal_item(evidence, p) for p in open_proposals(evidence.store, ids) if p.id not in mine
    ]


def _sets(store: Store) -> list[tuple[MemoryKey, list[Memory]]]:
    """The store's conflict sets: records in conflict, by key, oldest first."""
    groups: dict[MemoryKey, list[Memory]] = {}
    for memory in store.memories.with_status("conflict"):
        groups.setdefault(memory.key, []).append(memory)
    for members in groups.values():
        members.sort(key=lambda m: m.created_at)
    return list(groups.items())


def conflict_item(evidence: Evidence, key: MemoryKey, members: list[Memory]) -> Item:
    records = tuple(evidence.of(m) for m in members)
    scope, subject, attribute, condition = key
    return Item(
        kind=Kind.CONFLICT,
        id=conflict_item_id(key),
        title=conflict_title(key),
        opened_at=max(m.created_at for m in members).isoformat(),
        store=evidence.store,
        scope=scope,
        subject=subject,
        records=records,
        analysis=weigh(Key(scope, subject, attribute, condition), records),
    )


def request_item(evidence: Evidence, request: Request, team: Store | None) -> Item | None:
    """An open promotion or deletion request, or a stale report, as an item (None:
    closed, or its record is gone)."""
    store = evidence.store
    if request.status != "open" or request.memory_id not in store.memories:
        return None
    memory = store.memories[request.memory_id]
    kind = KIND_OF_REQUEST[request.kind]
    team_records: tuple[RecordEvidence, ...] = ()
    scan: tuple[ScanHit, ...] = ()
    if kind == Kind.PROMOTION:
        scan = tuple(
            ScanHit(f.rule_id, f.line, f.column, f.description)
            for text in promotion_texts(memory)
            for f in secrets.scan(text)
        )
        if team is not None:
            team_evidence = Evidence(team)
            team_records = tuple(
                team_evidence.of(m)
                for m in team.memories.by_subject_attribute(memory.subject, memory.attribute)
                if m.status in ("active", "conflict")
            )
        analysis: PromotionAnalysis | DeletionAnalysis | StaleAnalysis = PromotionAnalysis(
            secret_hits=len(scan),
            outcome=promotion_outcome(team, memory) if team is not None else None,
        )
    elif kind == Kind.STALE:
        analysis = StaleAnalysis(
            verified_days=max(0, (store.now() - memory.verified_at).days),
            usage_count=memory.usage_count,
            last_used_at=memory.last_used_at.isoformat() if memory.last_used_at else None,
            expires_at=memory.expires_at.isoformat() if memory.expires_at else None,
        )
    else:
        analysis = DeletionAnalysis(
            tuple(TeamCopy(str(s.root), cid) for s, cid in evidence.team_copies(memory.id))
        )
    verb = _VERBS[kind]
    return Item(
        kind=kind,
        id=request.id,
        title=f"{verb}: {memory.display_title}",
        opened_at=request.requested_at,
        store=store,
        scope=memory.scope,
        subject=memory.subject,
        records=(evidence.of(memory),),
        request=request,
        team_records=team_records,
        scan=scan,
        analysis=analysis,
    )


#: how an item of each kind of request is titled
_VERBS = {Kind.PROMOTION: "promote to team", Kind.DELETION: "delete", Kind.STALE: "out of date?"}


def secret_item(evidence: Evidence, hit: Hit) -> Item:
    """A record whose file holds a credential: its evidence, the scan (rule ids,
    lines and columns, never the value) and what may be done."""
    memory = hit.memory
    assert memory is not None
    return Item(
        kind=Kind.SECRET,
        id=f"{ITEM_PREFIX}{memory.id}",
        title=f"secret in a record: {secrets.redact(memory.display_title)}",
        opened_at=memory.created_at.isoformat(),
        store=evidence.store,
        scope=memory.scope,
        subject=memory.subject,
        records=(evidence.of(memory),),
        scan=tuple(ScanHit(f.rule_id, f.line, f.column) for f in hit.findings),
        analysis=SecretAnalysis(
            file=hit.path,
            status=memory.status,
            rules=tuple(hit.rules),
            options=options_for(memory),
        ),
    )


def evidence_for(store: Store, memory: Memory) -> RecordEvidence:
    """One record's evidence, outside any item (the desk's history and about-me)."""
    return Evidence(store).of(memory)
