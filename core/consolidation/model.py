"""What an engine sees and what it proposes: the small, pluggable interface.

An engine gets a :class:`Gathered` (the records, which of them are input, the
daily-log messages since the last baseline) and returns :class:`Proposal`s.
A proposal is one reviewable change: an action name, a reason, the evidence,
and :class:`Edit`s on records. Edits are deltas, not whole files, so that a
person can approve some changes and reject others that touch the same file,
and so that they replay onto the store as lifecycle transitions with events:

- ``to_status``: a transition (``active -> superseded`` retires a record,
  ``active -> active`` reconfirms it);
- ``transform``: a named, re-runnable rewrite of the content (and title):
  ``absolute-dates`` {anchor}, ``date-format``, ``repoint-links`` {map},
  ``append`` {text};
- ``content``: a whole new content (for engines that rewrite text);
- ``add_sources``: evidence to merge in (never removes one);
- ``set``: other fields (``verified_at``, ``confidence``, ...);
- ``create``: a new record (engines should prefer updating an existing one).

The review code never trusts an engine's ``automatic`` flag alone: see
:func:`classify`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, Protocol

from core.domain import dates
from core.domain.errors import ValidationError
from core.domain.record import Memory, Source, memory_from_mapping, parse_time
from core.store.config import Config

TRANSFORMS = ("absolute-dates", "date-format", "repoint-links", "append")
SETTABLE = (
    "verified_at",
    "confidence",
    "supersedes",
    "expires_at",
    "title",
    "condition",
    "value",
    "type",
    "scope",
)
#: fields whose change alters a conclusion or who sees it: never automatic
SEMANTIC_FIELDS = ("title", "condition", "value", "type", "scope", "expires_at", "supersedes")
#: actions that add no meaning (seed 6.5) when an engine marks them automatic
AUTOMATIC_ACTIONS = (
    "merge-exact",  # exact duplicates: same key, same text
    "reconfirm",  # update verified_at, add the confirming source
    "absolute-dates",  # fix date formats: relative -> absolute on the statement's own date
    "date-format",
    "repoint-link",
    "index-pointer",  # index lines: drop pointers to inactive records
    "index-line",  # index lines: shorten one whose text is already in its file
)


@dataclass(frozen=True)
class Signal:
    """One daily-log message added since the last baseline."""

    log: str
    line: int
    day: date
    time: str  # HH:MM as logged, or ""
    task: str
    message_index: int | None
    role: str
    text: str

    def when(self, like: datetime) -> datetime:
        """The message's time, in the time zone of ``like``."""
        hour, minute = (int(x) for x in self.time.split(":")) if self.time else (23, 59)
        return datetime.combine(self.day, time(hour, minute), tzinfo=like.tzinfo)

    def source(self) -> Source:
        return Source(
            task=self.task, message_index=self.message_index, evidence=self.text, log=self.log
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "log",
            "log": self.log,
            "line": self.line,
            "day": self.day.isoformat(),
            "time": self.time,
            "task": self.task,
            "message_index": self.message_index,
            "role": self.role,
            "text": self.text,
        }


@dataclass(frozen=True)
class Gathered:
    """Steps 1 and 2 (orient, gather), as the engine receives them."""

    now: datetime
    config: Config
    records: Mapping[str, Memory]  # every record read, whatever its status
    inputs: tuple[str, ...]  # active and used within unused_days: the consolidation input
    unused: tuple[str, ...]  # active but unused: excluded from the input, never deleted for it
    signals: tuple[Signal, ...]
    task_logs: Mapping[str, list[str]]  # task -> daily logs that mention it
    index_text: str
    since: str | None  # the baseline the signal window starts at (None: all logs)

    def input_records(self) -> list[Memory]:
        return [self.records[i] for i in self.inputs]


