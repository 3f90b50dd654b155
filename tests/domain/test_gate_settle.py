"""The rule for s1 and s2 a caller does not give (core.domain.gate.settle): pure.

From the user's own words, the memory type's default (a memory expiring within a
week is not stable); from anything else, 0 with what to send. A settled criterion
names its rule; a given score is never settled; a score neither given nor settled
still fails, saying the caller must estimate it.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.domain import gate
from core.domain.kinds import MemoryType

THETA = 0.6


def evaluate(*, role: str | None = "user", memory_type: str = "semantic", **given: Any) -> Any:
    settled = {
        name: gate.settle(name, memory_type=memory_type, role=role, expires_in_days=None)
        for name in ("s1", "s2")
        if given.get(name) is None
    }
    return gate.evaluate(
        content="The team deploys with pnpm.",
        evidence="we deploy with pnpm",
        s1=given.get("s1"),
        s2=given.get("s2"),
        source_resolves=True,
        theta=THETA,
        settled=settled,
        vouched=given.get("vouched", False),
    )


@pytest.mark.parametrize(
    ("memory_type", "s1", "s2"),
    [
        ("preference", 0.8, 0.8),
        ("semantic", 0.7, 0.7),
        ("episodic", 0.8, 0.6),
        ("reflection", 0.6, 0.6),
    ],
)
def test_from_the_users_words_each_type_has_its_default(
    memory_type: str, s1: float, s2: float
) -> None:
    for name, score in (("s1", s1), ("s2", s2)):
        settled = gate.settle(name, memory_type=memory_type, role="user")
        assert (settled.score, settled.rule) == (score, "type-default")
        assert f"the default for a {memory_type} memory" in settled.why
    result = evaluate(memory_type=memory_type)
    assert result.passed, result.reasons()  # each default passes the default theta
    assert [c.settled for c in result.criteria] == ["type-default", "type-default", None, None]


def test_every_kept_type_has_a_default_and_working_none() -> None:
    """Working memory is refused before the gate (never persisted): no default."""
    kept = {t.value for t in MemoryType} - {"working"}
    assert set(gate.SETTLED) == kept
    assert all(THETA <= score <= 1 for pair in gate.SETTLED.values() for score in pair)


@pytest.mark.parametrize("role", ["assistant", "tool", "system", "web", None])
def test_anything_but_the_users_words_settles_at_zero_and_says_what_to_send(
    role: str | None,
) -> None:
    result = evaluate(role=role)
    assert not result.passed
    s1, s2 = result.criteria[:2]
    assert (s1.score, s1.passed, s1.settled) == (0.0, False, "not-the-users-words")
    assert (s2.score, s2.passed, s2.settled) == (0.0, False, "not-the-users-words")
    reasons = result.reasons()
    assert reasons[0].startswith("s1 (stable): not given, and the source is ")
    assert "send s1 (how stable it is, a probability 0..1)" in reasons[0]
    assert "send s2 (how reusable it is, a probability 0..1)" in reasons[1]
    assert "or point the source at the user's message" in reasons[1]


def test_a_memory_expiring_within_a_week_is_not_stable() -> None:
    soon = gate.settle("s1", memory_type="preference", role="user", expires_in_days=6.9)
    assert (soon.score, soon.rule) == (0.0, "expires-within-a-week")
    later = gate.settle("s1", memory_type="preference", role="user", expires_in_days=7)
    assert (later.score, later.rule) == (0.8, "type-default")
    # reusable does not depend on when it expires
    s2 = gate.settle("s2", memory_type="preference", role="user", expires_in_days=1)
    assert (s2.score, s2.rule) == (0.8, "type-default")


def test_a_given_score_is_never_settled_and_one_given_with_one_settled() -> None:
    result = evaluate(s1=0.95)
    s1, s2 = result.criteria[:2]
    assert (s1.score, s1.settled) == (0.95, None)
    assert (s2.score, s2.settled) == (0.7, "type-default")
    assert result.score == 0.7


def test_a_higher_theta_refuses_a_default_and_says_so() -> None:
    settled = {"s1": gate.settle("s1", memory_type="semantic", role="user")}
    result = gate.evaluate(
        content="x is y",
        evidence="x is y",
        s1=None,
        s2=0.9,
        source_resolves=True,
        theta=0.8,
        settled=settled,
    )
    assert not result.passed
    assert result.reasons() == [
        "s1 (stable): not given: settled at 0.70, the default for a semantic memory from "
        "the user's own words (0.70 < theta 0.80)"
    ]


def test_neither_given_nor_settled_fails_saying_the_caller_must_estimate() -> None:
    result = gate.evaluate(
        content="x is y", evidence="x is y", s1=None, s2=0.9, source_resolves=True, theta=THETA
    )
    assert not result.passed
    assert result.criteria[0].settled is None
    assert "no s1 given" in result.reasons()[0]


def test_a_settled_criterion_shows_its_rule_in_the_data() -> None:
    data = evaluate(role="tool").to_dict()
    assert data["criteria"][0]["settled"] == "not-the-users-words"
    assert data["criteria"][2]["settled"] is None
    assert set(gate.SETTLE_RULES) == {
        "type-default",
        "expires-within-a-week",
        "not-the-users-words",
    }


def test_a_person_vouching_keeps_a_settled_score_under_theta() -> None:
    result = evaluate(role="assistant", vouched=True)
    assert result.passed
    assert result.criteria[0].settled == "not-the-users-words"
    assert "a person decided to keep it" in result.criteria[0].why


def test_the_candidate_describes_s1_and_s2_as_the_gate_reads_them() -> None:
    """The remember tool's descriptions are made from the gate's own meanings: s1 is
    stable, s2 reusable, and each says that the gate settles it when left out."""
    from core.writing.candidate import asked_fields

    described = {f.name: f.asked.description for f in asked_fields()}
    assert described["s1"].startswith("stable (still true next week): your probability")
    assert described["s2"].startswith("reusable (future tasks will use it): your probability")
    for name in ("s1", "s2"):
        assert "left out, the gate settles it" in described[name]
