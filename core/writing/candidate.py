"""A candidate: what an agent asks the pipeline to remember, and its validation.

:class:`Candidate` is the write pipeline's input (:func:`core.writing.pipeline.remember`):
content, type, scope, the key (subject, attribute, condition), the source
pointer, the caller's gate inputs s1 (stable) and s2 (reusable), which the gate
settles when they are not given (:func:`core.domain.gate.settle`), and confidence.

Its definition is the one place a field an agent sends is described: each such
field carries an :class:`Asked` (what it means, its form, its choices, whether a
candidate with content must name it). :func:`candidate_from_dict`'s checks are
made from it, and so is the MCP ``remember`` tool's input schema
(:func:`asked_fields`), so the three never drift apart.
:func:`candidate_from_dict` validates one as agents send it (JSON), naming the
bad field in a :class:`ValidationError`; a bad value that may be a credential
is never echoed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from core.domain import secrets
from core.domain.errors import ValidationError
from core.domain.gate import CRITERIA
from core.domain.record import SCOPES, TYPES, Source, check_field, parse_time

#: how a field is sent and checked: the content (text, may be empty), a line of
#: text (with choices or not), a probability from 0 to 1, a source pointer, an ISO
#: 8601 time, a mapping of tool to version; or not sent by agents at all
Form = Literal["content", "text", "probability", "source", "time", "versions", "internal"]


@dataclass(frozen=True)
class Asked:
    """What one field of a :class:`Candidate` is, as an agent sends it (JSON)."""

    description: str
    form: Form = "text"
    #: the values the pipeline takes (empty: any text)
    choices: tuple[str, ...] = ()
    #: the values an agent's tool offers, when fewer than ``choices``
    offered: tuple[str, ...] = ()
    #: a candidate with content must name it (one without content remembers nothing)
    required: bool = False
    #: what it is when not sent (when the field has no default of its own)
    missing: Any = None
    #: an agent's tool call may leave it out although it is required: ``missing`` is sent
    agents_may_omit: bool = False


@dataclass(frozen=True)
class AskedField:
    """A field of :class:`Candidate` an agent sends: its name, its :class:`Asked`, and
    what it is when not sent."""

    name: str
    asked: Asked
    missing: Any

    @property
    def choices_for_agents(self) -> tuple[str, ...]:
        return self.asked.offered or self.asked.choices

    @property
    def required_of_agents(self) -> bool:
        """An agent's tool call must send it (the MCP tool's schema requires it)."""
        return self.asked.required and not self.asked.agents_may_omit


def _score_described(name: str) -> str:
    """s1's or s2's description, from the gate's own meaning of it (core.domain.gate)."""
    word, meaning = CRITERIA[name].split(": ", 1)
    return (
        f"{word} ({meaning}): your probability, 0 to 1; left out, the gate settles it "
        "(the memory type's default when the source is the user's own message, else 0)"
    )


def _asked(description: str, **how: Any) -> dict[str, Asked]:
    return {"asked": Asked(description, **how)}


