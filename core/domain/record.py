"""The memory record (SPEC section 2): one Markdown file with YAML front matter.

Parsing validates every field and raises :class:`ValidationError` naming the
file and the field. Serialising writes the fields in a fixed order so that
files diff cleanly in git.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from core.domain import fastyaml
from core.domain.errors import ValidationError

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

#: Text hygiene (issue 10). A one-line field takes no control character at all: no
#: C0 (tab and line feed included), no DEL, no C1, no Unicode line or paragraph
#: separator. Multi-line text (content, evidence, reasons) may hold tabs and line
#: feeds, nothing else of those. Neither may hold a lone surrogate (what "\ud800" in
#: JSON or a surrogateescape'd argument gives): it is not Unicode and cannot be
#: written as UTF-8.
ONE_LINE_BAD = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
MULTI_LINE_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
#: the ASCII bytes each kind of text may hold (for the fast path of :func:`is_clean`)
_ASCII_ONE_LINE = bytes(range(0x20, 0x7F))
_ASCII_MULTI_LINE = b"\t\n" + _ASCII_ONE_LINE


def is_clean(value: str, *, multiline: bool = False) -> bool:
    """No character of ONE_LINE_BAD (or MULTI_LINE_BAD) in ``value``. ASCII text, the
    usual case, is checked by one C pass over its bytes, many times faster than the
    regular expression, which checks the rest."""
    if value.isascii():
        allowed = _ASCII_MULTI_LINE if multiline else _ASCII_ONE_LINE
        return not value.encode("ascii").translate(None, allowed)
    return (MULTI_LINE_BAD if multiline else ONE_LINE_BAD).search(value) is None


#: Content far too large for any memory file: refused as soon as a Memory is built.
#: (A memory file holds at most 1 MiB; core.store.store refuses a write over that, naming
#: the file; this bound is above it, so that check keeps its say for what is near.)
CONTENT_MAX_CHARS = 2 * 1024 * 1024
#: Each text field: (most characters, multi-line). ``source.*`` applies to ``source``
#: and to every ``sources[i]``; ``environment.key`` / ``.value`` to each tool / version.
TEXT_FIELDS: dict[str, tuple[int, bool]] = {
    "id": (96, False),
    "supersedes": (96, False),
    "type": (32, False),
    "scope": (32, False),
    "status": (32, False),
    "subject": (512, False),
    "attribute": (512, False),
    "condition": (512, False),
    "value": (4_000, False),
    "title": (300, False),
    "content": (CONTENT_MAX_CHARS, True),
    "source.task": (512, False),
    "source.evidence": (16_000, True),
    "source.log": (1_024, False),
    "source.file": (1_024, False),
    "environment.key": (100, False),
    "environment.value": (200, False),
}
#: what an enum-like value (type, scope, status, kind) must look like to be quoted
#: back in an error: a short word. Anything else is described, never shown.
_WORD_RE = re.compile(r"^[A-Za-z][A-Za-z-]{0,23}$")
_TOOL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9.+-]{0,23}$")
ENVIRONMENT_MAX = 64


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
            check_field(value, "source.task", path=path, field=field_name)
            return cls(task=value.strip())
        if not isinstance(value, Mapping):
            raise ValidationError(
                f"must be a mapping with task, message_index and evidence, got {describe(value)}",
                path=path,
                field=field_name,
                hint="write e.g. {task: tr_20270314_02, message_index: 7, evidence: '...'}",
            )
        task = value.get("task")
        if not isinstance(task, str) or not task.strip():
            raise ValidationError(
                "needs a non-empty 'task'"
                + (f", got {describe(task)}" if task is not None and task != "" else ""),
                path=path,
                field=f"{field_name}.task",
                hint="name the task or conversation the memory came from",
            )
        check_field(task, "source.task", path=path, field=f"{field_name}.task")
        index = value.get("message_index")
        if index is not None and (
            isinstance(index, bool) or not isinstance(index, int) or index < 0
        ):
            raise ValidationError(
                f"must be a whole number >= 0 or null, got {describe(index)}",
                path=path,
                field=f"{field_name}.message_index",
            )
        evidence = value.get("evidence", "")
        if evidence is None:
            evidence = ""
        if not isinstance(evidence, str):
            raise ValidationError(
                f"must be text, got {describe(evidence)}", path=path, field=f"{field_name}.evidence"
            )
        check_field(evidence, "source.evidence", path=path, field=f"{field_name}.evidence")
        line = value.get("line")
        if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 1):
            raise ValidationError(
                f"must be a line number >= 1, got {describe(line)}",
                path=path,
                field=f"{field_name}.line",
            )
        log = value.get("log")
        file = value.get("file")
        for name, item in (("log", log), ("file", file)):
            if item is not None and not isinstance(item, str):
                raise ValidationError(
                    f"must be a path string, got {describe(item)}",
                    path=path,
                    field=f"{field_name}.{name}",
                )
            if item is not None:
                check_field(item, f"source.{name}", path=path, field=f"{field_name}.{name}")
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

    #: set only by :func:`memory_from_mapping`, which has checked every field already
    #: (with the file's path and the exact field names); a change through
    #: :meth:`with_changes` is checked again
    checked: InitVar[bool] = False

    def __post_init__(self, checked: bool) -> None:
        # every Memory, however built (parsed, from a candidate, by a decision or a
        # consolidation), keeps the text rules: refused before anything is written
        if not checked:
            check_memory(self)

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


_ONE_LINE_NAMES = ("subject", "attribute", "condition", "value", "title")


def check_memory(memory: Memory, *, path: Path | str | None = None) -> None:
    """Every field of a built :class:`Memory` against the record's rules (ids, choices,
    text hygiene and length limits): a ValidationError naming ``path`` (the memory's
    own path by default) and the field. Cheap when all is well: one scan of the
    one-line fields together, one of the content."""
    where = path if path is not None else (memory.path or None)
    validate_id(memory.id, path=where)
    if memory.supersedes is not None:
        validate_id(memory.supersedes, path=where, field_name="supersedes")
    for name, choices, value in (
        ("type", TYPES, memory.type),
        ("scope", SCOPES, memory.scope),
        ("status", STATUSES, memory.status),
    ):
        if value not in choices:
            shown = shown_word(value) if isinstance(value, str) else f"({describe(value)})"
            raise ValidationError(
                f"unknown value {shown}",
                path=where,
                field=name,
                hint=f"one of: {', '.join(choices)}",
            )
    texts = [getattr(memory, name) for name in _ONE_LINE_NAMES]
    if any(not isinstance(t, str | None) for t in texts) or not isinstance(memory.content, str):
        for name in (*_ONE_LINE_NAMES, "content"):
            value = getattr(memory, name)
            if not isinstance(value, str) and (value is not None or name == "content"):
                raise ValidationError(
                    f"must be text, got {describe(value)}", path=where, field=name
                )
    joined = "\x20".join(t for t in texts if t)
    if not is_clean(joined) or any(
        t is not None and len(t) > TEXT_FIELDS[name][0]
        for name, t in zip(_ONE_LINE_NAMES, texts, strict=True)
    ):
        for name, t in zip(_ONE_LINE_NAMES, texts, strict=True):
            if t is not None:
                check_field(t, name, path=where)
    check_field(memory.content, "content", path=where)
    primary = (("source", memory.source),) if memory.source is not None else ()
    for label, src in (*primary, *((f"sources[{i}]", s) for i, s in enumerate(memory.sources))):
        check_source(src, path=where, field_name=label)
    if memory.environment:
        if len(memory.environment) > ENVIRONMENT_MAX:
            raise ValidationError(
                f"has {len(memory.environment):,} tools, over the {ENVIRONMENT_MAX}",
                path=where,
                field="environment",
            )
        for number, (tool, version) in enumerate(memory.environment.items()):
            label = environment_field(tool, number)
            check_field(tool, "environment.key", path=where, field=label)
            check_field(version, "environment.value", path=where, field=label)


def check_source(
    source: Source, *, path: Path | str | None = None, field_name: str = "source"
) -> None:
    """A built :class:`Source` against the text rules of its fields."""
    if not isinstance(source.task, str) or not source.task.strip():
        raise ValidationError("needs a non-empty 'task'", path=path, field=f"{field_name}.task")
    check_field(source.task, "source.task", path=path, field=f"{field_name}.task")
    check_field(source.evidence, "source.evidence", path=path, field=f"{field_name}.evidence")
    for name in ("log", "file"):
        value = getattr(source, name)
        if value is not None:
            check_field(value, f"source.{name}", path=path, field=f"{field_name}.{name}")


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def environment_field(tool: str, number: int) -> str:
    """How an error names one tool of ``environment``: by name when it looks like a
    tool's name (node, pnpm, python3.12), else by position, so a key that holds a
    credential is never shown."""
    return f"environment.{tool}" if _TOOL_RE.match(tool) else f"environment[{number}]"


def describe(value: Any) -> str:
    """What a bad value is, for an error message, without the value itself: its type
    and its size. A field may hold a credential, so no error ever quotes one; and a
    hostile file (YAML aliases nested nine deep) costs nothing to describe."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return f"text of {len(value):,} character{'s' if len(value) != 1 else ''}"
    if isinstance(value, bytes):
        return f"binary data of {len(value):,} bytes"
    if isinstance(value, Mapping):
        return f"a mapping of {len(value):,} key{'s' if len(value) != 1 else ''}"
    if isinstance(value, list | tuple):
        return f"a list of {len(value):,} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, datetime):
        return "a timestamp"
    if isinstance(value, date):
        return "a date"
    return f"a {type(value).__name__}"


