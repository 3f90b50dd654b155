"""The write gate's last step: a candidate that tries to steer the agent is held.

:func:`assess_candidate` runs the detector (:func:`core.domain.steering.assess`) on
what a write would keep and later inject (the content, the title, the value and the
quoted evidence), with the type, the role of the source message (from its daily
log line) and the hosts the store's config knows. :func:`hold` is what the pipeline
does with the candidate, under the store lock, given those flags and the held
file of the same text (:mod:`core.store.quarantine`):

==========================  ==============================================
the same text was           the candidate
==========================  ==============================================
never held, no flag         goes on to the key (written, merged, conflict)
never held, flagged         is held: ``quarantine/<id>.json``, a review item
held, still open            joins that item (counted again), not written
discarded by a person       is refused, naming who discarded it and when
released by a person        goes on to the key: a person vouched for it
==========================  ==============================================

Nothing of the held text reaches the event log: the ``quarantine`` event keeps the
key, the rules and the text's hash.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.domain.provenance import Provenance, Said, derive, outside_role
from core.domain.record import Memory
from core.store.logs import Excerpt, excerpt_of, resolve, task_messages
from core.store.quarantine import (
    Quarantined,
    held_for,
    item_id,
    text_hash,
    write_quarantined,
)
from core.store.reaching import Assessment as Assessment
from core.store.reaching import (
    Reaching,
    assessed,
    own_words,
    record_assessment,
    source_role,
    steering_flagged,
)
from core.store.reaching import vouched as vouched
from core.store.store import Store
from core.writing.candidate import Candidate, candidate_to_dict

if TYPE_CHECKING:
    from core.domain import steering
    from core.store.transaction import Transaction


def assess_candidate(
    store: Store,
    candidate: Candidate,
    excerpt: Excerpt | None,
    found: Provenance | None = None,
) -> Assessment:
    """Every flag on the candidate: its content, title, value and quoted evidence,
    weighed with the role its words came from: the outside role ``found`` names when
    they came from outside the user (whatever message the candidate cites), else the
    role of the message it cites."""
    extra = (
        ("title", candidate.title),
        ("value", candidate.value),
        ("evidence", candidate.source.evidence if candidate.source else None),
    )
    role = source_role(candidate.source, excerpt)
    external = found is not None and found.external
    if external:
        assert found is not None
        role = found.where or outside_role(found.roles)
    mine = found is not None and own_words(found.to_dict(), role)
    assessment = assessed(
        store,
        candidate.content,
        candidate.type,
        role,
        extra,
        external=external,
        own_words=mine,
        seen=found.seen if found is not None else (),
    )
    unsaid = unsaid_preference(candidate.type, found)
    if unsaid is None:
        return assessment
    return Assessment((*assessment.flags, unsaid), assessment.role)


def unsaid_preference(memory_type: str, found: Provenance | None) -> steering.Flag | None:
    """A preference whose words the user's messages in its task do not hold (fewer than
    :data:`~core.domain.provenance.USER_SAID` of them) while outside messages hold more
    of them: a standing wish the user never said, whatever message it cites (an outside
    text reworded, or translated). A terse "use yarn" remembered as "the project uses
    yarn as its package manager" is the user's: nothing outside said more of it."""
    from core.domain import steering
    from core.domain.provenance import USER_SAID

    if found is None or found.external or memory_type not in steering.PREFERENCE_TYPES:
        return None
    if found.user >= USER_SAID or not found.outside:
        return None
    return steering.Flag(
        "unsaid-preference",
        "provenance",
        0,
        0,
        f"the user's messages hold {found.user:.0%} of its words",
        "a preference must be the user's own wish; the user's messages in its task do not say it",
    )


def derived(store: Store, candidate: Candidate, excerpt: Excerpt | None) -> Provenance | None:
    """Where the candidate's words came from, traced through its task's messages in the
    daily log (None for a source that is a file: an imported memory is its file's)."""
    source = candidate.source
    if source is None or source.file is not None:
        return None
    if source.log is None and excerpt is not None:  # found by its task: the log it is in
        source = dataclasses.replace(source, log=excerpt.file)
    said = []
    for message in task_messages(store.root, source):
        cut = excerpt_of(message.text)  # a long text's start, and its whole's words
        if cut is None:
            said.append(Said(message.role, message.text))
        else:
            said.append(Said(message.role, cut.start, cut.words))
    text = "\n".join(t for t in (candidate.title, candidate.value, candidate.content) if t)
    return derive(text, said, cited=source_role(source, excerpt), memory_type=candidate.type)


def provenance(store: Store, memory: Memory) -> str:
    """Where a record's first source came from: the role of its logged message
    (``user``, ``assistant``, ``tool``, ...), ``file`` for an imported file, or
    ``unknown`` when the pointer does not resolve."""
    source = memory.source
    if source is None:
        return "unknown"
    if source.file is not None:
        return "file"
    return source_role(source, resolve(store.root, source, context=0)) or "unknown"


