"""Health metrics (SPEC section 11, seed 8): what the store measures.

Write side: source completeness, sensitive interception rate, duplicate rate
by key. Retrieval side, from usage events: how many memories were ever
recalled, and the share never used. The seed's measures that need the logs, the
citations or a person's labels (repeated explanations, precision, stale citations,
hit rate, unused injections, red-team interception) are :attr:`Health.measures`
(core.reports.measures). Reverse signals (seed 8.2), each with its likely cause:
memory growth against task growth, index line length growing, records rewritten
repeatedly, team records concentrated in one contributor, consolidation that cuts
counts while the measures do not improve. Each series is weekly, for sparklines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from core.domain.data import AsData
from core.domain.record import STATUSES, TYPES, Memory
from core.reports.health_events import Happened, health_events
from core.reports.measures import WEEKS, Measure, measures, week_of
from core.reports.repeat_ids import repeat_ids
from core.review.labels import aware_time, labels
from core.store import logs
from core.store.index import INDEX_FILE, check_index, index_line, read_index_text
from core.store.store import Store


@dataclass
class Health(AsData):
    store: str
    scope: str
    by_status: dict[str, int] = field(default_factory=dict)
    by_type: dict[str, int] = field(default_factory=dict)
    index: dict[str, Any] = field(default_factory=dict)
    write: dict[str, Any] = field(default_factory=dict)
    retrieval: dict[str, Any] = field(default_factory=dict)
    signals: list[dict[str, Any]] = field(default_factory=list)
    series: dict[str, list[int]] = field(default_factory=dict)
    measures: list[Measure] = field(default_factory=list)


def _week(ts: str, start: datetime) -> int | None:
    return week_of(aware_time(ts), start)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _deleted(memories: list[Memory], events: list[Happened]) -> set[str]:
    """The records deleted: an erasure removes the file (its id, key and content hash
    stay in its event), so they are counted from the events, with any file that still
    says ``deleted`` (written by hand, or by an older memgov)."""
    erased = {i for e in events if e.to_status == "deleted" for i in e.memory_ids}
    still = {m.id for m in memories if m.status != "deleted"}  # an id in use again
    return (erased - still) | {m.id for m in memories if m.status == "deleted"}


def health(store: Store) -> Health:
    memories = list(store.memories.values())
    events = health_events(store)  # kept by shard: parsed where a shard changed
    now = store.now()
    start = now - timedelta(weeks=WEEKS)
    out = Health(store=str(store.root), scope=store.config.scope)
    out.by_status = {s: sum(1 for m in memories if m.status == s) for s in STATUSES}
    out.by_status["deleted"] = len(_deleted(memories, events))
    out.by_type = {t: sum(1 for m in memories if m.type == t) for t in TYPES}

    text, problem = read_index_text(store.root)  # a binary or non-UTF-8 index: a warning
    text = text or ""
    lines = text.splitlines()
    cfg = store.config
    out.index = {
        "lines": len(lines),
        "max_lines": cfg.index_max_lines,
        "bytes": len(text.encode("utf-8")),
        "max_bytes": cfg.index_max_bytes,
        "longest_line": max((len(line) for line in lines), default=0),
        "max_line_chars": cfg.index_line_chars,
        "warnings": ([f"{INDEX_FILE} {problem}"] if problem else []) + check_index(text, cfg),
    }

    live = [m for m in memories if m.status in ("active", "conflict")]
    tasks = logs.task_index(store.root)
    resolving = sum(
        logs.resolving(
            store.root,
            (m.all_sources for m in live),
            task_logs=tasks,
            outside_ok=store.config.scope == "private",
        )
    )
    attempts = [
        e
        for e in events
        if e.action in ("create", "conflict", "reconfirm", "merge", "reverify", "refuse")
        and (e.action != "conflict" or e.from_status is None)
    ]
    refused = [e for e in attempts if e.action == "refuse"]
    sensitive = [e for e in refused if e.details.get("secret_rules")]
    merges = [e for e in attempts if e.action in ("reconfirm", "merge", "reverify")]
    out.write = {
        "source_completeness": _ratio(resolving, len(live)),
        "write_attempts": len(attempts),
        "refused": len(refused),
        "sensitive_intercepted": len(sensitive),
        "sensitive_share_of_refusals": _ratio(len(sensitive), len(refused)),
        "duplicate_rate_by_key": _ratio(len(merges), len(attempts)),
    }
    active = [m for m in memories if m.status == "active"]
    used = [m for m in active if m.usage_count > 0]
    out.retrieval = {
        "recall_events": sum(1 for e in events if e.action == "use"),
        "active_ever_used": len(used),
        "unused_share": _ratio(len(active) - len(used), len(active)),
    }

    growth = [0] * WEEKS
    for e in events:
        if e.from_status is None and e.to_status in ("active", "conflict"):
            week = _week(e.ts, start)
            if week is not None:
                growth[week] += 1
    out.series["new memories per week"] = growth
    decisions = [0] * WEEKS
    for e in events:
        if e.action == "decide" and (week := _week(e.ts, start)) is not None:
            decisions[week] += 1
    out.series["decisions per week"] = decisions
    # quarantine: candidates held for trying to steer the agent, and what
    # people did with them; a record's words kept or erased count as released or discarded
    held_actions = {
        "quarantined per week": ("quarantine",),
        "released per week": ("quarantine-release", "quarantine-keep"),
        "discarded per week": ("quarantine-discard",),
    }
    for name, actions in held_actions.items():
        weekly = [0] * WEEKS
        for e in events:
            if e.action in actions and (week := _week(e.ts, start)) is not None:
                weekly[week] += 1
        out.series[name] = weekly
    out.write["quarantined"] = sum(1 for e in events if e.action == "quarantine")
    out.write["quarantine_released"] = sum(
        1 for e in events if e.action in held_actions["released per week"]
    )
    out.write["quarantine_discarded"] = sum(1 for e in events if e.action == "quarantine-discard")

    tz = logs.log_timezone((m.created_at for m in memories), now.tzinfo or UTC)
    messages = logs.messages(store.root, tz)
    new_tasks = _tasks_per_week(messages, start)
    out.signals = _signals(store, memories, events, new_tasks, growth, start)
    out.series["new tasks per week"] = new_tasks
    out.measures = measures(
        now=now,
        memories=memories,
        events=events,
        messages=messages,
        open_repeats=_open_repeats(store, memories),
    )
    return out


def _open_repeats(store: Store, memories: list[Memory]) -> int:
    """How many repeat candidates no person labelled yet (what
    ``label_items_count(store, "repeat")`` counts; the candidates' ids kept while
    nothing they are found in changed: core.reports.repeat_ids)."""
    done = labels(store)
    return sum(1 for ident in repeat_ids(store, memories) if ident not in done)


def _tasks_per_week(messages: list[logs.Message], start: datetime) -> list[int]:
    first: dict[str, datetime] = {}
    for message in messages:
        first.setdefault(message.task, message.when)
    weekly = [0] * WEEKS
    for when in first.values():
        # a message's time is aware (its log's time zone): no text to parse again
        week = week_of(when, start) if when.tzinfo is not None else None
        if week is not None:
            weekly[week] += 1
    return weekly


def _contributor(event: Happened) -> str:
    """Whose record an event created: its ``contributor`` (a promotion's requester, a
    proposal's author), else whoever wrote it."""
    contributor = event.details.get("contributor")
    return contributor if isinstance(contributor, str) and contributor else event.actor


def _halves(series: list[int]) -> tuple[int, int]:
    return sum(series[: WEEKS // 2]), sum(series[WEEKS // 2 :])


def _signals(
    store: Store,
    memories: list[Memory],
    events: list[Happened],
    tasks: list[int],
    growth: list[int],
    start: datetime,
) -> list[dict[str, Any]]:
    """The reverse signals of seed 8.2 that fire, each with what it means and its
    likely cause."""
    cfg = store.config
    out: list[dict[str, Any]] = []

    def signal(name: str, detail: str, meaning: str, cause: str) -> None:
        out.append({"signal": name, "detail": detail, "meaning": meaning, "cause": cause})

    (m_before, m_after), (t_before, t_after) = _halves(growth), _halves(tasks)
    if m_after >= 10 and m_after * max(t_before, 1) > 2 * max(m_before, 1) * max(t_after, 1):
        signal(
            "memories grow much faster than tasks",
            f"{m_before} memories / {t_before} tasks -> {m_after} / {t_after} per 6 weeks",
            "extraction is too wide",
            "the write gate's threshold (theta) is too low",
        )
    lengths = [0.0] * WEEKS
    counts = [0] * WEEKS
    for memory in memories:
        created = memory.created_at
        week = week_of(created, start) if created.tzinfo is not None else None
        if week is not None:  # the line as written, before the index caps it
            lengths[week] += len(index_line(memory, 1_000_000))
            counts[week] += 1
    means = [round(n / c) if c else 0 for n, c in zip(lengths, counts, strict=True)]
    before = [v for v in means[: WEEKS // 2] if v]
    after = [v for v in means[WEEKS // 2 :] if v]
    enough = sum(counts[: WEEKS // 2]) >= 5 and sum(counts[WEEKS // 2 :]) >= 5
    if enough and sum(after) / len(after) > 1.3 * sum(before) / len(before):
        signal(
            "index lines keep growing",
            f"mean line of new records {sum(before) // len(before)} -> "
            f"{sum(after) // len(after)} characters (cap {cfg.index_line_chars})",
            "someone writes content into the index",
            "the write prompt is unclear about what goes in the index",
        )
    longest = max(
        (len(line) for line in (read_index_text(store.root)[0] or "").splitlines()), default=0
    )
    if longest > cfg.index_line_chars:
        signal(
            "index lines too long",
            f"longest {longest} characters",
            "content is being written into the index",
            "the write prompt is unclear about what goes in the index",
        )
    # a key whose value keeps changing: a record of it replaced (superseded, corrected)
    # or contradicted (a new record in conflict), not a record confirmed again
    key_of = {m.id: f"{m.subject}#{m.attribute}" for m in memories}
    changes = Counter(
        key_of[e.memory_ids[0]]
        for e in events
        if e.memory_ids
        and e.memory_ids[0] in key_of
        and (e.to_status == "superseded" or (e.action == "conflict" and e.from_status is None))
        and _week(e.ts, start) is not None
    )
    churn = sorted(((n, k) for k, n in changes.items() if n >= 3), key=lambda p: (-p[0], p[1]))
    if churn:
        signal(
            "records rewritten repeatedly",
            ", ".join(f"{k} ({n} new values)" for n, k in churn[:5]),
            "the fact is unstable",
            "no stability check (s1) at write time",
        )
    # who a team record came from: the person who asked for its promotion or proposed
    # it (the event's contributor), not the maintainer who approved it
    created_by = Counter(
        _contributor(e)
        for e in events
        if e.from_status is None and e.to_status in ("active", "conflict")
    )
    if cfg.scope == "team" and created_by:
        actor, count = created_by.most_common(1)[0]
        share = count / sum(created_by.values())
        if share > 0.6 and sum(created_by.values()) >= 5:
            signal(
                "team records from one contributor",
                f"{actor}: {share:.0%} of {sum(created_by.values())}",
                "personal habits may pose as team conventions",
                "the scope criteria are vague",
            )
    cut: Counter[str] = Counter(
        e.decision
        for e in events
        if e.decision and e.from_status == "active" and e.to_status in ("superseded", "expired")
    )
    for e in events:
        if e.action != "decide" or e.details.get("kind") != "consolidation":
            continue
        replay = e.details.get("replay")
        n = cut.get(e.decision or "", 0)
        if not n or not isinstance(replay, dict) or _week(e.ts, start) is None:
            continue
        moved = [replay.get(k, 0) for k in ("gained", "changed")]  # untrusted: ints only
        if all(isinstance(v, int) and not isinstance(v, bool) and v == 0 for v in moved):
            signal(
                "consolidation cut records, answers unchanged",
                f"{e.details.get('batch')}: {n} record{'s' if n != 1 else ''} retired, "
                f"{replay.get('queries', 0)} replayed queries answer as before",
                "consolidation is a ritual: counts fall, quality does not move",
                "it removes what does not matter and did not go back to the raw evidence",
            )
    return out
