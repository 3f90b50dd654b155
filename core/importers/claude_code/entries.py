"""A Claude Code topic file as a memgov entry: type, subject, attribute, content, source.

The mapping rules and gate inputs are the ones :mod:`core.importers.claude_code.reader`
documents: Claude's ``user``/``feedback``/``project``/``reference`` become
preference or semantic records about ``user:<owner>`` or ``project:<p>``, the
attribute is the name without its type prefix, the source points at the body's
first statement line, and a ``memgov:`` block (from ``memgov export
claude-code``) sets the type, key and value exactly. :func:`topic_entry` makes
one entry; :func:`check_links` warns about ``[[name]]`` links to no memory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from core.domain.record import TYPES, Source
from core.importers.claude_code.files import (
    INDEX_FILE,
    INDEX_MAX_BYTES,
    INDEX_MAX_LINES,
    TEAM_DIR,
    IndexEntry,
    IndexNote,
    Topic,
    front_field,
    front_text,
)
from core.importers.claude_code.origin import note_origin, topic_origin
from core.importers.entries import Entry, GateDefaults, Reading
from core.importers.text import WISH, slug

CLAUDE_TYPES = ("user", "feedback", "project", "reference")
GATE = {
    "user": GateDefaults(s1=0.8, s2=0.8, confidence=0.7),
    "feedback": GateDefaults(s1=0.8, s2=0.9, confidence=0.8),
    "project": GateDefaults(s1=0.7, s2=0.8, confidence=0.7),
    "reference": GateDefaults(s1=0.8, s2=0.8, confidence=0.7),
}

_LINK = re.compile(r"\[\[([^\[\]|]+)(?:\|[^\]]*)?\]\]")


def topic_entry(
    topic: Topic,
    listed: IndexEntry | None,
    owner: str,
    project: str,
    reading: Reading,
    agent: str | None = None,
    folder_key: str = "",
    marked: Mapping[str, str] | None = None,
) -> Entry:
    """One topic file as an entry. ``marked``: the record a memgov export's marker
    names for the file (its memgov block, where the file went back without one).
    ``agent``: the folder is an agent's own memory
    (``.claude/agent-memory/<agent>/``): what it learnt about its work is its
    reflection about the project, keyed with the agent, not a preference of the user."""
    meta = topic.meta
    block = _memgov_block(topic, reading) or _checked_block(dict(marked or {}), topic, reading)
    name = _without_condition(front_text(meta, "name"), block.get("condition"))
    description = front_text(meta, "description")
    kind, why = _claude_type(topic, listed, reading)
    line, content = _statement(topic, description)
    scope = "team" if topic.rel.startswith(f"{TEAM_DIR}/") else "private"
    notes = [why] if why else []
    if listed is None:
        notes.append(f"not listed in {INDEX_FILE}")
    elif not listed.loaded:
        notes.append(
            f"listed at {listed.index}:{listed.line}, past what Claude Code loads "
            f"({INDEX_MAX_LINES} lines / {INDEX_MAX_BYTES:,} bytes)"
        )
    return Entry(
        origin=f"{topic.rel}:{line}",
        kind=kind,
        scope=scope,
        type=block.get("type") or _memgov_type(kind, description, content, agent),
        subject=block.get("subject") or _subject(kind, scope, owner, project, agent),
        attribute=block.get("attribute") or _attribute(name or topic.stem, project, kind),
        content=content,
        sources=(
            Source(
                task=f"claude-code:{project}/{topic.rel}",
                file=str(topic.path),
                line=line,
                evidence=topic.lines[line - 1].strip() if topic.lines else "",
            ),
        ),
        gate=GATE[kind],
        title=name or (listed.title if listed and listed.title else None) or _human(topic.stem),
        condition=block.get("condition"),
        value=block.get("value"),
        order=_stamp(front_field(meta, "modified")),
        exported_id=block.get("id"),
        notes=tuple(notes),
        origin_fields=topic_origin(
            folder=folder_key,
            rel=topic.rel,
            text=topic.text,
            lines=topic.lines,
            body_start=topic.body_start,
            content=content,
            from_description=not "\n".join(topic.lines[topic.body_start :]).strip(),
            index_line=listed.text if listed is not None else None,
        ),
    )


#: file names every folder may have: their key takes the project, or two folders'
#: ``user_profile.md`` would land on one key and open a false conflict
GENERIC_NAMES = frozenset(
    {"profile", "user", "user_profile", "about_me", "me", "notes", "memory", "context", "index"}
)


def _attribute(name: str, project: str, kind: str | None = None) -> str:
    attribute = slug(without_type_prefix(name, kind))
    if slug(name) in GENERIC_NAMES or attribute in GENERIC_NAMES:
        return f"{attribute}_{slug(project)}"
    return attribute


#: words of a MEMORY.md heading that say what its notes are (else: about the project)
_HEADING_KINDS = {
    "preference": "feedback",
    "preferences": "feedback",
    "feedback": "feedback",
    "rules": "feedback",
    "user": "user",
    "profile": "user",
}


def note_entry(
    note: IndexNote,
    path: Path,
    owner: str,
    project: str,
    agent: str | None = None,
    folder_key: str = "",
) -> Entry:
    """A note written straight into MEMORY.md (a bullet under ``## User Preferences``)
    as an entry: its kind from its heading, its source the index line itself."""
    words = re.findall(r"\w+", (note.heading or "").casefold())
    kinds = {_HEADING_KINDS[w] for w in words if w in _HEADING_KINDS}
    # "User Preferences": preferences of the user, as a feedback file's are
    kind = next((k for k in ("feedback", "user") if k in kinds), "project")
    scope = "team" if note.index.startswith(f"{TEAM_DIR}/") else "private"
    first = re.sub(r"[*`]", "", note.text)
    return Entry(
        origin=f"{note.index}:{note.line}",
        kind=kind,
        scope=scope,
        type=_memgov_type(kind, None, note.text, agent),
        subject=_subject(kind, scope, owner, project, agent),
        attribute=slug(first, limit=40),
        content=note.text,
        sources=(
            Source(
                task=f"claude-code:{project}/{note.index}",
                file=str(path),
                line=note.line,
                evidence=note.evidence,
            ),
        ),
        gate=GATE[kind],
        title=(first[:57].rstrip() + "…") if len(first) > 60 else first,
        notes=(
            f"a note written into {note.index}"
            + (f" under '{note.heading}'" if note.heading else ""),
        ),
        origin_fields=note_origin(
            folder=folder_key, index=note.index, line=note.line, text=note.raw
        ),
    )


def _without_condition(name: str | None, condition: str | None) -> str | None:
    """An export's name less the condition it shows after the title ("Deploy command
    (env=production)", core.domain.shown.titled): the condition is in the memgov
    block, and the title comes back as it was."""
    if not name or not condition:
        return name
    return name.removesuffix(f" ({' '.join(condition.split())})") or name


def _claude_type(topic: Topic, listed: IndexEntry | None, reading: Reading) -> tuple[str, str]:
    """(Claude type, how it was found when not from the front matter)."""
    raw = front_field(topic.meta, "type")
    value = str(raw).strip().casefold() if raw is not None else ""
    if value in CLAUDE_TYPES:
        return value, ""
    if raw is not None:
        reading.warnings.append(
            f"{topic.rel}: unknown type {str(raw)[:40]!r} (Claude Code uses "
            f"{', '.join(CLAUDE_TYPES)}); guessed from the index and the file name"
        )
    heading = listed.heading if listed else None
    for word in re.findall(r"\w+", (heading or "").casefold()):
        if word.removesuffix("s") in CLAUDE_TYPES:
            return word.removesuffix("s"), f"type {word.removesuffix('s')} from the index heading"
    prefix = re.split(r"[_\-]", topic.stem.casefold(), maxsplit=1)[0]
    if prefix in CLAUDE_TYPES:
        return prefix, f"type {prefix} from the file name"
    reading.warnings.append(
        f"{topic.rel}: no type (front matter, index heading or file-name prefix); read as "
        f"project; set its type in memgov-import.yaml if that is wrong"
    )
    return "project", "no type found: read as project"


def _statement(topic: Topic, description: str | None) -> tuple[int, str]:
    """(1-based line of the first statement, the content): the body, else the description."""
    body = topic.lines[topic.body_start :]
    content = "\n".join(body).strip()
    filled = [i for i, line in enumerate(body) if line.strip()]
    plain = [i for i in filled if not body[i].lstrip().startswith("#")]
    if filled:
        return topic.body_start + (plain or filled)[0] + 1, content
    if description:
        where = next(
            (
                i
                for i in range(topic.body_start)
                if re.match(r"^\s*description\s*:", topic.lines[i])
            ),
            0,
        )
        return where + 1, description
    return 1, ""


def _memgov_type(kind: str, description: str | None, content: str, agent: str | None = None) -> str:
    """``agent``: an agent's own folder, whose feedback is what it learnt about its
    work (its reflection), not a wish of the user."""
    if kind == "feedback":
        return "reflection" if agent else "preference"
    if kind == "user":
        first = (content.strip().splitlines() or [""])[0]
        return "preference" if WISH.search(f"{description or ''} {first}") else "semantic"
    return "semantic"


def _subject(kind: str, scope: str, owner: str, project: str, agent: str | None = None) -> str:
    if kind == "user":
        return f"user:{owner}"
    if agent:  # an agent's own folder: keyed with the agent, so two agents never share one
        return f"project:{project}/agent:{agent}"
    if kind == "feedback" and scope == "private":
        return f"user:{owner}/project:{project}"
    return f"project:{project}"


def without_type_prefix(name: str, kind: str | None = None) -> str:
    """``feedback_testing`` -> ``testing``: Claude Code's own prefix. With ``kind`` (the
    file's type), that type's prefix goes whatever joins it (``feedback-commit-style``
    in a feedback file); any other type's only with Claude Code's underscore, so
    ``user-facing-copy`` keeps its words."""
    folded = name.casefold()
    for prefix in CLAUDE_TYPES:
        seps = ("_", "-", " ") if prefix == kind else ("_",)
        if any(folded.startswith(prefix + sep) for sep in seps) and len(name) > len(prefix) + 1:
            return name[len(prefix) + 1 :]
    return name


def _human(stem: str) -> str:
    return re.sub(r"[_\-]+", " ", without_type_prefix(stem)).strip().capitalize() or stem


def _memgov_block(topic: Topic, reading: Reading) -> dict[str, str]:
    """The ``memgov:`` block of a memgov export: exact type, key and value."""
    block = topic.meta.get("memgov")
    if block is None:
        return {}
    if not isinstance(block, Mapping):
        reading.warnings.append(
            f"{topic.rel}: 'memgov' in the front matter is not a mapping; ignored"
        )
        return {}
    return _checked_block(block, topic, reading)


def _checked_block(block: Mapping[str, Any], topic: Topic, reading: Reading) -> dict[str, str]:
    out = {}
    for name in ("id", "type", "subject", "attribute", "condition", "value"):
        value = block.get(name)
        if value is None:
            continue
        if (
            not isinstance(value, str)
            or not value.strip()
            or (name == "type" and value not in TYPES[1:])
        ):
            reading.warnings.append(
                f"{topic.rel}: memgov.{name} {str(value)[:40]!r} is not valid; ignored"
            )
            continue
        out[name] = value.strip()
    return out


def link_key(name: str) -> str:
    """A memory's name as a ``[[link]]`` matches it: case, ``.md``, and ``_`` against
    ``-`` or a space do not matter (``[[user-profile]]`` names ``user_profile.md``)."""
    return re.sub(r"[\s_\-]+", "_", name.strip().removesuffix(".md").casefold())


def check_links(topic: Topic, names: set[str], reading: Reading) -> None:
    """``names``: :func:`link_key` of every memory file's stem and name."""
    for number in range(topic.body_start, len(topic.lines)):
        for name in _LINK.findall(topic.lines[number]):
            if link_key(name) not in names:
                reading.warnings.append(
                    f"{topic.rel}:{number + 1}: links to [[{name.strip()}]], which names no "
                    "memory file in this folder"
                )


def _stamp(value: Any) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value).strip() if value is not None else ""
