"""Review requests filed by agents and users: promote to team, delete, a stale report.

A request is a small YAML file in the store that holds the memory
(``requests/<id>.yaml``): who asked, why, and once decided, the decision. It
never holds the memory's content, so erasing a memory leaves nothing behind.

A request file is untrusted input (a team store is a repository others push to).
Every field is checked (type, shape, text hygiene, length; the id matches the file
name); a file that fails is skipped by :func:`load_requests` and reported, with
the reason and never a value, by :func:`request_problems`. The fields and the
reading of one file are :mod:`core.store.request_files`'; the store's catalog
indexes the files (:mod:`core.store.catalog`), so a question about the requests
costs what it touches, and a file added, changed or removed by hand or by
``git pull`` is read again.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import check_text, describe, id_problem, shown_word
from core.store.request_files import (
    KINDS,
    MAX_ACTOR_CHARS,
    MAX_REASON_CHARS,
    MAX_REQUEST_BYTES,
    REQUEST_DIR,
    REQUEST_STATUSES,
    Request,
    check_request,
    id_field,
    request_from_mapping,
    text_field,
)
from core.store.transaction import transaction

if TYPE_CHECKING:
    from core.store.store import Store

__all__ = [
    "KINDS",
    "MAX_ACTOR_CHARS",
    "MAX_REASON_CHARS",
    "MAX_REQUEST_BYTES",
    "REQUEST_DIR",
    "REQUEST_STATUSES",
    "Request",
    "check_request",
    "file_request",
    "filed_request",
    "get_request",
    "load_requests",
    "open_requests",
    "request_from_mapping",
    "request_problems",
]


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:6]


def load_requests(store: Store, *, status: str | None = None) -> list[Request]:
    """Every readable request (of ``status``: one indexed query), by file name;
    unreadable ones are skipped (see :func:`request_problems`). Read through the
    catalog (:meth:`core.store.catalog.Catalog.requests`): the files stay the truth,
    and only a file that changed is read again."""
    return store.catalog.requests(status=status)


def open_requests(
    store: Store, memory_id: str | None = None, *, kind: str | None = None
) -> list[Request]:
    """The open requests (about ``memory_id``, of ``kind``), by file name: one indexed
    query, each request's file checked against its row."""
    return store.catalog.requests(status="open", memory_id=memory_id, kind=kind)


def request_problems(store: Store) -> list[tuple[str, str]]:
    """(path relative to the store, reason) for each request file that cannot be read
    or fails validation, for doctor; the reason names the field, never its value."""
    return store.catalog.request_problems()


def get_request(store: Store, request_id: str) -> Request:
    problem = id_problem(request_id)
    if problem is not None:
        raise NotFoundError(f"no request with that id in {store.root}: {problem}")
    # a request's file is named by its id
    found = store.catalog.request_at(f"{REQUEST_DIR}/{request_id}.yaml")
    if found is not None and found.id == request_id:
        return found
    raise NotFoundError(f"no request {shown_id(request_id)} in {store.root}")


def file_request(store: Store, *, kind: str, memory_id: str, reason: str, actor: str) -> Request:
    """Open a request (agents and users may file them); one event and one commit.

    The memory's state and an open request for the same (kind, memory) are checked
    under the store lock, so two processes filing the same request at once make one
    request: the second gets the first's (see :func:`filed_request` to tell them
    apart)."""
    return filed_request(store, kind=kind, memory_id=memory_id, reason=reason, actor=actor)[0]


def filed_request(
    store: Store, *, kind: str, memory_id: str, reason: str, actor: str
) -> tuple[Request, bool]:
    """:func:`file_request`, and whether it filed one: False when a request of that
    kind was already open for the memory (it is returned, and nothing is written)."""
    if kind not in KINDS:
        raise ValidationError(
            f"unknown request kind {shown_word(kind) if isinstance(kind, str) else describe(kind)}",
            field="kind",
            hint="promote, delete or stale",
        )
    if not isinstance(reason, str):
        raise ValidationError(f"must be text, got {describe(reason)}", field="reason")
    check_text(reason, field="reason", limit=MAX_REASON_CHARS, multiline=True)
    if not reason.strip():
        raise ValidationError(
            "a request needs a reason",
            field="reason",
            hint="say why, e.g. --reason 'no longer true'",
        )
    id_field(memory_id, "memory_id", path=None)
    text_field(actor, "actor", path=None, limit=MAX_ACTOR_CHARS, multiline=False, optional=False)
    with transaction(store, actor=actor, message=f"request: {kind} {memory_id}") as tx:
        memory = tx.get(memory_id)  # as it is now, under the lock
        if kind == "promote" and (memory.scope != "private" or memory.status != "active"):
            raise ValidationError(
                f"only active private memories can be promoted; {memory_id} "
                f"is {memory.status} {memory.scope}",
                field="memory",
            )
        if kind == "delete" and memory.status in ("deleted", "conflict"):
            raise ValidationError(
                f"{memory_id} is {memory.status}: "
                + (
                    "resolve the conflict (choose 'neither' to delete both)"
                    if memory.status == "conflict"
                    else "already erased"
                ),
                field="memory",
            )
        if kind == "stale" and memory.status != "active":
            raise ValidationError(
                f"{memory_id} is {memory.status}: only an active memory is used as current, "
                "so only an active one can be reported out of date",
                field="memory",
            )
        for existing in open_requests(store, memory_id, kind=kind):  # read under the lock
            return existing, False  # nothing written: the transaction has no change
        now = tx.now
        request = Request(
            id=f"{kind}-{now:%Y%m%d}-{_digest(kind, memory_id, reason, now.isoformat())}",
            kind=kind,
            memory_id=memory_id,
            reason=reason.strip(),
            requested_by=actor,
            requested_at=now.isoformat(),
        )
        tx.write_file(request.path, request.to_yaml())
        tx.event(f"request-{kind}", (memory_id,), reason=request.reason, request=request.id)
    return request, True