def shown_word(value: str) -> str:
    """An enum-like value quoted back only when it is a short word; else described."""
    return repr(value) if _WORD_RE.match(value) else f"({describe(value)})"


def text_problem(value: str, *, limit: int | None, multiline: bool) -> tuple[str, str] | None:
    """(message, hint) when ``value`` breaks the text rules, else None. The message
    names the offending character's code point and position, never the text."""
    if limit is not None and len(value) > limit:
        return (
            f"is {len(value):,} characters, over the {limit:,} this field may have",
            "shorten it; the detail belongs in the memory's content"
            if not multiline
            else "shorten it, or split it into several memories",
        )
    bad = (MULTI_LINE_BAD if multiline else ONE_LINE_BAD).search(value)
    if bad is None:
        return None
    code = ord(bad.group())
    where = f"U+{code:04X} at character {bad.start() + 1:,}"
    if 0xD800 <= code <= 0xDFFF:
        return (
            f"holds a lone surrogate ({where}): not valid Unicode",
            "the text was decoded wrongly (e.g. a non-UTF-8 argument, or '\\ud800' in JSON);"
            " enter it again as UTF-8",
        )
    if multiline:
        return (
            f"holds a control character ({where})",
            "only tabs and line breaks may be in multi-line text; remove it",
        )
    return (
        f"holds a control character or line break ({where})",
        "a one-line field takes no tab, line break or other control character; remove it",
    )


