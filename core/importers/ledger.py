"""Repeatable imports: what earlier imports left in a store, and what this one did.

An entry is not sent to the pipeline again when

- a record of the target store, in any status, has a source at the same file
  and line and the same value (:func:`core.domain.values.same_value`): it was
  imported, merged, put in conflict, superseded or corrected before; or a source
  in the same file with the same evidence (the same words at another line: lines
  above it were added or taken out), not a new source to merge;
- a person erased a record with the same content from the store: importing it
  again would undo their decision (a revert that took an import back out is not
  such an erasure: ``UNWRITE_ACTION``);
- an earlier import refused the same file, line, content and gate inputs. Each
  import run that changed a store ends with one ``import`` event there, which
  lists its refusals by fingerprint (a hash, never the content);
- it comes from a memgov export of this store (``memgov.id`` in its front
  matter) and that record still holds the same value.

So importing an unchanged folder twice makes no record, event or commit the
second time. A :class:`Ledger` is one store's view of all this, read once per
import run from its events and records, and kept up to date as the run writes.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from typing import Any

from core.domain.record import Memory, Source, content_hash, normal_hash
from core.domain.values import same_value
from core.importers.entries import Entry
from core.importers.report import shown
from core.store.decisions import UNWRITE_ACTION
from core.store.events import Event
from core.store.store import Store
from core.writing.candidate import Candidate
from core.writing.pipeline import Outcome

IMPORT_ACTION = "import"


class Ledger:
    """One store's view of earlier imports, and what this run did to it."""

    def __init__(self, store: Store, view: Mapping[str, Memory] | None = None) -> None:
        self.store = store
        #: the records as the run leaves them (its transaction's view), else the store's
        self.view: Mapping[str, Memory] = store.memories if view is None else view
        events, _ = store.events()
        # a revert taking back what a decision imported is no person's erasure
        deletions = [e for e in events if e.to_status == "deleted" and e.action != UNWRITE_ACTION]
        self.erased: dict[str, Event] = {str(e.details.get("content_hash")): e for e in deletions}
        #: the erased memories' words (a hash: case, spacing and emphasis aside), and keys
        self.erased_words: dict[str, Event] = {
            str(e.details["normal_hash"]): e for e in deletions if "normal_hash" in e.details
        }
        self.erased_keys: dict[tuple[Any, ...], Event] = {}
        for e in deletions:
            key = e.details.get("key")
            if isinstance(key, Mapping):
                parts = ("scope", "subject", "attribute", "condition")
                self.erased_keys[tuple(key.get(p) for p in parts)] = e
        self.refused: dict[str, dict[str, Any]] = {
            str(r.get("fingerprint")): r | {"event": e.id}
            for e in events
            if e.action == IMPORT_ACTION
            for r in e.details.get("refused", ())
            if isinstance(r, dict)
        }
        self.by_source: dict[tuple[str | None, int | None], set[str]] = {}
        #: (file, evidence): a line that moved in its file, its words the same
        self.by_evidence: dict[tuple[str, str], set[str]] = {}
        for memory in store.memories.values():
            for src in memory.all_sources:
                if src.file is not None:
                    self.by_source.setdefault((src.file, src.line), set()).add(memory.id)
                    if src.evidence.strip():
                        self.by_evidence.setdefault((src.file, src.evidence), set()).add(memory.id)
        self.touched = False
        self.ids: set[str] = set()
        self.counts: Counter[str] = Counter()
        self.refusals: list[dict[str, Any]] = []

    def erasure_of(self, entry: Entry) -> Event | None:
        """The erasure of a memory this entry writes again: the same content, the same
        words (core.domain.record.normal_hash), or the same key when no record of the
        store holds that key any more."""
        found = self.erased.get(content_hash(entry.content)) or self.erased_words.get(
            normal_hash(entry.content)
        )
        if found is not None:
            return found
        key = (entry.scope, entry.subject, entry.attribute, entry.condition)
        erased = self.erased_keys.get(key)
        if erased is not None and not any(True for _m in self.store.by_key(key)):
            return erased
        return None

    def imported(self, candidate: Candidate, source: Source) -> Memory | None:
        for memory_id in sorted(self.by_source.get((source.file, source.line), ())):
            memory = self.view.get(memory_id)
            if memory is None or not same_value(memory, candidate):
                continue
            if any(s.file == source.file and s.line == source.line for s in memory.all_sources):
                return memory
        if source.file is None or not source.evidence.strip():
            return None
        # the same words at another line of the same file: the line moved (lines above it
        # were added or taken out), it was imported before; not a new source to merge
        for memory_id in sorted(self.by_evidence.get((source.file, source.evidence), ())):
            memory = self.view.get(memory_id)
            if memory is not None and same_value(memory, candidate):
                return memory
        return None

    def exported(self, entry: Entry) -> Memory | None:
        memory = self.view.get(entry.exported_id or "")
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
        if source.file is not None and source.evidence.strip():
            self.by_evidence.setdefault((source.file, source.evidence), set()).update(
                outcome.memory_ids
            )
