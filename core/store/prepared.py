"""Preparing a transaction: everything it will write, computed and checked first.

:func:`prepare` turns a :class:`~core.store.transaction.Transaction`'s pending
changes into a :class:`Prepared`: the bytes of every file (records, the index,
files the change names), the files to remove, and for an erasure the scrub of
every other file of the store and the refs it discards. A team store's writes
are scanned for credentials; any path outside the store is refused before a
byte is written. The :class:`Prepared` gives the crash journal its content.
"""

from __future__ import annotations

import base64
import heapq
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.domain.errors import SecretBlocked, StoreError, ValidationError
from core.domain.record import Memory
from core.store.catalog import IndexRow, KnownHints, hint_inputs, known_hints
from core.store.events import Event, EventsAt, event_logs, next_append
from core.store.fsutil import UnsafePath, confined, read_confined
from core.store.index import (
    INDEX_FILE,
    ListKey,
    PickKey,
    fit_index,
    list_key,
    pick_key,
    render_lines,
    shown_condition,
    shown_parts,
    sort_key,
)
from core.store.layout import MAX_FILE_BYTES, WRITTEN_FOLDERS
from core.store.reaching import Reaching

if TYPE_CHECKING:
    from core.store.config import Config
    from core.store.records import View
    from core.store.store import Store


class Pending(Protocol):
    """What preparing reads of a transaction's pending changes: a
    :class:`~core.store.transaction.Transaction` is one (it imports this module, so
    this module names only what it reads)."""

    actor: str
    changed: dict[str, Memory]
    removed: dict[str, Memory]
    files: dict[str, str]
    events: list[Event]
    needles: list[bytes]
    scrub: bool

    @property
    def store(self) -> Store: ...

    @property
    def view(self) -> View: ...

    def event(
        self,
        action: str,
        memory_ids: tuple[str, ...] = (),
        *,
        reason: str = "",
        details: dict[str, Any] | None = None,
    ) -> Event: ...

    def still_said(self, needle: bytes | str) -> bool: ...

    def commit_message(self) -> str: ...


@dataclass
class Prepared:
    """A transaction's writes, computed and checked before any byte is written."""

    writes: dict[str, bytes]
    removes: list[str]
    created: list[str]
    events_at: EventsAt  # the shard the events go to, and where they start
    discards: list[str]  # the refs an erasure discards (core.store.discard)
    purge: bool
    erased_ids: list[str]
    actor: str
    message: str
    event_ids: list[str]
    needles: list[bytes]
    #: the steering hints made of the changed records (which of them reach the
    #: agent's index): the catalog's rows of the records written reuse them
    hints: KnownHints = field(default_factory=dict)

    def journal(self, **extra: Any) -> dict[str, Any]:
        return {
            "version": 2,
            "phase": "files",
            "actor": self.actor,
            "message": self.message,
            "paths": sorted(self.writes) + self.removes,
            "created": self.created,
            "events": self.event_ids,
            "events_file": self.events_at.file,
            "events_offset": self.events_at.offset,
            "discard_refs": self.discards,
            "purge": self.purge,
            "erased_ids": self.erased_ids,
            "removes": self.removes,
            # the erased bytes, until the purge has run: local state inside .git, never in git
            "needles": [base64.b64encode(n).decode("ascii") for n in self.needles]
            if self.purge
            else [],
            **extra,
        }


