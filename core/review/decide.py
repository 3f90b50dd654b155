"""The one path of every decision on a review item, and its preview.

:func:`decide` takes every store's lock (in a fixed order), builds the item
again under them (:func:`core.review.queue.get_item`, that item only), checks
who may decide (core.review.authority), checks the arguments against the
item's kind, and hands it to its kind (core.review.kinds: each kind's module
there names the module that decides it).

Bound to what was shown (core.review.seen): given ``shown``, the hash of the item
as the person saw it, the decision lands only if the item built again under the
locks has the same hash; otherwise :class:`ItemChanged` says what changed and
nothing is written.

Each writes one transaction (or a joint one across two stores) with one
decision record (core.store.decisions), or nothing. Exactly once: of two
people deciding one item the second gets :class:`AlreadyDecided` (who, when,
which decision) and nothing changes.

:func:`preview` runs the same path as a dry run (core.review.session): every
check, the same transactions prepared and not applied. The desk's confirmation
and ``memgov decide --dry-run`` show it; neither computes a rule of its own.

To add a kind of item: a member of :class:`core.review.items.Kind`, its
analysis dataclass, and its :class:`core.review.kinds.base.ReviewKind` registered
in core.review.kinds.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.domain.errors import AlreadyDecided, ItemChanged, NotFoundError, ValidationError
from core.review.consequences import with_consequences
from core.review.items import REQUEST_PREFIXES, Item
from core.review.kinds import Choice, review_kind
from core.review.preview import Preview, preview_of, preview_of_list
from core.review.queue import find_items, get_item
from core.review.seen import changes_between, shown_hash
from core.review.session import Session
from core.store.decisions import Decision, chosen_id, last_decision_for, load_decision
from core.store.requests import get_request
from core.store.secret_files import ITEM_PREFIX
from core.store.transaction import Transaction, transaction
from core.store.workspace import Workspace

__all__ = [
    "Choice",
    "check_shown",
    "choices_from_data",
    "correct_secret",
    "decide",
    "decide_many",
    "preview",
    "preview_many",
]


def decide(
    workspace: Workspace,
    item_id: str,
    *,
    approve: bool,
    actor: str,
    reason: str = "",
    option: str | None = None,
    conditions: dict[str, str] | None = None,
    files: Sequence[str] | None = None,
    content: str | None = None,
    shown: str | None = None,
    was: Item | None = None,
    decision_id: str | None = None,
) -> Decision:
    """Decide one open item. ``approve`` with ``option`` for conflicts and secrets;
    reject defers a conflict or a secret and rejects a request or a batch.

    ``files`` (consolidation batches only): approve, or reject, just the changes
    that touch these files; the rest of the batch is decided the other way.
    ``content`` (a secret's or a quarantined record's ``correct``): what the
    corrected record says. ``shown``: the hash of the item as the person saw it
    (:func:`core.review.seen.shown_hash`); ``was``: that item, to say what changed.
    ``decision_id``: the id its preview chose (``Preview.decision``): the decision
    takes it, and so writes the records its preview named (their ids come from it).
    """
    choice = Choice(approve, reason, option, conditions, files, content, shown)
    with workspace.locked(), chosen_id(decision_id):
        item = _open_item(workspace, item_id)
        check_shown(item, shown, was)
        session = Session()
        decision = _decide_item(session, workspace, item, choice, actor=actor)
        return with_consequences(decision, session.ran, _own_records(item))


def decide_many(
    workspace: Workspace, choices: Sequence[tuple[str, Choice]], *, actor: str
) -> list[Decision]:
    """Decide several open items of one store in one transaction and one commit:
    every decision lands, or none does (the first refusal names its item and
    nothing is written). Each item is checked as :func:`decide` checks it.

    A list holds conflicts, secrets, deletions and stale reports of one store, each
    item once and no record in two of its items. A decision that writes two stores (a promotion,
    an erasure with a team copy) or a consolidation batch (its own commits and
    refs) is decided on its own."""
    if not choices:
        return []
    decisions, _tx = _many(workspace, choices, actor=actor, dry_run=False)
    return decisions


def _own_records(item: Item) -> set[str]:
    """The records an item decides: their transitions are the decision itself."""
    return {r.memory.id for r in item.records}


def preview_many(
    workspace: Workspace, choices: Sequence[tuple[str, Choice]], *, actor: str
) -> Preview:
    """What :func:`decide_many` would change, written nowhere: one preview for the
    whole list (its one transaction), under the same checks."""
    decisions, tx = _many(workspace, choices, actor=actor, dry_run=True)
    ids = [d.item for d in decisions]
    options = sorted({d.option for d in decisions})
    first = decisions[0]
    listing = Preview(
        item=f"{len(ids)} items",
        kind=first.kind,
        option=", ".join(options),
        decision=None,
        notes=tuple(d.note for d in decisions if d.note),
        consequences=tuple(dict.fromkeys(c for d in decisions for c in d.consequences)),
    )
    return preview_of_list(listing, [(tx, tx.prepared)])


def _many(
    workspace: Workspace, choices: Sequence[tuple[str, Choice]], *, actor: str, dry_run: bool
) -> tuple[list[Decision], Transaction]:
    if not choices:
        raise ValidationError("the list holds no decision", field="item")
    ids = [item_id for item_id, _choice in choices]
    seen: set[str] = set()
    for item_id in ids:
        if item_id in seen:
            raise ValidationError(
                f"{item_id} is in the list twice", field="item", hint="decide each item once"
            )
        seen.add(item_id)
    with workspace.locked():
        found = find_items(workspace, ids, marks=False)
        items = [found[i] if i in found else _open_item(workspace, i) for i in ids]
        for item, (_id, choice) in zip(items, choices, strict=True):
            check_shown(item, choice.shown, None)
        _check_list(items)
        store = items[0].store
        shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        decisions: list[Decision] = []
        message = f"decide {len(ids)} items: {shown}"
        with transaction(store, actor=actor, message=message, dry_run=dry_run) as tx:
            session = Session(dry_run=dry_run, shared=tx)
            for n, (item, (_id, choice)) in enumerate(zip(items, choices, strict=True), 1):
                try:
                    decisions.append(_decide_item(session, workspace, item, choice, actor=actor))
                except ValidationError as e:
                    raise ValidationError(
                        f"item {n} of {len(ids)} ({item.id}): {e.message}; nothing was decided",
                        path=e.path,
                        field=e.field,
                        hint=e.hint,
                    ) from e
        decisions = [
            with_consequences(d, [tx], _own_records(item))
            for d, item in zip(decisions, items, strict=True)
        ]
        return decisions, tx


#: the keys of one entry of a decision list, and what each must be
_ENTRY_KEYS = {
    "item": str,
    "approve": bool,
    "reject": bool,
    "option": str,
    "reason": str,
    "conditions": dict,
    "content": str,
    "shown": str,
}


def choices_from_data(data: object, *, where: str = "the list") -> list[tuple[str, Choice]]:
    """A decision list as JSON gives it (``memgov decide -``, an MCP call): a list of
    ``{"item": ID, "approve": true | "reject": true, "option": ..., "reason": ...,
    "conditions": {ID: CONDITION}, "content": ...}``. A wrong entry is an error that
    names its place and field; nothing is guessed."""
    if not isinstance(data, list) or not data:
        raise ValidationError(
            "a decision list is a JSON list of objects, one per item",
            path=where,
            hint='[{"item": "conflict-...", "approve": true, "option": "newer"}]',
        )
    out: list[tuple[str, Choice]] = []
    for n, entry in enumerate(data):
        at = f"{where}[{n}]"
        if not isinstance(entry, dict):
            raise ValidationError("each entry is a JSON object", path=at)
        for key, value in entry.items():
            kind = _ENTRY_KEYS.get(key)
            if kind is None:
                raise ValidationError(
                    "unknown key", path=at, field=key, hint=", ".join(sorted(_ENTRY_KEYS))
                )
            if not isinstance(value, kind) or (kind is dict and not _all_text(value)):
                raise ValidationError(f"must be a {kind.__name__}", path=at, field=key)
        if "item" not in entry or not entry["item"].strip():
            raise ValidationError("names no item", path=at, field="item")
        approve, reject = entry.get("approve", False), entry.get("reject", False)
        if approve == reject:
            raise ValidationError(
                "say approve or reject, not both or neither",
                path=at,
                field="approve",
                hint='"approve": true, or "reject": true',
            )
        out.append(
            (
                entry["item"].strip(),
                Choice(
                    approve=approve,
                    reason=entry.get("reason", ""),
                    option=entry.get("option"),
                    conditions=entry.get("conditions"),
                    content=entry.get("content"),
                    shown=entry.get("shown"),
                ),
            )
        )
    return out


def _all_text(value: object) -> bool:
    """A JSON object of strings to strings (the conditions of a ``parallel``)."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def _check_list(items: Sequence[Item]) -> None:
    first = items[0]
    holder: dict[str, str] = {}
    for item in items:
        alone = review_kind(item.kind).decided_alone
        if alone is not None:
            raise ValidationError(
                f"{item.id} is {alone}: it is decided on its own",
                field="item",
                hint=f"memgov decide {item.id} --approve|--reject",
            )
        if item.store is not first.store:
            raise ValidationError(
                f"{item.id} is in {item.store.root}, {first.id} in {first.store.root}: "
                f"a list of decisions writes one store",
                field="item",
                hint="decide each store's items in a list of their own",
            )
        for record in item.records:
            other = holder.setdefault(record.memory.id, item.id)
            if other != item.id:
                raise ValidationError(
                    f"{item.id} and {other} both decide record {record.memory.id}",
                    field="item",
                    hint="decide one of them, then look at the other again",
                )


