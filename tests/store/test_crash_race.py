"""Issue 10, written as the attack: kill -9 at random moments, and two racing deciders.

A bounded version of ``bench/crash_loop.py`` and ``bench/race_loop.py`` (the
harness is ``tests/support/support_attack.py``): twelve kills spread over the writing
commands that matter most (an erasure with its history purge, a cross-store
promotion and its revert, a batch approval, a rollback, an import...) and six
races, one of each kind, with fixed seeds. Every command is the real ``memgov``
command line in its own process on real git repositories. What each round
checks: the next command does not crash and the stores are consistent (doctor,
git status, no index.lock, no journal), erased content is in no git object, no
decision is applied twice, a promotion is in both stores or neither.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support_attack import COMMANDS, RACES, Harness, crash_loop, is_double, race_loop

CRASH_COMMANDS = (
    "remember-conflict",
    "log",
    "decide-conflict-neither",
    "decide-team-conflict-newer",
    "decide-promotion-approve",
    "decide-deletion-approve",
    "decide-batch-approve",
    "revert-promotion",
    "request-delete",
    "sweep",
    "rollback",
    "import-claude-code",
)
RACE_NAMES = (
    "conflict newer vs neither",
    "deletion approve vs reject",
    "promotion approve vs reject",
    "batch approve vs reject",
    "two reverts of a promotion",
    "two request-delete of one memory",
)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    work = tmp_path_factory.mktemp("attack")
    with Harness(work, log=lambda line: None) as built:
        variants = {c.variant for c in COMMANDS if c.name in CRASH_COMMANDS}
        variants |= {r.variant for r in RACES if r.name in RACE_NAMES}
        built.build(variants)
        yield built


def _report(harness: Harness) -> str:
    return "\n".join(harness.transcript)


def test_names_are_known() -> None:
    assert set(CRASH_COMMANDS) <= {c.name for c in COMMANDS}
    assert set(RACE_NAMES) <= {r.name for r in RACES}


def test_twelve_kills_leave_every_store_consistent(harness: Harness) -> None:
    harness.transcript.clear()
    result = crash_loop(
        harness, kills=12, seed=10, commands=CRASH_COMMANDS, spread=True, check_controls=False
    )
    assert not harness.broken_variants, harness.broken_variants
    assert not result["skipped"], result["skipped"]
    controls = {name: [str(f) for f in fs] for name, fs in result["controls"].items() if fs}
    assert controls == {}, "runs that were not killed are already inconsistent:\n" + _report(
        harness
    )
    assert result["kills"] >= 12 and result["consistent"] == result["kills"], (
        f"kills tried / stores consistent: {result['kills']} / {result['consistent']}\n"
        + _report(harness)
    )
    assert all(r.consistent for r in result["rounds"]), _report(harness)


def test_six_races_decide_each_item_once(harness: Harness) -> None:
    harness.transcript.clear()
    result = race_loop(harness, rounds=len(RACE_NAMES), seed=10, races=RACE_NAMES)
    assert result["races"] == len(RACE_NAMES)
    assert {r.command for r in result["rounds"]} == set(RACE_NAMES)
    doubles = [r for r in result["rounds"] if any(is_double(f) for f in r.failures)]
    assert not doubles, (
        f"races tried / double applications: {result['races']} / {len(doubles)}\n"
        + _report(harness)
    )
    # the loser exits 1 with "already decided by", and the stores stay consistent
    assert all(not r.failures for r in result["rounds"]), _report(harness)