@dataclass(frozen=True)
class Edit:
    memory_id: str
    action: str  # the event's action: merge, supersede, retire, reconfirm, rewrite-dates...
    to_status: str | None = None
    transform: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    content: str | None = None
    add_sources: tuple[Source, ...] = ()
    set: Mapping[str, Any] = field(default_factory=dict)  # JSON values (timestamps as ISO text)
    create: Memory | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def semantic(self) -> bool:
        """Does this edit change a conclusion, its scope, or the file layout?"""
        return (
            self.create is not None
            or self.content is not None
            or self.transform == "append"
            or self.to_status not in (None, "active", "superseded")
            or any(name in SEMANTIC_FIELDS for name in self.set)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "action": self.action,
            "to_status": self.to_status,
            "transform": self.transform,
            "params": dict(self.params),
            "content": self.content,
            "add_sources": [s.to_dict() for s in self.add_sources],
            "set": dict(self.set),
            "create": (
                {"front": self.create.front_matter(), "content": self.create.content}
                if self.create
                else None
            ),
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Edit:
        created = data.get("create")
        return cls(
            memory_id=data["memory_id"],
            action=data["action"],
            to_status=data.get("to_status"),
            transform=data.get("transform"),
            params=dict(data.get("params") or {}),
            content=data.get("content"),
            add_sources=tuple(
                Source.from_value(s, path=None, field_name="add_sources")
                for s in data.get("add_sources") or ()
            ),
            set=dict(data.get("set") or {}),
            create=(memory_from_mapping(created["front"], created["content"]) if created else None),
            details=dict(data.get("details") or {}),
        )


@dataclass(frozen=True)
class Proposal:
    """One change an engine proposes, before the review code numbers and checks it."""

    action: str
    automatic: bool
    reason: str
    edits: tuple[Edit, ...] = ()
    evidence: tuple[Mapping[str, Any], ...] = ()


class Engine(Protocol):
    """Step 3 (consolidate). Orient, gather and prune are the review code's."""

    name: str

    def propose(self, gathered: Gathered) -> list[Proposal]: ...


def classify(proposal: Proposal) -> bool:
    """Automatic only when the engine says so, the action is one that adds no
    meaning, and no edit changes a conclusion, a scope or the layout."""
    return (
        proposal.automatic
        and proposal.action in AUTOMATIC_ACTIONS
        and not any(e.semantic for e in proposal.edits)
    )


# ------------------------------------------------------------------ applying edits
def _transformed(text: str, edit: Edit) -> str:
    if edit.transform == "absolute-dates":
        return dates.absolutise(text, date.fromisoformat(edit.params["anchor"]))[0]
    if edit.transform == "date-format":
        return dates.fix_formats(text)[0]
    if edit.transform == "repoint-links":
        for old, new in edit.params["map"].items():
            text = text.replace(f"]({old})", f"]({new})")
        return text
    if edit.transform == "append":
        return text.rstrip("\n") + "\n\n" + str(edit.params["text"]).strip()
    raise ValidationError(
        f"unknown transform {edit.transform!r} for {edit.memory_id}",
        field="transform",
        hint="one of " + ", ".join(TRANSFORMS),
    )


def merged_sources(memory: Memory, added: tuple[Source, ...]) -> tuple[Source, ...]:
    """The record's ``sources`` with ``added`` appended (the pipeline's convention:
    once there are several, the primary source is listed too)."""
    known = {s.key for s in memory.all_sources}
    new = tuple(s for s in added if s.key not in known)
    if not new:
        return memory.sources
    existing = memory.sources or ((memory.source,) if memory.source else ())
    return (*existing, *new)


def edit_changes(current: Memory, edit: Edit) -> dict[str, Any]:
    """The field changes ``edit`` makes to ``current`` (status excluded)."""
    changes: dict[str, Any] = {}
    content = edit.content if edit.content is not None else current.content
    title = current.title
    if edit.transform is not None:
        content = _transformed(content, edit)
        if title and edit.transform in ("absolute-dates", "date-format"):
            title = _transformed(title, edit)
    if content != current.content:
        changes["content"] = content
    if title != current.title:
        changes["title"] = title
    if edit.add_sources:
        sources = merged_sources(current, edit.add_sources)
        if sources != current.sources:
            changes["sources"] = sources
    for name, value in edit.set.items():
        if name not in SETTABLE:
            raise ValidationError(
                f"{edit.memory_id}: an engine may not set {name!r}",
                field=name,
                hint="settable: " + ", ".join(SETTABLE),
            )
        if name in ("verified_at", "expires_at"):
            value = parse_time(value, path=current.path, field_name=name, required=False)
        changes[name] = value
    return changes
