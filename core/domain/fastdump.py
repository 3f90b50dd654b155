"""A fast path for writing a record's front matter: the bytes libyaml writes, made
without PyYAML's representer, resolver and serializer.

:meth:`core.domain.record.Memory.to_markdown` writes its front matter with
``yaml.dump`` (libyaml's emitter, :func:`core.domain.fastyaml.full_dumper`). Most of
that call's cost is PyYAML's Python around the C emitter (a node for each value, two
resolver calls for each scalar): about 0.17 ms a record, an eighth of an import's
time. :func:`dump` writes the same text directly for the subset memgov's records use
(a mapping of identifier keys; values that are short strings, ints, floats, null,
booleans, non-empty mappings and lists of them) and returns ``None`` for anything
else, so the caller asks ``yaml.dump``: every text it writes is the text
``yaml.dump`` writes. A string takes the fast path only where libyaml's choice of
style is plain to read off its characters:

- every character is printable to libyaml and none breaks a line but ``\\n``
  (:data:`_SAFE`; libyaml double-quotes a tab, a control character, a byte-order
  mark, a character outside the BMP, and breaks lines at ``\\r``, ``\\x85``,
  ``\\u2028``, ``\\u2029``);
- it is at most :data:`_MAX_CHARS` characters, so no line reaches the width
  (1,000) where libyaml folds it;
- plain (as written) when YAML would read it back as the same text (the resolver
  finds no other type) and nothing in it is an indicator to a block context
  (:func:`_plain_allowed`, libyaml's ``yaml_emitter_analyze_scalar``); else
  single-quoted, quotes doubled, each run of ``n`` line breaks written as ``n + 1``
  and the next line indented, unless a space and a line break touch (libyaml
  double-quotes those: left to ``yaml.dump``).

``tests/domain/test_fastdump.py`` compares :func:`dump` with ``yaml.dump`` on
thousands of random records of every shape, unicode, long lines, line breaks,
quotes and YAML's own words included.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from core.domain.lazy import LazyRegex

#: characters libyaml writes as they are (printable, allow_unicode) and ``\n``: ASCII
#: printable, the BMP from U+00A0 but the surrogates, U+2028/U+2029 (line breaks),
#: U+FEFF (a byte-order mark) and U+FFFE/U+FFFF
#: (compiled by its first use: a command that writes no record does not pay for it)
_SAFE = LazyRegex("[\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*")
#: the longest string the fast path writes: far from the width libyaml folds at
_MAX_CHARS = 400
#: what a plain scalar may not start with (libyaml: an indicator of a block context)
_INDICATOR_START = frozenset("#,[]{}&*!|>'\"%@`")
#: keys the fast path writes: plain identifiers, short enough for a simple key
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
#: the indent libyaml adds for each level (PyYAML's default, best_indent)
_STEP = 2


class _Unsupported(Exception):
    """A value outside the subset: the whole text is left to ``yaml.dump``."""


def dump(data: dict[str, Any]) -> str | None:
    """``yaml.dump(data, Dumper=full_dumper(), sort_keys=False, allow_unicode=True,
    default_flow_style=False, width=1000)`` byte for byte, or None where ``data``
    is outside the subset this module writes (see the module docstring)."""
    if type(data) is not dict or not data or _resolvers() is None:
        return None
    out: list[str] = []
    try:
        _mapping(out, data, 0, inline_first=False, seen=set())
    except _Unsupported:
        return None
    return "".join(out)


def _mapping(
    out: list[str], data: dict[str, Any], indent: int, *, inline_first: bool, seen: set[int]
) -> None:
    """A block mapping whose keys start at column ``indent`` (the first one already
    placed after a sequence's ``- `` when ``inline_first``)."""
    _once(data, seen)
    pad = " " * indent
    for position, (key, value) in enumerate(data.items()):
        if type(key) is not str or not _plain_key(key):
            raise _Unsupported
        if position or not inline_first:
            out.append(pad)
        out.append(key)
        kind = type(value)
        if kind is dict:
            if not value:
                raise _Unsupported  # libyaml writes {} in flow style
            out.append(":\n")
            _mapping(out, value, indent + _STEP, inline_first=False, seen=seen)
        elif kind is list:
            if not value:
                raise _Unsupported  # [] in flow style
            out.append(":\n")
            _sequence(out, value, indent, seen)  # indentless: a list in a mapping
        else:
            out.append(": ")
            out.append(_scalar(value, indent + _STEP))
            out.append("\n")


def _sequence(out: list[str], items: list[Any], indent: int, seen: set[int]) -> None:
    """A block sequence whose ``- `` start at column ``indent``; each item a non-empty
    mapping or a scalar (a list of lists is left to ``yaml.dump``)."""
    _once(items, seen)
    pad = " " * indent
    for item in items:
        out.append(pad)
        out.append("- ")
        kind = type(item)
        if kind is dict and item:
            _mapping(out, item, indent + _STEP, inline_first=True, seen=seen)
        elif kind is dict or kind is list:
            raise _Unsupported
        else:
            out.append(_scalar(item, indent + _STEP))
            out.append("\n")


def _once(container: dict[str, Any] | list[Any], seen: set[int]) -> None:
    """PyYAML writes a mapping or list met twice as an anchor and an alias: left to it."""
    if id(container) in seen:
        raise _Unsupported
    seen.add(id(container))


def _scalar(value: Any, indent: int) -> str:
    """A scalar as libyaml writes it as a block mapping's value or a sequence's item;
    ``indent``: the column its continued lines start at."""
    kind = type(value)
    if kind is str:
        return _string(value, indent)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        text = str(value)
        if _plain_tag(text) != _INT_TAG:
            raise _Unsupported
        return text
    if kind is float:
        # SafeRepresenter.represent_float for a finite value
        text = repr(value).lower()
        if "." not in text and "e" in text:
            text = text.replace("e", ".0e", 1)
        if text in ("nan", "inf", "-inf") or _plain_tag(text) != _FLOAT_TAG:
            raise _Unsupported
        return text
    raise _Unsupported


def _string(value: str, indent: int) -> str:
    if len(value) > _MAX_CHARS or not _SAFE.fullmatch(value):
        raise _Unsupported
    if "\n" not in value:
        if value and _plain_allowed(value) and _plain_tag(value) == _STR_TAG:
            return value
        return "'" + value.replace("'", "''") + "'"
    if " \n" in value or "\n " in value:
        raise _Unsupported  # a space beside a line break: libyaml double-quotes it
    return _single_quoted_lines(value, indent)


def _single_quoted_lines(value: str, indent: int) -> str:
    """A string with line breaks, single-quoted as libyaml writes it: a run of ``n``
    breaks is ``n + 1`` newlines, the next line (and the closing quote after a last
    break) indented to ``indent``."""
    pad = " " * indent
    parts = ["'"]
    at = 0
    end = len(value)
    while at < end:
        cut = value.find("\n", at)
        if cut < 0:
            parts.append(value[at:].replace("'", "''"))
            break
        parts.append(value[at:cut].replace("'", "''"))
        run = cut
        while run < end and value[run] == "\n":
            run += 1
        parts.append("\n" * (run - cut + 1))
        parts.append(pad)
        at = run
    parts.append("'")
    return "".join(parts)


def _plain_allowed(value: str) -> bool:
    """Whether libyaml may write a one-line string plain as a block value: no space
    at either end, no indicator at its start, no ``: `` or ``" #"`` inside, no
    trailing ``:``, not a document marker (``yaml_emitter_analyze_scalar``)."""
    first = value[0]
    if first in _INDICATOR_START or first == " " or value[-1] == " ":
        return False
    if first in "-?:" and (len(value) == 1 or value[1] == " "):
        return False
    if value.startswith(("---", "...")):
        return False
    return not (": " in value or value.endswith(":") or " #" in value)


@functools.lru_cache(maxsize=8192)
def _plain_key(key: str) -> bool:
    """A key written plain: an identifier YAML reads back as that text."""
    return bool(_KEY.fullmatch(key)) and _plain_tag(key) == _STR_TAG


def _plain_tag(value: str) -> str:
    """The tag YAML's resolver gives ``value`` written plain (PyYAML's
    ``Resolver.resolve`` of a plain scalar, without its path resolvers: :func:`dump`
    runs only when the dumper has none)."""
    found = _resolvers()
    assert found is not None  # dump checked it
    by_first, wildcard = found
    for tag, regexp in by_first.get(value[0] if value else "", wildcard):
        if regexp.match(value):
            return tag
    return _STR_TAG


#: an implicit resolver: the tag, and the pattern a plain scalar of that tag matches
_Resolver = tuple[str, "re.Pattern[str]"]
#: a dumper's implicit resolvers by first character, each with the wildcard's joined;
#: and the wildcard's alone, for a first character with none of its own
_Resolvers = tuple[dict[str, list[_Resolver]], list[_Resolver]]


@functools.cache
def _resolvers() -> _Resolvers | None:
    """The dumper's implicit resolvers (what ``Resolver.resolve`` tries for a plain
    scalar by its first character), or None when it has path resolvers: then
    ``yaml.dump`` decides every text."""
    from core.domain.fastyaml import full_dumper

    dumper = full_dumper()
    if dumper.yaml_path_resolvers:
        return None
    table: dict[str | None, list[_Resolver]] = dumper.yaml_implicit_resolvers
    wildcard = list(table.get(None, []))
    return {k: [*v, *wildcard] for k, v in table.items() if k is not None}, wildcard
