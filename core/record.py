"""The memory record (SPEC section 2): one Markdown file with YAML front matter.

Parsing validates every field and raises :class:`ValidationError` naming the
file and the field. Serialising writes the fields in a fixed order so that
files diff cleanly in git.
"""

from __future__ import annotations

import hashlib
import re
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from core import fastyaml
from core.errors import ValidationError

try:  # libyaml's C loader is several times faster; fall back when absent
    from yaml import CSafeDumper as _Dumper
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeDumper as _Dumper  # type: ignore[assignment]
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

TYPES = ("working", "episodic", "semantic", "preference", "reflection")
SCOPES = ("task", "private", "team")
STATUSES = ("active", "superseded", "conflict", "expired", "deleted")

#: How each type is used once recalled (SPEC section 2, seed 3.2).
TRUST = {
    "working": ("current task only", "high, this task only", "no"),
    "episodic": ("user message", "medium, check the details", "yes"),
    "semantic": ("user message or attachment", "medium, check against current state", "yes"),
    "preference": ("system prompt", "high, may change behaviour directly", "no"),
    "reflection": ("hint field, marked as reference", "low, advisory only", "judge"),
}

_REPR = reprlib.Repr()  # keyword arguments need Python 3.12
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict = 2, 4, 4
_REPR.maxstring, _REPR.maxother, _REPR.maxlong = 60, 60, 40
_DELIMITER = re.compile(r"^-{3,}[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_DATE_ONLY_RE = re.compile(r"^\d{4}-?\d{2}-?\d{2}$")
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
FIELD_ORDER = (
    "id",
    "title",
    "type",
    "scope",
    "status",
    "subject",
    "attribute",
    "condition",
    "value",
    "source",
    "sources",
    "confidence",
    "created_at",
    "verified_at",
    "expires_at",
    "supersedes",
    "usage_count",
    "last_used_at",
    "environment",
)
REQUIRED = (
    "id",
    "type",
    "scope",
    "status",
    "subject",
    "attribute",
    "confidence",
    "created_at",
    "verified_at",
)
LARGE_FILE_CHARS = 40_000


@dataclass(frozen=True)
class Source:
    """A pointer back to the raw evidence: which task, which message, what was said.

    ``log`` names a daily log in the store (``logs/YYYY/MM/YYYY-MM-DD.md``);
    ``file`` and ``line`` point at an imported original instead.
    """

    task: str
    message_index: int | None = None
    evidence: str = ""
    log: str | None = None
    file: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "task": self.task,
            "message_index": self.message_index,
            "evidence": self.evidence,
        }
        for name in ("log", "file", "line"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    @property
    def key(self) -> tuple[str, int | None, str | None, str | None, int | None]:
        """Identity of a source: two pointers at the same message are one source."""
        return (self.task, self.message_index, self.log, self.file, self.line)

    @classmethod
    def from_value(cls, value: Any, *, path: Path | str | None, field_name: str) -> Source:
        if isinstance(value, str) and value.strip():
            # `sources: [tr_001, tr_014]` in the seed's own example: a bare task id
            return cls(task=value.strip())
        if not isinstance(value, Mapping):
            raise ValidationError(
                f"must be a mapping with task, message_index and evidence, got {_kind(value)}",
                path=path,
                field=field_name,
                hint="write e.g. {task: tr_20270314_02, message_index: 7, evidence: '...'}",
            )
        task = value.get("task")
        if not isinstance(task, str) or not task.strip():
            raise ValidationError(
                "needs a non-empty 'task'",
                path=path,
                field=f"{field_name}.task",
                hint="name the task or conversation the memory came from",
            )
        index = value.get("message_index")
        if index is not None and (
            isinstance(index, bool) or not isinstance(index, int) or index < 0
        ):
            raise ValidationError(
                f"must be a whole number >= 0 or null, got {_short(index)}",
                path=path,
                field=f"{field_name}.message_index",
            )
        evidence = value.get("evidence", "")
        if evidence is None:
            evidence = ""
        if not isinstance(evidence, str):
            raise ValidationError(
                f"must be text, got {_kind(evidence)}", path=path, field=f"{field_name}.evidence"
            )
        line = value.get("line")
        if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 1):
            raise ValidationError(
                f"must be a line number >= 1, got {_short(line)}",
                path=path,
                field=f"{field_name}.line",
            )
        log = value.get("log")
        file = value.get("file")
        for name, item in (("log", log), ("file", file)):
            if item is not None and not isinstance(item, str):
                raise ValidationError(
                    f"must be a path string, got {_kind(item)}",
                    path=path,
                    field=f"{field_name}.{name}",
                )
        return cls(
            task=task.strip(), message_index=index, evidence=evidence, log=log, file=file, line=line
        )


