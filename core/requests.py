"""Review requests filed by agents and users: promote to team, delete.

A request is a small YAML file in the store that holds the memory
(``requests/<id>.yaml``): who asked, why, and once decided, the decision. It
never holds the memory's content, so erasing a memory leaves nothing behind.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, replace
from typing import Any

import yaml

from core.errors import NotFoundError, ValidationError
from core.store import Store

REQUEST_DIR = "requests"
KINDS = ("promote", "delete")


@dataclass(frozen=True)
class Request:
    id: str
    kind: str  # promote | delete
    memory_id: str
    reason: str
    requested_by: str
    requested_at: str
    status: str = "open"  # open | approved | rejected
    decision: str | None = None
    decided_by: str | None = None
    decision_reason: str | None = None

    @property
    def path(self) -> str:
        return f"{REQUEST_DIR}/{self.id}.yaml"

    def to_yaml(self) -> str:
        return yaml.safe_dump(asdict(self), sort_keys=False, allow_unicode=True)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def with_changes(self, **changes: Any) -> Request:
        return replace(self, **changes)


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:6]


def load_requests(store: Store) -> list[Request]:
    folder = store.root / REQUEST_DIR
    found = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            found.append(Request(**data))
        except (yaml.YAMLError, TypeError, UnicodeDecodeError):
            continue  # doctor reports unreadable request files
    return found


def get_request(store: Store, request_id: str) -> Request:
    for request in load_requests(store):
        if request.id == request_id:
            return request
    raise NotFoundError(f"no request {request_id!r} in {store.root}")


def file_request(store: Store, *, kind: str, memory_id: str, reason: str, actor: str) -> Request:
    """Open a request (agents and users may file them); one event and one commit."""
    if kind not in KINDS:
        raise ValidationError(
            f"unknown request kind {kind!r}", field="kind", hint="promote or delete"
        )
    if not reason.strip():
        raise ValidationError(
            "a request needs a reason",
            field="reason",
            hint="say why, e.g. --reason 'no longer true'",
        )
    memory = store.get(memory_id)
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
    for existing in load_requests(store):
        if existing.status == "open" and existing.kind == kind and existing.memory_id == memory_id:
            return existing
    now = store.now()
    request = Request(
        id=f"{kind}-{now:%Y%m%d}-{_digest(kind, memory_id, reason, now.isoformat())}",
        kind=kind,
        memory_id=memory_id,
        reason=reason.strip(),
        requested_by=actor,
        requested_at=now.isoformat(),
    )
    with store.transaction(actor=actor, message=f"request: {kind} {memory_id}") as tx:
        tx.write_file(request.path, request.to_yaml())
        tx.event(f"request-{kind}", (memory_id,), reason=request.reason, request=request.id)
    return request
