"""Decay, expiry and recall (SPEC section 7, seed 6.2).

weight = w0 * exp(-d1 / tau1) * exp(-d2 / tau2)

d1 is days since last use (since creation when never used), d2 days since the
last verification, tau2 = 2 * tau1 by default. w0 is the record's confidence
times the store's ``w0``: confidence is the ranking weight (SPEC section 2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.domain import policy
from core.domain.data import AsData, shown_as
from core.domain.errors import NotFoundError, StoreError
from core.domain.provenance import shown as shown_provenance
from core.domain.record import TRUST, Memory
from core.store.config import Config
from core.store.reaching import Reaching
from core.store.store import Store
from core.store.workspace import Workspace

DAY = 86_400.0


def days_between(earlier: datetime, later: datetime) -> float:
    return max((later - earlier).total_seconds() / DAY, 0.0)


def weight(memory: Memory, now: datetime, config: Config) -> float:
    d1 = days_between(memory.last_used_at or memory.created_at, now)
    d2 = days_between(memory.verified_at, now)
    w0 = config.w0 * memory.confidence
    return w0 * math.exp(-d1 / config.tau1_days) * math.exp(-d2 / config.tau2_days)


def unused(memory: Memory, now: datetime, config: Config) -> bool:
    """Not a consolidation input: unused for ``unused_days`` (never deleted for it)."""
    return days_between(memory.last_used_at or memory.created_at, now) >= config.unused_days


def environment_changed(memory: Memory, current: Mapping[str, str]) -> list[str]:
    """Tools a reflection was learnt with whose version is now different."""
    if memory.type != "reflection" or not memory.environment:
        return []
    return [
        f"{tool} {was} -> {current[tool]}"
        for tool, was in memory.environment.items()
        if tool in current and str(current[tool]) != str(was)
    ]


@dataclass(frozen=True)
class SweepReport(AsData):
    #: (memory id, why)
    expired: tuple[tuple[str, str], ...] = field(
        metadata=shown_as(convert=lambda pairs: [{"id": i, "why": w} for i, w in pairs])
    )
    #: no longer consolidation input
    unused: tuple[str, ...] = field(metadata=shown_as(key="not_consolidation_input"))


def _due(
    memories: Iterable[Memory], now: datetime, env: Mapping[str, str]
) -> list[tuple[str, str]]:
    """(id, why) of each active record past expires_at or learnt in a changed environment."""
    due: list[tuple[str, str]] = []
    for memory in memories:
        if memory.status != "active":
            continue
        if memory.expires_at is not None and memory.expires_at <= now:
            due.append((memory.id, f"past expires_at {memory.expires_at.isoformat()}"))
        elif changed := environment_changed(memory, env):
            due.append((memory.id, "environment changed: " + ", ".join(changed)))
    return due


SWEEP_HINT = (
    "Nothing was swept. --dry-run shows what would expire; to sweep only your private "
    "store, pass it alone with --store; or ask a maintainer to sweep the team store"
)


def sweep(
    store: Store, *, actor: str, environment: Mapping[str, str] | None = None, dry_run: bool = False
) -> SweepReport:
    """Expire what is past expires_at or learnt in a changed environment (recorded).

    On a team store only its maintainers may expire records (a
    :class:`core.domain.errors.AuthorizationError` for anyone else, nothing changed);
    ``dry_run`` is open to everyone.
    """
    if not dry_run and store.config.scope == "team":
        policy.check_maintainer(store, actor, f"sweep the team store {store.root}", hint=SWEEP_HINT)
    env = dict(store.config.extra.get("environment") or {})
    env.update(environment or {})
    now = store.now()
    if dry_run:
        due = _due(store.memories.values(), now, env)
    else:
        # decided under the store lock, on what the store holds now: another writer may
        # have changed a record since this process last read it
        from core.store.transaction import transaction  # a reading command never loads it

        with transaction(store, actor=actor, message="sweep") as tx:
            due = _due(tx.view.values(), tx.now, env)
            tx.message = f"sweep: expire {len(due)} memories"
            for memory_id, why in due:
                tx.transition(memory_id, "expired", action="expire", reason=why)
    idle = tuple(
        sorted(
            m.id
            for m in store.memories.values()
            if m.status == "active" and unused(m, now, store.config)
        )
    )
    return SweepReport(expired=tuple(due), unused=idle)


def sweep_workspace(
    workspace: Workspace,
    *,
    actor: str,
    environment: Mapping[str, str] | None = None,
    dry_run: bool = False,
) -> list[tuple[Store, SweepReport]]:
    """:func:`sweep` every store of the workspace, or none: who may sweep each store is
    checked before the first one is swept, so a refusal leaves every store as it was."""
    if not workspace.stores:
        raise StoreError("no store given: pass --store PATH")
    if not dry_run:
        for store in workspace.stores:
            if store.config.scope == "team":
                policy.check_maintainer(
                    store, actor, f"sweep the team store {store.root}", hint=SWEEP_HINT
                )
    return [
        (store, sweep(store, actor=actor, environment=environment, dry_run=dry_run))
        for store in workspace.stores
    ]


def _recalled(memory: Memory) -> dict[str, Any]:
    position, trust, check = TRUST[memory.type]
    return {
        "id": memory.id,
        "type": memory.type,
        "injection": position,
        "trust": trust,
        "check": check,
        "subject": memory.subject,
        "attribute": memory.attribute,
        "condition": memory.condition,
        "content": memory.content,
        "provenance": shown_provenance(memory.provenance),
    }


@dataclass(frozen=True)
class Recalled(AsData):
    """A recalled record, shown with its type's injection position and trust."""

    memory: Memory = field(metadata=shown_as(flatten=True, convert=_recalled))
    weight: float = field(metadata=shown_as(convert=lambda w: round(w, 4)))


