"""The lifecycle state machine (SPEC section 3): every (from, to) pair."""

from __future__ import annotations

import itertools

import pytest

from core.domain import lifecycle
from core.domain.errors import TransitionError
from core.domain.record import STATUSES

STATES = ("new", "active", "superseded", "conflict", "expired", "deleted")

#: SPEC section 3, copied by hand (not from the code) so the test checks the table.
SPEC_TABLE = {
    ("new", "active"),
    ("new", "conflict"),
    ("active", "active"),
    ("active", "superseded"),
    ("active", "conflict"),
    ("active", "expired"),
    ("active", "deleted"),
    ("conflict", "active"),
    ("conflict", "deleted"),
    ("superseded", "deleted"),
    ("expired", "active"),
    ("expired", "deleted"),
}
ALL_PAIRS = list(itertools.product(STATES, STATES))
LEGAL = [pair for pair in ALL_PAIRS if pair in SPEC_TABLE]
ILLEGAL = [pair for pair in ALL_PAIRS if pair not in SPEC_TABLE]


def test_the_states_are_the_spec_states() -> None:
    assert lifecycle.NEW == "new"
    assert set(STATUSES) == set(STATES) - {"new"}
    assert len(ALL_PAIRS) == 36 and len(LEGAL) == 12 and len(ILLEGAL) == 24


def test_the_code_table_is_exactly_the_spec_table() -> None:
    assert set(lifecycle.TRANSITIONS) == SPEC_TABLE


@pytest.mark.parametrize(("frm", "to"), LEGAL)
def test_legal_transition(frm: str, to: str) -> None:
    assert lifecycle.is_legal(frm, to)
    trigger, who = lifecycle.check(frm, to, memory_id="m1")
    assert trigger and who


@pytest.mark.parametrize(("frm", "to"), ILLEGAL)
def test_illegal_transition_is_refused_with_a_clear_message(frm: str, to: str) -> None:
    assert not lifecycle.is_legal(frm, to)
    with pytest.raises(TransitionError) as info:
        lifecycle.check(frm, to, memory_id="m1")
    message = str(info.value)
    assert f"memory m1: illegal transition {frm} -> {to}: " in message
    # the reason after the colon is more than the bare words
    assert len(message.split(f"{frm} -> {to}: ", 1)[1]) > 10
    legal_targets = sorted(t for (f, t) in SPEC_TABLE if f == frm)
    if legal_targets:
        assert f"from {frm} the legal targets are {', '.join(legal_targets)}" in message
    else:
        assert "legal targets" not in message


def test_conflict_to_superseded_explains_how_to_adjudicate() -> None:
    with pytest.raises(TransitionError) as info:
        lifecycle.check("conflict", "superseded")
    message = str(info.value)
    assert "unresolved contradiction" in message
    assert "conflict -> active" in message and "active -> superseded" in message


@pytest.mark.parametrize("to", STATES)
def test_nothing_comes_out_of_deleted(to: str) -> None:
    with pytest.raises(TransitionError) as info:
        lifecycle.check("deleted", to)
    assert "deleted memory is erased" in str(info.value)


@pytest.mark.parametrize("frm", STATES)
def test_nothing_becomes_new_again(frm: str) -> None:
    with pytest.raises(TransitionError, match=r"new|erased"):
        lifecycle.check(frm, "new")


@pytest.mark.parametrize(("frm", "to"), [("active", "archived"), ("limbo", "active"), ("", "")])
def test_unknown_status_is_named(frm: str, to: str) -> None:
    with pytest.raises(TransitionError, match="unknown status"):
        lifecycle.check(frm, to)
    assert not lifecycle.is_legal(frm, to)


def test_message_without_memory_id_has_no_prefix() -> None:
    with pytest.raises(TransitionError) as info:
        lifecycle.check("superseded", "active")
    assert str(info.value).startswith("illegal transition superseded -> active")
