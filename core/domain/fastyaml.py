"""A fast path for the front matter memgov itself writes.

PyYAML's C loader scans in C but builds every object in Python, which costs
about 0.3 ms per memory file: most of a cold open. The files memgov writes use
a tiny, fixed subset of YAML (see :meth:`core.domain.record.Memory.to_markdown`):
top-level ``key: scalar`` lines, one level of nested mapping, and lists of
flat mappings, with plain or single-quoted scalars. :func:`parse` reads
exactly that subset and returns ``None`` for anything else, so the caller
falls back to the full YAML loader: hand-edited files still parse as YAML
says. A plain scalar that starts with a letter is text unless it is one of
YAML 1.1's null or boolean words (PyYAML's resolver keys those two alone on a
letter), a decimal integer is an int and ``1.5`` a float; any other plain
scalar is typed by PyYAML's own resolver, imported on first need, so both
paths agree (a property test checks it) and a file of the usual kinds
(``memgov.yaml``, a memory's front matter) is read without importing PyYAML.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from core.domain.lazy import LazyRegex

_LINE = re.compile(r"^(?P<indent>(?:  |- )?)(?P<key>[A-Za-z_][A-Za-z0-9_]*):(?: (?P<value>.*))?$")
_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)$")
#: characters the fast path leaves to YAML: what its reader refuses anywhere, and
#: the line breaks other than "\n" (YAML breaks lines at them, this parser would not)
_BREAKS = re.compile("[\r\x85\u2028\u2029]")
#: (YAML 1.1's printable characters, c-printable; a test checks it refuses what
#: PyYAML's reader refuses; compiled by its first use: its ranges cost milliseconds to
#: compile, which a command that reads no YAML does not pay)
_NON_PRINTABLE = LazyRegex(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_PLAIN_START_BAD = set("[]{}\"'!&*|>%@`#,?:-")
#: YAML 1.1's null words, and its boolean words (left to YAML: see _scalar)
NULL_WORDS = frozenset({"~", "null", "Null", "NULL"})
BOOL_WORDS = frozenset(
    {
        *("yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE"),
        *("false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"),
    }
)
_DECIMAL = re.compile(r"^[-+]?[0-9]+\.[0-9]*$")
_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"


class _Unsupported(Exception):
    pass


_seen: dict[str, Any] = {}  # plain scalar -> its value (values repeat across files)


def _scalar(raw: str) -> Any:
    if raw in _seen:
        return _seen[raw]
    if raw.startswith("'"):
        if len(raw) < 2 or not raw.endswith("'"):
            raise _Unsupported
        inner = raw[1:-1]
        if "'" in inner.replace("''", ""):
            raise _Unsupported
        return inner.replace("''", "'")
    if raw == "[]":
        return []
    if raw == "{}":
        return {}
    if (
        not raw
        or raw[0] in _PLAIN_START_BAD
        or raw != raw.strip()
        or ": " in raw
        or " #" in raw
        or raw.endswith(":")
        or "\t" in raw
    ):
        raise _Unsupported
    value = _plain(raw)
    if len(raw) <= 40 and len(_seen) < 50_000:
        _seen[raw] = value
    return value


def _plain(raw: str) -> Any:
    """A plain scalar's value: the usual forms here, the rest by PyYAML's resolver."""
    if raw in NULL_WORDS:
        return None
    if raw in BOOL_WORDS:
        raise _Unsupported  # booleans: leave to YAML
    if raw[0].isascii() and raw[0].isalpha():
        return raw  # only the null and boolean words start with a letter and are not text
    if _INT.match(raw):
        return int(raw)
    if _DECIMAL.match(raw):
        return float(raw)
    return _resolved(raw)


_resolver: Any = None


def _resolved(raw: str) -> Any:
    """A plain scalar typed by PyYAML's own resolver (imported on first need)."""
    global _resolver
    from yaml.nodes import ScalarNode

    if _resolver is None:
        from yaml.resolver import Resolver

        _resolver = Resolver()
    tag = _resolver.resolve(ScalarNode, raw, (True, False))
    if tag == _STR:
        return raw
    if tag == _NULL:
        return None
    if tag == _INT_TAG and _INT.match(raw):
        return int(raw)
    if tag == _FLOAT_TAG and _FLOAT.match(raw):
        return float(raw)
    raise _Unsupported  # booleans, timestamps, octal, sexagesimal...: leave to YAML


def parse(block: str) -> dict[str, Any] | None:
    """The mapping in a front-matter block, or None when it is outside the subset."""
    if _BREAKS.search(block) or _NON_PRINTABLE.search(block):
        return None
    try:
        # a block of blank lines is no mapping: YAML reads it as null
        return _parse(block) or None
    except _Unsupported:
        return None


def _parse(block: str) -> dict[str, Any]:
    top: dict[str, Any] = {}
    open_key: str | None = None  # a top-level key waiting for its nested block
    current: dict[str, Any] | None = None  # the mapping nested lines go into
    for line in block.split("\n"):
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            raise _Unsupported
        indent, key, value = match["indent"], match["key"], match["value"]
        if not indent:
            if key in top:
                raise _Unsupported  # duplicate keys: let YAML decide
            open_key, current = None, None
            if value is None:
                open_key = key
                top[key] = None
            else:
                top[key] = _scalar(value)
            continue
        if open_key is None or value is None:
            raise _Unsupported
        if indent == "- ":
            if top[open_key] is None:
                top[open_key] = []
            if not isinstance(top[open_key], list):
                raise _Unsupported
            current = {}
            top[open_key].append(current)
        else:
            if top[open_key] is None:
                top[open_key] = {}
                current = top[open_key]
            elif isinstance(top[open_key], list) and current is None:
                raise _Unsupported
        if current is None or key in current:
            raise _Unsupported
        current[key] = _scalar(value)
    return top


@functools.cache
def full_loader() -> Any:
    """PyYAML's safe loader for what the fast path declines: libyaml's C loader when
    present (several times faster), else the pure-Python one. PyYAML is imported here,
    on first need, not by every command that reads a store."""
    try:
        from yaml import CSafeLoader

        return CSafeLoader
    except ImportError:  # pragma: no cover - depends on how PyYAML was built
        from yaml import SafeLoader

        return SafeLoader


@functools.cache
def full_dumper() -> Any:
    """PyYAML's safe dumper, libyaml's C one when present; imported on first need."""
    try:
        from yaml import CSafeDumper

        return CSafeDumper
    except ImportError:  # pragma: no cover - depends on how PyYAML was built
        from yaml import SafeDumper

        return SafeDumper
