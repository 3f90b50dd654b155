"""A fast path for the front matter memgov itself writes.

PyYAML's C loader scans in C but builds every object in Python, which costs
about 0.3 ms per memory file: most of a cold open. The files memgov writes use
a tiny, fixed subset of YAML (see :meth:`core.domain.record.Memory.to_markdown`):
top-level ``key: scalar`` lines, one level of nested mapping, and lists of
flat mappings, with plain or single-quoted scalars. :func:`parse` reads
exactly that subset and returns ``None`` for anything else, so the caller
falls back to the full YAML loader: hand-edited files still parse as YAML
says. Plain scalars are typed by PyYAML's own resolver, so both paths agree;
a property test checks it.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.nodes import ScalarNode
from yaml.reader import Reader
from yaml.resolver import Resolver

_LINE = re.compile(r"^(?P<indent>(?:  |- )?)(?P<key>[A-Za-z_][A-Za-z0-9_]*):(?: (?P<value>.*))?$")
_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)$")
#: characters the fast path leaves to YAML: what its reader refuses anywhere, and
#: the line breaks other than "\n" (YAML breaks lines at them, this parser would not)
_BREAKS = re.compile("[\r\x85\u2028\u2029]")
#: (YAML's reader has compiled its pattern already: compiling it again into one
#: alternation cost 3 ms of every command's start-up)
_NON_PRINTABLE = Reader.NON_PRINTABLE
_PLAIN_START_BAD = set("[]{}\"'!&*|>%@`#,?:-")
_resolver = Resolver()
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
    tag = _resolver.resolve(ScalarNode, raw, (True, False))  # type: ignore[no-untyped-call]
    value: Any
    if tag == _STR:
        value = raw
    elif tag == _NULL:
        value = None
    elif tag == _INT_TAG and _INT.match(raw):
        value = int(raw)
    elif tag == _FLOAT_TAG and _FLOAT.match(raw):
        value = float(raw)
    else:
        raise _Unsupported  # booleans, timestamps, octal, sexagesimal...: leave to YAML
    if len(raw) <= 40 and len(_seen) < 50_000:
        _seen[raw] = value
    return value


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
