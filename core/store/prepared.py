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
import hashlib
import heapq
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.domain.errors import SecretBlocked, StoreError, ValidationError
from core.domain.record import Memory
from core.store.discard import declared, pending
from core.store.erase import history_needles, scrub, scrub_file
from core.store.events import Event, EventsAt, event_logs, next_append
from core.store.fsutil import UnsafePath, confined, read_confined
from core.store.index import INDEX_FILE, line_span, render_lines, shown_parts, sort_key
from core.store.layout import MAX_FILE_BYTES
from core.store.logs import LOG_DIR

if TYPE_CHECKING:
    from core.store.transaction import Transaction


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
    #: the digest of MEMORY.md as it is once this applies (None: not memgov's render)
    index_digest: str | None = None

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


def prepare(tx: Transaction) -> Prepared | None:
    """Everything ``tx`` will write, checked; nothing written yet (None: no change)."""
    if not (tx.changed or tx.removed or tx.files or tx.events):
        return None
    store = tx.store
    root = store.root
    if store.config.scope == "team":
        guard_team_writes(tx.changed.values(), tx.files, tx.events)
    discards: list[str] = []
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
    index_text = _index_text(tx, current_index)
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
    index_bytes = index_text.encode("utf-8")
    if current_index != index_bytes:
        writes[INDEX_FILE] = index_bytes
    # the index on disk afterwards is memgov's render (not a file the change names)
    rendered = writes.get(INDEX_FILE, current_index) == index_bytes
    if tx.removed:  # erased content also leaves every other file of the store
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
    final_index = None
    if rendered:  # after an erasure's scrub, as it will be on disk
        final_index = index_digest(writes.get(INDEX_FILE, current_index or b""))
    return Prepared(
        writes=writes,
        removes=removes,
        created=sorted(rel for rel in writes if not os.path.lexists(root / rel)),
        events_at=events_at,
        discards=discards,
        purge=bool(tx.removed) and store.config.scope == "private",
        erased_ids=erased_ids,
        actor=tx.actor,
        message=tx.commit_message(),
        event_ids=[e.id for e in tx.events],
        needles=list(tx.needles),
        index_digest=final_index,
    )


#: over this many changed records, the index is rendered whole rather than edited
SPLICE_LIMIT = 64


def index_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _index_text(tx: Transaction, current: bytes | None) -> str:
    """``MEMORY.md`` as the transaction leaves it. When the file is the one memgov
    last wrote (its digest is in the catalog), only the changed records' lines are
    taken out and put in, each at the place one indexed query finds (:func:`_splice`);
    otherwise the catalog's lines of every record it does not touch, already in order
    and redacted, merged with the changed ones. No other record is read."""
    view = tx.view
    catalog = tx.store.catalog
    touched = set(view.local) | view.gone
    if (
        current is not None
        and len(touched) <= SPLICE_LIMIT
        and catalog.index_digest() == index_digest(current)
    ):
        spliced = _splice(tx, current.decode("utf-8", "replace"))
        if spliced is not None:
            return spliced
    return _full_index(tx)


def _splice(tx: Transaction, text: str) -> str | None:
    """The index with the touched records' lines taken out and the new ones put in
    (None: the file does not look like the catalog says; render it whole)."""
    view = tx.view
    catalog = tx.store.catalog
    touched = set(view.local) | view.gone
    for memory_id, (rel, status) in catalog.placed(touched).items():
        if status != "active":
            continue
        if len(catalog.rels_of(memory_id)) > 1:
            return None  # a duplicate id: let the whole render decide which line
        span = line_span(text, rel)
        if span is None:
            return None
        text = text[: span[0]] + text[span[1] :]
    inserted: list[tuple[tuple[int, str, str, str], str]] = []
    width = tx.store.config.index_line_chars
    for memory in sorted((m for m in view.local.values() if m.status == "active"), key=sort_key):
        key = sort_key(memory)
        before = catalog.active_before(key, touched)
        earlier = [(k, p) for k, p in inserted if k < key]
        if earlier and (before is None or earlier[-1][0] > before[0]):
            before = earlier[-1]
        if before is None:
            at = 0
        else:
            span = line_span(text, before[1])
            if span is None:
                return None
            at = span[1]
        title, hook = shown_parts(memory)
        text = text[:at] + render_lines([(title, memory.path, hook)], width) + text[at:]
        inserted.append((key, memory.path))
    return text


def _full_index(tx: Transaction) -> str:
    """The index from the catalog's rows merged with the transaction's records."""
    view = tx.view
    catalog = tx.store.catalog
    base: list[tuple[tuple[int, str, str, str], tuple[str, str, str]]] = []
    seen: set[str] = set()
    for order, subject, attribute, memory_id, rel, title, hook in catalog.active_index_rows():
        if memory_id in view.local or memory_id in view.gone or memory_id in seen:
            continue
        duplicate = not rel.endswith(f"/{memory_id}.md") and len(catalog.rels_of(memory_id)) > 1
        if duplicate and view.base[memory_id].path != rel:  # doctor reports the other file
            continue
        seen.add(memory_id)
        base.append(((order, subject, attribute, memory_id), (title, rel, hook)))
    local = sorted(
        (sort_key(m), (*shown_parts(m), m.path))  # a changed record is scanned anew
        for m in view.local.values()
        if m.status == "active"
    )
    changed = [(key, (title, path, hook)) for key, (title, hook, path) in local]
    rows = [row for _key, row in heapq.merge(base, changed)]
    return render_lines(rows, tx.store.config.index_line_chars)


def _read_store_file(root: Path, rel: str, limit: int = 256 * 1024 * 1024) -> bytes | None:
    try:
        return read_confined(root, rel, limit=limit)
    except UnsafePath:
        return None


def _scrubbable_files(root: Path) -> list[str]:
    """Every text file of the store an erasure scrubs: logs, events, requests,
    decisions, the index. Walked without following links."""
    found = [INDEX_FILE, *event_logs(root)]
    for folder in (LOG_DIR, "requests", "decisions"):
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