@dataclass(frozen=True)
class Candidate:
    content: str = field(
        metadata=_asked(
            "the memory, one fact or rule, in words", form="content", required=True, missing=""
        )
    )
    type: str = field(
        metadata=_asked(
            "what kind of memory: preference (how the user wants things done), semantic "
            "(a fact), episodic (what happened), reflection (a lesson learnt); working "
            "(this task only) is never kept",
            choices=TYPES,
            required=True,
            missing="semantic",
        )
    )
    scope: str = field(
        metadata=_asked(
            "private (the default): the user's own store; team: held in the private "
            "store as a promotion request for a maintainer",
            choices=SCOPES,
            offered=("private", "team"),
            required=True,
            missing="private",
            agents_may_omit=True,
        )
    )
    subject: str = field(
        metadata=_asked(
            "who or what it is about: user:NAME, project:NAME", required=True, missing=""
        )
    )
    attribute: str = field(
        metadata=_asked("which property of the subject: package_manager", required=True, missing="")
    )
    source: Source | None = field(
        metadata=_asked(
            "the logged message it comes from, its words quoted as evidence (required to "
            "pass the gate; `log` the message first)",
            form="source",
        )
    )
    s1: float | None = field(
        default=None,
        metadata=_asked(
            _score_described("s1"),
            form="probability",
        ),
    )
    s2: float | None = field(
        default=None,
        metadata=_asked(
            _score_described("s2"),
            form="probability",
        ),
    )
    confidence: float = field(
        default=0.7,
        metadata=_asked("how sure you are the memory is right, 0 to 1", form="probability"),
    )
    condition: str | None = field(default=None, metadata=_asked("when it holds: env=production"))
    value: str | None = field(default=None, metadata=_asked("the value in short: pnpm"))
    title: str | None = field(default=None, metadata=_asked("the index line's title"))
    expires_at: datetime | None = field(
        default=None,
        metadata=_asked(
            "when it stops being true: ISO 8601 with offset (left out: no date)", form="time"
        ),
    )
    environment: dict[str, str] | None = field(
        default=None,
        metadata=_asked(
            "tool versions it was learnt with (a reflection learnt with another version "
            "expires at the next sweep)",
            form="versions",
        ),
    )
    origin: dict[str, str] | None = field(
        default=None,
        metadata=_asked(
            "where an importer found it, exactly (core.importers.claude_code.origin): "
            "kept on the record",
            form="internal",
        ),
    )
    vouched: bool = field(
        default=False,
        metadata=_asked(
            "a person keeps it although the gate doubted it (an exclusion, s1 or s2 under "
            "theta; core.importers.held): never a secret, never without a source",
            form="internal",
        ),
    )
    keep_likely: bool = field(
        default=False,
        metadata=_asked(
            "a person says the likely credentials in it are none (memgov remember "
            "--keep-likely): kept in a private store; a certain one never is",
            form="internal",
        ),
    )

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        return (self.scope, self.subject, self.attribute, self.condition)


def asked_fields() -> tuple[AskedField, ...]:
    """The fields an agent sends, in :class:`Candidate`'s order (the MCP ``remember``
    tool's arguments are these)."""
    found = []
    for f in dataclasses.fields(Candidate):
        asked: Asked = f.metadata["asked"]
        if asked.form != "internal":
            missing = asked.missing if f.default is dataclasses.MISSING else f.default
            found.append(AskedField(f.name, asked, missing))
    return tuple(found)


def _shown(value: Any) -> str:
    """A bad value for an error message, unless it may be a credential (never echoed)."""
    text = repr(value)
    if len(text) > 40 or secrets.scan(text):
        return f"a {type(value).__name__} of {len(str(value))} characters (not shown)"
    return text


def _content(data: Mapping[str, Any], f: AskedField, required: bool) -> str:
    """The content: text, possibly empty (then nothing is remembered)."""
    content = data.get(f.name, f.missing)
    if content is None:
        content = f.missing
    if not isinstance(content, str):
        raise ValidationError(f"must be text, got {type(content).__name__}", field=f.name)
    check_field(content, f.name)
    return content.strip()


def _text(data: Mapping[str, Any], f: AskedField, required: bool) -> str | None:
    value = data.get(f.name)
    choices = f.asked.choices
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            hint = f"one of: {', '.join(choices)}" if choices else None
            raise ValidationError("is required", field=f.name, hint=hint)
        missing: str | None = f.missing
        return missing
    if not isinstance(value, str):
        raise ValidationError(f"must be text, got {type(value).__name__}", field=f.name)
    check_field(value.strip(), f.name)  # control characters, surrogates, length: by field
    value = value.strip()
    if choices and value not in choices:
        raise ValidationError(
            f"unknown value {_shown(value)}", field=f.name, hint=f"one of: {', '.join(choices)}"
        )
    return value


