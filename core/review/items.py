"""What the review queue holds: items, their evidence and their analyses, typed.

An :class:`Item` is one thing a person decides (SPEC section 10). Every item
carries, for each record involved, a :class:`RecordEvidence`: the record, the
source quotes with the resolved log excerpt, and what points at it. Its
``analysis`` is one dataclass per kind, read by attribute by the desk, the CLI
and (as plain data, :func:`core.domain.data.to_data`) ``--json``:

========================  ===========================================
kind                      analysis
========================  ===========================================
``conflict``              :class:`ConflictAnalysis` (which record the sources favour)
``promotion``             :class:`PromotionAnalysis` (secret hits, what approval does)
``deletion``              :class:`DeletionAnalysis` (team copies the erasure leaves)
``consolidation``         :class:`BatchAnalysis` (the batch: changes, files, replay)
``secret``                :class:`SecretAnalysis` (file, rules, what may be done)
``stale``                 :class:`StaleAnalysis` (how old the record is, how it is used)
``held``                  :class:`HeldAnalysis` (the agent's file, what was found in it)
``quarantine``            :class:`QuarantineAnalysis` (the flags, their spans, the source)
``untrusted``             :class:`UntrustedAnalysis` (a team commit nobody trusted signed)
``label``                 :class:`LabelAnalysis` (a measure's sample: a repeat, a record)
========================  ===========================================

``label`` items are not in the queue (:data:`KINDS`): they are what the labelled
measures draw (core.review.labels), decided and reverted like any item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from core.domain.data import AsData, shown_as
from core.domain.record import Memory, Source
from core.domain.steering import Flag
from core.store.decisions import Deferral
from core.store.logs import Excerpt
from core.store.requests import Request
from core.store.store import Store


class Kind(StrEnum):
    """The kinds of review item, in the order the queue names them."""

    CONFLICT = "conflict"
    PROMOTION = "promotion"
    DELETION = "deletion"
    CONSOLIDATION = "consolidation"
    SECRET = "secret"
    STALE = "stale"
    HELD = "held"
    QUARANTINE = "quarantine"
    UNTRUSTED = "untrusted"
    LABEL = "label"


#: the kinds of the review queue (a label is a measure's sample, drawn apart)
KINDS = tuple(k for k in Kind if k is not Kind.LABEL)
#: what each kind of request opens
KIND_OF_REQUEST = {"promote": Kind.PROMOTION, "delete": Kind.DELETION, "stale": Kind.STALE}
#: the kinds of item a request opens
REQUEST_KINDS = frozenset(KIND_OF_REQUEST.values())
#: the prefix of each request's id (its kind), what an item id alone says
REQUEST_PREFIXES = tuple(f"{kind}-" for kind in KIND_OF_REQUEST)
#: a conflict's options: which record wins, both under conditions, neither, or later
CONFLICT_OPTIONS = ("newer", "older", "parallel", "neither", "defer")


def _record_summary(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "status": memory.status,
        "type": memory.type,
        "scope": memory.scope,
        "subject": memory.subject,
        "attribute": memory.attribute,
        "condition": memory.condition,
        "value": memory.value,
        "content": memory.content,
        "confidence": memory.confidence,
        "created_at": memory.created_at.isoformat(),
        "verified_at": memory.verified_at.isoformat(),
    }


@dataclass(frozen=True)
class SourceEvidence(AsData):
    """One source of a record, and the log lines it points at (None: not found)."""

    source: Source = field(metadata=shown_as(flatten=True, convert=Source.to_dict))
    excerpt: Excerpt | None

    DATA_PROPERTIES = ("resolves",)

    @property
    def resolves(self) -> bool:
        return self.excerpt is not None


@dataclass(frozen=True)
class RecordEvidence(AsData):
    """A record as a reviewer sees it: its fields, its sources resolved, its pointers."""

    memory: Memory = field(metadata=shown_as(flatten=True, convert=_record_summary))
    store: str
    sources: tuple[SourceEvidence, ...]
    pointers: tuple[str, ...]

    DATA_PROPERTIES = ("source_count",)

    @property
    def source_count(self) -> int:
        return len(self.sources)


# --------------------------------------------------------------------- analyses
@dataclass(frozen=True)
class Key(AsData):
    scope: str
    subject: str
    attribute: str
    condition: str | None


@dataclass(frozen=True)
class ConditionHints(AsData):
    """Words in a record's evidence suggesting the values hold at different times
    (``sequential``) or in different places (``parallel``)."""

    sequential: tuple[str, ...] = ()
    parallel: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConflictAnalysis(AsData):
    """Steps 2 and 3 of adjudication: which record the sources favour and why, the
    votes of each signal, and hints about conditions (the reader decides)."""

    key: Key
    favoured: str | None = None
    why: tuple[str, ...] = ()
    votes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    condition_hints: dict[str, ConditionHints] = field(default_factory=dict)
    newer: str | None = None
    older: str | None = None


@dataclass(frozen=True)
class PromotionAnalysis(AsData):
    secret_hits: int
    #: what approving does in the team store, in words (core.review.promotion)
    outcome: str | None = None
    #: a contributor's proposal branch on the team's remote (core.review.proposal)
    proposal: ProposalInfo | None = None


@dataclass(frozen=True)
class ProposalInfo(AsData):
    """Where a proposal came from: its branch on the remote, who pushed it, and the
    message lines its record's sources quote, as the branch carries them."""

    branch: str
    tip: str
    by: str
    private_record: str
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class TeamCopy(AsData):
    store: str
    id: str


