"""What an importer finds in a foreign folder, before the write pipeline sees it.

A reader turns the folder into a :class:`Reading`: an :class:`Entry` per memory
found (its key, its content, the gate inputs its kind gets and the source
pointers back into the original files), the files it could not use (skipped
items of the report) and warnings. :meth:`Entry.candidate` is the entry as the
pipeline's :class:`core.writing.candidate.Candidate`, one per source.

The text helpers the readers share are in :mod:`core.importers.text`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.domain.record import Source
from core.importers.folder_state import IndexTemplate
from core.importers.report import ImportItem
from core.importers.signature import signatures, with_signature
from core.writing.candidate import Candidate

if TYPE_CHECKING:
    from core.store.transaction import Transaction


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
    #: where it stands in the folder, exactly (core.importers.claude_code.origin), for an export
    origin_fields: dict[str, str] | None = None
    #: a person keeps it although the write gate doubted it (core.importers.held, "gate")
    vouched: bool = False
    #: a person says its likely credentials are none (core.importers.held, "sensitive")
    keep_likely: bool = False
    last_line: int = 0  # the entry's last line in its file (0: its first)

    @property
    def file(self) -> str:
        return self.origin.rpartition(":")[0] or self.origin

    def candidate(self, source: Source) -> Candidate:
        sigs = signatures(
            title=self.title,
            type=self.type,
            subject=self.subject,
            attribute=self.attribute,
            condition=self.condition,
            content=self.content,
        )
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
            origin=with_signature(self.origin_fields, sigs),
            vouched=self.vouched,
            keep_likely=self.keep_likely,
        )


@dataclass
class Reading:
    """What a reader found: entries for the pipeline, files it could not use, warnings."""

    entries: list[Entry] = field(default_factory=list)
    skipped: list[ImportItem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: files the folder's index (``index_file``) does not list, and what that means for
    #: the agent (``unlisted_note``); the run's warning names them with what it did
    unlisted: list[str] = field(default_factory=list)
    index_file: str = ""
    unlisted_note: str = ""
    #: the folder's index files as templates, and its key (core.importers.folder_state):
    #: what an import keeps so an export can give the index back
    templates: dict[str, IndexTemplate] = field(default_factory=dict)
    folder_key: str = ""
    #: the words (normal hashes) of the memories the folder held when memgov last read
    #: it: an erased memory among them is still there, not written again by the agent
    seen: frozenset[str] = frozenset()
    #: keeps what the store remembers of the folder, in the private store's transaction,
    #: for the files read (None: all); says whether it wrote (core.importers.codex.state)
    keeper: Callable[[Transaction, frozenset[str] | None, Callable[[Entry], bool]], bool] | None = (
        None
    )

    def skip_file(self, origin: str, scope: str, reason: str) -> None:
        self.skipped.append(
            ImportItem(
                origin=origin, kind="file", scope=scope, outcome="skipped", reasons=(reason,)
            )
        )
