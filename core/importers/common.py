"""What the importers share: entries, the mapping file, the pipeline run, the report.

An importer reads a foreign memory folder into :class:`Entry` objects (one per
memory found: its key, its content, and source pointers back into the original
files) and hands them to :func:`run_entries`. That sends each entry through
:func:`core.writing.pipeline.remember` (the write gate, the secret scanner, duplicates
and conflicts) and answers with an :class:`ImportReport`.

Repeatable imports. An entry is not sent to the pipeline again when

- a record of the target store, in any status, has a source at the same file
  and line and the same value (:func:`core.writing.pipeline.same_value`): it was
  imported, merged, put in conflict, superseded or corrected before;
- a person erased a record with the same content from the store: importing it
  again would undo their decision;
- an earlier import refused the same file, line, content and gate inputs. Each
  import run that changed a store ends with one ``import`` event there, which
  lists its refusals by fingerprint (a hash, never the content);
- it comes from a memgov export of this store (``memgov.id`` in its front
  matter) and that record still holds the same value.

So importing an unchanged folder twice makes no record, event or commit the
second time. The imported folder itself is only ever read.

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
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from core.domain import gate, policy, secrets
from core.domain.errors import MemgovError, SecretBlocked, TransitionError, ValidationError
from core.domain.record import TYPES, Memory, Source, content_hash
from core.domain.values import same_value
from core.store.events import Event
from core.store.store import STATE_DIR, Store
from core.store.workspace import Workspace
from core.writing.pipeline import Candidate, Outcome, remember

MAPPING_FILE = "memgov-import.yaml"
IMPORT_ACTION = "import"
MAX_FILE_BYTES = 1024 * 1024  # a file larger than this is not read
WITHHELD = "[withheld: matches a secret or sensitive pattern]"
OUTCOMES = (
    "written",
    "merged",
    "conflict",
    "refused",
    "skipped",
    "already-imported",
    "failed",
)
ENTRY_KEYS = ("subject", "attribute", "type", "condition", "title", "skip")
_MAPPING_HINT = (
    "write e.g. 'files: {feedback_testing.md: {attribute: test_database}}'; "
    f"per-file keys: {', '.join(ENTRY_KEYS)}"
)


class FolderError(MemgovError):
    """A folder to import from or export to cannot be used; says why and what to do."""


# ------------------------------------------------------------------------ entries
@dataclass(frozen=True)
class GateDefaults:
    """What the importer, as the caller of the write gate, says about one kind of
    memory: s1 (stable), s2 (reusable) and the record's confidence."""

    s1: float
    s2: float
    confidence: float


@dataclass(frozen=True)
class Entry:
    """One memory found in a foreign folder, before the pipeline sees it."""

    origin: str  # "feedback_testing.md:6": the file (relative) and line it was read from
    kind: str  # the foreign format's own category ("feedback", "knowledge", ...)
    scope: str  # private or team
    type: str
    subject: str
    attribute: str
    content: str
    sources: tuple[Source, ...]
    gate: GateDefaults
    title: str | None = None
    condition: str | None = None
    value: str | None = None
    order: str = ""  # sorts entries: the original's date, so newer evidence comes later
    exported_id: str | None = None  # memgov.id of a memgov export
    notes: tuple[str, ...] = ()
    skip: str | None = None  # why this entry is not imported

    @property
    def file(self) -> str:
        return self.origin.rpartition(":")[0] or self.origin

    def candidate(self, source: Source) -> Candidate:
        return Candidate(
            content=self.content,
            type=self.type,
            scope=self.scope,
            subject=self.subject,
            attribute=self.attribute,
            source=source,
            s1=self.gate.s1,
            s2=self.gate.s2,
            confidence=self.gate.confidence,
            condition=self.condition,
            value=self.value,
            title=self.title,
        )


