"""The mapping file: the user's corrections of what an importer derived.

The mapping file (``memgov-import.yaml`` in the imported folder, or the
``mapping`` argument) corrects what the importer derived::

    project: liyyro           # the project name used in subjects
    owner: alice              # the user in user:<owner> subjects
    files:                    # per file, or per file:line (the origin in the report)
      feedback_testing.md:
        subject: user:alice/project:liyyro
        attribute: test_database
        type: preference      # semantic, preference, episodic or reflection
        condition: env=ci
      MEMORY.md:42:
        attribute: docs_language
      scratch.md:
        skip: not a memory

:func:`load_mapping` reads and validates it (a :class:`ValidationError` names
the file and field); :meth:`ImportMapping.apply` changes the entries it names
and warns about the names that match none. Without an ``owner``,
:func:`default_owner` is the private store's owner, else the actor's name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from core.domain.errors import ValidationError
from core.domain.record import TYPES
from core.importers.entries import Entry
from core.store.fsutil import HostileEntry, read_entry
from core.store.workspace import Workspace

MAPPING_FILE = "memgov-import.yaml"
#: a mapping file larger than this is not read (it is a few lines)
MAX_MAPPING_BYTES = 1024 * 1024
ENTRY_KEYS = ("subject", "attribute", "type", "condition", "title", "skip")
_MAPPING_HINT = (
    "write e.g. 'files: {feedback_testing.md: {attribute: test_database}}'; "
    f"per-file keys: {', '.join(ENTRY_KEYS)}"
)


@dataclass(frozen=True)
class ImportMapping:
    """The user's corrections: project and owner names, and keys per file or file:line."""

    source: str = "the defaults"
    project: str | None = None
    owner: str | None = None
    files: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def apply(self, entries: Iterable[Entry], warnings: list[str]) -> list[Entry]:
        out = []
        used: set[str] = set()
        for entry in entries:
            changes: dict[str, Any] = {}
            for key in (entry.file, entry.origin):
                if key in self.files:
                    used.add(key)
                    changes.update(self.files[key])
            out.append(self._changed(entry, changes) if changes else entry)
        for key in sorted(set(self.files) - used):
            warnings.append(f"{self.source}: files.{key} matches no memory found in the folder")
        return out

    def _changed(self, entry: Entry, changes: dict[str, Any]) -> Entry:
        skip = changes.pop("skip", None)
        if changes:
            entry = replace(entry, **changes, notes=(*entry.notes, f"set by {self.source}"))
        if skip:
            why = f": {skip}" if isinstance(skip, str) else ""
            entry = replace(entry, skip=f"skipped by {self.source}{why}")
        return entry


def load_mapping(folder: Path, mapping: Mapping[str, Any] | Path | None) -> ImportMapping:
    """The mapping argument (a mapping or a YAML file), else memgov-import.yaml in the folder."""
    if isinstance(mapping, Mapping):
        return parse_mapping(mapping, source="the mapping argument")
    path = Path(mapping) if mapping is not None else folder / MAPPING_FILE
    if mapping is None and not path.is_file():
        return ImportMapping()
    try:
        raw = read_entry(path, limit=MAX_MAPPING_BYTES)
        data = yaml.safe_load((raw or b"").decode("utf-8"))
    except HostileEntry as exc:
        raise ValidationError(exc.problem, path=path) from None
    except OSError as exc:
        raise ValidationError(f"cannot be read: {exc.strerror}", path=path) from None
    except UnicodeDecodeError:
        raise ValidationError("is not UTF-8", path=path, hint="re-save it as UTF-8") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ValidationError(f"is not valid YAML{where}", path=path, hint=_MAPPING_HINT) from None
    return parse_mapping(data, source=str(path))


def parse_mapping(data: Any, *, source: str) -> ImportMapping:
    if data is None:
        return ImportMapping(source=source)
    if not isinstance(data, Mapping):
        raise ValidationError(
            "must be a mapping with project, owner and files", path=source, hint=_MAPPING_HINT
        )
    for key in data:
        if key not in ("project", "owner", "files"):
            raise ValidationError(
                "unknown key", path=source, field=str(key), hint="use project, owner or files"
            )
    files = data.get("files") or {}
    if not isinstance(files, Mapping):
        raise ValidationError(
            "must map file names to fields", path=source, field="files", hint=_MAPPING_HINT
        )
    return ImportMapping(
        source=source,
        project=_mapping_text(data.get("project"), source, "project"),
        owner=_mapping_text(data.get("owner"), source, "owner"),
        files={
            str(name): _file_rules(rules, source, f"files.{name}") for name, rules in files.items()
        },
    )


def _file_rules(rules: Any, source: str, where: str) -> dict[str, Any]:
    if not isinstance(rules, Mapping):
        raise ValidationError(
            "must be a mapping of fields", path=source, field=where, hint=_MAPPING_HINT
        )
    out: dict[str, Any] = {}
    for key, value in rules.items():
        name = f"{where}.{key}"
        if key not in ENTRY_KEYS:
            raise ValidationError(
                "unknown field",
                path=source,
                field=name,
                hint=f"use one of: {', '.join(ENTRY_KEYS)}",
            )
        if key == "skip":
            if not isinstance(value, bool | str):
                raise ValidationError("must be true or a reason", path=source, field=name)
            out[key] = value
            continue
        text = _mapping_text(value, source, name)
        if key == "type" and text not in TYPES[1:]:
            raise ValidationError(
                f"unknown type {text!r}",
                path=source,
                field=name,
                hint=f"one of: {', '.join(TYPES[1:])} (working memory is never imported)",
            )
        out[key] = text
    return out


def _mapping_text(value: Any, source: str, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(
            "must be non-empty text", path=source, field=name, hint="quote the value"
        )
    return value.strip()


def default_owner(workspace: Workspace, actor: str) -> str:
    private = workspace.private
    if private is not None and private.config.owner:
        return private.config.owner
    return actor.strip().split("@")[0] or "me"
