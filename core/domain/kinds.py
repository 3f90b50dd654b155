"""The closed vocabularies of a memory record, as string enums.

A record's ``type``, ``scope`` and ``status`` each take one of a few fixed words
(SPEC sections 2 and 3). Each enum here is the one list of those words; the
tuples the record module checks against (``TYPES``, ``SCOPES``, ``STATUSES``)
are made from them, in the same order, as plain strings.

A member is a ``str`` and equals its word (``Status.ACTIVE == "active"``), so
code may compare a record's field with either; what is written to a file or
printed is always the plain word.
"""

from __future__ import annotations

from enum import StrEnum


class MemoryType(StrEnum):
    """What kind of memory a record holds (SPEC section 2), in the order shown."""

    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PREFERENCE = "preference"
    REFLECTION = "reflection"


class Scope(StrEnum):
    """Who a memory is for. A store holds ``private`` or ``team`` memories; a
    ``task`` memory lives only as long as the task it came from."""

    TASK = "task"
    PRIVATE = "private"
    TEAM = "team"


class Status(StrEnum):
    """Where a record is in its lifecycle (SPEC section 3; see core.domain.lifecycle)."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    CONFLICT = "conflict"
    EXPIRED = "expired"
    DELETED = "deleted"