@dataclass(frozen=True)
class Memory:
    """One long-term memory. Immutable: changes go through :func:`dataclasses.replace`."""

    id: str
    type: str
    scope: str
    status: str
    subject: str
    attribute: str
    content: str
    confidence: float
    created_at: datetime
    verified_at: datetime
    condition: str | None = None
    source: Source | None = None
    sources: tuple[Source, ...] = ()
    expires_at: datetime | None = None
    supersedes: str | None = None
    usage_count: int = 0
    last_used_at: datetime | None = None
    title: str | None = None
    value: str | None = None  # the attribute's value in short ("pnpm"): what duplicates compare
    environment: dict[str, str] | None = None
    path: str = field(default="", compare=False)  # relative to the store root

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        """The conflict and duplicate key (SPEC section 6)."""
        return (self.scope, self.subject, self.attribute, self.condition)

    @property
    def all_sources(self) -> tuple[Source, ...]:
        """The primary source and every merged one, without repeats."""
        seen: dict[Any, Source] = {}
        for src in ((self.source,) if self.source else ()) + self.sources:
            seen.setdefault(src.key, src)
        return tuple(seen.values())

    @property
    def display_title(self) -> str:
        if self.title:
            return self.title
        return self.attribute.replace("_", " ").replace("-", " ").capitalize()

    @property
    def hook(self) -> str:
        """The first line of the content: what the index shows after the title."""
        for line in self.content.splitlines():
            text = line.strip().lstrip("#").strip()
            if text:
                return text
        return ""

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)

    def with_changes(self, **changes: Any) -> Memory:
        return replace(self, **changes)

    def front_matter(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "scope": self.scope,
            "status": self.status,
            "subject": self.subject,
            "attribute": self.attribute,
            "condition": self.condition,
            "value": self.value,
            "source": self.source.to_dict() if self.source else None,
            "sources": [s.to_dict() for s in self.sources],
            "confidence": round(float(self.confidence), 4),
            "created_at": _iso(self.created_at),
            "verified_at": _iso(self.verified_at),
            "expires_at": _iso(self.expires_at) if self.expires_at else None,
            "supersedes": self.supersedes,
            "usage_count": self.usage_count,
            "last_used_at": _iso(self.last_used_at) if self.last_used_at else None,
            "environment": dict(self.environment) if self.environment else None,
        }
        # optional fields that are empty stay out of the file
        for name in ("title", "value", "sources", "environment"):
            if not data[name]:
                del data[name]
        return data

    def to_markdown(self) -> str:
        meta = yaml.dump(
            self.front_matter(),
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            width=1000,
        )
        body = self.content.rstrip("\n")
        return f"---\n{meta}---\n{body}\n"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form, used by ``--json`` output and the cache."""
        data = self.front_matter()
        data["content"] = self.content
        data["path"] = self.path
        data.setdefault("title", None)
        data.setdefault("value", None)
        data.setdefault("sources", [])
        return data


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def _short(value: Any) -> str:
    """A bounded repr: a hostile file (YAML aliases nested nine deep) must not make
    an error message take minutes and gigabytes to build."""
    return _REPR.repr(value)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {_short(value)}"[:80]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def parse_time(
    value: Any, *, path: Path | str | None, field_name: str, required: bool
) -> datetime | None:
    """An ISO 8601 timestamp with a UTC offset, as text or as YAML's own datetime."""
    if value is None or value == "":
        if required:
            raise ValidationError(
                "is required",
                path=path,
                field=field_name,
                hint="use ISO 8601 with an offset, e.g. 2027-03-14T10:20:00+08:00",
            )
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        raise ValidationError(
            f"has a date but no time: {value.isoformat()}",
            path=path,
            field=field_name,
            hint="add a time and an offset, e.g. T10:20:00+08:00",
        )
    elif isinstance(value, str):
        if _DATE_ONLY_RE.match(value.strip()):
            raise ValidationError(
                f"has a date but no time: {value.strip()}",
                path=path,
                field=field_name,
                hint="add a time and an offset, e.g. T10:20:00+08:00",
            )
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValidationError(
                f"is not an ISO 8601 timestamp: {value!r}",
                path=path,
                field=field_name,
                hint="use e.g. 2027-03-14T10:20:00+08:00",
            ) from None
    else:
        raise ValidationError(
            f"must be a timestamp, got {_kind(value)}", path=path, field=field_name
        )
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValidationError(
            f"has no UTC offset: {value!s}",
            path=path,
            field=field_name,
            hint="append the offset, e.g. +08:00 or Z",
        )
    return parsed


