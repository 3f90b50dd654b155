"""The labelled measures (seed 8): what a person judges, drawn as items.

Three measures need a person's judgement on a sample, and the desk is the labelling
tool. Each sample is an item of kind ``label`` (not in the queue: drawn apart), decided
through the one decision path (core.review.decide) and reverted like any decision:

- ``repeat-<hash>``: a repeated explanation (seed 8.1). A user message is a candidate
  when it carries a marker (core.domain.repeats) or states again, within seven days and
  in another task, what an earlier one stated (the same normalised statement, or a
  source of the same key). The item shows both messages and the memory of the key;
  ``confirm`` or ``dismiss``. A confirmed repeat is diagnosed from the events, as the
  seed says, so the fix goes to the right place: ``never-written`` (no record of the
  key before the later message: extraction), ``not-recalled`` (written, no recall of
  it between the two messages: retrieval), ``not-used`` (recalled, never cited:
  injection), ``used-but-wrong`` (cited, and still said again: stale or conflicting).
- ``precision-<YYYY-MM>-<memory id>``: a memory written that month, drawn at random
  but reproducibly (:data:`Config.sample_size` a month, 20 by default); ``reusable``
  or ``noise``.
- ``citation-<YYYY-MM>-<memory id>``: a memory recalled that month, checked against
  the current state: ``true`` (still true: its ``verified_at`` is now, a reconfirmation
  event), ``expire`` or ``correct`` (no longer true: the lifecycle's usual transitions).

A label is a decision (``decisions/<id>.json``, a ``decide`` event of kind ``label``
naming the item, the option, the measure, the period and the diagnosis): who labelled
what and when, so every number is recomputed from the events and audited, and ``u``
reverts a label (the item opens again). :func:`labels` reads them from the event log's
index, no decision file opened.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.domain import repeats, secrets
from core.domain.errors import SecretBlocked, ValidationError
from core.domain.record import Memory, Source
from core.review.evidence import Evidence
from core.review.items import Item, Kind, LabelAnalysis, Said
from core.review.session import Session
from core.store import logs
from core.store.decisions import Decision, decision_for, front, new_decision_id, record_decision
from core.store.events import EventsAt, next_append
from core.store.store import Store
from core.store.workspace import Workspace

MEASURES = ("repeat", "precision", "citation")
PREFIXES = {m: f"{m}-" for m in MEASURES}
OPTIONS: dict[str, tuple[str, ...]] = {
    "repeat": ("confirm", "dismiss"),
    "precision": ("reusable", "noise"),
    "citation": ("true", "expire", "correct", "stale"),
}
MEANING = {
    "confirm": "the user had to explain this again: a repeat, diagnosed from the events",
    "dismiss": "not a repeat (a new request, or the marker means something else)",
    "reusable": "worth keeping: it will be useful in a later task",
    "noise": "not worth keeping: task detail, a guess, or nothing to reuse",
    "true": "still true against the current state: verified now",
    "expire": "no longer true: expire it (it is recalled no more)",
    "correct": "no longer true: a record with the right content supersedes it",
    "stale": "it was no longer true (the record is not current any more: left as it is)",
}
#: what a confirmed repeat says went wrong, and where the fix goes (seed 8.1)
DIAGNOSES = {
    "never-written": "never written: extraction (the criteria, or extraction did not run)",
    "not-recalled": "written but not recalled when needed: retrieval",
    "not-used": "recalled but not used: injection (its position or trust)",
    "used-but-wrong": "recalled and cited, and still said again: stale or conflicting",
}
#: the months a sample is drawn from: this one and the one before
PERIODS = 2


def is_label_id(item_id: str) -> bool:
    return item_id.startswith(tuple(PREFIXES.values()))


def _hash(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


def _said(message: logs.Message) -> Said:
    return Said(
        message.log,
        message.line,
        message.task,
        message.index,
        message.when.isoformat(),
        message.role,
        secrets.redact(message.text),
    )


# ------------------------------------------------------------------------- labels
@dataclass(frozen=True)
class Label:
    """One label in force: which item, what the person said, who and when."""

    item: str
    measure: str
    option: str
    actor: str
    ts: str
    decision: str
    period: str | None
    diagnosis: str | None
    memory_ids: tuple[str, ...]
    said_at: str | None = None  # a repeat: when the user said it again


def labels(store: Store) -> dict[str, Label]:
    """The labels in force, by item id: each item's last label decision, unless a
    revert came after it (from the event log's index: no decision file is read)."""
    return labels_in(store.catalog.events_with_action("decide"))


def labels_in(events: Iterable[Any]) -> dict[str, Label]:
    """:func:`labels` of these events (in log order; any action but ``decide`` is
    passed over)."""
    out: dict[str, Label] = {}
    for event in events:
        if event.action != "decide":
            continue
        details = event.details
        item = details.get("item")
        if details.get("kind") != Kind.LABEL or not isinstance(item, str):
            continue
        option = details.get("option")
        if option == "revert":
            undone = details.get("reverts")  # older reverts do not say: the label in force
            if item in out and undone in (None, out[item].decision):
                del out[item]
            continue
        measure = details.get("measure")
        if measure not in MEASURES or not isinstance(option, str) or not event.decision:
            continue
        period, diagnosis = details.get("period"), details.get("diagnosis")
        said_at = details.get("said_at")
        out[item] = Label(
            item,
            str(measure),
            option,
            event.actor,
            event.ts,
            event.decision,
            period if isinstance(period, str) else None,
            diagnosis if isinstance(diagnosis, str) else None,
            tuple(event.memory_ids),
            said_at if isinstance(said_at, str) else None,
        )
    return out


# ------------------------------------------------------------------------ repeats
@dataclass(frozen=True)
class Candidate:
    id: str
    later: logs.Message
    earlier: logs.Message | None
    why: tuple[str, ...]
    marker: repeats.Found | None
    memory: Memory | None


def _key(memory: Memory) -> str:
    return f"{memory.subject}#{memory.attribute}"


MessageKey = tuple[str, str, int]


def logged_at(messages: Iterable[logs.Message]) -> dict[tuple[str, int], str]:
    """Which log holds each task's message (task, index): a source written without
    ``log`` (it is optional: the task's line is looked up) is found through it."""
    out: dict[tuple[str, int], str] = {}
    for message in messages:
        out.setdefault((message.task, message.index), message.log)
    return out


def message_key(source: Source, logged: dict[tuple[str, int], str]) -> MessageKey | None:
    """The logged message a record's source points at: its log, task and index (the log
    looked up by task when the source names none); None for a file or an unlogged one."""
    if source.message_index is None or source.file:
        return None
    log = source.log or logged.get((source.task, source.message_index))
    return (log, source.task, source.message_index) if log else None


def _sources_by_message(
    memories: Iterable[Memory], messages: Iterable[logs.Message]
) -> dict[MessageKey, Memory]:
    """Each logged message a record's source points at, and the record (the newest)."""
    logged = logged_at(messages)
    out: dict[MessageKey, Memory] = {}
    for memory in sorted(memories, key=lambda m: m.created_at):
        for source in memory.all_sources:
            if (key := message_key(source, logged)) is not None:
                out[key] = memory
    return out


#: the candidates found last in each store, by what they were found in: the logs' list
#: (the same object while no log changed) and where the event log ends (every write of
#: a record appends an event; a record file edited by hand, with no event, is seen
#: at the next write or the next process)
_FOUND: dict[str, tuple[list[logs.Message], EventsAt, list[Candidate]]] = {}


class Features:
    """What the search reads of a message's text (core.domain.repeats): its marker, its
    statement, its words and how similar two are. A subclass may know some of them
    already (core.reports.repeat_ids keeps them by text between runs)."""

    def marker(self, text: str) -> repeats.Found | None:
        return repeats.marker(text)

    def statement(self, text: str) -> str | None:
        return repeats.statement(text)

    def grams(self, text: str) -> frozenset[str]:
        return repeats.grams(text)

    def similarity(self, a: str, b: str) -> float:
        """core.domain.repeats.similarity, of these grams."""
        ga, gb = self.grams(a), self.grams(b)
        return len(ga & gb) / len(ga | gb) if ga and gb else 0.0


def repeat_candidates(
    store: Store, memories: Sequence[Memory] | None = None, *, features: Features | None = None
) -> list[Candidate]:
    """Every candidate repeat of the store's logs, oldest first (see the module); found
    again only when a log or a record changed since the last time. ``memories``: the
    store's records, when the caller has them built already (health); ``features``:
    what is known of the messages' texts already."""
    if memories is None:
        memories = list(store.memories.values())
    tz = logs.log_timezone((m.created_at for m in memories), store.now().tzinfo or UTC)
    logged = logs.messages(store.root, tz)
    ends = next_append(store.root)
    hit = _FOUND.get(str(store.root))
    if hit is not None and hit[0] is logged and hit[1] == ends:
        return hit[2]
    found = _find(store, logged, memories, features or Features())
    _FOUND[str(store.root)] = (logged, ends, found)
    return found


def _find(
    store: Store, logged: list[logs.Message], memories: Sequence[Memory], features: Features
) -> list[Candidate]:
    said = [m for m in logged if m.role == "user"]
    pointed = _sources_by_message(memories, logged)
    window = timedelta(days=repeats.WINDOW_DAYS)
    found: dict[int, tuple[logs.Message | None, list[str], repeats.Found | None]] = {}

    def add(at: int, earlier: logs.Message | None, why: str) -> None:
        was_earlier, whys, mark = found.get(at, (None, [], None))
        found[at] = (was_earlier or earlier, [*whys, why], mark)

    by_statement: dict[str, int] = {}
    by_key: dict[str, int] = {}
    similar = _Similar(said, window, features)
    for at, message in enumerate(said):
        mark = features.marker(message.text)
        if mark is not None:
            earlier = similar.before(at)
            found[at] = (earlier, [f"marker '{message.text[mark.start : mark.end]}'"], mark)
        norm = features.statement(message.text)
        if norm is not None:
            before = by_statement.get(norm)
            if before is not None and _repeats(said[before], message, window):
                add(at, said[before], "the same statement")
            by_statement[norm] = at
        similar.add(at)
        memory = pointed.get((message.log, message.task, message.index))
        if memory is not None:
            key = _key(memory)
            before = by_key.get(key)
            if before is not None and _repeats(said[before], message, window):
                add(at, said[before], f"the same key {key}")
            by_key[key] = at
    out = []
    about = dict(pointed)  # a message is about a record: its source, or what it repeats
    seen: set[tuple[str, str, int]] = set()
    for at in sorted(found):
        later = said[at]
        where = (later.log, later.task, later.index)
        if where in seen:
            continue  # a log written by hand that numbers two messages of a task alike
        seen.add(where)
        earlier, why, mark = found[at]
        memory = about.get(where)
        if memory is None and earlier is not None:
            memory = about.get((earlier.log, earlier.task, earlier.index))
        if memory is not None:
            about.setdefault(where, memory)
        # not its line: a message logged later under an earlier task moves the lines
        ident = _hash(later.log, later.task, str(later.index))[:16]
        out.append(Candidate(f"repeat-{ident}", later, earlier, tuple(why), mark, memory))
    return out


def _repeats(earlier: logs.Message, later: logs.Message, window: timedelta) -> bool:
    return earlier.task != later.task and later.when - earlier.when <= window


class _Similar:
    """Which earlier user message a marked one most likely repeats: the most similar
    (core.domain.repeats.similarity) of another task within the window, if any is
    similar enough. An index of the words keeps it to the messages that share a word
    with it, words too common in the window (said in more than :data:`COMMON`
    messages) aside, and to the :data:`SHORTLIST` that share the most."""

    COMMON = 300
    SHORTLIST = 25

    def __init__(self, said: list[logs.Message], window: timedelta, features: Features) -> None:
        self.said, self.window, self.features = said, window, features
        self.posted: dict[str, list[int]] = {}

    def add(self, at: int) -> None:
        for gram in self.features.grams(self.said[at].text):
            self.posted.setdefault(gram, []).append(at)

    def before(self, at: int) -> logs.Message | None:
        later = self.said[at]
        start = bisect.bisect_left(self.said, later.when - self.window, hi=at, key=lambda m: m.when)
        shared: Counter[int] = Counter()
        for gram in self.features.grams(later.text):
            posted = self.posted.get(gram, [])
            first = bisect.bisect_left(posted, start)
            if len(posted) - first <= self.COMMON:
                shared.update(posted[first:])
        ranked = [
            (self.features.similarity(self.said[back].text, later.text), back)
            for back, _n in shared.most_common(self.SHORTLIST)
            if self.said[back].task != later.task
        ]
        value, back = max(ranked, default=(0.0, -1))  # the most similar; a tie: the latest
        return self.said[back] if value >= repeats.SIMILAR else None


def diagnose(store: Store, candidate: Candidate) -> tuple[str, str]:
    """What the events say went wrong before the later message (seed 8.1)."""
    later = candidate.later
    memory = candidate.memory
    if memory is None:
        return "never-written", "no memory points at either message"
    records = [
        m
        for m in store.memories.with_subject(memory.subject)
        if m.attribute == memory.attribute and m.created_at < later.when
    ]
    if not records:
        return "never-written", f"no record of {_key(memory)} before {later.when:%Y-%m-%d %H:%M}"
    start = candidate.earlier.when if candidate.earlier else later.when - timedelta(days=7)
    uses = cites = 0
    wrong = []
    for record in records:
        events, _bad = store.catalog.events_of(record.id)
        for event in events:
            when = aware_time(event.ts)
            if when is None or not start <= when <= later.when:
                continue
            uses += event.action == "use"
            cites += event.action == "cite"
        if record.status in ("conflict", "superseded", "expired"):
            wrong.append(f"{record.id} is {record.status}")
    key = _key(memory)
    if not uses:
        return "not-recalled", f"{key} was written ({records[-1].id}) but not recalled"
    if not cites:
        return "not-used", f"{key} was recalled {uses} time(s) but never cited"
    return "used-but-wrong", f"{key} was cited {cites} time(s)" + (
        f"; {', '.join(wrong)}" if wrong else ""
    )


def aware_time(ts: object) -> datetime | None:
    """An event's time, or None when it is no ISO time with an offset (an event log is
    untrusted input: naive and aware times do not compare)."""
    if not isinstance(ts, str):
        return None
    try:
        when = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def _repeat_item(evidence: Evidence, store: Store, candidate: Candidate) -> Item:
    diagnosis, why = diagnose(store, candidate)
    memory = candidate.memory
    options = OPTIONS["repeat"]
    mark = candidate.marker
    return Item(
        kind=Kind.LABEL,
        id=candidate.id,
        title=f"said again? {secrets.redact(candidate.later.text)[:70]}",
        opened_at=candidate.later.when.isoformat(),
        store=store,
        analysis=LabelAnalysis(
            measure="repeat",
            options=options,
            meanings={o: MEANING[o] for o in options},
            later=_said(candidate.later),
            earlier=_said(candidate.earlier) if candidate.earlier else None,
            why=candidate.why,
            marker=(mark.start, mark.end) if mark else None,
            key=_key(memory) if memory else None,
            memory_id=memory.id if memory else None,
            diagnosis=diagnosis,
            diagnosis_why=why,
        ),
        scope=store.config.scope,
        subject=memory.subject if memory else "",
        records=(evidence.of(memory),) if memory else (),
    )


# ------------------------------------------------------------------------ samples
def periods(now: datetime, count: int = PERIODS) -> list[str]:
    """The last ``count`` months (YYYY-MM), this one first."""
    out, year, month = [], now.year, now.month
    for _ in range(count):
        out.append(f"{year:04d}-{month:02d}")
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return out


def _drawn(ids: Iterable[str], period: str, size: int) -> list[str]:
    """A reproducible random sample: the ids whose hash with the period is lowest."""
    return sorted(ids, key=lambda i: _hash(period, i))[:size]


def precision_sample(store: Store, period: str) -> list[Memory]:
    """The memories written in ``period`` that its precision is measured on."""
    written = {m.id: m for m in store.memories.values() if f"{m.created_at:%Y-%m}" == period}
    return [written[i] for i in _drawn(written, period, store.config.sample_size)]


def recalled_in(store: Store, period: str) -> dict[str, list[Any]]:
    """Each record recalled in ``period`` and its ``use`` events then."""
    out: dict[str, list[Any]] = {}
    for event in store.catalog.events_with_action("use"):
        if event.ts[:7] == period:
            for memory_id in event.memory_ids:
                out.setdefault(memory_id, []).append(event)
    return out


def citation_sample(store: Store, period: str) -> list[tuple[Memory, int, int]]:
    """The memories recalled in ``period`` to check against the current state, each
    with its recalls and citations then."""
    recalled = recalled_in(store, period)
    cited: dict[str, int] = {}
    for event in store.catalog.events_with_action("cite"):
        if event.ts[:7] == period:
            for memory_id in event.memory_ids:
                cited[memory_id] = cited.get(memory_id, 0) + 1
    out = []
    for memory_id in _drawn(recalled, period, store.config.sample_size):
        memory = store.memories.get(memory_id)
        if memory is not None:
            out.append((memory, len(recalled[memory_id]), cited.get(memory_id, 0)))
    return out


def _sample_item(
    evidence: Evidence,
    store: Store,
    measure: str,
    period: str,
    memory: Memory,
    recalled: int = 0,
    cited: int = 0,
) -> Item:
    options = tuple(o for o in OPTIONS[measure] if o != "stale")
    if measure == "citation" and memory.status != "active":
        options = ("true", "stale")  # no longer current: the record stays as it is
    verb = "written" if measure == "precision" else "recalled"
    return Item(
        kind=Kind.LABEL,
        id=f"{measure}-{period}-{memory.id}",
        title=f"{verb} in {period}: {secrets.redact(memory.display_title)}",
        opened_at=f"{period}-01T00:00:00+00:00",
        store=store,
        analysis=LabelAnalysis(
            measure=measure,
            options=options,
            meanings={o: MEANING[o] for o in options},
            period=period,
            key=_key(memory),
            memory_id=memory.id,
            recalled=recalled,
            cited=cited,
        ),
        scope=memory.scope,
        subject=memory.subject,
        records=(evidence.of(memory),),
    )


def label_items(
    evidence: Evidence, store: Store, *, measures: Iterable[str] = MEASURES
) -> list[Item]:
    """The open label items of ``store``: every repeat candidate and this month's and
    last month's samples, less what is labelled."""
    done = labels(store)
    return [item for item in _items(evidence, store, set(measures)) if item.id not in done]


def _items(evidence: Evidence, store: Store, wanted: set[str]) -> Iterator[Item]:
    if "repeat" in wanted:
        for candidate in repeat_candidates(store):
            yield _repeat_item(evidence, store, candidate)
    for period in periods(store.now()):
        if "precision" in wanted:
            for memory in precision_sample(store, period):
                yield _sample_item(evidence, store, "precision", period, memory)
        if "citation" in wanted:
            for memory, recalled, cited in citation_sample(store, period):
                yield _sample_item(evidence, store, "citation", period, memory, recalled, cited)


def label_item(evidence: Evidence, store: Store, item_id: str) -> Item | None:
    """The open label item ``item_id`` names, built alone (None: there is none)."""
    if item_id in labels(store):
        return None
    measure = next((m for m, p in PREFIXES.items() if item_id.startswith(p)), None)
    if measure is None:
        return None
    if measure == "repeat":
        return next(
            (_repeat_item(evidence, store, c) for c in repeat_candidates(store) if c.id == item_id),
            None,
        )
    rest = item_id.removeprefix(PREFIXES[measure])
    period, memory_id = rest[:7], rest[8:]
    if period not in periods(store.now()):
        return None
    if measure == "precision":
        sample = {m.id: (m, 0, 0) for m in precision_sample(store, period)}
    else:
        sample = {m.id: (m, r, c) for m, r, c in citation_sample(store, period)}
    if memory_id not in sample:
        return None
    memory, recalled, cited = sample[memory_id]
    return _sample_item(evidence, store, measure, period, memory, recalled, cited)


# ----------------------------------------------------------------------- deciding
def decide_label(  # noqa: C901
    session: Session,
    item: Item,
    approve: bool,
    *,
    actor: str,
    reason: str,
    option: str | None,
    content: str | None = None,
) -> Decision:
    """Label ``item``: ``option`` one of its measure's (reject: ``dismiss`` a repeat,
    ``noise`` for precision). A citation's ``expire`` and ``correct`` change the record
    as a stale report's do; ``true`` verifies it now."""
    analysis = item.analysis_as(LabelAnalysis)
    measure = analysis.measure
    negative = {"repeat": "dismiss", "precision": "noise"}
    chosen = option if approve else negative.get(measure)
    if chosen is None or chosen not in analysis.options:
        raise ValidationError(
            "say which label" if chosen is None else f"{chosen} is no label of this item",
            field="option",
            where=item.id,
            hint="--approve --option " + "|".join(analysis.options),
        )
    if not approve and option is not None:
        raise ValidationError(
            "a rejection takes no option", field="option", where=item.id, hint="drop it"
        )
    if (content is not None) != (chosen == "correct"):
        raise ValidationError(
            "a correction needs the corrected content"
            if chosen == "correct"
            else "a content goes with the option correct only",
            field="content",
            where=item.id,
            hint="--content FILE with what the record should say"
            if chosen == "correct"
            else "drop it",
        )
    if content is not None and not content.strip():
        raise ValidationError("the correction is empty", field="content", where=item.id)
    store = item.store
    memory = item.records[0].memory if item.records else None
    if content is not None and store.config.scope == "team":
        rules = [f.rule_id for f in secrets.scan(content)]
        if rules:
            raise SecretBlocked(f"the correction of {analysis.memory_id}", rules)
    reason = reason.strip() or MEANING[chosen]
    decision_id = new_decision_id(store, f"{item.id}|{chosen}")
    created: list[dict[str, str]] = []
    details: dict[str, Any] = {"measure": measure}
    if analysis.period:
        details["period"] = analysis.period
    if measure == "repeat" and analysis.later is not None:
        details["said_at"] = analysis.later.when
        # which messages were judged, by where they are (never their words), and the key
        for name, said in (("later", analysis.later), ("earlier", analysis.earlier)):
            if said is not None:
                details[name] = {"log": said.log, "task": said.task, "index": said.index}
        if analysis.key:
            details["key"] = analysis.key
        if chosen == "confirm":
            details["diagnosis"] = analysis.diagnosis
    with session.transaction(store, actor=actor, message=f"label {item.id}: {chosen}") as tx:
        if measure == "citation":
            assert memory is not None
            if memory.status == "active" and chosen == "true":
                tx.transition(
                    memory.id,
                    "active",
                    action="verify",
                    reason=reason,
                    decision=decision_id,
                    verified_at=tx.now,
                )
            elif memory.status == "active" and chosen == "expire":
                tx.transition(
                    memory.id, "expired", action="expire", reason=reason, decision=decision_id
                )
            elif chosen == "correct":
                assert content is not None
                from core.review.correct import supersede_with  # a correction: only then

                new = supersede_with(
                    tx,
                    memory,
                    content=content,
                    value=None,
                    reason=reason,
                    actor=actor,
                    decision=decision_id,
                )
                created.append({"store": str(store.root), "id": new.id})
        touched = {memory.id: memory} if memory is not None and measure == "citation" else {}
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind=Kind.LABEL,
            option=chosen,
            actor=actor,
            reason=reason,
            before={i: front(m) for i, m in touched.items()},
            after={i: front(tx.view[i]) for i in touched},
            created=created,
        )
        about = (memory.id,) if memory is not None else ()
        return record_decision(tx, decision, details=details, about=about)


def label_items_count(store: Store, measure: str, memories: Sequence[Memory] | None = None) -> int:
    """How many ``measure`` items are open, none built (health's "to label")."""
    done = labels(store)
    if measure == "repeat":
        return sum(1 for c in repeat_candidates(store, memories) if c.id not in done)
    count = 0
    for period in periods(store.now()):
        if measure == "precision":
            ids = [m.id for m in precision_sample(store, period)]
        else:
            ids = [m.id for m, _r, _c in citation_sample(store, period)]
        count += sum(1 for i in ids if f"{measure}-{period}-{i}" not in done)
    return count


def workspace_label_items(
    workspace: Workspace, *, measures: Iterable[str] = MEASURES
) -> list[Item]:
    """The open label items of every store of the workspace, oldest first."""
    wanted = list(measures)
    items: list[Item] = []
    for store in workspace.stores:
        items += label_items(Evidence(store, workspace.stores), store, measures=wanted)
    items.sort(key=lambda i: (i.opened_at, i.id))
    return items
