"""Property: whatever agents send, the store only moves along the lifecycle table.

Random short sequences of remember / sweep / recall calls over a small pool of
subjects, attributes, values and types, with a clock that only moves forward,
some expiry dates and tool versions, and some candidates whose source does not
resolve. After each sequence:

* replaying events.jsonl, each memory's successive (from, to) pairs are in
  ``core.domain.lifecycle.TRANSITIONS`` and chain (each from is the previous to), and
  the last one is the record's status now;
* every active or conflict record has at least one source that resolves;
* no key holds two active records with different values (that is a conflict);
* nothing of type working or scope task was ever written.

Each remember is a git commit, so examples are few and short.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.domain.lifecycle import NEW, TRANSITIONS
from core.domain.record import Memory, Source
from core.domain.values import normalise
from core.store import logs
from core.store.store import Store
from core.writing.decay import recall, sweep
from core.writing.pipeline import Candidate, remember

ACTOR = "agent@example.com"
SUBJECTS = ("project:liyyro", "user:liys05")
ATTRIBUTES = ("package_manager", "output_format")
VALUES = ("pnpm", "yarn", "npm")
TYPES = ("semantic", "preference", "reflection", "episodic", "working")
VERSIONS = ("20", "22")


@dataclass(frozen=True)
class Remember:
    subject: str
    attribute: str
    value: str
    type: str
    resolves: bool
    expires_in_days: int | None
    node: str | None


@dataclass(frozen=True)
class Sweep:
    node: str | None


@dataclass(frozen=True)
class Recall:
    subject: str | None
    attribute: str | None


STEP = st.one_of(
    st.builds(
        Remember,
        subject=st.sampled_from(SUBJECTS),
        attribute=st.sampled_from(ATTRIBUTES),
        value=st.sampled_from(VALUES),
        type=st.sampled_from(TYPES),
        resolves=st.sampled_from((True, True, True, False)),
        expires_in_days=st.sampled_from((None, None, 1, 5)),
        node=st.sampled_from((None, *VERSIONS)),
    ),
    st.builds(Sweep, node=st.sampled_from((None, *VERSIONS))),
    st.builds(
        Recall,
        subject=st.sampled_from((None, *SUBJECTS)),
        attribute=st.sampled_from((None, *ATTRIBUTES)),
    ),
)
# each step happens 0 hours to 4 days after the one before
SEQUENCE = st.lists(st.tuples(STEP, st.integers(0, 96)), min_size=1, max_size=7)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2027, 3, 14, 10, 20, tzinfo=timezone(timedelta(hours=8)))

    def __call__(self) -> datetime:
        return self.now


def run_step(store: Store, clock: Clock, step: object, number: int) -> None:
    if isinstance(step, Sweep):
        sweep(store, actor=ACTOR, environment={"node": step.node} if step.node else None)
        return
    if isinstance(step, Recall):
        recall(store, subject_prefix=step.subject, attribute=step.attribute, actor=ACTOR)
        return
    assert isinstance(step, Remember)
    task = f"tr_{number}"
    text = f"{step.attribute} is {step.value}"
    if step.resolves:
        rel, _ = logs.append_message(
            store.root, task=task, index=1, role="user", text=text, when=clock.now
        )
        source = Source(task=task, message_index=1, evidence=text, log=rel)
    else:
        source = Source(task=f"never_logged_{number}", message_index=1, evidence=text)
    candidate = Candidate(
        content=f"The {step.attribute.replace('_', ' ')} is {step.value}.",
        type=step.type,
        scope="private",
        subject=step.subject,
        attribute=step.attribute,
        value=step.value,
        source=source,
        s1=0.9,
        s2=0.8,
        expires_at=clock.now + timedelta(days=step.expires_in_days)
        if step.expires_in_days
        else None,
        environment={"node": step.node} if step.node else None,
    )
    before = set(store.memories)
    outcome = remember(store, candidate, actor=ACTOR)
    after = store.memories
    if outcome.kind == "refused":
        assert step.type == "working" or not step.resolves, outcome.reasons
        assert set(after) == before
    else:
        assert step.type != "working" and step.resolves
        assert outcome.kind in ("written", "merged", "conflict")
        assert all(i in after for i in outcome.memory_ids)
        if outcome.kind == "conflict":
            assert {after[i].status for i in outcome.memory_ids} == {"conflict"}


def check_invariants(store: Store) -> None:
    events, bad = store.events()
    assert bad == []
    memories = store.refresh().memories

    # 1. every transition is legal and the chain of each memory is unbroken
    last: dict[str, str] = {}
    for event in events:
        if event.to_status is None:
            continue
        (memory_id,) = event.memory_ids
        previous = last.get(memory_id)
        assert event.from_status == previous, f"{memory_id}: {previous} then {event}"
        assert (event.from_status or NEW, event.to_status) in TRANSITIONS, event
        last[memory_id] = event.to_status
    assert set(last) == set(memories)
    for memory_id, memory in memories.items():
        assert last[memory_id] == memory.status, memory_id

    # 2. every active or conflict record has a source that resolves
    for memory in memories.values():
        if memory.status in ("active", "conflict"):
            assert any(logs.resolve(store.root, s) for s in memory.all_sources), memory.id

    # 3. one key never holds two active values: that would be an unopened conflict
    by_key: dict[tuple[str, str, str, str | None], set[str]] = {}
    for memory in memories.values():
        if memory.status == "active":
            by_key.setdefault(memory.key, set()).add(_value(memory))
    assert all(len(values) == 1 for values in by_key.values()), by_key

    # 4. working memory and task scope never reach the store
    assert all(m.type != "working" and m.scope != "task" for m in memories.values())


def _value(memory: Memory) -> str:
    return normalise(memory.value if memory.value is not None else memory.content)


def _comeback(mtype: str) -> list[tuple[object, int]]:
    """A value expires, another takes the key, the first is said again (a regression:
    it used to come back as a second active record instead of opening a conflict)."""
    key = ("project:liyyro", "package_manager")
    return [
        (Remember(*key, "pnpm", mtype, True, 1, None), 0),
        (Sweep(None), 48),
        (Remember(*key, "yarn", mtype, True, None, None), 1),
        (Remember(*key, "pnpm", mtype, True, None, None), 1),
    ]


def _same_instant() -> list[tuple[object, int]]:
    """A preference, another, the first again, all at one instant (a pinned clock)."""
    key = ("user:liys05", "output_format")
    return [(Remember(*key, v, "preference", True, None, None), 0) for v in VALUES[:2] + VALUES[:1]]


@example(sequence=_same_instant())
@example(sequence=_comeback("semantic"))
@example(sequence=_comeback("preference"))
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=SEQUENCE)
def test_random_sequences_keep_the_lifecycle_legal_and_sources_resolvable(
    sequence: list[tuple[object, int]],
) -> None:
    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="memgov-prop-") as tmp:
        store = Store.init(Path(tmp) / "store", actor=ACTOR, clock=clock)
        for number, (step, hours) in enumerate(sequence):
            clock.now += timedelta(hours=hours)
            run_step(store, clock, step, number)
        check_invariants(store)