def matches(memory: Memory, subject_prefix: str | None, attribute: str | None) -> bool:
    if subject_prefix and not memory.subject.startswith(subject_prefix):
        return False
    return not attribute or memory.attribute == attribute


def rank(memories: Iterable[Memory], now: datetime, config: Config) -> list[Recalled]:
    ranked = [Recalled(m, weight(m, now, config)) for m in memories]
    ranked.sort(key=lambda r: (-r.weight, r.memory.id))
    return ranked


def records_usage(store: Store, actor: str) -> bool:
    """Whether ``actor``'s recall in ``store`` records use: always in a private store, and
    in a team store only for its maintainers (any other team write is a request)."""
    return store.config.scope != "team" or policy.is_maintainer(store, actor)


def recall(
    store: Store,
    *,
    subject_prefix: str | None,
    attribute: str | None,
    actor: str,
    limit: int = 10,
    record_usage: bool = True,
    withheld: list[str] | None = None,
    task: str | None = None,
) -> list[Recalled]:
    """Active records of the query key, ranked by weight; their use is recorded.

    A use is a write (events, front matter, a commit). In a team store it is
    recorded only for its maintainers: anyone else's recall there reads only
    (:func:`records_usage` says which).

    Only what reaches the agent is recalled (core.store.reaching, the rule every
    channel applies): a record the steering detector flags, that no person kept as it
    is, is never recalled while its review item is open; its id goes to ``withheld``
    instead, and the next record takes its place.

    The records are walked in weight order from the catalog's recall index
    (:func:`by_rank`: only the records shown, and the few past them, are built);
    when the index's rows cannot say, every active record of the key is read
    (:func:`by_reading`), with the same answer.
    """
    record_usage = record_usage and records_usage(store, actor)
    now = store.now()
    reaching = Reaching(store)  # what reaches the agent: one rule for every channel
    walked = by_rank(store, subject_prefix, attribute, now, limit, reaching)
    if walked is None:  # the index's rows cannot say: every record of the key is read
        walked = by_reading(store, subject_prefix, attribute, now, limit, reaching)
    ranked, held = walked
    if withheld is not None:
        withheld += held
    if ranked and record_usage:
        query = f"{subject_prefix or '*'}#{attribute or '*'}"
        recalled = tuple((r.memory.id, r.weight) for r in ranked)
        record_uses(store, [Use(query, recalled, task)], actor)
    return ranked


#: what a recall walk gives: the records recalled, and the ids withheld on the way
Walked = tuple[list[Recalled], list[str]]


def by_reading(
    store: Store,
    subject_prefix: str | None,
    attribute: str | None,
    now: datetime,
    limit: int,
    reaching: Reaching,
) -> Walked:
    """The recall of every active record of the key, each built and weighed: what
    :func:`by_rank` must answer the same as."""
    found = [  # an indexed query: only the subject's records are built
        m
        for m in store.memories.with_subject(subject_prefix or "")
        if m.status == "active" and matches(m, subject_prefix, attribute)
    ]
    walked = _walk(rank(found, now, store.config), limit, reaching, None)
    assert walked is not None  # with no bound, every record is read
    return walked


def _walk(
    ranked: Iterable[Recalled], limit: int, reaching: Reaching, above: float | None
) -> Walked | None:
    """The first ``limit`` of ``ranked`` (in weight order) that reach the agent, and the
    ids withheld before them. ``above``: the natural log of the most an unread record
    may weigh; a record not surely heavier than that may have one of them before it,
    so the walk cannot say (None)."""
    out: list[Recalled] = []
    held: list[str] = []
    for result in ranked:
        if len(out) >= limit:
            return out, held
        if above is not None and not _surely_above(result.weight, above):
            return None
        if reaching.withheld(result.memory) is not None:
            held.append(result.memory.id)
            continue
        out.append(result)
    return (out, held) if above is None or len(out) >= limit else None


#: how far apart two logs of a weight must be for the order to be sure (floats' error
#: on a rank of thousands of days is about 1e-12)
_MARGIN = 1e-9
#: the least weight whose logarithm is exact enough (below it, floats lose digits)
_LEAST = 1e-300


def _surely_above(weight_: float, bound: float) -> bool:
    return weight_ >= _LEAST and math.log(weight_) > bound + _MARGIN


class _Unsure(Exception):
    """The index's rows disagree with the records built from them."""