def flagged_records(
    store: Store, memory_ids: list[str] | None = None
) -> list[tuple[Memory, Assessment]]:
    """The active and conflicting records the detector flags and no person kept as they
    are: only those the catalog's steering hint names are read (``memory_ids``: only
    these). What reaches the agent asks the same (core.store.reaching).

    Every hinted record (``memory_ids`` None) is asked from the verdicts the catalog
    keeps (:mod:`core.store.catalog.assessed`): a record is read, and the detector
    asked, only when its file, the log its source cites, the known hosts or the
    detector changed since its verdict was kept, or when it is flagged (what the
    answer shows)."""
    if memory_ids is not None:
        return _flagged_among(store, memory_ids)
    from core.store.catalog import assessed as cached

    catalog = store.memories.catalog
    context = cached.context_of(store.config.known_hosts)
    logs = cached.LogStamps(store.root)
    cached.prepare(catalog)
    rows: dict[str, list[cached.Hinted]] = {}
    for row in cached.hinted(catalog, context):
        rows.setdefault(row.id, []).append(row)
    found = []
    fresh: list[tuple[cached.Hinted, cached.Kept]] = []
    for memory_id, mine in rows.items():
        bits = 0
        for row in mine:
            bits |= row.bits
        alone = mine[0] if len(mine) == 1 and mine[0].copies == 1 else None
        known = alone.kept if alone is not None and cached.usable(alone, logs) else None
        if known is not None and not known.flagged:
            continue  # as it was: not flagged, nothing read
        memory = store.memories.get(memory_id)
        if memory is None or memory.status not in ("active", "conflict"):
            continue
        flagged = known is not None
        if known is None:
            log = _log_read(memory)
            log_stamp = logs.of(log)  # before the log is read: a change after is seen then
            flagged = steering_flagged(store, memory, bits)
            if alone is not None and memory.path == alone.rel:
                fresh.append((alone, cached.Kept(log, log_stamp, flagged)))
        if not flagged or vouched(store, memory):
            continue
        assessment = record_assessment(store, memory)
        if assessment.flags:
            found.append((memory, assessment))
    cached.keep(catalog, context, fresh, prune=True)
    return found


def _log_read(memory: Memory) -> str | None:
    """The daily log the detector's verdict on a record reads (the role of the message
    its source cites: :func:`core.store.reaching.record_role`): the log its source
    names, every log (:data:`~core.store.catalog.assessed.EVERY_LOG`) for a source
    that names none, or None when the record itself says the role (a file's source,
    words from outside the user)."""
    from core.store.catalog.assessed import EVERY_LOG

    if memory.provenance and memory.provenance.get("external"):
        return None
    source = memory.source
    if source is None or source.file is not None:
        return None
    return source.log if source.log is not None else EVERY_LOG


def _flagged_among(store: Store, memory_ids: list[str]) -> list[tuple[Memory, Assessment]]:
    """:func:`flagged_records` of these records only, each assessed."""
    reaching = Reaching(store)
    hints = reaching.hints(memory_ids)
    found = []
    for memory_id in memory_ids:
        memory = store.memories.get(memory_id)
        if memory is None or memory.status not in ("active", "conflict"):
            continue
        if not reaching.steering(memory, hint=hints.get(memory_id, 0)):
            continue
        assessment = record_assessment(store, memory)
        if assessment.flags:
            found.append((memory, assessment))
    return found


@dataclass(frozen=True)
class Held:
    """What :func:`hold` did: ``kind`` is ``held`` (a new item or one seen again),
    ``discarded`` (the same text was discarded: refuse it) or ``pass`` (write it)."""

    kind: str
    item: Quarantined | None = None


def hold(
    tx: Transaction,
    candidate: Candidate,
    assessment: Assessment,
    excerpt: Excerpt | None,
) -> Held:
    """Hold a flagged candidate, or recognise its text from an earlier item."""
    digest = text_hash(candidate.content)
    earlier = held_for(tx.store, digest)
    at = tx.now.isoformat(timespec="seconds")
    if earlier is not None and earlier.status == "released":
        return Held("pass", earlier)
    if earlier is not None and earlier.status == "discarded":
        return Held("discarded", earlier)
    if earlier is not None:
        again = earlier.seen_again(at)
        write_quarantined(tx, again)
        tx.event(
            "quarantine-seen",
            reason="the same text was sent again while it is held for review",
            request=again.id,
            details=_details(candidate, again),
        )
        return Held("held", again)
    if not assessment.flags:
        return Held("pass")
    held = Quarantined(
        id=item_id(digest),
        text_hash=digest,
        status="open",
        held_at=at,
        held_by=tx.actor,
        key=candidate.key,
        type=candidate.type,
        flags=assessment.flags,
        role=assessment.role,
        excerpt_file=excerpt.file if excerpt is not None else None,
        excerpt=excerpt.lines if excerpt is not None else (),
        candidate=candidate_to_dict(candidate),
    )
    write_quarantined(tx, held)
    tx.event(
        "quarantine",
        reason="it tries to steer the agent: held for a person to release or discard",
        request=held.id,
        details=_details(candidate, held),
    )
    return Held("held", held)


def _details(candidate: Candidate, held: Quarantined) -> dict[str, object]:
    return {
        "key": {
            "scope": candidate.scope,
            "subject": candidate.subject,
            "attribute": candidate.attribute,
            "condition": candidate.condition,
        },
        "rules": sorted({f.rule for f in held.flags}),
        "text_hash": held.text_hash,
        "seen": held.seen,
    }


def reasons(held: Quarantined) -> tuple[str, ...]:
    """The receipt's lines: why it is held, each rule with what it fired on."""
    lines = [
        f"held for review as {held.id}: not written; a person releases or discards it "
        "(memgov show " + held.id + ")"
    ]
    for flag in held.flags:
        where = f" at “{flag.shown}”" if flag.shown else ""
        lines.append(f"{flag.rule} ({flag.family}){where}: {flag.why}")
    if held.seen > 1:
        lines.append(f"sent {held.seen} times; it is one review item")
    return tuple(lines)


def discarded_reason(held: Quarantined) -> str:
    who = held.decided_by or "a person"
    when = f" on {held.decided_at[:10]}" if held.decided_at else ""
    return (
        f"discarded: the same text was held for review and discarded by {who}{when} "
        f"(decision {held.decision}); it is not held again"
    )