def _text(
    meta: Mapping[str, Any],
    name: str,
    path: Path | str | None,
    *,
    required: bool,
    choices: tuple[str, ...] | None = None,
) -> str | None:
    value = meta.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            hint = f"one of: {', '.join(choices)}" if choices else None
            raise ValidationError("is required", path=path, field=name, hint=hint)
        return None
    if not isinstance(value, str):
        raise ValidationError(
            f"must be text, got {_kind(value)}", path=path, field=name, hint="quote the value"
        )
    value = value.strip()
    if choices is not None and value not in choices:
        raise ValidationError(
            f"unknown value {value!r}", path=path, field=name, hint=f"one of: {', '.join(choices)}"
        )
    return value


def validate_id(value: str, *, path: Path | str | None = None, field_name: str = "id") -> str:
    if not ID_RE.match(value) or ".." in value:
        raise ValidationError(
            f"invalid id {value!r}",
            path=path,
            field=field_name,
            hint="ids use letters, digits, '.', '_' and '-', start with a letter or "
            "digit, no '..' or '/', at most 96 characters",
        )
    return value


def memory_from_mapping(
    meta: Mapping[str, Any], content: str, *, path: Path | str | None = None, rel_path: str = ""
) -> Memory:
    """Validate front matter plus body into a :class:`Memory`."""
    if not isinstance(meta, Mapping):
        raise ValidationError("front matter must be a mapping of fields", path=path)
    ident = _text(meta, "id", path, required=True)
    assert ident is not None
    validate_id(ident, path=path)
    mtype = _text(meta, "type", path, required=True, choices=TYPES)
    scope = _text(meta, "scope", path, required=True, choices=SCOPES)
    status = _text(meta, "status", path, required=True, choices=STATUSES)
    subject = _text(meta, "subject", path, required=True)
    attribute = _text(meta, "attribute", path, required=True)
    condition = _text(meta, "condition", path, required=False)
    title = _text(meta, "title", path, required=False)
    value = _text(meta, "value", path, required=False)
    supersedes = _text(meta, "supersedes", path, required=False)
    if supersedes is not None:
        validate_id(supersedes, path=path, field_name="supersedes")

    confidence = meta.get("confidence")
    if confidence is None:
        raise ValidationError(
            "is required", path=path, field="confidence", hint="a number from 0 to 1"
        )
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ValidationError(
            f"must be a number from 0 to 1, got {_kind(confidence)}", path=path, field="confidence"
        )
    if not 0.0 <= float(confidence) <= 1.0:
        raise ValidationError(
            f"must be from 0 to 1, got {confidence}", path=path, field="confidence"
        )

    source = None
    if meta.get("source") is not None:
        source = Source.from_value(meta["source"], path=path, field_name="source")
    raw_sources = meta.get("sources") or []
    if not isinstance(raw_sources, list):
        raise ValidationError(
            f"must be a list of source pointers, got {_kind(raw_sources)}",
            path=path,
            field="sources",
        )
    sources = tuple(
        Source.from_value(item, path=path, field_name=f"sources[{i}]")
        for i, item in enumerate(raw_sources)
    )

    usage = meta.get("usage_count", 0)
    if usage is None:
        usage = 0
    if isinstance(usage, bool) or not isinstance(usage, int) or usage < 0:
        raise ValidationError(
            f"must be a whole number >= 0, got {_short(usage)}", path=path, field="usage_count"
        )

    environment = meta.get("environment")
    if environment is not None:
        if not isinstance(environment, Mapping) or not all(isinstance(k, str) for k in environment):
            raise ValidationError(
                "must be a mapping of tool name to version",
                path=path,
                field="environment",
                hint="e.g. {node: '20.11'}",
            )
        for tool, version in environment.items():
            if not isinstance(version, str | int | float) or isinstance(version, bool):
                raise ValidationError(
                    f"must be a version, got {_kind(version)}",
                    path=path,
                    field=f"environment.{tool}",
                    hint="quote it, e.g. '20.11'",
                )
        environment = {k: str(v) for k, v in environment.items()}

    created = parse_time(meta.get("created_at"), path=path, field_name="created_at", required=True)
    verified = parse_time(
        meta.get("verified_at"), path=path, field_name="verified_at", required=True
    )
    assert created is not None and verified is not None
    return Memory(
        id=ident,
        type=mtype or "",
        scope=scope or "",
        status=status or "",
        subject=subject or "",
        attribute=attribute or "",
        condition=condition,
        content=content.strip("\n"),
        confidence=float(confidence),
        created_at=created,
        verified_at=verified,
        expires_at=parse_time(
            meta.get("expires_at"), path=path, field_name="expires_at", required=False
        ),
        supersedes=supersedes,
        source=source,
        sources=sources,
        usage_count=usage,
        last_used_at=parse_time(
            meta.get("last_used_at"), path=path, field_name="last_used_at", required=False
        ),
        title=title,
        value=value,
        environment=environment,
        path=rel_path,
    )