@dataclass
class Reading:
    """What a reader found: entries for the pipeline, files it could not use, warnings."""

    entries: list[Entry] = field(default_factory=list)
    skipped: list[ImportItem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def skip_file(self, origin: str, scope: str, reason: str) -> None:
        self.skipped.append(
            ImportItem(
                origin=origin, kind="file", scope=scope, outcome="skipped", reasons=(reason,)
            )
        )


# ------------------------------------------------------------------------ report
@dataclass(frozen=True)
class ImportItem:
    """What happened to one entry. Never holds content: a refused entry may hold a secret."""

    origin: str
    kind: str
    scope: str
    outcome: str  # one of OUTCOMES
    reasons: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()
    title: str | None = None
    type: str | None = None
    subject: str | None = None
    attribute: str | None = None
    sources: tuple[str, ...] = ()  # "rollout_summaries/x.md:12", relative to the folder
    secret_rules: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "kind": self.kind,
            "scope": self.scope,
            "outcome": self.outcome,
            "reasons": list(self.reasons),
            "memory_ids": list(self.memory_ids),
            "title": self.title,
            "type": self.type,
            "subject": self.subject,
            "attribute": self.attribute,
            "sources": list(self.sources),
            "secret_rules": list(self.secret_rules),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class ImportReport:
    """The outcome of one import: an item per entry, in file and line order."""

    format: str  # claude-code | codex
    folder: str
    dry_run: bool
    items: tuple[ImportItem, ...]
    warnings: tuple[str, ...] = ()
    stores: tuple[tuple[str, str], ...] = ()  # (scope, root)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(item.outcome for item in self.items)
        return {outcome: found.get(outcome, 0) for outcome in OUTCOMES}

    def by_outcome(self, outcome: str) -> list[ImportItem]:
        return [item for item in self.items if item.outcome == outcome]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "folder": self.folder,
            "dry_run": self.dry_run,
            "stores": {scope: root for scope, root in self.stores},
            "counts": self.counts,
            "items": [item.to_dict() for item in self.items],
            "warnings": list(self.warnings),
        }

    def render(self) -> str:
        head = f"{self.format} import from {self.folder}"
        if self.dry_run:
            head += " (dry run: nothing was written; ids are those a real run would have made)"
        lines = [head]
        lines += [f"  {scope} store: {root}" for scope, root in self.stores]
        lines.append("  " + ", ".join(f"{n} {name}" for name, n in self.counts.items()))
        for outcome in OUTCOMES:
            group = self.by_outcome(outcome)
            if not group:
                continue
            if outcome == "already-imported":  # unchanged: one line is enough
                lines += ["", f"{outcome} (no change): " + ", ".join(i.origin for i in group)]
            else:
                lines += ["", f"{outcome}:"] + [_render_item(item) for item in group]
        if self.warnings:
            lines += ["", "warnings:"] + [f"  {w}" for w in self.warnings]
        return "\n".join(lines)


def _render_item(item: ImportItem) -> str:
    key = [part for part in (item.type, item.subject, item.attribute) if part and part != WITHHELD]
    if item.memory_ids:
        key.append("-> " + ", ".join(item.memory_ids))
    text = f"  {item.origin}  {item.title or ''}".rstrip()
    if key:
        text += f"  [{' '.join(key)}]"
    for reason in item.reasons:
        text += f"\n      {reason}"
    for note in item.notes:
        text += f"\n      note: {note}"
    return text


def shown(text: str | None) -> str | None:
    """Text for a report, unless it matches a secret or sensitive pattern."""
    if text and (secrets.scan(text) or gate.sensitive_patterns(text)):
        return WITHHELD
    return text


# ------------------------------------------------------------------------ mapping
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
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
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


# ------------------------------------------------------------------------ helpers
_WORD = re.compile(r"\w+")


