"""Review requests filed by agents and users: promote to team, delete.

A request is a small YAML file in the store that holds the memory
(``requests/<id>.yaml``): who asked, why, and once decided, the decision. It
never holds the memory's content, so erasing a memory leaves nothing behind.

A request file is untrusted input (a team store is a repository others push to).
Every field is checked (type, shape, text hygiene, length; the id matches the file
name); a file that fails is skipped by :func:`load_requests` and reported, with
the reason and never a value, by :func:`request_problems`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

from core.domain.data import AsData
from core.domain.errors import NotFoundError, ValidationError
from core.domain.record import check_text, describe, id_problem, parse_time, shown_word, yaml_error
from core.store.store import Store

REQUEST_DIR = "requests"
KINDS = ("promote", "delete")
REQUEST_STATUSES = ("open", "approved", "rejected")
#: a request file is a few hundred bytes; one over this is not read
MAX_REQUEST_BYTES = 64 * 1024
MAX_REASON_CHARS = 4_000
MAX_ACTOR_CHARS = 320


@dataclass(frozen=True)
class Request(AsData):
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

    def __post_init__(self) -> None:
        # however a request is built (filed, decided, read back), its fields keep the
        # rules: a bad one is refused before anything is written
        check_request(self, path=None)

    @property
    def path(self) -> str:
        return f"{REQUEST_DIR}/{self.id}.yaml"

    def to_yaml(self) -> str:
        return yaml.safe_dump(asdict(self), sort_keys=False, allow_unicode=True)

    def with_changes(self, **changes: Any) -> Request:
        return replace(self, **changes)


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:6]


def _text_field(
    value: Any, name: str, *, path: str | None, limit: int, multiline: bool, optional: bool
) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise ValidationError(f"must be text, got {describe(value)}", path=path, field=name)
    check_text(value, field=name, path=path, limit=limit, multiline=multiline)


def _id_field(value: Any, name: str, *, path: str | None, optional: bool = False) -> None:
    if value is None and optional:
        return
    problem = id_problem(value)
    if problem is not None:
        raise ValidationError(
            problem, path=path, field=name, hint="letters, digits, '.', '_' and '-'"
        )


def check_request(request: Request, *, path: str | None) -> None:
    """Every field of ``request``: a ValidationError naming ``path`` and the field,
    describing the bad value without quoting it."""
    _id_field(request.id, "id", path=path)
    for name, value, choices in (
        ("kind", request.kind, KINDS),
        ("status", request.status, REQUEST_STATUSES),
    ):
        if value not in choices:
            shown = shown_word(value) if isinstance(value, str) else f"({describe(value)})"
            raise ValidationError(
                f"unknown {name} {shown}",
                path=path,
                field=name,
                hint=f"one of: {', '.join(choices)}",
            )
    _id_field(request.memory_id, "memory_id", path=path)
    _text_field(
        request.reason,
        "reason",
        path=path,
        limit=MAX_REASON_CHARS,
        multiline=True,
        optional=False,
    )
    _text_field(
        request.requested_by,
        "requested_by",
        path=path,
        limit=MAX_ACTOR_CHARS,
        multiline=False,
        optional=False,
    )
    if not request.requested_by.strip():
        raise ValidationError("is required", path=path, field="requested_by")
    if not isinstance(request.requested_at, str):
        raise ValidationError(
            f"must be a timestamp as text, got {describe(request.requested_at)}",
            path=path,
            field="requested_at",
        )
    parse_time(request.requested_at, path=path, field_name="requested_at", required=True)
    _id_field(request.decision, "decision", path=path, optional=True)
    _text_field(
        request.decided_by,
        "decided_by",
        path=path,
        limit=MAX_ACTOR_CHARS,
        multiline=False,
        optional=True,
    )
    _text_field(
        request.decision_reason,
        "decision_reason",
        path=path,
        limit=MAX_REASON_CHARS,
        multiline=True,
        optional=True,
    )


_FIELDS = tuple(f.name for f in fields(Request))
_REQUIRED = ("id", "kind", "memory_id", "reason", "requested_by", "requested_at")


def request_from_mapping(data: Any, *, path: str, stem: str | None = None) -> Request:
    """A request from its YAML mapping, every field checked; ``stem`` is the file's
    name without ``.yaml``, which the id must equal."""
    if not isinstance(data, Mapping):
        raise ValidationError(
            f"must be a mapping of request fields, got {describe(data)}",
            path=path,
            hint="restore it from git, or file the request again",
        )
    unknown = [k for k in data if k not in _FIELDS]
    if unknown:
        names = [repr(k) for k in unknown if isinstance(k, str) and shown_word(k).startswith("'")]
        raise ValidationError(
            f"has {len(unknown)} unknown field(s)"
            + (f": {', '.join(sorted(names))}" if len(names) == len(unknown) else ""),
            path=path,
            hint=f"a request has only: {', '.join(_FIELDS)}",
        )
    for name in _REQUIRED:
        if data.get(name) is None:
            raise ValidationError("is required", path=path, field=name)
    values = dict(data)
    when = values.get("requested_at")
    if not isinstance(when, str):  # an unquoted YAML timestamp, written by hand
        parsed = parse_time(when, path=path, field_name="requested_at", required=True)
        assert parsed is not None
        values["requested_at"] = parsed.isoformat()
    try:
        request = Request(**values)
    except ValidationError as exc:
        raise ValidationError(exc.message, path=path, field=exc.field, hint=exc.hint) from None
    if stem is not None and request.id != stem:
        raise ValidationError(
            "does not match the file's name",
            path=path,
            field="id",
            hint=f"a request's id is its file name: {REQUEST_DIR}/<id>.yaml",
        )
    return request


def _read_request(path: Path, rel: str) -> Request | str:
    """The request in one file, or why it cannot be read (never a value of it)."""
    if path.is_symlink():
        return "is a symbolic link; memgov reads no store file through a link"
    if id_problem(path.stem) is not None:
        return "its file name is not a request id (letters, digits, '.', '_', '-')"
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_REQUEST_BYTES + 1)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    if len(data) > MAX_REQUEST_BYTES:
        return (
            f"is over {MAX_REQUEST_BYTES // 1024} KiB; a request is a few lines, so it was not read"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"is not UTF-8 (byte {exc.start + 1:,}); restore it from git"
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        error = yaml_error(exc, path=rel, what="the file")
        return error.message
    except RecursionError:
        return "is nested too deeply to read"
    except (ValueError, TypeError, OverflowError) as exc:
        return f"has a value YAML cannot read ({type(exc).__name__})"
    try:
        return request_from_mapping(raw, path=rel, stem=path.stem)
    except ValidationError as exc:
        where = f"field '{exc.field}': " if exc.field else ""
        return where + exc.message + (f" ({exc.hint})" if exc.hint else "")


_READ: dict[str, tuple[tuple[int, int, int], Request | str]] = {}
_READ_LIMIT = 50_000


def _read_cached(path: Path, rel: str) -> Request | str:
    """:func:`_read_request`, kept in this process by the file's stat data (a request
    file is parsed once, not at every queue build)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    key = str(path)
    hit = _READ.get(key)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    outcome = _read_request(path, rel)
    if len(_READ) >= _READ_LIMIT:
        _READ.clear()
    _READ[key] = (stamp, outcome)
    return outcome