@dataclass(frozen=True)
class DeletionAnalysis(AsData):
    #: erasing a promoted record leaves its team copies: the deletion says so
    team_copies: tuple[TeamCopy, ...] = ()


@dataclass(frozen=True)
class StaleAnalysis(AsData):
    """A report that a record is wrong or out of date (the report's message is the
    request's reason): what the person weighs it against."""

    #: days since a person or a new source last confirmed the record
    verified_days: int
    usage_count: int
    last_used_at: str | None = None
    expires_at: str | None = None


@dataclass(frozen=True)
class HeldAnalysis(AsData):
    """A memory an import or a sync held for a person (core.importers.held): the
    agent's file as it is now (None: gone or changed since it was held), what was
    found, and what each option does."""

    reason: str  # sensitive | relearned | both-changed | gate
    named: str
    folder: str
    file: str
    line: int
    detail: str
    options: tuple[str, ...]
    meanings: dict[str, str]
    agent_text: str | None
    #: the lines holding an internal address: (line, patterns), never the address alone
    marked: tuple[tuple[int, tuple[str, ...]], ...] = ()
    memory_id: str | None = None
    key: str = ""


@dataclass(frozen=True)
class UntrustedFile(AsData):
    """A file an untrusted commit changes: how, and the record it is there (its id and
    title as that version says; None: not a record)."""

    path: str
    change: str  # added | changed | removed
    record: str | None = None


@dataclass(frozen=True)
class UntrustedAnalysis(AsData):
    """A commit on the team's main that no listed maintainer signed, not taken here
    (core.review.untrusted, core.team.untrusted): who wrote, committed and signed it,
    why that is not enough, what it would change, and its diff (credentials shown
    as ``[secret: rule-id]``). ``first``: it is the one that waits first (decidable)."""

    commit: str
    author: str
    committer: str
    signer: str | None
    why: str
    subject: str
    files: tuple[UntrustedFile, ...]
    diff: str
    first: bool
    options: tuple[str, ...]
    meanings: dict[str, str]


@dataclass(frozen=True)
class QuarantineAnalysis(AsData):
    """What tries to steer the agent (core.review.quarantine): a candidate the write
    gate held (``origin`` candidate: release or discard), or a stored record the
    detector flags (``origin`` record: erase, correct, or keep it). ``text`` is what
    the flags' spans index."""

    origin: str  # candidate | record
    text: str
    flags: tuple[Flag, ...]
    options: tuple[str, ...]
    meanings: dict[str, str]
    key: Key
    type: str
    #: who said the source message, from its log line (None: a file, or not found)
    role: str | None = None
    source: Source | None = field(
        default=None, metadata=shown_as(convert=lambda s: s.to_dict() if s else None)
    )
    #: the raw log lines as they were when the candidate was held: (line, text)
    excerpt_file: str | None = None
    excerpt: tuple[tuple[int, str], ...] = ()
    held_by: str | None = None
    seen: int = 1
    text_hash: str = ""
    memory_id: str | None = None
    #: why a person sees it where it is: its most urgent flag's triage level
    #: (core.domain.steering.triage)
    triage: str = ""


@dataclass(frozen=True)
class SecretAnalysis(AsData):
    file: str
    status: str
    rules: tuple[str, ...]
    options: tuple[str, ...]


@dataclass(frozen=True)
class BatchChange(AsData):
    """One change of a batch: automatic or needs approval, why, and what it touches.
    ``stale``: records that changed since the batch was made."""

    id: str
    action: str
    classification: str = field(metadata=shown_as(key="class"))
    automatic: bool
    reason: str
    evidence: tuple[dict[str, Any], ...]
    memory_ids: tuple[str, ...]
    files: tuple[str, ...]
    stale: tuple[str, ...] = ()


