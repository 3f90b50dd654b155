"""Health metrics (SPEC section 11, seed 8): what the store itself can measure.

Write side: source completeness, sensitive interception rate, duplicate rate
by key. Retrieval side, from usage events: how many memories were ever
recalled, and the share never used. Reverse signals: memory growth per week,
index line length, records rewritten repeatedly, team records concentrated in
one contributor. Each series is weekly, for sparklines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from core.domain.data import AsData
from core.domain.record import STATUSES, TYPES, Memory
from core.store import logs
from core.store.events import Event
from core.store.index import INDEX_FILE, check_index, read_index_text
from core.store.store import Store

WEEKS = 12


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


def _week(ts: str, start: datetime) -> int | None:
    try:
        when = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if when.tzinfo is None:  # naive and aware times do not subtract
        return None
    index = int((when - start).total_seconds() // (7 * 86400))
    return index if 0 <= index < WEEKS else None


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _deleted(memories: list[Memory], events: list[Event]) -> set[str]:
    """The records deleted: an erasure removes the file (its id, key and content hash
    stay in its event), so they are counted from the events, with any file that still
    says ``deleted`` (written by hand, or by an older memgov)."""
    erased = {i for e in events if e.to_status == "deleted" for i in e.memory_ids}
    still = {m.id for m in memories if m.status != "deleted"}  # an id in use again
    return (erased - still) | {m.id for m in memories if m.status == "deleted"}


def health(store: Store) -> Health:
    memories = list(store.memories.values())
    events, _bad = store.events()
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
        1
        for m in live
        if any(
            logs.resolve(
                store.root,
                s,
                context=0,
                task_logs=tasks,
                outside_ok=store.config.scope == "private",
            )
            for s in m.all_sources
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
    # quarantine (issue 17): candidates held for trying to steer the agent, and what
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

    rewrites = Counter(
        i
        for e in events
        if e.action in ("reconfirm", "merge", "adjudicate", "supersede", "revert")
        for i in e.memory_ids
    )
    churn = sorted(((n, i) for i, n in rewrites.items() if n >= 3), reverse=True)
    if churn:
        out.signals.append(
            {
                "signal": "records rewritten repeatedly",
                "detail": ", ".join(f"{i} ({n}x)" for n, i in churn[:5]),
                "meaning": "the fact is unstable; check s1 at write time",
            }
        )
    if out.index["longest_line"] > cfg.index_line_chars:
        out.signals.append(
            {
                "signal": "index lines too long",
                "detail": f"longest {out.index['longest_line']} characters",
                "meaning": "content is being written into the index",
            }
        )
    created_by = Counter(
        e.actor for e in events if e.from_status is None and e.to_status in ("active", "conflict")
    )
    if store.config.scope == "team" and created_by:
        actor, count = created_by.most_common(1)[0]
        share = count / sum(created_by.values())
        if share > 0.6 and sum(created_by.values()) >= 5:
            out.signals.append(
                {
                    "signal": "team records from one contributor",
                    "detail": f"{actor}: {share:.0%}",
                    "meaning": "personal habits may pose as team conventions",
                }
            )
    recent, earlier = sum(growth[WEEKS // 2 :]), sum(growth[: WEEKS // 2])
    if earlier and recent > 2 * earlier:
        out.signals.append(
            {
                "signal": "memory growing fast",
                "detail": f"{earlier} -> {recent} new records per 6 weeks",
                "meaning": "the write gate may be too loose (theta)",
            }
        )
    return out
