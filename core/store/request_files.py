"""A review request's file: its fields, their rules, and reading one file.

What :mod:`core.store.requests` files and decides, and what the catalog
(:mod:`core.store.catalog`) indexes, without the store: a request is a small YAML
file (``requests/<id>.yaml``), untrusted input, every field checked.
:func:`read_request_file` returns the request or why it cannot be read, never a
value of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from core.domain import fastyaml
from core.domain.data import AsData
from core.domain.errors import ValidationError
from core.domain.record import check_text, describe, id_problem, parse_time, shown_word, yaml_error
from core.domain.words import counted
from core.store.fsutil import HostileEntry, read_entry

REQUEST_DIR = "requests"
KINDS = ("promote", "delete", "stale")
REQUEST_STATUSES = ("open", "approved", "rejected")
#: a request file is a few hundred bytes; one over this is not read
MAX_REQUEST_BYTES = 64 * 1024
MAX_REASON_CHARS = 4_000
MAX_ACTOR_CHARS = 320


@dataclass(frozen=True)
class Request(AsData):
    id: str
    kind: str  # promote | delete | stale
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

    @property
    def named(self) -> str:
        """What it is called in a sentence: ``delete request``, ``stale report``."""
        return "stale report" if self.kind == "stale" else f"{self.kind} request"

    def to_yaml(self) -> str:
        import yaml  # a request written: PyYAML loads here, not for every reading command

        return yaml.safe_dump(asdict(self), sort_keys=False, allow_unicode=True)

    def with_changes(self, **changes: Any) -> Request:
        return replace(self, **changes)

    def decided(self, approve: bool, *, decision: str, actor: str, reason: str) -> Request:
        """This request closed by a decision: approved, or rejected, with its reason."""
        return replace(
            self,
            status="approved" if approve else "rejected",
            decision=decision,
            decided_by=actor,
            decision_reason=reason,
        )


def text_field(
    value: Any, name: str, *, path: str | None, limit: int, multiline: bool, optional: bool
) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise ValidationError(f"must be text, got {describe(value)}", path=path, field=name)
    check_text(value, field=name, path=path, limit=limit, multiline=multiline)


def id_field(value: Any, name: str, *, path: str | None, optional: bool = False) -> None:
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
    id_field(request.id, "id", path=path)
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
    id_field(request.memory_id, "memory_id", path=path)
    text_field(
        request.reason,
        "reason",
        path=path,
        limit=MAX_REASON_CHARS,
        multiline=True,
        optional=False,
    )
    text_field(
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
    id_field(request.decision, "decision", path=path, optional=True)
    text_field(
        request.decided_by,
        "decided_by",
        path=path,
        limit=MAX_ACTOR_CHARS,
        multiline=False,
        optional=True,
    )
    text_field(
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
            f"has {counted(len(unknown), 'unknown field')}"
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


def read_request_file(path: Path, rel: str) -> Request | str:
    """The request in one file, or why it cannot be read (never a value of it)."""
    if path.is_symlink():
        return "is a symbolic link; memgov reads no store file through a link"
    if id_problem(path.stem) is not None:
        return "its file name is not a request id (letters, digits, '.', '_', '-')"
    try:
        data = read_entry(path, limit=MAX_REQUEST_BYTES)
    except HostileEntry as exc:
        if exc.oversize:
            return (
                f"is over {MAX_REQUEST_BYTES // 1024} KiB; a request is a few lines, so it was "
                "not read"
            )
        return exc.problem
    if data is None:
        return "cannot be read (it was removed while read)"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"is not UTF-8 (byte {exc.start + 1:,}); restore it from git"
    # the layout memgov writes takes the fast path (the same mapping YAML reads)
    raw = fastyaml.parse(text)
    if raw is None:
        return _yaml_request(text, rel, path)
    return _checked_request(raw, rel, path)


def _yaml_request(text: str, rel: str, path: Path) -> Request | str:
    """A request file the fast path declines, read by PyYAML (imported here)."""
    import yaml

    try:
        raw = yaml.load(text, Loader=fastyaml.full_loader())
    except yaml.YAMLError as exc:
        error = yaml_error(exc, path=rel, what="the file")
        return error.message
    except RecursionError:
        return "is nested too deeply to read"
    except (ValueError, TypeError, OverflowError) as exc:
        return f"has a value YAML cannot read ({type(exc).__name__})"
    return _checked_request(raw, rel, path)


def _checked_request(raw: Any, rel: str, path: Path) -> Request | str:
    try:
        return request_from_mapping(raw, path=rel, stem=path.stem)
    except ValidationError as exc:
        where = f"field '{exc.field}': " if exc.field else ""
        return where + exc.message + (f" ({exc.hint})" if exc.hint else "")
