"""The decision record: what a person decided, kept so that it can be reverted.

Every decision of every kind (a conflict, a promotion, a deletion, a secret, a
consolidation batch, a rollback, a correction, a revert) is saved as
``decisions/<id>.json`` in the store it changed, in the same transaction as its
changes, with the front matter of every record before and after (never
content) and an event ``decide``. This module is the one place that makes
decision ids, saves, loads, validates and looks up decision records; the
review layer (core.review) and consolidation use it through these names.

A decision record is untrusted input like any store file: :func:`load_decision`
takes only an id of the form ``dec-YYYYMMDDTHHMMSS-xxxxxx`` (never a path),
reads through the store's confinement and checks every field's type.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.domain.data import AsData, to_data
from core.domain.errors import NotFoundError, StoreError, ValidationError, shown_id
from core.domain.record import Memory
from core.store.fsutil import UnsafePath, read_confined
from core.store.store import Store
from core.store.transaction import Transaction

DECISION_DIR = "decisions"
DECISION_ID = re.compile(r"dec-[0-9]{8}T[0-9]{6}-[0-9a-f]{6}")
MAX_DECISION_BYTES = 4 * 1024 * 1024
#: the note of an erasure in a team store
TEAM_HISTORY_NOTE = (
    "this is a team store: the content is gone from its files, but its git history, "
    "the remote's and every clone and fork made before this erasure keep it"
)
#: options that close nothing: a deferral and a revert leave the item open
NOT_CLOSING = ("defer", "revert")
#: the event of a deferral, besides its ``decide`` (the queue's mark of an item looked at)
DEFER_ACTION = "defer"
#: the erasure of a record a reverted decision wrote from an agent's file (a held
#: memory's import): the store as before the decision, not a person's erasure, so an
#: import of the file does not take its words for a memory erased and learned again
UNWRITE_ACTION = "revert-unwrite"


@dataclass(frozen=True)
class Consequence(AsData):
    """Something a decision changes or discards besides the records it decides: a
    pending consolidation batch discarded or left stale, a request closed or opened,
    a record of another item changed, a store's history rewritten. ``text`` says it in
    words that hold before the decision (its preview) and after (its notification).
    Found by core.review.consequences in what the decision's transactions wrote."""

    #: batch-discarded, batch-stale, request-closed, request-opened, request-moved (a
    #: promotion request that follows a correction), record, source (a team record's
    #: source left behind), history
    kind: str
    store: str  # the store's folder name
    subject: str  # the batch, request or record id
    text: str


@dataclass(frozen=True)
class Decision(AsData):
    id: str
    item: str
    kind: str
    option: str
    actor: str
    reason: str
    ts: str
    store: str
    before: dict[str, dict[str, Any]] = field(default_factory=dict)
    after: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: list[dict[str, str]] = field(default_factory=list)  # [{store, id}]
    #: records of another store that existed before and that the decision changed
    #: (a promotion merged into or contradicting team records): [{store, id, before, after}]
    touched: list[dict[str, Any]] = field(default_factory=list)
    request: str | None = None
    erased: list[str] = field(default_factory=list)
    reverted_by: str | None = None
    note: str | None = None
    #: what else the decision changed or discarded, as it was made (not saved in its
    #: file: its transaction's events record each; a decision read back has none)
    consequences: tuple[Consequence, ...] = field(default=(), compare=False)

    DATA_PROPERTIES: ClassVar[tuple[str, ...]] = ("revertible",)

    @property
    def revertible(self) -> bool:
        if self.kind == "consolidation" and self.option == "reject":
            return False  # a rejected batch changed no record
        if self.option == "rerequest":
            return False  # the request moved to another record (core.review.revert says so)
        if self.kind == "untrusted":
            return False  # a signed commit every clone takes (core.team.untrusted), no file
        return not self.erased and self.reverted_by is None and self.option not in NOT_CLOSING

    @property
    def path(self) -> str:
        return f"{DECISION_DIR}/{self.id}.json"

    def to_json(self) -> str:
        """The saved form: the fields above, nothing derived."""
        data = {f: v for f, v in to_data(self).items() if f in _FIELDS}
        return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


