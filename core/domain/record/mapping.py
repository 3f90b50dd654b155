"""Front matter to a :class:`Memory`: every field read and validated, by name.

:func:`memory_from_mapping` takes the mapping a record file's front matter holds
(and its body) and gives a checked :class:`Memory`, or a :class:`ValidationError`
naming the file and the exact field (``sources[2].task``). :func:`parse_time` reads
a timestamp the way every record and request field takes one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.domain.record.fields import (
    ENVIRONMENT_MAX,
    SCOPES,
    STATUSES,
    TYPES,
    check_field,
    describe,
    environment_field,
    origin_problem,
    provenance_problem,
    shown_word,
    validate_id,
)
from core.domain.record.model import Memory, Source

_DATE_ONLY_RE = re.compile(r"^\d{4}-?\d{2}-?\d{2}$")


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


def memory_from_mapping(  # noqa: C901
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

    origin = meta.get("origin")
    if origin is not None:
        problem = origin_problem(origin)
        if problem is not None:
            raise ValidationError(
                problem[1],
                path=path,
                field=problem[0],
                hint="it is what memgov keeps of an imported file; remove the field if unsure",
            )
        origin = dict(origin)

    provenance = meta.get("provenance")
    if provenance is not None:
        problem = provenance_problem(provenance)
        if problem is not None:
            raise ValidationError(
                problem[1],
                path=path,
                field=problem[0],
                hint="it is where the memory's words came from; remove the field if unsure",
            )
        seen = list(provenance.get("seen", []))
        provenance = {
            "roles": list(provenance.get("roles", [])),
            "external": bool(provenance.get("external", False)),
        }
        if provenance["external"] and seen:
            provenance["seen"] = seen

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
        origin=origin,
        provenance=provenance,
        path=rel_path,
        checked=True,  # every field was checked above, with the exact field names
    )
