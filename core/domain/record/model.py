"""The memory record as values: :class:`Memory` and its :class:`Source` pointers.

A :class:`Memory` is immutable and always valid: however it is built (parsed, from
a candidate, by a decision or a consolidation) its fields are checked against the
record's rules (:func:`check_memory`) before anything can write it. Serialising
(:meth:`Memory.to_markdown`) writes the fields in the fixed ``FIELD_ORDER`` so that
files diff cleanly in git.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from core.domain import fastdump, fastyaml
from core.domain.errors import ValidationError
from core.domain.record.fields import (
    ENVIRONMENT_MAX,
    FIELD_ORDER,
    SCOPES,
    STATUSES,
    TEXT_FIELDS,
    TYPES,
    check_field,
    describe,
    environment_field,
    is_clean,
    origin_problem,
    provenance_problem,
    shown_word,
    validate_id,
)


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
    #: where an imported record came from, exactly (core.importers.claude_code.origin): what an
    #: export needs to give the agent's file back as it was
    origin: dict[str, str] | None = None
    #: where its words came from (core.domain.provenance): ``{roles: [...], external: bool}``
    provenance: dict[str, Any] | None = None
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
        return first_line(self.content)

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
            "origin": dict(self.origin) if self.origin else None,
            "provenance": _provenance_data(self.provenance) if self.provenance else None,
        }
        # optional fields that are empty stay out of the file
        for name in ("title", "value", "sources", "environment", "origin", "provenance"):
            if not data[name]:
                del data[name]
        return data

    def to_markdown(self) -> str:
        front = self.front_matter()
        # the text yaml.dump writes, made directly for the usual record (a fifth of
        # the cost); anything else is written by yaml.dump itself
        meta = fastdump.dump(front)
        if meta is None:
            meta = yaml_front(front)
        body = self.content.rstrip("\n")
        return f"---\n{meta}---\n{body}\n"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form, used by ``--json`` output and the cache: every record
        has the same keys in the same order (:data:`RECORD_KEYS`), an absent field null
        (``sources`` an empty list), and each source every key of a source."""
        data = self.front_matter()
        data["content"] = self.content
        data["path"] = self.path
        data["source"] = _full_source(self.source) if self.source else None
        data["sources"] = [_full_source(s) for s in self.sources]
        return {key: data.get(key) for key in RECORD_KEYS}


#: the keys of a record's plain form (:meth:`Memory.to_dict`), in order
RECORD_KEYS = (*FIELD_ORDER, "content", "path")
#: the keys of a source in a record's plain form
SOURCE_KEYS = ("task", "message_index", "evidence", "log", "file", "line")


def _full_source(source: Source) -> dict[str, Any]:
    """A source with every key (the file's form leaves out the pointers it lacks)."""
    data = source.to_dict()
    return {key: data.get(key) for key in SOURCE_KEYS}


_ONE_LINE_NAMES = ("subject", "attribute", "condition", "value", "title")


def check_memory(memory: Memory, *, path: Path | str | None = None) -> None:  # noqa: C901
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
    for found in (
        origin_problem(memory.origin) if memory.origin is not None else None,
        provenance_problem(memory.provenance) if memory.provenance is not None else None,
    ):
        if found is not None:
            raise ValidationError(found[1], path=where, field=found[0])


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


def first_line(content: str) -> str:
    """A content's first line that holds text, without a heading's marks (what the
    index shows after a record's title: :attr:`Memory.hook`)."""
    for line in content.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text
    return ""


def content_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def normal_hash(text: str) -> str:
    """A hash of the content's words: case, width forms, spacing and Markdown emphasis
    do not matter. An erasure keeps it, so the same memory written again, reworded
    only in form, is recognised (core.importers.session)."""
    plain = unicodedata.normalize("NFKC", text).casefold()
    words = " ".join(plain.replace("*", " ").replace("_", " ").replace("`", " ").split())
    return "sha256:" + hashlib.sha256(words.encode("utf-8")).hexdigest()


def _provenance_data(provenance: Mapping[str, Any]) -> dict[str, Any]:
    """A provenance as the file keeps it: roles, external and, for external words, the
    hosts of their links a person saw and kept."""
    data: dict[str, Any] = {
        "roles": list(provenance["roles"]),
        "external": provenance["external"],
    }
    if provenance["external"] and provenance.get("seen"):
        data["seen"] = list(provenance["seen"])
    return data


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def yaml_front(front: dict[str, Any]) -> str:
    """A record's front matter as PyYAML writes it: what :mod:`core.domain.fastdump`
    must write byte for byte where it writes one, and writes anything else."""
    import yaml  # a record written: PyYAML loads here, not for every reading command

    return yaml.dump(
        front,
        Dumper=fastyaml.full_dumper(),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1000,
    )