#: the id a decision's preview chose, for the decision being made (:func:`chosen_id`)
_CHOSEN: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "memgov_chosen_decision_id", default=None
)


@contextlib.contextmanager
def chosen_id(decision_id: str | None) -> Iterator[None]:
    """Within it, the next :func:`new_decision_id` is ``decision_id``: the id the
    decision's preview chose and showed (None: a new one). The ids of the records a
    decision makes are derived from its id, so they are the ones its preview showed
    too. Refused when it is no decision id, or one the store holds already."""
    if decision_id is None:
        yield
        return
    if not DECISION_ID.fullmatch(decision_id):
        raise ValidationError(
            f"{shown_id(decision_id)} is not a decision id (dec-YYYYMMDDTHHMMSS-xxxxxx)",
            field="decision",
            hint="pass the id a preview (--dry-run) named",
        )
    token = _CHOSEN.set([decision_id])
    try:
        yield
    finally:
        _CHOSEN.reset(token)


def new_decision_id(store: Store, basis: str) -> str:
    """``dec-<time>-<digest>``; unique in the store, the same on a pinned replay; or the
    one its preview chose (:func:`chosen_id`)."""
    chosen = _CHOSEN.get()
    if chosen:
        decision_id = chosen.pop()
        if (store.root / DECISION_DIR / f"{decision_id}.json").exists():
            raise ValidationError(
                f"{decision_id} is taken in {store.root}: a decision was made with it",
                field="decision",
                hint="preview the decision again (a new preview chooses a new id)",
            )
        return decision_id
    now = store.now()
    for attempt in range(100):
        digest = hashlib.sha256(f"{basis}|{attempt}".encode()).hexdigest()[:6]
        decision_id = f"dec-{now:%Y%m%dT%H%M%S}-{digest}"
        if not (store.root / DECISION_DIR / f"{decision_id}.json").exists():
            return decision_id
    raise StoreError(f"{store.root}: cannot find a free decision id")


def front(memory: Memory) -> dict[str, Any]:
    """A record's state as a decision keeps it: front matter and path, no content."""
    data = memory.front_matter()
    data["path"] = memory.path
    return data


def key_only(state: dict[str, Any]) -> dict[str, Any]:
    """What a decision keeps of an erased record: its id and key (core.store.erase)."""
    from core.store.erase import ERASED_KEEP  # the erasure's modules: only when one is

    return {k: v for k, v in state.items() if k in ERASED_KEEP}


def erase_record(tx: Transaction, memory_id: str, **kwargs: Any) -> None:
    """Erase a record with its value in short. Its front matter in the store's earlier
    decision records goes down to its id and key when the transaction applies (the
    erasure rules of core.store.erase, for every file of the store)."""
    value = tx.get(memory_id).value
    tx.erase(memory_id, **kwargs)
    if value:  # the value in short goes with the content, unless another record says it too
        from core.store.erase import needles_for

        tx.needles += [n for n in needles_for(value) if not tx.still_said(n)]


def decision_for(
    tx: Transaction,
    decision_id: str,
    *,
    item: str,
    kind: str,
    option: str,
    actor: str,
    reason: str,
    before: dict[str, dict[str, Any]] | None = None,
    after: dict[str, dict[str, Any]] | None = None,
    created: list[dict[str, str]] | None = None,
    touched: list[dict[str, Any]] | None = None,
    request: str | None = None,
    erased: list[str] | None = None,
    note: str | None = None,
) -> Decision:
    """The decision ``decision_id`` made in ``tx``: dated by the transaction's clock and
    kept in its store, as every decision a transaction makes is."""
    return Decision(
        id=decision_id,
        item=item,
        kind=kind,
        option=option,
        actor=actor,
        reason=reason,
        ts=tx.now.isoformat(),
        store=str(tx.store.root),
        before=before if before is not None else {},
        after=after if after is not None else {},
        created=created if created is not None else [],
        touched=touched if touched is not None else [],
        request=request,
        erased=erased if erased is not None else [],
        note=note,
    )