def slug(text: str, *, limit: int = 48) -> str:
    """An attribute from free text: lower-case words joined by '_', at most ``limit``
    characters; a longer one is cut and ends in a short hash of the whole."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    joined = "_".join(w.strip("_") for w in words if w.strip("_"))
    if len(joined) <= limit:
        return joined or "memory"
    digest = hashlib.sha256(joined.encode("utf-8")).hexdigest()[:6]
    return joined[:limit].rstrip("_") + "_" + digest


def short(text: str, limit: int = 60) -> str:
    """A title from free text: its first line, cut at a word near ``limit``."""
    line = " ".join((text.strip().splitlines() or [""])[0].split()).strip("#*- ")
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,.;:") + "…"


def read_lines(path: Path, origin: str) -> list[str]:
    """A text file's lines, numbered as core.store.logs.resolve numbers them."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FolderError(
                f"{origin}: {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
                "KiB a memory file may have; split it, or skip it in "
                f"{MAPPING_FILE}"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise FolderError(
            f"{origin}: cannot be read ({exc.strerror}); check its permissions"
        ) from None
    if b"\0" in data:
        raise FolderError(f"{origin}: a binary file, not Markdown; move it out of the folder")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FolderError(f"{origin}: not UTF-8 (byte {exc.start}); re-save it as UTF-8") from None
    return text.removeprefix("\ufeff").splitlines()


def check_folder(path: Path, *, what: str, example: str) -> Path:
    folder = Path(path).expanduser().absolute()
    if not folder.is_dir():
        problem = "does not exist" if not folder.exists() else "is not a folder"
        raise FolderError(f"{folder}: {problem}; pass the {what}, e.g. {example}")
    return folder


def shown_path(path: str | None, folder: Path) -> str:
    if path is None:
        return ""
    with contextlib.suppress(ValueError):
        return Path(path).relative_to(folder).as_posix()
    return path


def default_owner(workspace: Workspace, actor: str) -> str:
    private = workspace.private
    if private is not None and private.config.owner:
        return private.config.owner
    return actor.strip().split("@")[0] or "me"


def origin_key(origin: str) -> tuple[str, int]:
    file, _, line = origin.rpartition(":")
    return (file, int(line)) if line.isdigit() else (origin, 0)


# ------------------------------------------------------------------------ running
def run_entries(
    workspace: Workspace,
    reading: Reading,
    *,
    fmt: str,
    folder: Path,
    actor: str,
    dry_run: bool,
) -> ImportReport:
    """Send every entry through the write pipeline (on a scratch copy for a dry run)."""
    if not actor.strip():
        raise ValidationError("every change needs an actor", field="actor", hint="pass --as USER")
    stores = tuple((s.config.scope, str(s.root)) for s in workspace.stores)
    if dry_run:
        with scratch_copy(workspace) as scratch:
            report = _run(scratch, reading, fmt=fmt, folder=folder, actor=actor)
        return replace(report, dry_run=True, stores=stores)
    return replace(_run(workspace, reading, fmt=fmt, folder=folder, actor=actor), stores=stores)


def _run(
    workspace: Workspace, reading: Reading, *, fmt: str, folder: Path, actor: str
) -> ImportReport:
    runner = _Runner(workspace, actor, folder)
    items = list(reading.skipped)
    for entry in sorted(reading.entries, key=lambda e: (e.order, origin_key(e.origin))):
        items.append(runner.one(entry))
    runner.finish(fmt)
    items.sort(key=lambda item: origin_key(item.origin))
    secret = {item.origin.rpartition(":")[0] for item in items if item.secret_rules}
    warnings = tuple(_warning(w, secret) for w in reading.warnings)
    return ImportReport(
        format=fmt, folder=str(folder), dry_run=False, items=tuple(items), warnings=warnings
    )


def _warning(text: str, secret_files: set[str]) -> str:
    """A warning for the report; none quotes a file whose memory was refused for a secret."""
    file = text.split(":", 1)[0]
    if file in secret_files:
        return f"{file}: a warning about this file is withheld (it holds a secret)"
    return shown(text) or ""


