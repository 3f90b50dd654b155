"""The pipeline settles s1 and s2 a candidate does not give (core.domain.gate.settle).

On a real store: the role is read from the source's daily-log line, the expiry is
measured from the store's clock, and what was settled is in the outcome's reasons,
the gate's criteria and the event of the write (or of the refusal).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from core.domain.record import Source
from core.store import logs
from core.store.store import Store
from core.writing.pipeline import Candidate, remember

ACTOR = "agent@example.com"


def said(store: Store, clock: Any, task: str, text: str, role: str = "user") -> Source:
    rel, _ = logs.append_message(
        store.root, task=task, index=1, role=role, text=text, when=clock.now
    )
    return Source(task=task, message_index=1, evidence=text, log=rel)


def unscored(source: Source | None, **fields: Any) -> Candidate:
    base: dict[str, Any] = {
        "content": "The user wants answers in French.",
        "type": "preference",
        "scope": "private",
        "subject": "user:liyyro",
        "attribute": "answer_language",
        "value": "French",
        "source": source,
    }
    return Candidate(**(base | fields))


def events(store: Store, action: str) -> list[Any]:
    found, bad = store.events()
    assert bad == []
    return [e for e in found if e.action == action]


def test_the_users_words_are_settled_at_the_types_default_and_the_event_says_so(
    store: Store, clock: Any
) -> None:
    outcome = remember(store, unscored(said(store, clock, "t1", "answer in French")), actor=ACTOR)
    assert outcome.kind == "written", outcome.reasons
    assert outcome.gate is not None
    s1, s2 = outcome.gate.criteria[:2]
    assert (s1.score, s1.settled, s2.score, s2.settled) == (
        0.8,
        "type-default",
        0.8,
        "type-default",
    )
    assert outcome.reasons[0] == "written"
    assert outcome.reasons[1].startswith("s1 settled by the gate (type-default): not given")
    (created,) = events(store, "create")
    assert created.details["settled"] == {
        "s1": {"score": 0.8, "rule": "type-default"},
        "s2": {"score": 0.8, "rule": "type-default"},
    }
    assert created.details["gate"] == 0.8


def test_the_agents_own_words_are_refused_saying_what_to_send(store: Store, clock: Any) -> None:
    source = said(store, clock, "t1", "answer in French", role="assistant")
    outcome = remember(store, unscored(source), actor=ACTOR)
    assert outcome.kind == "refused"
    assert store.memories == {}
    assert outcome.reasons[0].startswith(
        "s1 (stable): not given, and the source is a message of role assistant, not the "
        "user's own words: send s1"
    )
    (refused,) = events(store, "refuse")
    assert refused.details["criteria"] == ["s1", "s2"]
    assert refused.details["settled"] == {
        "s1": {"score": 0.0, "rule": "not-the-users-words"},
        "s2": {"score": 0.0, "rule": "not-the-users-words"},
    }
    # the agent's own estimates are taken as given (a fact: a preference the agent
    # states itself would be held as steering)
    fact = said(store, clock, "t2", "the shop runs postgres", role="assistant")
    scored = remember(
        store,
        unscored(
            fact,
            s1=0.9,
            s2=0.9,
            type="semantic",
            subject="project:shop",
            attribute="db",
            value="postgres",
            content="The shop runs postgres.",
        ),
        actor=ACTOR,
    )
    assert scored.kind == "written" and scored.reasons == ("written",)
    assert "settled" not in events(store, "create")[0].details


def test_a_source_that_does_not_resolve_settles_nothing_above_zero(store: Store) -> None:
    missing = Source(task="never-logged", message_index=1, evidence="answer in French")
    outcome = remember(store, unscored(missing), actor=ACTOR)
    assert outcome.kind == "refused"
    assert outcome.gate is not None
    failing = [c.name for c in outcome.gate.criteria if not c.passed]
    assert failing == ["s1", "s2", "s3"]
    assert "the source is no logged message" in outcome.reasons[0]


def test_a_memory_expiring_within_a_week_is_not_stable(store: Store, clock: Any) -> None:
    source = said(store, clock, "t1", "answer in French this week")
    soon = unscored(source, expires_at=clock.now + timedelta(days=3))
    outcome = remember(store, soon, actor=ACTOR)
    assert outcome.kind == "refused"
    assert outcome.gate is not None
    assert outcome.gate.criteria[0].settled == "expires-within-a-week"
    later = unscored(source, expires_at=clock.now + timedelta(days=30))
    assert remember(store, later, actor=ACTOR).kind == "written"


def test_a_conflict_and_a_merge_say_what_was_settled(store: Store, clock: Any) -> None:
    assert remember(store, unscored(said(store, clock, "t1", "French")), actor=ACTOR).kind == (
        "written"
    )
    again = remember(store, unscored(said(store, clock, "t2", "French please")), actor=ACTOR)
    assert again.kind == "merged"
    assert any(r.startswith("s2 settled by the gate") for r in again.reasons)
    clock.advance(days=1)
    fact = dict(type="semantic", subject="project:shop", attribute="db", value="postgres")
    first = remember(
        store,
        unscored(
            said(store, clock, "t3", "we run postgres"), content="Shop runs postgres.", **fact
        ),
        actor=ACTOR,
    )
    assert first.kind == "written"
    other = fact | {"value": "mysql"}
    conflict = remember(
        store,
        unscored(said(store, clock, "t4", "we run mysql"), content="Shop runs mysql.", **other),
        actor=ACTOR,
    )
    assert conflict.kind == "conflict"
    assert any(r.startswith("s1 settled by the gate (type-default)") for r in conflict.reasons)
    (opened,) = events(store, "conflict")[:1]
    assert opened.details["settled"]["s1"] == {"score": 0.7, "rule": "type-default"}