def prepare(tx: Pending) -> Prepared | None:  # noqa: C901
    """Everything ``tx`` will write, checked; nothing written yet (None: no change)."""
    if not (tx.changed or tx.removed or tx.files or tx.events):
        return None
    store = tx.store
    root = store.root
    if store.config.scope == "team":
        guard_team_writes(tx.changed.values(), tx.files, tx.events)
    discards: list[str] = []
    if tx.removed or tx.scrub:  # the erasure's modules, imported by the writes that erase
        from core.store.discard import declared, pending
        from core.store.erase import history_needles, scrub, scrub_file
    for rule in declared() if tx.removed else ():
        names = pending(root, rule)
        if names:  # work kept beside the branch may quote what is being erased
            discards += [rule.prefix + name for name in names]
            tx.event(rule.action, reason=rule.reason, details={rule.details_key: names})
    erased_ids = sorted(tx.removed)
    removes = [m.path for m in tx.removed.values()]
    if tx.removed:
        # every earlier wording of an erased record (a correction, a consolidation
        # rewrite) must go too, but for what a live record still says; core.store.erase
        # also matches each needle as JSON escapes it (events, decision records)
        earlier = [n for n in history_needles(root, removes) if not tx.still_said(n)]
        tx.needles = sorted({*tx.needles, *earlier}, key=len, reverse=True)
        tx.events = [
            replace(e, reason=scrub(e.reason.encode("utf-8"), tx.needles).decode("utf-8"))
            for e in tx.events
        ]
    # a record holding a credential never puts it into the index an agent reads: the
    # line shows [secret: rule-id] instead (core.store.index.index_line)
    current_index = _read_store_file(root, INDEX_FILE)
    hints = changed_hints(tx)
    new_index = index_text(tx, hints)
    writes: dict[str, bytes] = {
        m.path: m.to_markdown().encode("utf-8") for m in tx.changed.values()
    }
    for rel, data in writes.items():
        if len(data) > MAX_FILE_BYTES:  # it could never be read back
            raise ValidationError(
                f"would be {len(data) / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} KiB a "
                f"memory file may have (files over 40,000 characters only warn)",
                path=rel,
                field="content",
                hint="split it into several memories",
            )
    writes.update({rel: text.encode("utf-8") for rel, text in tx.files.items()})
    index_bytes = new_index.encode("utf-8")
    if current_index != index_bytes:
        writes[INDEX_FILE] = index_bytes
    if tx.removed or tx.scrub:  # erased content also leaves every other file of the store
        for rel in _scrubbable_files(root):
            if rel in writes or rel in removes:
                continue
            found = _read_store_file(root, rel)
            if found is None:
                continue
            cleaned = scrub_file(rel, found, tx.needles, erased_ids)
            if cleaned != found:
                writes[rel] = cleaned
        for rel, data in list(writes.items()):
            if rel not in removes:
                writes[rel] = scrub_file(rel, data, tx.needles, erased_ids)
    for rel in [*writes, *removes]:
        try:
            confined(root, rel)
        except UnsafePath as exc:
            raise StoreError(f"nothing was written: {exc}") from None
    try:
        events_at = next_append(root)
    except UnsafePath as exc:
        raise StoreError(f"nothing was written: {exc}") from None
    if events_at.file in writes:  # an erasure scrubs the shard first: the events follow
        events_at = EventsAt(events_at.file, len(writes[events_at.file]))
    return Prepared(
        writes=writes,
        removes=removes,
        created=sorted(rel for rel in writes if not os.path.lexists(root / rel)),
        events_at=events_at,
        discards=discards,
        purge=(bool(tx.removed) or tx.scrub) and store.config.scope == "private",
        erased_ids=erased_ids,
        actor=tx.actor,
        message=tx.commit_message(),
        event_ids=[e.id for e in tx.events],
        needles=list(tx.needles),
        hints=hints,
    )


#: a line of the index: where it is kept (:func:`core.store.index.pick_key`), where it
#: is listed (:func:`core.store.index.sort_key`) and its parts (title, condition,
#: path, hook, redacted)
_Entry = tuple[PickKey, tuple[ListKey, tuple[str, str | None, str, str]]]


def changed_hints(tx: Pending) -> KnownHints:
    """The steering hints of the active records the transaction changes whose texts
    differ from their catalog row's (:func:`_same_texts`; a new record, an edit): what
    :func:`index_text` asks of each, made for all of them in chunks at once
    (:func:`known_hints`) rather than by running the detector on each record."""
    view = tx.view
    return known_hints(
        m
        for m in view.local.values()
        if m.status == "active" and not _same_texts(view.base.get(m.id), m)
    )


def index_text(tx: Pending, made: KnownHints | None = None) -> str:
    """``MEMORY.md`` as the transaction leaves it: the catalog's rows of the records it
    does not touch, in the order the index keeps them (type, then weight; redacted),
    merged with the changed ones, as many as fit the index's caps, listed in the
    index's readable order (core.store.index.fit_index). Reads only the first rows of
    the catalog's ordered index and one count: the cost does not grow with the store.

    Only what reaches the agent is listed (core.store.reaching): a record the steering
    detector flags and no person kept has no line. Only the rows the catalog hints at
    are asked (the hint is a superset of what the detector flags); the rows read are
    as many more as were withheld among them, so the index is as full as without them.
    The last line's count of records not listed counts those past the rows read as
    the catalog does (a withheld one among them too: recall withholds it as well).
    ``made``: the changed records' steering hints, made already
    (:func:`changed_hints`; else made here)."""
    view = tx.view
    made = changed_hints(tx) if made is None else made
    catalog = tx.store.catalog
    config = tx.store.config
    touched = set(view.local) | view.gone
    reaching = Reaching(tx.store, catalog=catalog, pending=tx.files)
    changed = sorted(
        _entry(m, config)
        for m in view.local.values()
        if m.status == "active" and not _changed_withheld(reaching, view.base.get(m.id), m, made)
    )
    # a duplicate id is listed once: a few rows more than the cap cover those skipped
    wanted = config.index_max_lines + 1 + 16
    rows: list[IndexRow] = []
    withheld = 0
    limit = wanted
    while True:  # more rows while withheld ones leave fewer than wanted
        fetched = list(catalog.active_index_rows(besides=touched, limit=limit))
        fresh = fetched[len(rows) + withheld :]
        hints = reaching.hints(row[2] for row in fresh)
        distrusted = reaching.untrusted(row[2] for row in fresh)
        for row in fresh:
            memory_id = row[2]
            if memory_id in distrusted or (
                memory_id in hints
                and reaching.steering(view.base[memory_id], hint=hints[memory_id])
            ):
                withheld += 1
                continue
            rows.append(row)
        if len(fetched) < limit or len(rows) >= wanted:
            break
        limit *= 2
    total = catalog.count_active(besides=touched) - withheld + len(changed)

    def base() -> Iterator[_Entry]:
        from core.domain import secrets

        seen: set[str] = set()
        for row in rows:
            order, rank, memory_id, rel, subject, attribute, condition, title, hook, secret = row
            if memory_id in seen:
                continue
            duplicate = not rel.endswith(f"/{memory_id}.md") and len(catalog.rels_of(memory_id)) > 1
            if duplicate and view.base[memory_id].path != rel:  # doctor reports the other
                continue
            seen.add(memory_id)
            # the row's title and hook are redacted where its file holds a credential;
            # its condition is a key column, kept as written: redacted here
            shown = secrets.redact(condition) if secret and condition else condition
            yield (
                (order, -rank, memory_id, rel),
                (
                    list_key(order, subject, attribute, condition, memory_id),
                    (title, shown, rel, hook),
                ),
            )

    width = config.index_line_chars
    lines = (
        (key, render_lines([row], width)) for _pick, (key, row) in heapq.merge(base(), changed)
    )
    return fit_index(lines, total, config)