def _probability(data: Mapping[str, Any], f: AskedField, required: bool) -> float | None:
    value = data.get(f.name, f.missing)
    if value is None:  # sent as null: none, or 0 for a field that is never none (confidence)
        return None if f.missing is None else 0.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValidationError(
            f"must be a probability from 0 to 1, got {_shown(value)}", field=f.name
        )
    return float(value)


def _source(data: Mapping[str, Any], f: AskedField, required: bool) -> Source | None:
    if data.get(f.name) is None:
        return None
    return Source.from_value(data[f.name], path=None, field_name=f.name)


def _time(data: Mapping[str, Any], f: AskedField, required: bool) -> datetime | None:
    return parse_time(data.get(f.name), path=None, field_name=f.name, required=False)


def _versions(data: Mapping[str, Any], f: AskedField, required: bool) -> dict[str, str] | None:
    environment = data.get(f.name)
    if environment is not None and not isinstance(environment, Mapping):
        raise ValidationError("must be a mapping of tool to version", field=f.name)
    return {str(k): str(v) for k, v in environment.items()} if environment else None


#: each form's check, in the order they run: the first bad field is the one named
_CHECKS: dict[str, Callable[[Mapping[str, Any], AskedField, bool], Any]] = {
    "content": _content,
    "source": _source,
    "versions": _versions,
    "text": _text,
    "probability": _probability,
    "time": _time,
}


def candidate_from_dict(data: Any) -> Candidate:
    """Validate a candidate as agents send it (JSON), naming the bad field.

    Each field is checked as :class:`Candidate` describes it; a candidate with
    content must name every required field, one without needs none (it is empty)."""
    if not isinstance(data, Mapping):
        raise ValidationError(
            "a candidate is a JSON object", hint="see 'memgov remember --help' for its fields"
        )
    fields = asked_fields()
    values: dict[str, Any] = {}
    for form, check in _CHECKS.items():
        for f in fields:
            if f.asked.form == form:
                required = f.asked.required and bool(values.get("content"))
                values[f.name] = check(data, f, required)
    return Candidate(**values)


def candidates_from_data(data: Any) -> list[Candidate]:
    """One candidate (a JSON object) or many (a JSON list of them), validated.

    A bad candidate in a list refuses the whole list: the error names its index
    (from 0) and its field, and nothing is written."""
    if not isinstance(data, list):
        return [candidate_from_dict(data)]
    found = []
    for index, item in enumerate(data):
        try:
            found.append(candidate_from_dict(item))
        except ValidationError as exc:
            raise ValidationError(
                exc.message + "; nothing in the list was written",
                path=f"candidate {index}",
                field=exc.field,
                hint=exc.hint,
            ) from None
    return found


def candidate_to_dict(candidate: Candidate) -> dict[str, Any]:
    """A candidate as :func:`candidate_from_dict` reads it (a held candidate's file keeps
    it so), with the importer's ``origin`` beside it."""
    data: dict[str, Any] = {
        "content": candidate.content,
        "type": candidate.type,
        "scope": candidate.scope,
        "subject": candidate.subject,
        "attribute": candidate.attribute,
        "condition": candidate.condition,
        "value": candidate.value,
        "title": candidate.title,
        "source": candidate.source.to_dict() if candidate.source else None,
        "s1": candidate.s1,
        "s2": candidate.s2,
        "confidence": candidate.confidence,
        "expires_at": candidate.expires_at.isoformat() if candidate.expires_at else None,
        "environment": dict(candidate.environment) if candidate.environment else None,
    }
    if candidate.origin:
        data["origin"] = dict(candidate.origin)
    return data


def held_candidate(data: Any) -> Candidate:
    """A candidate read back from a held file: validated as an agent's, and its
    ``origin`` (where an importer found it) kept when it is a mapping of text."""
    candidate = candidate_from_dict(data)
    origin = data.get("origin") if isinstance(data, Mapping) else None
    if isinstance(origin, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) and len(v) <= 4096 for k, v in origin.items()
    ):
        candidate = dataclasses.replace(candidate, origin=dict(origin))
    return candidate