@dataclass(frozen=True)
class BatchFile(AsData):
    """One file a batch changes, with its diff (3 lines of context)."""

    path: str
    status: str  # added | modified | deleted
    classification: str = field(metadata=shown_as(key="class"))
    automatic: bool
    changes: tuple[str, ...]
    reasons: tuple[str, ...]
    evidence: tuple[dict[str, Any], ...]
    derived: bool  # the index, regenerated from the records
    diff: str


@dataclass(frozen=True)
class BatchAnalysis(AsData):
    """A pending consolidation batch (core.consolidation documents each part).

    ``error`` is set, and the rest empty, for a batch that cannot be read."""

    batch: str
    base: str = ""
    branch: str = ""
    since: str | None = None
    engine: str = ""
    created_at: str = ""
    actor: str = ""
    summary: dict[str, int] = field(default_factory=dict)
    changes: tuple[BatchChange, ...] = ()
    files: tuple[BatchFile, ...] = ()
    index: dict[str, Any] = field(default_factory=dict)
    replay: dict[str, Any] = field(default_factory=dict)
    findings: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class Said(AsData):
    """One logged message, as a label item shows it: where, when, who, what."""

    log: str
    line: int
    task: str
    index: int
    when: str
    role: str
    text: str


@dataclass(frozen=True)
class LabelAnalysis(AsData):
    """A sample a person labels for a measure (core.review.labels): a repeated
    explanation (``repeat``: the later message, the earlier one it repeats, why it is a
    candidate and what the events say went wrong), a memory written in a period
    (``precision``), or one recalled in it (``citation``)."""

    measure: str  # repeat | precision | citation
    options: tuple[str, ...]
    meanings: dict[str, str]
    period: str | None = None  # YYYY-MM: the month a sample is drawn from
    later: Said | None = None
    earlier: Said | None = None
    why: tuple[str, ...] = ()
    marker: tuple[int, int] | None = None  # the marker's span in ``later.text``
    key: str | None = None  # subject#attribute of the memory the messages are about
    memory_id: str | None = None
    diagnosis: str | None = None  # never-written | not-recalled | not-used | used-but-wrong
    diagnosis_why: str = ""
    recalled: int = 0  # a citation sample: its recalls in the period
    cited: int = 0  # and how many of them were cited


Analysis = (
    ConflictAnalysis
    | PromotionAnalysis
    | DeletionAnalysis
    | BatchAnalysis
    | SecretAnalysis
    | StaleAnalysis
    | HeldAnalysis
    | QuarantineAnalysis
    | UntrustedAnalysis
    | LabelAnalysis
)
A = TypeVar(
    "A",
    ConflictAnalysis,
    PromotionAnalysis,
    DeletionAnalysis,
    BatchAnalysis,
    SecretAnalysis,
    StaleAnalysis,
    HeldAnalysis,
    QuarantineAnalysis,
    UntrustedAnalysis,
    LabelAnalysis,
)


@dataclass(frozen=True)
class ScanHit(AsData):
    """Where the secret scan found a credential: the rule and the place, never the value."""

    rule: str
    line: int
    column: int
    description: str = ""


@dataclass(frozen=True)
class BatchLoss(AsData):
    """What deciding an item would do to a pending consolidation batch of its store:
    ``discarded`` (an erasure discards every pending batch: it may quote what is
    erased) or ``stale`` (the item's records change, so approving the batch's changes
    that expect them is refused). ``actions``: the item's actions that do it."""

    batch: str
    effect: str  # discarded | stale
    actions: tuple[str, ...]
    #: stale: the batch's changes that expect the item's records
    changes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item(AsData):
    kind: Kind
    id: str
    title: str
    opened_at: str
    store: Store = field(compare=False, repr=False, metadata=shown_as(convert=lambda s: s.root))
    analysis: Analysis
    scope: str = "private"
    subject: str = ""
    records: tuple[RecordEvidence, ...] = ()
    request: Request | None = None
    team_records: tuple[RecordEvidence, ...] = ()
    scan: tuple[ScanHit, ...] = field(default=(), metadata=shown_as(key="secret_scan"))
    #: the last time someone looked at this item and left it open (None: never deferred)
    deferred: Deferral | None = None
    #: what deciding it would do to a pending consolidation batch of its store (the
    #: queue's reading, core.review.queue.batches_first: no part of the item itself)
    discards: tuple[BatchLoss, ...] = field(default=(), compare=False)

    def analysis_as(self, kind: type[A]) -> A:
        """The analysis, as the dataclass the caller expects for this item's kind."""
        if not isinstance(self.analysis, kind):
            raise TypeError(f"{self.id} is a {self.kind} item, its analysis is no {kind.__name__}")
        return self.analysis
