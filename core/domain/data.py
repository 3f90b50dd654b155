"""One way to turn memgov's dataclasses into plain data (JSON, ``--json``, MCP).

:func:`to_data` walks a value: a dataclass becomes a dict of its fields in
their declared order, enums their value, dates and times ISO strings, paths
strings, tuples and sets lists; mappings and lists are walked in turn.

A field says how it is shown through its metadata (:func:`shown_as`):

- ``key``: the name it has in the data (``scan`` shown as ``secret_scan``);
- ``skip``: left out (a back reference, a cache);
- ``convert``: a function applied to the value first (a store shown by its root);
- ``flatten``: its data (a mapping) merged into the parent's, not nested.

A class may list properties to add after its fields in ``DATA_PROPERTIES``
(``Decision.revertible``), each a name or a ``(key, name)`` pair. Nothing else
is special: a new dataclass is shown correctly without code of its own.

The store's own file formats (a record's front matter, an event line, a
batch's manifest) keep their explicit writers: they are formats on disk, not
views, and must not change when a field is added.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from datetime import date, datetime
from pathlib import PurePath
from typing import Any


def shown_as(
    *,
    key: str | None = None,
    skip: bool = False,
    convert: Callable[[Any], Any] | None = None,
    flatten: bool = False,
) -> dict[str, Any]:
    """Field metadata for :func:`to_data`: ``field(metadata=shown_as(key=...))``."""
    meta: dict[str, Any] = {}
    if key is not None:
        meta["key"] = key
    if skip:
        meta["skip"] = True
    if convert is not None:
        meta["convert"] = convert
    if flatten:
        meta["flatten"] = True
    return meta


#: how each dataclass is shown: its fields' (name, key, convert, flatten), then its
#: ``DATA_PROPERTIES`` as (key, name); worked out once a class (a queue of 1,000
#: conflicts shows 185,000 values, and ``dataclasses.fields`` is not free)
_Plan = tuple[
    tuple[tuple[str, str, Callable[[Any], Any] | None, bool], ...], tuple[tuple[str, str], ...]
]
_PLANS: dict[type, _Plan] = {}
_PLAIN = (str, int, float, bool, type(None))


def _plan(cls: type) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        fields = tuple(
            (
                f.name,
                f.metadata.get("key", f.name),
                f.metadata.get("convert"),
                bool(f.metadata.get("flatten")),
            )
            for f in dataclasses.fields(cls)
            if not f.metadata.get("skip")
        )
        properties = tuple(
            entry if isinstance(entry, tuple) else (entry, entry)
            for entry in getattr(cls, "DATA_PROPERTIES", ())
        )
        plan = _PLANS[cls] = (fields, properties)
    return plan


def to_data(value: Any) -> Any:
    """``value`` as plain data: dicts, lists, strings, numbers, booleans and None."""
    if type(value) in _PLAIN:  # the most common, exactly (an enum of str is not one)
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields, properties = _plan(type(value))
        out: dict[str, Any] = {}
        for name, key, convert, flatten in fields:
            item = getattr(value, name)
            data = to_data(convert(item) if convert else item)
            if flatten:
                out.update(data)
            else:
                out[key] = data
        for key, name in properties:
            out[key] = to_data(getattr(value, name))
        return out
    if isinstance(value, enum.Enum):
        return to_data(value.value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Mapping):
        return {str(to_data(k)): to_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [to_data(v) for v in value]
        return sorted(items) if isinstance(value, set | frozenset) else items
    raise TypeError(f"to_data cannot show a {type(value).__name__}")


class AsData:
    """A dataclass base that gives ``to_dict()``: :func:`to_data` of the instance."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        data = to_data(self)
        assert isinstance(data, dict)
        return data