@contextlib.contextmanager
def scratch_copy(workspace: Workspace) -> Iterator[Workspace]:
    """The workspace's stores copied to a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="memgov-dry-run-") as tmp:
        copies = []
        for number, store in enumerate(workspace.stores):
            target = Path(tmp) / f"{number}-{store.root.name}"
            shutil.copytree(
                store.root, target, symlinks=True, ignore=shutil.ignore_patterns(STATE_DIR)
            )
            copies.append(Store(target, clock=store.clock))
        yield Workspace(stores=copies)


class _Ledger:
    """One store's view of earlier imports, and what this run did to it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        events, _ = store.events()
        self.erased: dict[str, Event] = {
            str(e.details.get("content_hash")): e for e in events if e.to_status == "deleted"
        }
        self.refused: dict[str, dict[str, Any]] = {
            str(r.get("fingerprint")): r | {"event": e.id}
            for e in events
            if e.action == IMPORT_ACTION
            for r in e.details.get("refused", ())
            if isinstance(r, dict)
        }
        self.by_source: dict[tuple[str | None, int | None], set[str]] = {}
        for memory in store.memories.values():
            for src in memory.all_sources:
                if src.file is not None:
                    self.by_source.setdefault((src.file, src.line), set()).add(memory.id)
        self.touched = False
        self.ids: set[str] = set()
        self.counts: Counter[str] = Counter()
        self.refusals: list[dict[str, Any]] = []

    def imported(self, candidate: Candidate, source: Source) -> Memory | None:
        for memory_id in sorted(self.by_source.get((source.file, source.line), ())):
            memory = self.store.memories.get(memory_id)
            if memory is None or not same_value(memory, candidate):
                continue
            if any(s.file == source.file and s.line == source.line for s in memory.all_sources):
                return memory
        return None

    def exported(self, entry: Entry) -> Memory | None:
        memory = self.store.memories.get(entry.exported_id or "")
        if memory is not None and same_value(memory, entry.candidate(Source(task="-"))):
            return memory
        return None

    def fingerprint(self, candidate: Candidate) -> str:
        source = candidate.source or Source(task="-")
        parts = (
            source.file,
            source.line,
            candidate.content,
            candidate.type,
            candidate.subject,
            candidate.attribute,
            candidate.condition,
            candidate.title,
            candidate.s1,
            candidate.s2,
            self.store.config.theta,
        )
        return "sha256:" + hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()

    def note(self, origin: str, source: Source, outcome: Outcome, fingerprint: str) -> None:
        self.touched = True
        self.counts[outcome.kind] += 1
        if outcome.kind == "refused":
            rules = outcome.gate.secret_rules if outcome.gate else ()
            self.refusals.append(
                {
                    "origin": shown(origin),
                    "fingerprint": fingerprint,
                    "reasons": list(outcome.reasons),
                    "secret_rules": list(rules),
                }
            )
            return
        self.ids.update(outcome.memory_ids)
        self.by_source.setdefault((source.file, source.line), set()).update(outcome.memory_ids)