class _FastYAML(YAMLHandler):
    """python-frontmatter's YAML handler, on libyaml's C loader when present."""

    def load(self, fm: str, **kwargs: Any) -> Any:
        return yaml.load(fm, Loader=_Loader)


_HANDLER = _FastYAML()


def split_front_matter(text: str, *, path: Path | str | None = None) -> tuple[dict[str, Any], str]:
    """Split a Markdown file into (front matter, body); errors name the file."""
    if not text.startswith("---"):
        raise ValidationError(
            "has no YAML front matter",
            path=path,
            hint="start the file with a '---' line, the fields, and another '---' line",
        )
    if text.startswith("---\n"):  # the layout memgov writes: try the fast path
        end = text.find("\n---\n", 3)
        if end != -1:
            meta = fastyaml.parse(text[4:end])
            if meta:
                return meta, text[end + 5 :]
    # Split by hand, not with frontmatter.loads: that strips the body (and its
    # delimiter pattern eats blank lines after the closing '---'), so a body
    # starting with indentation or a blank line would read differently here
    # than on the fast path above.
    opening = _DELIMITER.match(text)
    closing = _DELIMITER.search(text, opening.end()) if opening else None
    if opening is None or closing is None:
        raise ValidationError(
            "front matter has no closing '---' line"
            if opening
            else "has no YAML front matter: the first line must be '---'",
            path=path,
            hint="put the fields between two '---' lines, then the content",
        )
    block, body = text[opening.end() : closing.start()], text[closing.end() :]
    try:
        meta = _HANDLER.load(block)
    except (ValueError, TypeError, OverflowError) as exc:
        # PyYAML's constructors raise these for e.g. 2027-13-45T10:20:00+08:00
        raise ValidationError(
            f"front matter has a value YAML cannot read: {exc}",
            path=path,
            hint="fix the value, or quote it to keep it as text",
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # the block starts on the file's second line
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise ValidationError(
            f"front matter is not valid YAML{where}: {problem}",
            path=path,
            hint="fix the YAML between the '---' lines",
        ) from None
    if not isinstance(meta, dict) or not meta:
        raise ValidationError("front matter is empty or not a mapping of fields", path=path)
    return meta, body


def parse_memory(text: str, *, path: Path | str | None = None, rel_path: str = "") -> Memory:
    meta, body = split_front_matter(text, path=path)
    return memory_from_mapping(meta, body, path=path, rel_path=rel_path)