def check_text(
    value: str,
    *,
    field: str,
    path: Path | str | None = None,
    limit: int | None = None,
    multiline: bool = False,
) -> str:
    """Refuse over-long text, control characters and lone surrogates (ValidationError
    naming ``path`` and ``field``); return ``value`` unchanged."""
    problem = text_problem(value, limit=limit, multiline=multiline)
    if problem is not None:
        raise ValidationError(problem[0], path=path, field=field, hint=problem[1])
    return value


def check_field(
    value: str, name: str, *, path: Path | str | None = None, field: str | None = None
) -> str:
    """:func:`check_text` with the limits of the record field ``name`` (a key of
    :data:`TEXT_FIELDS`, e.g. ``"subject"`` or ``"source.task"``); ``field`` is the
    name to report when it differs (``"sources[2].task"``). For candidates, requests
    and anything else that will become one of these fields."""
    limit, multiline = TEXT_FIELDS[name]
    if len(value) <= limit and is_clean(value, multiline=multiline):
        return value  # the usual case, without building anything
    return check_text(value, field=field or name, path=path, limit=limit, multiline=multiline)


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
            "has a date but no time",
            path=path,
            field=field_name,
            hint="add a time and an offset, e.g. T10:20:00+08:00",
        )
    elif isinstance(value, str):
        if len(value) > 64:
            raise ValidationError(
                f"is not an ISO 8601 timestamp ({describe(value)})",
                path=path,
                field=field_name,
                hint="use e.g. 2027-03-14T10:20:00+08:00",
            )
        if _DATE_ONLY_RE.match(value.strip()):
            raise ValidationError(
                "has a date but no time",
                path=path,
                field=field_name,
                hint="add a time and an offset, e.g. T10:20:00+08:00",
            )
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValidationError(
                f"is not an ISO 8601 timestamp ({describe(value)})",
                path=path,
                field=field_name,
                hint="use e.g. 2027-03-14T10:20:00+08:00",
            ) from None
    else:
        raise ValidationError(
            f"must be a timestamp, got {describe(value)}", path=path, field=field_name
        )
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValidationError(
            "has no UTC offset",
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
    if choices is not None and value in choices:
        return value  # type: ignore[no-any-return]  # one of the choices: clean, short
    if isinstance(value, str) and name not in ("id", "supersedes"):  # ids: validate_id
        # before the blank test: str.strip() drops \x1c-\x1f and \x85 as whitespace
        check_field(value, name, path=path)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            hint = f"one of: {', '.join(choices)}" if choices else None
            raise ValidationError("is required", path=path, field=name, hint=hint)
        return None
    if not isinstance(value, str):
        raise ValidationError(
            f"must be text, got {describe(value)}", path=path, field=name, hint="quote the value"
        )
    value = value.strip()
    if choices is not None and value not in choices:
        raise ValidationError(
            f"unknown value {shown_word(value)}",
            path=path,
            field=name,
            hint=f"one of: {', '.join(choices)}",
        )
    return value


def id_problem(value: Any) -> str | None:
    """Why ``value`` is not an id (without quoting it), or None when it is one."""
    if not isinstance(value, str):
        return f"must be an id, got {describe(value)}"
    if ID_RE.match(value) and ".." not in value:
        return None
    if len(value) > 96:
        return f"invalid id: {len(value):,} characters, over 96"
    if not value:
        return "invalid id: empty"
    if "/" in value or "\\" in value or ".." in value:
        return "invalid id: holds '/', '\\' or '..'"
    if not value[0].isascii() or not value[0].isalnum():
        return "invalid id: must start with a letter or digit"
    return (
        f"invalid id: {describe(value)} with a character other than letters, digits, '.', '_', '-'"
    )


def validate_id(value: str, *, path: Path | str | None = None, field_name: str = "id") -> str:
    """``value`` when it is an id (so it can name a file and be shown); else a
    ValidationError that describes it without quoting it."""
    problem = id_problem(value)
    if problem is not None:
        raise ValidationError(
            problem,
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
            f"must be a number from 0 to 1, got {describe(confidence)}",
            path=path,
            field="confidence",
        )
    if not 0.0 <= float(confidence) <= 1.0:
        raise ValidationError("is out of range: must be from 0 to 1", path=path, field="confidence")

    source = None
    if meta.get("source") is not None:
        source = Source.from_value(meta["source"], path=path, field_name="source")
    raw_sources = meta.get("sources") or []
    if not isinstance(raw_sources, list):
        raise ValidationError(
            f"must be a list of source pointers, got {describe(raw_sources)}",
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
            f"must be a whole number >= 0, got {describe(usage)}", path=path, field="usage_count"
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
        if len(environment) > ENVIRONMENT_MAX:
            raise ValidationError(
                f"has {len(environment):,} tools, over the {ENVIRONMENT_MAX}",
                path=path,
                field="environment",
                hint="keep the tools the memory depends on",
            )
        for number, (tool, version) in enumerate(environment.items()):
            where = environment_field(tool, number)
            check_field(tool, "environment.key", path=path, field=where)
            if not isinstance(version, str | int | float) or isinstance(version, bool):
                raise ValidationError(
                    f"must be a version, got {describe(version)}",
                    path=path,
                    field=where,
                    hint="quote it, e.g. '20.11'",
                )
            check_field(str(version), "environment.value", path=path, field=where)
        environment = {k: str(v) for k, v in environment.items()}

    body = content.strip("\n")
    check_field(body, "content", path=path)
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
        content=body,
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
        checked=True,  # every field was checked above, with the exact field names
    )


class _FastYAML(YAMLHandler):
    """python-frontmatter's YAML handler, on libyaml's C loader when present."""

    def load(self, fm: str, **kwargs: Any) -> Any:
        return yaml.load(fm, Loader=_Loader)


_HANDLER = _FastYAML()

#: the fixed wording of datetime's range errors: safe to repeat, it quotes nothing
_SAFE_CONSTRUCTOR_ERROR = re.compile(
    r"[a-z ]{3,30} (?:must be in \d+\.\.\d+|is out of range for month)"
)
#: a quoted piece of a YAML error message: kept when it is one character or a token
#: name ('<block end>'), dropped when it could be a piece of the file (an alias, a tag)
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def _unquote(match: re.Match[str]) -> str:
    text = match.group()
    inner = text[1:-1]
    if len(inner) <= 2 or re.fullmatch(r"<[a-z ]{1,30}>", inner):
        return text
    return "(a name from the file)"


#: raw in a front-matter block (not as a YAML escape): what no field may hold, and a
#: carriage return that is not part of a Windows line end
_RAW_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_KEY_LINE = re.compile(r"(?P<indent>[ -]*)(?P<key>[A-Za-z_][A-Za-z0-9_]*)[ \t]*:")
_SOURCE_KEYS = ("task", "message_index", "evidence", "log", "file", "line")


def field_at_line(block: str, line: int) -> str | None:
    """The record field that the 0-based ``line`` of a front-matter ``block`` belongs
    to: a known field's name (``subject``, ``source.evidence``, ``sources[1].task``),
    never text of the file; None when it cannot tell."""
    lines = block.split("\n")
    if not 0 <= line < len(lines):
        return None
    nested: str | None = None
    tool: str | None = None  # the key on the line itself, for environment.<tool>
    entries = 0
    for number in range(line, max(line - 200, -1), -1):
        match = _KEY_LINE.match(lines[number])
        if match is None:
            continue
        key, indent = match["key"], match["indent"]
        if not indent:
            if key not in FIELD_ORDER:
                return None
            if key == "environment" and tool is not None:
                return environment_field(tool, 0) if _TOOL_RE.match(tool) else key
            if nested is None or key not in ("source", "sources"):
                return key
            return f"source.{nested}" if key == "source" else f"sources[{entries - 1}].{nested}"
        if tool is None and number == line:
            tool = key
        if nested is None and key in _SOURCE_KEYS:
            nested = key
        if indent.strip().startswith("-"):
            entries += 1
    return None


def yaml_error(
    exc: yaml.YAMLError,
    *,
    path: Path | str | None,
    first_line: int = 1,
    what: str = "front matter",
    block: str | None = None,
) -> ValidationError:
    """A YAML error as a ValidationError: where, and what YAML says, without the
    pieces of the file its message may quote (an alias or tag may be a credential).
    Given the ``block`` that was read, a memory's field is named by where YAML stopped."""
    line: int | None = None
    exact = False  # YAML stopped at the bad character itself, not somewhere after it
    if isinstance(exc, yaml.reader.ReaderError) and block is not None:
        exact = True
        if _Loader.__name__.startswith("C"):  # libyaml counts bytes of the UTF-8 text
            line = block.encode("utf-8", "surrogatepass")[: exc.position].count(b"\n")
        else:
            line = block[: exc.position].count("\n")
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        line = mark.line
        exact = "escape" in str(getattr(exc, "problem", ""))
    field = field_at_line(block, line) if block is not None and line is not None and exact else None
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.character, int):
        return ValidationError(
            f"{what} holds a character YAML does not allow (U+{exc.character:04X})"
            + (f" at line {line + first_line}" if line is not None else ""),
            path=path,
            field=field,
            hint="remove the control character",
        )
    where = f" at line {line + first_line}" if line is not None else ""
    problem = getattr(exc, "problem", None) or "cannot be parsed"
    problem = _QUOTED.sub(_unquote, str(problem))[:200]
    return ValidationError(
        f"{what} is not valid YAML{where}: {problem}",
        path=path,
        field=field,
        hint="fix the YAML between the '---' lines" if what == "front matter" else "fix the YAML",
    )


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
    raw_bad = _RAW_BAD.search(block)
    if raw_bad is not None:
        # before YAML reads it: YAML folds a raw NEL or CR into a space (silently), and
        # refuses the rest without saying which field holds it
        line = block.count("\n", 0, raw_bad.start())
        raise ValidationError(
            f"front matter holds a control character (U+{ord(raw_bad.group()):04X}) at line "
            f"{line + 2}",
            path=path,
            field=field_at_line(block, line),
            hint="remove it; a field's text takes no control characters",
        )
    try:
        meta = _HANDLER.load(block)
    except (ValueError, TypeError, OverflowError) as exc:
        # PyYAML's constructors raise these for e.g. 2027-13-45T10:20:00+08:00; only
        # datetime's own fixed wording is kept ("month must be in 1..12"), nothing that
        # could quote the value
        said = str(exc)
        detail = f": {said}" if _SAFE_CONSTRUCTOR_ERROR.fullmatch(said) else ""
        raise ValidationError(
            f"front matter has a value YAML cannot read ({type(exc).__name__}{detail})",
            path=path,
            hint="fix the value (a date that does not exist, a number out of range), "
            "or quote it to keep it as text",
        ) from None
    except RecursionError:
        raise ValidationError(
            "front matter is nested too deeply to read",
            path=path,
            hint="a memory's fields are flat; fix the YAML between the '---' lines",
        ) from None
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path=path, first_line=2, block=block) from None
    if not isinstance(meta, dict) or not meta:
        raise ValidationError("front matter is empty or not a mapping of fields", path=path)
    return meta, body


def parse_memory(text: str, *, path: Path | str | None = None, rel_path: str = "") -> Memory:
    if "\r" in text:  # a file saved with Windows line ends reads as memgov writes it
        text = text.replace("\r\n", "\n")
    meta, body = split_front_matter(text, path=path)
    return memory_from_mapping(meta, body, path=path, rel_path=rel_path)
