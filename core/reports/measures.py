"""The seed's measures (seed 8), each with its definition and its series.

Health (core.reports.metrics) counts what the store shows by itself; this module adds
what needs the logs, the usage and citation events, or a person's labels
(core.review.labels):

- repeated explanations (the seed's headline): labelled repeats per week, and what
  each confirmed one says went wrong (extraction, retrieval, injection, stale);
- precision (write side): of a month's sample of new memories, the share labelled
  reusable, with its 95% Wilson interval;
- stale citations: of a month's sample of recalled memories, the share a person found
  no longer true;
- hit rate: of the tasks that touched a key memory already held, the share that
  recalled it; unused injections: of the memories recalled, the share never cited;
- interception: the share of ``memgov redteam``'s synthetic credentials and poisoned
  texts the gate stopped, at each run.

Every number is recomputed from the events (labels are decisions), so it can be
audited; :data:`DEFINITIONS` says what each one is, for the desk's ``d`` and for
``memgov health --json``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from core.domain.data import AsData
from core.domain.record import Memory
from core.review.labels import (
    DIAGNOSES,
    Label,
    aware_time,
    labels_in,
    logged_at,
    message_key,
    periods,
)
from core.store import logs

if TYPE_CHECKING:
    from core.reports.health_events import Happened

WEEKS = 12
MONTHS = 6
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)

#: each measure's definition: what it counts and where from (the desk shows it on ``d``)
DEFINITIONS = {
    "repeats": (
        "Repeated explanations (seed 8.1): how often the user had to explain the same "
        "thing again. Candidates are found in the daily logs (a marker such as 我说过, "
        "还是, 又, 'I told you', 'again', or the same statement or key twice in seven "
        "days); a person confirms or dismisses each on the desk. The series counts "
        "confirmed repeats per week, by the later message's date. It should fall."
    ),
    "precision": (
        "Precision (write side): of a month's random sample of new memories (sample_size "
        "in memgov.yaml, 20 by default), the share a person labelled reusable rather "
        "than noise, with its 95% Wilson interval. The series is per month."
    ),
    "stale_citations": (
        "Stale-citation rate (retrieval side): of a month's random sample of recalled "
        "memories, the share a person found no longer true against the current state "
        "(expired or corrected), of those checked. The series is per month."
    ),
    "hit_rate": (
        "Hit rate: of the tasks of the logs that touched a key memory already held (a "
        "user message of the task is a source of a record of the key, written after "
        "another record of it; or the task recalled the key), the share that recalled "
        "the key before the user said it (a use event in that task, or the same day "
        "when the recall named no task). Per week."
    ),
    "unused_injections": (
        "Unused injections: of the memories recalled (use events), the share never "
        "cited (no cite event of the memory in the same task, or within a day). Per week."
    ),
    "interception": (
        "Interception (seed 8, red-team replay): the share of memgov redteam's synthetic "
        "credentials and poisoned texts that the write gate held or refused, at each run "
        "(the last run of each week in the series)."
    ),
}
DIAGNOSIS_ORDER = tuple(DIAGNOSES)


@dataclass
class Measure(AsData):
    """One measure: its value now, how it is shown, its series and its definition."""

    name: str
    title: str
    value: float | None
    shown: str
    #: one value a week or a month; None where nothing was labelled (no 0%)
    series: Sequence[float | None] = field(default_factory=list)
    per: str = "week"  # week | month
    detail: str = ""
    definition: str = ""
    #: ``share``: the series are shares, 0 to 1 (a sparkline's full bar is 100%);
    #: ``count``: counts (its full bar is the highest)
    unit: str = "share"


def wilson(part: int, whole: int, z: float = 1.96) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a share ``part/whole`` (None: no sample)."""
    if whole <= 0:
        return None
    p = part / whole
    denominator = 1 + z * z / whole
    centre = (p + z * z / (2 * whole)) / denominator
    half = z * math.sqrt(p * (1 - p) / whole + z * z / (4 * whole * whole)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def week_of(when: datetime | None, start: datetime) -> int | None:
    """Which of the :data:`WEEKS` weeks from ``start`` ``when`` falls in (None: outside
    them, or no time)."""
    if when is None:
        return None
    seconds = (when - start).total_seconds()
    index = int(seconds // (7 * 86400))
    if seconds == WEEKS * 7 * 86400:  # the last week ends at now, now included
        index -= 1
    return index if 0 <= index < WEEKS else None


def _count(value: object) -> bool:
    """A count an event may hold: a whole number, not negative, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _weekly_shares(parts: Sequence[int], wholes: Sequence[int]) -> list[float | None]:
    """Each week's share; None for a week with nothing to count (a gap, not 0%)."""
    return [_share(p, w) for p, w in zip(parts, wholes, strict=True)]


def measures(
    *,
    now: datetime,
    memories: Sequence[Memory],
    events: Sequence[Happened],
    messages: Sequence[logs.Message],
    open_repeats: int,
) -> list[Measure]:
    """Every measure of one store, the headline first (see the module)."""
    start = now - timedelta(weeks=WEEKS)
    labelled = labels_in(events)
    months = list(reversed(periods(now, MONTHS)))
    return [
        _repeats(labelled, start, open_repeats),
        _precision(labelled, months),
        _stale(labelled, months),
        _hit_rate(memories, events, messages, start),
        _unused(events, start),
        _interception(events, start),
    ]


def _of(labelled: dict[str, Label], measure: str) -> list[Label]:
    return [label for label in labelled.values() if label.measure == measure]


def _repeats(labelled: dict[str, Label], start: datetime, open_repeats: int) -> Measure:
    confirmed = [lab for lab in _of(labelled, "repeat") if lab.option == "confirm"]
    weekly = [0.0] * WEEKS
    for label in confirmed:  # the week the user said it again
        week = week_of(aware_time(label.said_at or label.ts), start)
        if week is not None:
            weekly[week] += 1
    causes = Counter(label.diagnosis for label in confirmed if label.diagnosis)
    detail = "; ".join(
        f"{DIAGNOSES[d].split(':')[0]}: {causes[d]}" for d in DIAGNOSIS_ORDER if causes[d]
    )
    dismissed = sum(1 for lab in _of(labelled, "repeat") if lab.option == "dismiss")
    return Measure(
        "repeats",
        "repeated explanations",
        weekly[-1],
        f"{int(weekly[-1])} this week, {len(confirmed)} confirmed, {open_repeats} to label",
        weekly,
        "week",
        (detail or "no confirmed repeat yet") + f" ({dismissed} dismissed)",
        DEFINITIONS["repeats"],
        "count",
    )


def _monthly(
    labelled: dict[str, Label], measure: str, months: list[str], good: Iterable[str]
) -> tuple[list[float | None], int, int, str]:
    """Per month, the share of the labels in ``good``; and the last labelled month's
    counts."""
    wanted = set(good)
    series: list[float | None] = []
    part, whole, month = 0, 0, ""
    for period in months:
        mine = [lab for lab in _of(labelled, measure) if lab.period == period]
        hits = sum(1 for lab in mine if lab.option in wanted)
        series.append(round(hits / len(mine), 3) if mine else None)  # None: not labelled
        if mine:
            part, whole, month = hits, len(mine), period
    return series, part, whole, month


def _precision(labelled: dict[str, Label], months: list[str]) -> Measure:
    series, part, whole, month = _monthly(labelled, "precision", months, ["reusable"])
    value = _share(part, whole)
    ci = wilson(part, whole)
    shown = (
        f"{_pct(value)} ({ci[0]:.0%}–{ci[1]:.0%}) of {whole} in {month}"
        if ci
        else "no sample labelled"
    )
    return Measure(
        "precision",
        "precision",
        value,
        shown,
        series,
        "month",
        f"{part} reusable, {whole - part} noise" if whole else "",
        DEFINITIONS["precision"],
    )


def _stale(labelled: dict[str, Label], months: list[str]) -> Measure:
    series, part, whole, month = _monthly(
        labelled, "citation", months, ["expire", "correct", "stale"]
    )
    value = _share(part, whole)
    shown = f"{_pct(value)} of {whole} checked in {month}" if whole else "no sample checked"
    return Measure(
        "stale_citations",
        "stale citations",
        value,
        shown,
        series,
        "month",
        f"{part} no longer true, {whole - part} still true" if whole else "",
        DEFINITIONS["stale_citations"],
    )


def _hit_rate(
    memories: Sequence[Memory],
    events: Sequence[Happened],
    messages: Sequence[logs.Message],
    start: datetime,
) -> Measure:
    said = {(m.log, m.task, m.index): m.when for m in messages}
    logged = logged_at(messages)
    key_of = {m.id: (m.subject, m.attribute) for m in memories}
    created: dict[tuple[str, str], list[datetime]] = {}
    for memory in memories:
        created.setdefault(key_of[memory.id], []).append(memory.created_at)
    uses: dict[tuple[str, str], list[tuple[datetime, str | None]]] = {}
    for event in events:
        if event.action != "use" or (when := aware_time(event.ts)) is None:
            continue
        task = event.details.get("task")
        for memory_id in event.memory_ids:
            if memory_id in key_of:
                uses.setdefault(key_of[memory_id], []).append(
                    (when, task if isinstance(task, str) else None)
                )
    touched: dict[tuple[str, tuple[str, str]], datetime] = {}
    for memory in memories:
        key = key_of[memory.id]
        for source in memory.all_sources:
            at = message_key(source, logged)
            when = said.get(at) if at is not None else None
            # held before: a record of the key older than the message (the one written
            # from it is younger: a message's time is its minute)
            if when is None or not any(c < when for c in created[key]):
                continue
            first = touched.get((source.task, key))
            if first is None or when < first:
                touched[(source.task, key)] = when
    # a task of the logs that recalled the key touched it too, and the user did not have
    # to say it (counting only the tasks where the user restated it counts only misses)
    in_logs = {m.task for m in messages}
    for key, recalls in uses.items():
        for w, t in recalls:
            if t in in_logs and (t, key) not in touched:
                touched[(t, key)] = w
    weekly_hits, weekly_all = [0] * WEEKS, [0] * WEEKS
    hits = 0
    for (task, key), when in touched.items():
        hit = any(
            # before the message (its time is its minute): a recall the restating
            # brought about is no hit
            (t == task and w < when + MINUTE) or (t is None and when - DAY <= w < when + MINUTE)
            for w, t in uses.get(key, ())
        )
        hits += hit
        week = week_of(when, start)
        if week is not None:
            weekly_all[week] += 1
            weekly_hits[week] += hit
    value = _share(hits, len(touched))
    series = _weekly_shares(weekly_hits, weekly_all)
    return Measure(
        "hit_rate",
        "hit rate",
        value,
        f"{_pct(value)} of {len(touched)} task{'s' if len(touched) != 1 else ''}"
        if touched
        else "no task touched a held key",
        series,
        "week",
        f"{hits} recalled, {len(touched) - hits} did not" if touched else "",
        DEFINITIONS["hit_rate"],
    )


def _unused(events: Sequence[Happened], start: datetime) -> Measure:
    cites: dict[str, list[tuple[datetime, str | None]]] = {}
    for event in events:
        if event.action == "cite" and (when := aware_time(event.ts)) is not None:
            task = event.details.get("task")
            for memory_id in event.memory_ids:
                cites.setdefault(memory_id, []).append(
                    (when, task if isinstance(task, str) else None)
                )
    weekly_unused, weekly_all = [0] * WEEKS, [0] * WEEKS
    unused = total = 0
    for event in events:
        if event.action != "use" or (when := aware_time(event.ts)) is None:
            continue
        task = event.details.get("task")
        for memory_id in event.memory_ids:
            cited = any(
                (task is not None and t == task) or when <= w <= when + DAY
                for w, t in cites.get(memory_id, ())
            )
            total += 1
            unused += not cited
            week = week_of(when, start)
            if week is not None:
                weekly_all[week] += 1
                weekly_unused[week] += not cited
    value = _share(unused, total)
    series = _weekly_shares(weekly_unused, weekly_all)
    return Measure(
        "unused_injections",
        "unused injections",
        value,
        f"{_pct(value)} of {total} recalled" if total else "nothing recalled",
        series,
        "week",
        f"{unused} never cited" if total else "",
        DEFINITIONS["unused_injections"],
    )


def _interception(events: Sequence[Happened], start: datetime) -> Measure:
    runs = [e for e in events if e.action == "redteam"]
    weekly: list[float | None] = [None] * WEEKS  # None: no run that week (no 0%)
    last: Mapping[str, Any] = {}
    for event in runs:  # an event log is untrusted input: counts that make sense only
        caught, total = event.details.get("intercepted"), event.details.get("total")
        if not isinstance(caught, int) or not isinstance(total, int):
            continue
        if not (_count(caught) and _count(total) and 0 <= caught <= total and total):
            continue
        last = event.details
        week = week_of(aware_time(event.ts), start)
        if week is not None:
            weekly[week] = round(caught / total, 3)
    if not last:
        return Measure(
            "interception",
            "interception (red team)",
            None,
            "never run: memgov redteam",
            weekly,
            "week",
            "",
            DEFINITIONS["interception"],
        )
    value = round(last["intercepted"] / last["total"], 3)
    parts = []
    for name in ("credentials", "steering"):
        pair = last.get(name)
        if isinstance(pair, list) and len(pair) == 2 and all(_count(n) for n in pair):
            parts.append(f"{name} {pair[0]}/{pair[1]}")
    return Measure(
        "interception",
        "interception (red team)",
        value,
        f"{_pct(value)} of {last['total']} at the last run",
        weekly,
        "week",
        ", ".join(parts),
        DEFINITIONS["interception"],
    )