def record_decision(
    tx: Transaction,
    decision: Decision,
    *,
    details: dict[str, Any] | None = None,
    request: str | None = None,
    about: tuple[str, ...] = (),
) -> Decision:
    """Save the decision record in the transaction, with its ``decide`` event (whose
    ``request`` is the decision's request, or what the caller names: a batch). The
    event names the records the decision changed and those it is ``about`` without
    changing them (a label of a record), so each record's history shows it. A
    deferral also records a ``defer`` event naming the item: the mark of an item
    someone looked at and left open (:func:`deferrals`)."""
    tx.write_file(decision.path, decision.to_json())
    records = tuple(sorted(set(decision.before) | set(decision.after) | set(about)))
    if decision.option == "defer":
        tx.event(
            DEFER_ACTION,
            records,
            reason=decision.reason,
            decision=decision.id,
            request=request or decision.request or decision.item,
            details={"item": decision.item},
        )
    tx.event(
        "decide",
        records,
        reason=decision.reason,
        decision=decision.id,
        request=request or decision.request,
        details={
            "item": decision.item,
            "kind": decision.kind,
            "option": decision.option,
            **(details or {}),
        },
    )
    return decision


@dataclass(frozen=True)
class Deferral(AsData):
    """The last time someone looked at an open item and left it open (deferred it)."""

    item: str
    actor: str
    ts: str
    reason: str
    decision: str


def deferrals(store: Store) -> dict[str, Deferral]:
    """The last deferral of each item of ``store`` that was ever deferred, by item id
    (the ``defer`` events: one indexed query of the event log, no decision file read)."""
    out: dict[str, Deferral] = {}
    for event in store.catalog.events_with_action(DEFER_ACTION):
        item = event.details.get("item") or event.request
        if isinstance(item, str) and event.decision:
            out[item] = Deferral(item, event.actor, event.ts, event.reason, event.decision)
    return out


def with_reverted(decision: Decision, revert_id: str) -> Decision:
    """The decision record once a revert has undone it."""
    return decision_from(
        {**json.loads(decision.to_json()), "reverted_by": revert_id}, decision.path, decision.id
    )


# ------------------------------------------------------------------------ reading
def load_decision(store: Store, decision_id: str) -> Decision:
    """A decision record, validated: the id must be a decision id (never a path), the
    file a plain JSON object with the fields memgov writes, of the right types."""
    if not isinstance(decision_id, str) or not DECISION_ID.fullmatch(decision_id):
        raise ValidationError(
            "not a decision id",
            field="decision",
            hint="decision ids look like dec-20261114T093200-1a2b3c; 'memgov history ID' "
            "lists them",
        )
    rel = f"{DECISION_DIR}/{decision_id}.json"
    try:
        data = read_confined(store.root, rel, limit=MAX_DECISION_BYTES)
    except UnsafePath as exc:
        raise ValidationError(str(exc), path=rel, field="decision") from None
    if data is None:
        raise NotFoundError(f"no decision {shown_id(decision_id)} in {store.root}")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        raise ValidationError(
            "is not valid JSON", path=rel, hint="'memgov doctor' reports it; restore it from git"
        ) from None
    return decision_from(raw, rel, decision_id)


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "item": str,
    "kind": str,
    "option": str,
    "actor": str,
    "reason": str,
    "ts": str,
    "store": str,
    "before": dict,
    "after": dict,
    "created": list,
    "touched": list,
    "request": (str, type(None)),
    "erased": list,
    "reverted_by": (str, type(None)),
    "note": (str, type(None)),
}
_REQUIRED = ("id", "item", "kind", "option", "actor", "ts", "store")