def preview(
    workspace: Workspace,
    item_id: str,
    *,
    approve: bool,
    actor: str,
    reason: str = "",
    option: str | None = None,
    conditions: dict[str, str] | None = None,
    files: Sequence[str] | None = None,
    content: str | None = None,
    shown: str | None = None,
    was: Item | None = None,
) -> Preview:
    """What :func:`decide` with these arguments would change, written nowhere.

    The same checks refuse the same way (a ValidationError, an AuthorizationError,
    a secret blocked, the item changed since it was shown): a preview that returns
    is a decision that would land."""
    choice = Choice(approve, reason, option, conditions, files, content, shown)
    with workspace.locked():
        item = _open_item(workspace, item_id)
        check_shown(item, shown, was)
        own = review_kind(item.kind).preview(workspace, item, choice, actor=actor)
        if own is not None:
            return own
        session = Session(dry_run=True)
        decision = _decide_item(session, workspace, item, choice, actor=actor)
        decision = with_consequences(decision, session.ran, _own_records(item))
        return preview_of(item, decision, session.prepared)


def correct_secret(
    workspace: Workspace, item_id: str, *, content: str | None, actor: str, reason: str = ""
) -> Decision:
    """``decide ITEM --approve --option correct`` with the content a person wrote
    (the desk's correction dialog)."""
    if not item_id.startswith(ITEM_PREFIX):
        raise ValidationError(f"{item_id} is not a secret in a record", field="item")
    return decide(
        workspace,
        item_id,
        approve=True,
        actor=actor,
        reason=reason,
        option="correct",
        content=content,
    )