def _scan(store: Store) -> tuple[list[Request], list[tuple[str, str]]]:
    folder = store.root / REQUEST_DIR
    if folder.is_symlink():
        return [], [(REQUEST_DIR, "is a symbolic link; memgov reads no store file through a link")]
    if not folder.is_dir():
        return [], []
    found: list[Request] = []
    problems: list[tuple[str, str]] = []
    for path in sorted(folder.glob("*.yaml")):
        rel = f"{REQUEST_DIR}/{path.name}"
        outcome = _read_cached(path, rel)
        if isinstance(outcome, Request):
            found.append(outcome)
        else:
            problems.append((rel, outcome))
    return found, problems


def load_requests(store: Store) -> list[Request]:
    """Every readable request, by file name; unreadable ones are skipped (see
    :func:`request_problems`)."""
    return _scan(store)[0]


def request_problems(store: Store) -> list[tuple[str, str]]:
    """(path relative to the store, reason) for each request file that cannot be read
    or fails validation, for doctor; the reason names the field, never its value."""
    return _scan(store)[1]


def get_request(store: Store, request_id: str) -> Request:
    problem = id_problem(request_id)
    if problem is not None:
        raise NotFoundError(f"no request with that id in {store.root}: {problem}")
    folder = store.root / REQUEST_DIR
    path = folder / f"{request_id}.yaml"  # a request's file is named by its id
    if not folder.is_symlink() and (path.is_file() or path.is_symlink()):
        outcome = _read_cached(path, f"{REQUEST_DIR}/{path.name}")
        if isinstance(outcome, Request) and outcome.id == request_id:
            return outcome
    raise NotFoundError(f"no request {request_id!r} in {store.root}")


def file_request(store: Store, *, kind: str, memory_id: str, reason: str, actor: str) -> Request:
    """Open a request (agents and users may file them); one event and one commit.

    The memory's state and an open request for the same (kind, memory) are checked
    under the store lock, so two processes filing the same request at once make one
    request: the second gets the first's."""
    if kind not in KINDS:
        raise ValidationError(
            f"unknown request kind {shown_word(kind) if isinstance(kind, str) else describe(kind)}",
            field="kind",
            hint="promote or delete",
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
    _id_field(memory_id, "memory_id", path=None)
    _text_field(actor, "actor", path=None, limit=MAX_ACTOR_CHARS, multiline=False, optional=False)
    with store.transaction(actor=actor, message=f"request: {kind} {memory_id}") as tx:
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
        for existing in load_requests(store):  # read under the lock
            if (
                existing.status == "open"
                and existing.kind == kind
                and existing.memory_id == memory_id
            ):
                return existing  # nothing written: the transaction has no change
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
    return request
