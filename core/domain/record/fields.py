"""A record's fields and their rules (SPEC section 2): names, choices, limits, ids.

What every field of a memory record may hold, checked the same way wherever a
value enters (a parsed file, a candidate, a request, a decision): the choices of
``type``, ``scope`` and ``status`` (from :mod:`core.domain.kinds`), the text
hygiene and length of each text field, and what an id looks like. A refusal is a
:class:`ValidationError` naming the file and the field; it describes a bad value
(its type and size) and never quotes it, since a field may hold a credential.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.domain.kinds import MemoryType, Scope, Status

TYPES = tuple(kind.value for kind in MemoryType)
SCOPES = tuple(scope.value for scope in Scope)
STATUSES = tuple(status.value for status in Status)

#: How each type is used once recalled (SPEC section 2, seed 3.2).
TRUST = {
    "working": ("current task only", "high, this task only", "no"),
    "episodic": ("user message", "medium, check the details", "yes"),
    "semantic": ("user message or attachment", "medium, check against current state", "yes"),
    "preference": ("system prompt", "high, may change behaviour directly", "no"),
    "reflection": ("hint field, marked as reference", "low, advisory only", "judge"),
}

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
    "origin",
    "provenance",
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

#: Text hygiene (a store is untrusted input). A one-line field takes no control character at all: no
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
    "origin.value": (32_000, True),
}
#: what an enum-like value (type, scope, status, kind) must look like to be quoted
#: back in an error: a short word. Anything else is described, never shown.
_WORD_RE = re.compile(r"^[A-Za-z][A-Za-z-]{0,23}$")
TOOL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9.+-]{0,23}$")
ENVIRONMENT_MAX = 64
#: what ``origin`` may hold: where an imported record came from in the agent's folder,
#: exactly, so an export gives the file back byte for byte (core.importers.claude_code.origin)
ORIGIN_KEYS = (
    "format",
    "folder",
    "slot",
    "file",
    "front",
    "head",
    "tail",
    "newline",
    "index",
    "note",
    "sig",
    "keys",
    "body",
)


#: a role of a logged message, as a provenance names it
_ROLE_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
#: a host name as a provenance's ``seen`` keeps it (lowercase; an IPv6 address's too)
_HOST_RE = re.compile(r"[\w.:-]{1,253}")


def provenance_problem(provenance: Any) -> tuple[str, str] | None:
    """(field, what is wrong) with a ``provenance`` mapping, or None when it is good:
    ``roles`` a list of at most 8 role words, ``external`` true or false, ``seen`` (the
    hosts of its links a person saw and kept) a list of at most 16 host names."""
    if not isinstance(provenance, dict) or set(provenance) - {"roles", "external", "seen"}:
        return "provenance", (
            "must be a mapping of roles (a list), external (true or false) and, perhaps, "
            "seen (a list of host names)"
        )
    roles = provenance.get("roles", [])
    if not isinstance(roles, list) or len(roles) > 8:
        return "provenance.roles", f"must be a list of at most 8 roles, got {describe(roles)}"
    for number, role in enumerate(roles):
        if not isinstance(role, str) or not _ROLE_RE.match(role):
            return f"provenance.roles[{number}]", "must be a role word (user, tool, web ...)"
    if not isinstance(provenance.get("external", False), bool):
        return "provenance.external", "must be true or false"
    seen = provenance.get("seen", [])
    if not isinstance(seen, list) or len(seen) > 16:
        return "provenance.seen", f"must be a list of at most 16 host names, got {describe(seen)}"
    for number, host in enumerate(seen):
        if not isinstance(host, str) or not _HOST_RE.fullmatch(host):
            return f"provenance.seen[{number}]", "must be a host name (docs.example.com)"
    return None


def origin_problem(origin: Any) -> tuple[str, str] | None:
    """(field, what is wrong) with an ``origin`` mapping, or None when it is good:
    only the keys of :data:`ORIGIN_KEYS`, each text within its limit."""
    if not isinstance(origin, dict) or not all(isinstance(k, str) for k in origin):
        return "origin", "must be a mapping of text fields (format, file, front ...)"
    for key, value in origin.items():
        if key not in ORIGIN_KEYS:
            shown = key if _WORD_RE.match(key) else f"a key of {len(key)} characters"
            return "origin", f"unknown field {shown} (one of: {', '.join(ORIGIN_KEYS)})"
        if not isinstance(value, str):
            return f"origin.{key}", f"must be text, got {describe(value)}"
        problem = text_problem(value, limit=TEXT_FIELDS["origin.value"][0], multiline=True)
        if problem is not None:
            return f"origin.{key}", problem[0]
    return None


def environment_field(tool: str, number: int) -> str:
    """How an error names one tool of ``environment``: by name when it looks like a
    tool's name (node, pnpm, python3.12), else by position, so a key that holds a
    credential is never shown."""
    return f"environment.{tool}" if TOOL_RE.match(tool) else f"environment[{number}]"


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