class _Runner:
    def __init__(self, workspace: Workspace, actor: str, folder: Path) -> None:
        self.workspace = workspace
        self.actor = actor
        self.folder = folder
        self.ledgers: dict[Path, _Ledger] = {}

    def target(self, scope: str) -> tuple[Store | None, str]:
        store = self.workspace.team if scope == "team" else self.workspace.private
        if store is None:
            where = (
                "pass it with --store, or set team_store in the private store's memgov.yaml"
                if scope == "team"
                else "pass it with --store"
            )
            return None, f"no {scope} store to import into: {where}"
        maintainers = store.config.maintainers
        if scope == "team" and not policy.is_maintainer(store, self.actor):
            listed = ", ".join(maintainers) or "nobody"
            return None, (
                f"only the team store's maintainers ({listed}) may write team memories: "
                "ask one of them to run this import, or import the file privately and "
                "request its promotion"
            )
        return store, ""

    def ledger(self, store: Store) -> _Ledger:
        if store.root not in self.ledgers:
            self.ledgers[store.root] = _Ledger(store)
        return self.ledgers[store.root]

    def one(self, entry: Entry) -> ImportItem:
        if entry.skip:
            return self.item(entry, "skipped", reasons=(entry.skip,))
        if not entry.content.strip():
            return self.item(entry, "skipped", reasons=("empty: nothing to import",))
        store, why = self.target(entry.scope)
        if store is None:
            return self.item(entry, "skipped", reasons=(why,))
        ledger = self.ledger(store)
        earlier = ledger.exported(entry)
        if earlier is not None:
            return self.item(
                entry,
                "already-imported",
                ids=(earlier.id,),
                reasons=(f"exported from this store as {earlier.id}",),
            )
        erased = ledger.erased.get(content_hash(entry.content))
        if erased is not None:
            return self.item(
                entry,
                "skipped",
                reasons=(
                    f"{erased.actor} erased this memory on {erased.ts[:10]} ({erased.id}); "
                    "it is not imported again: delete it in the original folder too",
                ),
            )
        return self.send(entry, store, ledger)

    def send(self, entry: Entry, store: Store, ledger: _Ledger) -> ImportItem:
        """One pipeline call per source: the second and later merge into the first."""
        ids: list[str] = []
        reasons: list[str] = []
        kind: str | None = None
        for source in entry.sources:
            candidate = entry.candidate(source)
            found = ledger.imported(candidate, source)
            if found is not None:
                ids.append(found.id)
                continue
            fingerprint = ledger.fingerprint(candidate)
            if fingerprint in ledger.refused:
                return self.refused_before(entry, ledger.refused[fingerprint])
            try:
                outcome = remember(store, candidate, actor=self.actor)
            except (ValidationError, TransitionError, SecretBlocked) as exc:
                return self.item(entry, "failed", reasons=(str(exc),))
            ledger.note(entry.origin, source, outcome, fingerprint)
            if outcome.kind == "refused":
                rules = outcome.gate.secret_rules if outcome.gate else ()
                return self.item(entry, "refused", reasons=outcome.reasons, rules=rules)
            kind = kind or outcome.kind
            ids += outcome.memory_ids
            reasons += outcome.reasons
        unique = tuple(dict.fromkeys(ids))
        if kind is None:
            return self.item(
                entry,
                "already-imported",
                ids=unique,
                reasons=("imported before from the same file and line",),
            )
        return self.item(entry, kind, ids=unique, reasons=tuple(dict.fromkeys(reasons)))

    def refused_before(self, entry: Entry, earlier: dict[str, Any]) -> ImportItem:
        reasons = tuple(str(r) for r in earlier.get("reasons", ()))
        note = (
            f"refused by an earlier import ({earlier.get('event')}); not tried again "
            "until the file, the line or the store's theta changes"
        )
        rules = tuple(str(r) for r in earlier.get("secret_rules", ()))
        return self.item(entry, "refused", reasons=(*reasons, note), rules=rules)

    def item(
        self,
        entry: Entry,
        outcome: str,
        *,
        reasons: tuple[str, ...] = (),
        ids: tuple[str, ...] = (),
        rules: tuple[str, ...] = (),
    ) -> ImportItem:
        secret = bool(rules)
        return ImportItem(
            origin=shown(entry.origin) or "",
            kind=entry.kind,
            scope=entry.scope,
            outcome=outcome,
            reasons=reasons,
            memory_ids=ids,
            title=WITHHELD if secret else shown(entry.title),
            type=entry.type,
            subject=WITHHELD if secret else shown(entry.subject),
            attribute=WITHHELD if secret else shown(entry.attribute),
            sources=tuple(
                shown(f"{shown_path(s.file, self.folder)}:{s.line}") or "" for s in entry.sources
            ),
            secret_rules=tuple(rules),
            notes=tuple(shown(n) or "" for n in entry.notes),
        )

    def finish(self, fmt: str) -> None:
        """One ``import`` event per store this run changed: counts, ids, refusals."""
        for ledger in self.ledgers.values():
            if not ledger.touched:
                continue
            with ledger.store.transaction(
                actor=self.actor, message=f"import: {fmt} memories from {self.folder.name}"
            ) as tx:
                tx.event(
                    IMPORT_ACTION,
                    tuple(sorted(ledger.ids)),
                    reason=f"imported {fmt} memories from {self.folder}",
                    details={
                        "format": fmt,
                        "folder": str(self.folder),
                        "counts": dict(sorted(ledger.counts.items())),
                        "refused": ledger.refusals,
                    },
                )
