"""What the store remembers of an agent's folder it imported from or syncs with.

One JSON file per folder in the private store, ``sync/<format>-<key>.json``
(:func:`state_path`; the key is the folder's name and a hash of its path):

- ``index``: each ``MEMORY.md`` of the folder as a list of lines, each either
  the line's own text (a heading, prose, a blank line, a link to a file memgov
  did not read) or the *slot* of the record that stands there (a topic file's
  name, ``MEMORY.md:12`` for a note), or a *hidden* slot: the place of a record
  whose line a sync took out of the file because the record is no longer active
  (superseded, expired), so the line comes back there when the record is active
  again (a revert). The record's own line is in the record (its
  ``origin.index`` or ``origin.note``, :mod:`core.importers.claude_code.origin`), so an
  erasure takes it away with the record;
- ``files``: for a sync, each file's hash on the agent's side and on memgov's
  side when the folder was last synced (:mod:`core.importers.claude_code.sync`).

The file is untrusted input (a store may come from anyone's push): every field
is checked, every file name must stay inside the folder, and a file that fails
is reported and treated as absent (:class:`StateError`), never half-read.
A line holding a credential is never kept (an export leaves it out and says so).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.domain import secrets
from core.domain.errors import MemgovError
from core.domain.record import text_problem
from core.importers.text import slug
from core.store.fsutil import UnsafePath, check_relative
from core.store.store import Store

SYNC_DIR = "sync"
MAX_STATE_BYTES = 8 * 1024 * 1024
MAX_LINE_CHARS = 16_000


class StateError(MemgovError):
    """A folder's state file in the store cannot be used; names the file and field."""


