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

from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import Memory
from core.domain.record.mapping import parse_time
from core.review import view
from core.review.evidence import Evidence
from core.review.items import KINDS, ConflictAnalysis, Item, Key, Kind, RecordEvidence
from core.review.kinds import REGISTRY, kind_of, queue_kinds
from core.review.kinds.conflict import conflict_title
from core.review.losses import batches_first
from core.store.decisions import deferrals
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id

MemoryKey = tuple[str, str, str, str | None]
#: the kinds of item a person may defer (leave open, recorded as looked at)
DEFERRABLE = tuple(k.kind for k in REGISTRY.values() if k.deferrable)


def build_queue(workspace: Workspace, *, kinds: Iterable[str] | None = None) -> list[Item]:
    """Every open item of the workspace's stores, oldest first."""
    wanted = set(kinds or KINDS)
    chosen = [k for k in queue_kinds() if k.kind in wanted]
    items: list[Item] = []
    for store in workspace.stores:
        evidence = Evidence(store, workspace.stores)
        for kind in chosen:
            built = kind.build(evidence, workspace)
            items += with_deferrals(store, built) if kind.deferrable else built
    items.sort(key=lambda i: (i.opened_at, i.id))
    return batches_first(triaged(items))


def triaged(items: list[Item]) -> list[Item]:
    """``items`` with the held memories (kind quarantine) ordered among their own places
    by triage, the most urgent first (core.domain.steering.triage), then by age: every
    other item keeps its place, oldest first."""
    places = [n for n, item in enumerate(items) if item.kind == Kind.QUARANTINE]
    if len(places) < 2:
        return items
    from core.domain.steering.triage import LEVELS

    def rank(item: Item) -> int:
        label = getattr(item.analysis, "triage", "")
        return LEVELS.index(label) if label in LEVELS else len(LEVELS)

    ordered = sorted((items[n] for n in places), key=lambda i: (rank(i), i.opened_at, i.id))
    out = list(items)
    for n, item in zip(places, ordered, strict=True):
        out[n] = item
    return out


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
        kinds=[k for k in KINDS if k not in (Kind.CONFLICT, Kind.SECRET)],
    )
    if texts is not None:
        texts.update((i.id, view.search_text(i)) for i in items)
    for store in workspace.stores:
        items += _outline_sets(store, texts)
    items.sort(key=lambda i: (i.opened_at, i.id))
    return batches_first(triaged(items))


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


def open_ids(workspace: Workspace, *, kinds: Iterable[str] | None = None) -> set[str]:
    """The ids of the open items :func:`build_queue` would build, none built: the
    conflict keys from the catalog's key columns, the open requests whose record is
    there, the pending batches, the records whose file holds a credential."""
    wanted = set(kinds or KINDS)
    ids: set[str] = set()
    for store in workspace.stores:
        for kind in queue_kinds():
            if kind.kind in wanted:
                ids |= kind.open_ids(store)
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
        evidence = Evidence(store, workspace.stores)
        mine = []
        for item_id in item_ids:
            if item_id not in found:
                item = kind_of(item_id).find(evidence, workspace, item_id)
                if item is not None:
                    found[item_id] = item
                    mine.append(item)
        if marks:
            found.update((i.id, i) for i in with_deferrals(store, mine))
    return found


def evidence_for(store: Store, memory: Memory) -> RecordEvidence:
    """One record's evidence, outside any item (the desk's history and about-me)."""
    return Evidence(store).of(memory)