def _same_texts(before: Memory | None, memory: Memory) -> bool:
    """Whether a changed record says what its record before the transaction said
    (a use, a verification): then its catalog row's steering hint stands."""
    return before is not None and (
        before.content,
        before.title,
        before.value,
        before.type,
        before.source,
    ) == (memory.content, memory.title, memory.value, memory.type, memory.source)


def _changed_withheld(
    reaching: Reaching, before: Memory | None, memory: Memory, hints: KnownHints
) -> bool:
    """Whether a record the transaction writes is withheld from the agent: its catalog
    hint stands while the texts the hint reads are the ones its row has (a use, a
    verification), else the hint is the one made of what it will say (``hints``, by
    :func:`core.store.catalog.hint_inputs`; made here if missing)."""
    if _same_texts(before, memory):
        hint = reaching.hints([memory.id]).get(memory.id, 0)
    else:
        hint = known_hints([memory], hints)[hint_inputs(memory)]
    return reaching.held_back(memory, hint=hint)


def _entry(memory: Memory, config: Config) -> _Entry:
    """A changed record's place in the index and its line's parts, scanned anew."""
    title, hook = shown_parts(memory)
    line = (title, shown_condition(memory), memory.path, hook)
    return pick_key(memory, config), (sort_key(memory), line)


def _read_store_file(root: Path, rel: str, limit: int = 256 * 1024 * 1024) -> bytes | None:
    try:
        return read_confined(root, rel, limit=limit)
    except UnsafePath:
        return None


def _scrubbable_files(root: Path) -> list[str]:
    """Every file of the store an erasure scrubs: the index, the events, and every file
    of the folders memgov writes but memories/ (logs, requests, decisions, held items,
    sync state, proposals, quarantine: what the history rewrite scrubs too, so the
    current files are already what it makes of them). Another record's file is never
    touched: a needle a live record still says is not erased. Walked without
    following links."""
    found = [INDEX_FILE, *event_logs(root)]
    for folder in WRITTEN_FOLDERS:
        stack = [root / folder]
        while stack:
            here = stack.pop()
            if here.is_symlink():
                continue
            try:
                entries = list(os.scandir(here))
            except OSError:
                continue
            for entry in entries:
                if entry.is_symlink() or entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    found.append(os.path.relpath(entry.path, root).replace(os.sep, "/"))
    return sorted(found)


def guard_team_writes(
    memories: Iterable[Memory], files: dict[str, str], events: Iterable[Event] = ()
) -> None:
    """Nothing with a credential in it is ever written to the team scope (SPEC 8):
    every field of every record, every other file, and every event (reasons, details)
    is scanned first."""
    from core.domain import secrets  # the scanner compiles its rules on first use

    for memory in memories:
        rules = [f.rule_id for f in secrets.scan(memory.to_markdown())]
        if rules:
            raise SecretBlocked(f"team memory {memory.id}", rules)
    for rel, text in files.items():
        rules = [f.rule_id for f in secrets.scan(text)]
        if rules:
            raise SecretBlocked(f"team store file {rel}", rules)
    for event in events:
        rules = [f.rule_id for f in secrets.scan(json.dumps(event.to_dict(), ensure_ascii=False))]
        if rules:
            raise SecretBlocked(f"team store event {event.action} (its reason or details)", rules)
