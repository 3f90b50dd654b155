"""What a decision changes or discards besides the records it decides.

One function, :func:`consequences_of`, reads what a decision's transactions wrote
(their events, the records they changed) and says, one
:class:`~core.store.decisions.Consequence` each: a pending consolidation batch an
erasure discards, a change of a pending batch the decision leaves stale (approving
it would be refused), a request closed or opened with it (an erasure closes the
record's other requests, a correction moves a promotion request to the corrected
record, an erasure of a promoted record asks the team to delete its copy), a record
of another item that changes state (a promotion that opens a team conflict), a
team record whose source is a file the team store does not hold (it will not
resolve there), a store's history rewritten.

The same function reads a dry run's transactions (the preview the desk's
confirmation and ``memgov decide --dry-run`` show) and a decision's applied ones
(what ``decide`` returns, which the desk's notification and ``memgov decide``
print): what a face says a decision did is what its transactions wrote, never a
second description of the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from core.consolidation.batch import load_batch, pending_ids
from core.domain.errors import MemgovError
from core.review.items import KIND_OF_REQUEST, Kind
from core.store import logs
from core.store.decisions import Consequence, Decision
from core.store.store import Store
from core.store.transaction import Transaction

#: request events that open a request, and what they open
_OPENS = {f"request-{kind}": str(item) for kind, item in KIND_OF_REQUEST.items()}


def consequences_of(  # noqa: C901
    transactions: Sequence[Transaction],
    decided: Iterable[str],
    *,
    decision: str | None = None,
) -> tuple[Consequence, ...]:
    """What ``transactions`` change or discard besides the records ``decided`` (the
    item's own records: their transitions are the decision itself). ``decision``: of
    a list decided in one transaction, only what that decision's events say (and what
    the transaction as a whole discards)."""
    own = set(decided)
    out: list[Consequence] = []
    for tx in transactions:
        store = tx.store
        name = store.root.name
        events = [e for e in tx.events if decision is None or e.decision in (None, decision)]
        discarded: set[str] = set()
        # a request closed and opened again for another record: one fact, it moved
        moved = {
            str(e.details["moved_from"]): e
            for e in events
            if e.action == "request-promote" and e.request and e.details.get("moved_from")
        }
        closed = {e.request for e in events if e.action == "request-closed"}
        for event in events:
            if event.action == "batch-discarded":
                for batch in event.details.get("batches", ()):
                    discarded.add(str(batch))
                    out.append(
                        Consequence(
                            "batch-discarded",
                            name,
                            str(batch),
                            f"the pending consolidation batch {batch} is discarded (it may "
                            "quote what is erased): run 'memgov consolidate' again",
                        )
                    )
            elif event.action == "request-closed" and event.request in moved:
                again = moved[event.request]
                was, now = ", ".join(event.memory_ids), ", ".join(again.memory_ids)
                out.append(
                    Consequence(
                        "request-moved",
                        name,
                        event.request,
                        f"the promotion request {event.request} moves to {again.request}, "
                        f"for {now}, which replaces {was}",
                    )
                )
            elif event.action in ("request-closed", "request-reopened") and event.request:
                what = _request_kind(event.request)
                closes = event.action == "request-closed"
                out.append(
                    Consequence(
                        "request-closed" if closes else "request-opened",
                        name,
                        event.request,
                        f"the {what} request {event.request} "
                        + (f"closes: {event.reason}" if closes else "is open again"),
                    )
                )
            elif event.action in _OPENS and event.request:
                if str(event.details.get("moved_from")) in closed:
                    continue  # said with the request it moved from
                about = ", ".join(event.memory_ids)
                out.append(
                    Consequence(
                        "request-opened",
                        name,
                        event.request,
                        f"a {_OPENS[event.action]} request {event.request} opens in the "
                        f"{name} store for {about}",
                    )
                )
            elif event.to_status is not None and not own & set(event.memory_ids):
                if event.from_status is None and event.to_status != "conflict":
                    continue  # the record the decision makes (a team copy, a correction)
                for memory_id in event.memory_ids:
                    if event.from_status is None:
                        state = f"a new {event.to_status} record"
                    elif event.from_status == event.to_status:
                        state = f"stays {event.to_status}"
                    else:
                        state = f"{event.from_status} -> {event.to_status}"
                    joins = (
                        f" (conflict item {event.request})"
                        if event.to_status == "conflict" and event.request
                        else ""
                    )
                    out.append(
                        Consequence(
                            "record",
                            name,
                            memory_id,
                            f"{memory_id} in the {name} store: {state}{joins}",
                        )
                    )
        erases = any(e.to_status == "deleted" for e in events)
        if erases and store.config.scope == "private":
            out.append(
                Consequence(
                    "history",
                    name,
                    name,
                    f"the {name} store's git history is rewritten: no commit keeps what is erased",
                )
            )
        named = {m for e in events for m in e.memory_ids}
        if store.config.scope == "team":
            out += _sources_left_behind(tx, named)
        touched = (set(tx.changed) | set(tx.removed)) & named
        out += _stale_changes(store, touched, discarded)
    return tuple(dict.fromkeys(out))  # a fact once, in the order found


def with_consequences(
    decision: Decision, transactions: Sequence[Transaction], decided: Iterable[str]
) -> Decision:
    """``decision`` carrying what else its transactions changed."""
    found = consequences_of(transactions, decided, decision=decision.id)
    return replace(decision, consequences=found) if found else decision


def _stale_changes(store: Store, touched: set[str], discarded: set[str]) -> list[Consequence]:
    """The changes of the store's pending batch that expect a record ``touched`` as it
    was when the batch was made: approving them would be refused."""
    if not touched:
        return []
    out = []
    for batch_id in pending_ids(store):
        if batch_id in discarded:
            continue
        try:
            batch = load_batch(store, batch_id)
        except (MemgovError, ValueError, KeyError):
            continue  # an unreadable batch is shown as such in the queue
        for change in batch.changes:
            moved = sorted(touched & set(change.expect))
            if moved:
                out.append(
                    Consequence(
                        "batch-stale",
                        store.root.name,
                        batch_id,
                        f"the pending consolidation batch {batch_id}: its change {change.id} "
                        f"({', '.join(change.files)}) expects {', '.join(moved)} as it was; "
                        "approving that change will be refused (reject its file, or run "
                        "'memgov consolidate' again)",
                    )
                )
    return out


def _sources_left_behind(tx: Transaction, named: set[str]) -> list[Consequence]:
    """Records written to a team store whose source is a file the team store does not
    hold (an imported record's original, a private note): it will not resolve there."""
    out = []
    for memory_id, memory in tx.changed.items():
        if memory_id not in named:
            continue
        for number, source in enumerate(memory.all_sources, start=1):
            if source.file is not None and logs.resolve(tx.store.root, source, context=0) is None:
                out.append(
                    Consequence(
                        "source",
                        tx.store.root.name,
                        memory_id,
                        f"{memory_id} in the {tx.store.root.name} store: its source {number} "
                        f"is the file {source.file}, which that store does not hold: it will "
                        "not resolve there ('memgov doctor' reports it)",
                    )
                )
    return out


def _request_kind(request_id: str) -> str:
    return str(KIND_OF_REQUEST.get(request_id.split("-", 1)[0], Kind.DELETION))