def folder_key(folder: Path) -> str:
    """The folder's name and a hash of its absolute path: two folders of one name
    (every in-repository ``.claude/memory``) never share a state file."""
    digest = hashlib.sha256(str(folder).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{slug(folder.name, limit=40)}-{digest}"


def state_path(fmt: str, key: str) -> str:
    return f"{SYNC_DIR}/{fmt}-{key}.json"


@dataclass
class IndexTemplate:
    """One MEMORY.md: ``{"text": line}``, ``{"slot": slot}`` or ``{"hidden": slot}``
    (a record's line a sync took out, kept for when the record is active again) per
    line of the file, hidden ones between them."""

    lines: list[dict[str, str]] = field(default_factory=list)
    final_newline: bool = True

    def slots(self) -> list[str]:
        return [line["slot"] for line in self.lines if "slot" in line]

    def with_hidden(self, previous: IndexTemplate | None) -> IndexTemplate:
        """This template (of the file as it is now) with ``previous``'s hidden slots
        put back where they stood: after the line that stood before each in
        ``previous`` (matched line for line), a slot this one lists again left out."""
        if previous is None or not any("hidden" in line for line in previous.lines):
            return self
        listed = {line.get("slot") for line in self.lines} | {
            line.get("hidden") for line in self.lines
        }
        old = [line for line in previous.lines if "hidden" not in line]
        where: dict[int, int] = {}  # index in old -> index in self.lines
        matcher = difflib.SequenceMatcher(
            a=[_line_key(x) for x in old], b=[_line_key(x) for x in self.lines], autojunk=False
        )
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                where[block.a + k] = block.b + k
        after: dict[int, list[dict[str, str]]] = {}  # -1: before every line
        seen = -1  # index in old of the last line that is not hidden
        anchor = -1
        for line in previous.lines:
            if "hidden" not in line:
                seen += 1
                anchor = where.get(seen, anchor)
                continue
            if line["hidden"] not in listed:
                after.setdefault(anchor, []).append(dict(line))
                listed.add(line["hidden"])
        lines = [dict(x) for x in after.get(-1, [])]
        for number, line in enumerate(self.lines):
            lines.append(dict(line))
            lines += [dict(x) for x in after.get(number, [])]
        return IndexTemplate(lines=lines, final_newline=self.final_newline)


def _line_key(line: dict[str, str]) -> tuple[str, str]:
    ((kind, text),) = line.items()
    return kind, text


@dataclass
class FolderState:
    format: str
    key: str
    folder: str
    index: dict[str, IndexTemplate] = field(default_factory=dict)
    #: rel -> {"agent": hash, "memgov": hash} at the last sync
    files: dict[str, dict[str, str]] = field(default_factory=dict)
    synced_at: str = ""

    @property
    def path(self) -> str:
        return state_path(self.format, self.key)

    def to_json(self) -> str:
        data = {
            "format": self.format,
            "key": self.key,
            "folder": self.folder,
            "synced_at": self.synced_at,
            "index": {
                rel: {"lines": t.lines, "final_newline": t.final_newline}
                for rel, t in sorted(self.index.items())
            },
            "files": {rel: dict(h) for rel, h in sorted(self.files.items())},
        }
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def template_line(text: str, warnings: list[str], where: str) -> dict[str, str] | None:
    """A line of MEMORY.md memgov keeps as text; None (and a warning) for one holding a
    credential, which is never written to the store."""
    if secrets.scan(text):
        warnings.append(
            f"{where}: holds a credential; the line is not kept, and an export leaves it out"
        )
        return None
    return {"text": text}


def read_state(store: Store, fmt: str, key: str) -> FolderState | None:
    """The folder's state in ``store`` (None when there is none); a StateError
    naming the file and the field when it cannot be used."""
    rel = state_path(fmt, key)
    store.settle()  # a state a killed transaction wrote is not the folder's
    path = store.root / rel
    if path.is_symlink():
        raise StateError(f"{rel}: a symbolic link; memgov does not follow it. Remove it")
    if not path.is_file():
        return None
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StateError(f"{rel}: cannot be read ({exc.strerror})") from None
    if len(raw) > MAX_STATE_BYTES:
        raise StateError(f"{rel}: {len(raw):,} bytes, over {MAX_STATE_BYTES:,}; remove it")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise StateError(f"{rel}: not JSON; remove it and sync again (a new state)") from None
    return parse_state(data, rel)


def parse_state(data: Any, rel: str) -> FolderState:
    def bad(name: str, what: str) -> StateError:
        return StateError(f"{rel}: field {name} {what}; remove the file and sync again")

    if not isinstance(data, Mapping):
        raise bad("(top)", "must be a mapping")
    texts: dict[str, str] = {}
    for name in ("format", "key", "folder", "synced_at"):
        value = data.get(name, "")
        if not isinstance(value, str) or text_problem(value, limit=4096, multiline=False):
            raise bad(name, "must be one line of text")
        texts[name] = value
    index: dict[str, IndexTemplate] = {}
    raw_index = data.get("index", {})
    if not isinstance(raw_index, Mapping):
        raise bad("index", "must be a mapping of file to lines")
    for name, value in raw_index.items():
        _check_rel(name, f"index.{name}" if isinstance(name, str) else "index", bad)
        lines = value.get("lines") if isinstance(value, Mapping) else None
        if not isinstance(lines, list):
            raise bad(f"index.{name}.lines", "must be a list")
        template = IndexTemplate(final_newline=value.get("final_newline") is not False)
        for number, line in enumerate(lines):
            where = f"index.{name}.lines[{number}]"
            if not isinstance(line, Mapping) or len(line) != 1:
                raise bad(where, "must be {text: ...}, {slot: ...} or {hidden: ...}")
            ((kind, text),) = line.items()
            if kind not in ("text", "slot", "hidden") or not isinstance(text, str):
                raise bad(where, "must be {text: ...}, {slot: ...} or {hidden: ...}")
            if "\n" in text or text_problem(text, limit=MAX_LINE_CHARS, multiline=True):
                raise bad(where, "must be one line of text")
            template.lines.append({kind: text})
        index[name] = template
    files: dict[str, dict[str, str]] = {}
    raw_files = data.get("files", {})
    if not isinstance(raw_files, Mapping):
        raise bad("files", "must be a mapping of file to hashes")
    for name, hashes in raw_files.items():
        _check_rel(name, "files", bad)
        if not isinstance(hashes, Mapping) or not all(
            k in ("agent", "memgov") and isinstance(v, str) and len(v) < 100
            for k, v in hashes.items()
        ):
            raise bad(f"files.{name}", "must map agent and memgov to hashes")
        files[name] = {str(k): str(v) for k, v in hashes.items()}
    return FolderState(
        format=texts["format"],
        key=texts["key"],
        folder=texts["folder"],
        index=index,
        files=files,
        synced_at=texts["synced_at"],
    )


def _check_rel(name: Any, where: str, bad: Any) -> None:
    if not isinstance(name, str):
        raise bad(where, "names a file with something other than text")
    try:
        clean = check_relative(name)
    except UnsafePath:
        raise bad(where, "names a file outside the folder") from None
    if clean != name or text_problem(name, limit=1024, multiline=False):
        raise bad(where, "names a file outside the folder")


def states(store: Store, fmt: str) -> list[FolderState]:
    """Every readable state of ``fmt`` in the store (unreadable ones are left out)."""
    found = []
    folder = store.root / SYNC_DIR
    if folder.is_symlink() or not folder.is_dir():
        return []
    for path in sorted(folder.glob(f"{fmt}-*.json")):
        key = path.stem.removeprefix(f"{fmt}-")
        try:
            state = read_state(store, fmt, key)
        except StateError:
            continue
        if state is not None:
            found.append(state)
    return found