def by_rank(
    store: Store,
    subject_prefix: str | None,
    attribute: str | None,
    now: datetime,
    limit: int,
    reaching: Reaching,
) -> Walked | None:
    """:func:`by_reading`'s answer from the catalog's recall index (core.store.catalog
    recall_rows), building only the records it shows. None: the rows cannot say (a row
    disagrees with its record, an id two files claim, a store weight of 0); the caller
    reads every record instead.

    Why it is the same answer: ``ln(weight) = ln(w0) + rank - now * (1/tau1 + 1/tau2)``
    for a record whose times are past, and less for one dated in the future (decay
    counts a future time as now), so a row's rank bounds the weight of its record and
    of every row after it. The rows are read in rank order; the records built from them
    are sorted by weight, then id, as :func:`rank` sorts; one heavier than what any
    unread row may weigh keeps its place, and the walk reads more rows when it reaches
    a record that is not surely heavier."""
    config = store.config
    if not config.w0 > 0 or not math.isfinite(config.w0):
        return None
    from core.store.index import index_rank  # beside the catalog, already loaded

    shift = math.log(config.w0) - now.timestamp() / DAY * (
        1 / config.tau1_days + 1 / config.tau2_days
    )
    catalog = store.memories.catalog
    fetch = 2 * limit + 8
    try:
        while True:
            rows = catalog.recall_rows(subject_prefix, attribute, fetch)
            complete = len(rows) < fetch
            built = _built(store, rows, subject_prefix, attribute)
            for memory, rank_ in built:
                if not _same_rank(rank_, index_rank(memory, config)):
                    raise _Unsure
            above = None if complete else shift + _last_rank(rows)
            reaching.hints([m.id for m, _r in built])  # one look-up for the steering hints
            walked = _walk(rank([m for m, _r in built], now, config), limit, reaching, above)
            if walked is not None:
                return walked
            fetch *= 4
    except _Unsure:
        return None


def _last_rank(rows: Sequence[tuple[str, str, float | None]]) -> float:
    value = rows[-1][2]
    if value is None or math.isnan(value):
        raise _Unsure
    return value


def _same_rank(kept: float | None, made: float) -> bool:
    if kept is None or math.isnan(kept) or math.isnan(made):
        return False
    if kept == made:  # -inf too: a confidence of 0
        return True
    return abs(kept - made) <= _MARGIN * max(1.0, abs(made))


def _built(
    store: Store,
    rows: Sequence[tuple[str, str, float | None]],
    subject_prefix: str | None,
    attribute: str | None,
) -> list[tuple[Memory, float | None]]:
    """The records of these rows with each row's rank, checked against the rows: each
    file named after its id, each id claimed by that file alone, each record active and
    of the key (else :class:`_Unsure`)."""
    ids = [memory_id for _rel, memory_id, _rank in rows]
    if len(set(ids)) != len(ids):
        raise _Unsure
    if any(not rel.endswith(f"/{memory_id}.md") for rel, memory_id, _rank in rows):
        raise _Unsure
    if store.memories.catalog.claimed_more_than_once(ids):
        raise _Unsure
    records = store.memories.at(rel for rel, _id, _rank in rows)
    built = []
    for rel, memory_id, rank_ in rows:
        memory = records.get(rel)
        if memory is None or memory.id != memory_id or memory.status != "active":
            raise _Unsure
        if not matches(memory, subject_prefix, attribute):
            raise _Unsure
        built.append((memory, rank_))
    return built


@dataclass(frozen=True)
class Use:
    """One recall's answer, whose use is recorded: the query and each record's weight."""

    query: str
    recalled: tuple[tuple[str, float], ...]
    #: the task the recall was for, when the agent said (the hit rate's tasks)
    task: str | None = None


def record_uses(store: Store, uses: Sequence[Use], actor: str) -> int:
    """Record the use of what recalls answered: one ``use`` event per record and
    recall, each record's ``usage_count`` and ``last_used_at``, in one transaction and
    one commit for all of them (the MCP server gathers the recalls of a moment).
    A record gone or no longer active since it was recalled is left alone. Records
    nothing where :func:`records_usage` says no. Returns the events written."""
    if not uses or not records_usage(store, actor):
        return 0
    queries = sorted({use.query for use in uses})
    more = f" and {len(queries) - 1} more" if len(queries) > 1 else ""
    message = f"recall: {queries[0]}{more}"
    written = 0
    from core.store.transaction import transaction  # a reading command never loads it

    with transaction(store, actor=actor, message=message) as tx:
        now = tx.now
        for use in uses:
            for memory_id, weight_then in use.recalled:
                try:
                    current = tx.get(memory_id)
                except NotFoundError:
                    continue  # erased since it was recalled
                if current.status != "active":
                    continue
                tx.update(
                    current.id,
                    action="use",
                    reason=f"recalled for {use.query}",
                    usage_count=current.usage_count + 1,
                    last_used_at=now,
                    details={
                        "query": use.query,
                        "weight": round(weight_then, 4),
                        **({"task": use.task} if use.task else {}),
                    },
                )
                written += 1
    return written