def decision_from(raw: Any, rel: str, decision_id: str) -> Decision:
    """A :class:`Decision` from parsed JSON, every field checked."""
    if not isinstance(raw, dict):
        raise ValidationError("is not a JSON object", path=rel)
    data = {k: v for k, v in raw.items() if k in _FIELDS}
    for name, kind in _FIELDS.items():
        if name not in data:
            if name in _REQUIRED:
                raise ValidationError("is missing", path=rel, field=name)
            continue
        if not isinstance(data[name], kind):
            raise ValidationError(
                f"has the wrong type ({type(data[name]).__name__})", path=rel, field=name
            )
    if data["id"] != decision_id:
        raise ValidationError("does not match its file name", path=rel, field="id")
    for name in ("created", "touched"):
        if not all(
            isinstance(e, dict) and isinstance(e.get("store"), str) and isinstance(e.get("id"), str)
            for e in data.get(name, [])
        ):
            raise ValidationError("holds an entry without store and id", path=rel, field=name)
    for name in ("before", "after"):
        if not all(isinstance(v, dict) for v in data.get(name, {}).values()):
            raise ValidationError("holds a record that is not a mapping", path=rel, field=name)
    return Decision(**data)


def load_decisions(store: Store) -> list[Decision]:
    """Every readable decision record of a store, by id (doctor reports the others)."""
    return list(_readable(store))


def _readable(store: Store) -> Iterator[Decision]:
    folder = store.root / DECISION_DIR
    if not folder.is_dir() or folder.is_symlink():
        return
    for path in sorted(folder.glob("*.json")):
        with contextlib.suppress(NotFoundError, ValidationError):
            yield load_decision(store, path.stem)


def find_decision(stores: Iterable[Store], decision_id: str) -> tuple[Store, Decision]:
    """The store that holds a decision, and the decision."""
    stores = list(stores)
    for store in stores:
        try:
            return store, load_decision(store, decision_id)
        except NotFoundError:
            continue
    raise NotFoundError(
        f"no decision {shown_id(decision_id)} in " + ", ".join(str(s.root) for s in stores)
    )


def last_decision_for(stores: Iterable[Store], item_id: str) -> Decision | None:
    """The latest decision that closed an item (a request id or an item id), in any
    of the stores; deferrals and reverts do not close one."""
    found = [
        decision
        for store in stores
        for decision in _readable(store)
        if item_id in (decision.item, decision.request) and decision.option not in NOT_CLOSING
    ]
    return max(found, key=lambda d: (d.ts, d.id)) if found else None


# ------------------------------------------------------------------ team copies
def team_copies(stores: Iterable[Store], memory_id: str) -> list[tuple[Store, str]]:
    """(team store, record id) for each team record an approved, unreverted promotion
    of ``memory_id`` created or merged into, that still exists in a given store.

    Erasing a private record leaves those copies: the owner's erasure does not
    reach into the team store, whose maintainers decide; the deletion names them."""
    return copies_by_record(stores).get(memory_id, [])


def copies_by_record(stores: Iterable[Store]) -> dict[str, list[tuple[Store, str]]]:
    """:func:`team_copies` for every promoted private record at once: one read of
    the decision records, for callers that ask about many records (the queue)."""
    stores = list(stores)
    out: dict[str, list[tuple[Store, str]]] = {}
    for store in stores:
        if store.config.scope != "private":
            continue
        for decision in _readable(store):
            if decision.kind != "promotion" or decision.option != "approve":
                continue
            if decision.reverted_by:
                continue
            for entry in [*decision.created, *decision.touched]:
                team = next((s for s in stores if str(s.root) == entry["store"]), None)
                copy_id = entry["id"]
                if team is None or copy_id not in team.memories:
                    continue
                for memory_id in decision.before:
                    found = out.setdefault(memory_id, [])
                    if (team, copy_id) not in found:
                        found.append((team, copy_id))
    return out