def check_shown(item: Item, shown: str | None, was: Item | None) -> None:
    """Refuse when the item as it is now is not what the person was shown."""
    if shown is None:
        return
    now = shown_hash(item)
    if now != shown.strip().lower():
        changes = changes_between(was, item) if was is not None else ()
        raise ItemChanged(item.id, shown=shown, now=now, changes=changes)


def _open_item(workspace: Workspace, item_id: str) -> Item:
    """The item as it is now (under the locks), or who closed it."""
    try:
        return get_item(workspace, item_id, marks=False)
    except NotFoundError:
        earlier = last_decision_for(workspace.stores, item_id) or _closing_decision(
            workspace, item_id
        )
        if earlier is None:
            raise
        raise AlreadyDecided(
            f"{item_id}", actor=earlier.actor, ts=earlier.ts, decision=earlier.id
        ) from None


def _closing_decision(workspace: Workspace, item_id: str) -> Decision | None:
    """The decision a closed request names, when it closed with another item's decision
    (an erasure, a correction that moved it to the corrected record)."""
    if not item_id.startswith(REQUEST_PREFIXES):
        return None
    for store in workspace.stores:
        try:
            request = get_request(store, item_id)
        except NotFoundError:
            continue
        if request.status != "open" and request.decision:
            try:
                return load_decision(store, request.decision)
            except (NotFoundError, ValidationError):
                return None
    return None


def _decide_item(
    session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
) -> Decision:
    return review_kind(item.kind).decide(session, workspace, item, choice, actor=actor)
