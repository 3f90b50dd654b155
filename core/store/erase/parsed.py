"""Erasure inside structured files: parsed, scrubbed value by value, written back.

An erased record's words stand in the store's structured files too: an event's
reason, a request's reason, a held item's title, a decision's quote. Replacing
bytes across such a file could cut through its structure (a needle that spans a
quote and a comma) or through an identifier that happens to contain the words (a
record id is its title's slug and a hash: ``deploy-checklist-3debb0d0``). So a
structured file is parsed; each string value (never a key) has the needles
replaced; a value is never cut inside a name (:func:`inside_name`: an id's
``-<hash>`` or a file's ``.md`` right after the needle); and the file is written
back in the layout memgov writes it (:func:`dump_json`, :func:`dump_yaml`).

A file that does not parse is already broken: the record's words still leave it,
by bytes (:func:`core.store.erase.scrub.needle_edits`), names kept likewise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

#: what follows a needle that stands inside a name rather than in a text: the hash of
#: a memgov id (``<slug>-<hex>``: records, requests, decisions, held items) or the
#: extension of a file name (the agent's ``deploy-checklist.md``)
_NAME_TAIL = re.compile(rb"(?:-[0-9a-f]{6,}|\.(?:md|json|jsonl|ya?ml|txt))(?![A-Za-z0-9_])")
_NAME_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./")

Scrubber = Callable[[bytes], bytes]


def inside_name(data: bytes, start: int, end: int, needle: bytes) -> bool:
    """Whether the needle found at data[start:end] is part of an id or a file name:
    a needle of name characters only (a title's slug) followed by an id's hash or a
    file's extension. Such a name is structure (what points at the record, which
    file the agent wrote), not the record's words; erasing it would break the id."""
    if not needle or any(b not in _NAME_BYTES for b in needle):
        return False
    return _NAME_TAIL.match(data, end) is not None


def scrub_value(value: Any, scrub: Scrubber) -> tuple[Any, bool]:
    """``value`` with every string in it scrubbed (keys left as they are), and whether
    anything changed. Shared containers (YAML aliases) are walked once."""
    memo: dict[int, tuple[Any, bool]] = {}

    def walk(node: Any) -> tuple[Any, bool]:
        if isinstance(node, str):
            raw = node.encode("utf-8", "surrogatepass")
            new = scrub(raw)
            return (node, False) if new == raw else (new.decode("utf-8", "surrogatepass"), True)
        if not isinstance(node, (dict, list)):
            return node, False
        seen = memo.get(id(node))
        if seen is not None:
            return seen
        memo[id(node)] = (node, False)  # a cycle comes back to itself unchanged
        changed = False
        out: Any
        if isinstance(node, dict):
            out = {}
            for key, item in node.items():
                out[key], moved = walk(item)
                changed = changed or moved
        else:
            out = []
            for item in node:
                new_item, moved = walk(item)
                out.append(new_item)
                changed = changed or moved
        memo[id(node)] = (out if changed else node, changed)
        return memo[id(node)]

    return walk(value)


# ------------------------------------------------------------------------- JSON
def load_json(data: bytes) -> Any:
    """The JSON document, or None when it is not one (a broken or hostile file)."""
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def dump_json(value: Any) -> bytes:
    """As memgov writes its JSON files (decisions, sync state, proposals, quarantine)."""
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def dump_event(value: Any) -> bytes:
    """One line of the event log, as :meth:`core.store.events.Event.to_line` writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def json_file(
    data: bytes,
    scrub: Scrubber,
    broken: Scrubber,
    reduce: Callable[[Any], bool] | None = None,
) -> bytes:
    """A JSON file scrubbed value by value (``reduce`` first changes the parsed document
    in place and says whether it did), or by ``broken`` when it does not parse;
    ``data`` itself when nothing changed."""
    value = load_json(data)
    if value is None:
        return broken(data)
    reduced = reduce(value) if reduce is not None else False
    new, changed = scrub_value(value, scrub)
    return dump_json(new) if changed or reduced else data


def event_line(line: bytes, scrub: Scrubber, broken: Scrubber) -> bytes:
    """One event line (no newline) scrubbed value by value; ``line`` when unchanged."""
    value = load_json(line)
    if not isinstance(value, dict):
        return broken(line)
    new, changed = scrub_value(value, scrub)
    return dump_event(new) if changed else line


# ------------------------------------------------------------------------- YAML
def load_yaml(data: bytes) -> tuple[Any, bool]:
    """The YAML document and whether it parsed."""
    import yaml  # only an erasure that meets a YAML file needs it

    from core.domain import fastyaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        text = data.decode("utf-8")
        found = fastyaml.parse(text)
        return (found if found is not None else yaml.load(text, Loader=loader)), True
    except (yaml.YAMLError, UnicodeDecodeError, RecursionError, ValueError, TypeError):
        return None, False


def dump_yaml(value: Any, *, width: int | None = None) -> bytes:
    """As memgov writes its YAML files (requests, held items: block style, in order)."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text = yaml.dump(value, Dumper=dumper, sort_keys=False, allow_unicode=True, width=width or 80)
    return text.encode("utf-8")


def yaml_file(data: bytes, scrub: Scrubber, broken: Scrubber, *, width: int | None = None) -> bytes:
    """A YAML file scrubbed value by value, or by ``broken`` when it does not parse."""
    value, ok = load_yaml(data)
    if not ok:
        return broken(data)
    new, changed = scrub_value(value, scrub)
    return dump_yaml(new, width=width) if changed else data


def front_matter_file(data: bytes, scrub: Scrubber, broken: Scrubber) -> bytes:
    """A Markdown file with YAML front matter (a memory record's version in history):
    the front matter scrubbed as YAML, the body as text."""
    head, body = split_front_matter(data)
    if head is None:
        return broken(data)
    new_body = broken(body)
    value, ok = load_yaml(head)
    if not ok or not isinstance(value, dict):
        new_head = broken(head)
    else:
        scrubbed, changed = scrub_value(value, scrub)
        new_head = dump_yaml(scrubbed, width=1000) if changed else head
    if new_head == head and new_body == body:
        return data
    return b"---\n" + new_head + b"---\n" + new_body


def split_front_matter(data: bytes) -> tuple[bytes | None, bytes]:
    """(the front matter's YAML, the body), or (None, data) without front matter."""
    if not data.startswith(b"---\n"):
        return None, data
    end = data.find(b"\n---\n", 3)
    if end == -1:
        return None, data
    return data[4 : end + 1], data[end + 5 :]


def lines_with(data: bytes, spans: Sequence[tuple[int, int]], hi: int) -> list[tuple[int, int]]:
    """The whole lines (start, end without the newline) that hold the spans, merged
    where a span runs over a line break, in order; none ends past ``hi``."""
    lines: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        line_start = data.rfind(b"\n", 0, start) + 1
        line_end = data.find(b"\n", max(end - 1, start), hi)
        line_end = hi if line_end == -1 else line_end
        if lines and line_start <= lines[-1][1]:
            lines[-1] = (lines[-1][0], max(lines[-1][1], line_end))
        else:
            lines.append((line_start, line_end))
    return lines
