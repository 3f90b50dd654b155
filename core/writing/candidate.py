"""A candidate: what an agent asks the pipeline to remember, and its validation.

:class:`Candidate` is the write pipeline's input (:func:`core.writing.pipeline.remember`):
content, type, scope, the key (subject, attribute, condition), the source
pointer, the caller's gate inputs s1 and s2, and confidence.
:func:`candidate_from_dict` validates one as agents send it (JSON), naming the
bad field in a :class:`ValidationError`; a bad value that may be a credential
is never echoed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.domain import secrets
from core.domain.errors import ValidationError
from core.domain.record import SCOPES, TYPES, Source, check_field, parse_time


@dataclass(frozen=True)
class Candidate:
    content: str
    type: str
    scope: str
    subject: str
    attribute: str
    source: Source | None
    s1: float | None = None
    s2: float | None = None
    confidence: float = 0.7
    condition: str | None = None
    value: str | None = None
    title: str | None = None
    expires_at: datetime | None = None
    environment: dict[str, str] | None = None
    #: where an importer found it, exactly (core.importers.claude_code.origin): kept on the record
    origin: dict[str, str] | None = None
    #: a person decided to keep its internal addresses (core.importers.held): private only
    sensitive_ok: bool = False
    #: a person keeps it although the gate doubted it (an exclusion, s1 or s2 under
    #: theta; core.importers.held): never a secret, never without a source
    vouched: bool = False

    @property
    def key(self) -> tuple[str, str, str, str | None]:
        return (self.scope, self.subject, self.attribute, self.condition)


def _probability(data: Mapping[str, Any], name: str, default: float | None) -> float | None:
    value = data.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValidationError(f"must be a probability from 0 to 1, got {_shown(value)}", field=name)
    return float(value)


def _shown(value: Any) -> str:
    """A bad value for an error message, unless it may be a credential (never echoed)."""
    text = repr(value)
    if len(text) > 40 or secrets.scan(text):
        return f"a {type(value).__name__} of {len(str(value))} characters (not shown)"
    return text


def candidate_from_dict(data: Any) -> Candidate:
    """Validate a candidate as agents send it (JSON), naming the bad field."""
    if not isinstance(data, Mapping):
        raise ValidationError(
            "a candidate is a JSON object", hint="see 'memgov remember --help' for its fields"
        )

    def text(name: str, *, required: bool, choices: tuple[str, ...] | None = None) -> str | None:
        value = data.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                hint = f"one of: {', '.join(choices)}" if choices else None
                raise ValidationError("is required", field=name, hint=hint)
            return None
        if not isinstance(value, str):
            raise ValidationError(f"must be text, got {type(value).__name__}", field=name)
        check_field(value.strip(), name)  # control characters, surrogates, length: by field
        value = value.strip()
        if choices and value not in choices:
            raise ValidationError(
                f"unknown value {_shown(value)}",
                field=name,
                hint=f"one of: {', '.join(choices)}",
            )
        return value

    content = data.get("content", "")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise ValidationError(f"must be text, got {type(content).__name__}", field="content")
    check_field(content, "content")
    source = None
    if data.get("source") is not None:
        source = Source.from_value(data["source"], path=None, field_name="source")
    environment = data.get("environment")
    if environment is not None and not isinstance(environment, Mapping):
        raise ValidationError("must be a mapping of tool to version", field="environment")
    return Candidate(
        content=content.strip(),
        type=text("type", required=bool(content.strip()), choices=TYPES) or "semantic",
        scope=text("scope", required=bool(content.strip()), choices=SCOPES) or "private",
        subject=text("subject", required=bool(content.strip())) or "",
        attribute=text("attribute", required=bool(content.strip())) or "",
        condition=text("condition", required=False),
        value=text("value", required=False),
        title=text("title", required=False),
        source=source,
        s1=_probability(data, "s1", None),
        s2=_probability(data, "s2", None),
        confidence=_probability(data, "confidence", 0.7) or 0.0,
        expires_at=parse_time(
            data.get("expires_at"), path=None, field_name="expires_at", required=False
        ),
        environment={str(k): str(v) for k, v in environment.items()} if environment else None,
    )


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
