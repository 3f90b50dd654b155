"""The measures from the command line: ``memgov cite`` run as a
subprocess on a real store (a ``cite`` event each, the unused-injections measure
computed by hand before and after, a refused citation writing nothing), and the
config's ``sample_size`` (how many precision samples a month draws, 20 when unset, a
bad value refused naming the file and the field)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from core.domain.errors import ValidationError
from core.reports.metrics import health
from core.review.labels import precision_sample
from core.store.config import CONFIG_FILE
from core.store.store import Store
from core.writing.decay import recall
from tests.conftest import ACTOR, FakeClock, MakeMemory, add_memories, commit_count, events

AGENT = "agent@example.com"
ROOT = Path(__file__).parents[2]
SUBJECT = "user:alice/project:shop"

Memgov = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def memgov(store: Store, clock: FakeClock) -> Memgov:
    """``memgov(*args)``: the CLI on ``store`` as ACTOR, at the test clock's now."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tui.cli", *args, "--store", str(store.root), "--as", ACTOR],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "MEMGOV_NOW": clock.now.isoformat()},
        )

    return run


def unused(store: Store, clock: FakeClock) -> Any:
    """Health's unused-injections measure, read afresh from the store's files."""
    fresh = Store(store.root, clock=clock)
    return next(m for m in health(fresh).measures if m.name == "unused_injections")


@pytest.fixture
def recalled(store: Store, clock: FakeClock, make_memory: MakeMemory) -> tuple[str, str]:
    """Two records, each recalled once in its own task: ``deploy`` in t1, ``tests`` in t2."""
    add_memories(
        store,
        make_memory(id="deploy-1", subject=SUBJECT, attribute="deploy", content="make ship"),
        make_memory(id="tests-1", subject=SUBJECT, attribute="tests", content="tox"),
    )
    clock.advance(hours=1)
    for attribute, task in (("deploy", "t1"), ("tests", "t2")):
        (hit,) = recall(
            store, subject_prefix="user:alice", attribute=attribute, actor=AGENT, task=task
        )
        assert hit.memory.attribute == attribute
    return "deploy-1", "tests-1"


# ------------------------------------------------------------------------- cite
def test_cite_records_an_event_and_moves_unused_injections(
    store: Store, clock: FakeClock, memgov: Memgov, recalled: tuple[str, str]
) -> None:
    deploy, tests = recalled
    before = unused(store, clock)
    # by hand: two recalls (deploy in t1, tests in t2), nothing cited: 2 of 2 unused
    assert (before.value, before.shown, before.detail) == (
        1.0,
        "100% of 2 recalled",
        "2 never cited",
    )

    clock.advance(days=2)
    out = memgov("cite", deploy, "--task", "t1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{deploy}: cited"
    cite = events(store.root)[-1]
    assert (cite["action"], cite["memory_ids"], cite["actor"]) == ("cite", [deploy], ACTOR)
    assert cite["details"] == {"task": "t1", "status": "active"}
    assert cite["ts"].startswith(f"{clock.now:%Y-%m-%d}")  # MEMGOV_NOW, not the real time
    after = unused(store, clock)
    # deploy's recall is cited in its own task (two days on: the task is what counts):
    # 1 of 2 unused
    assert (after.value, after.shown, after.detail) == (0.5, "50% of 2 recalled", "1 never cited")

    # tests cited in another task, two days after its recall: neither the same task nor
    # within a day, so its recall stays unused
    out = memgov("cite", tests, "--task", "t9", "--json")
    assert out.returncode == 0, out.stderr
    (answer,) = json.loads(out.stdout)
    assert (answer["memory_id"], answer["status"], answer["recorded"]) == (tests, "active", True)
    cites = [e for e in events(store.root) if e["action"] == "cite"]
    assert [(e["memory_ids"], e["details"]["task"]) for e in cites] == [
        ([deploy], "t1"),
        ([tests], "t9"),
    ]
    assert unused(store, clock).value == 0.5


def test_cite_without_a_task_counts_within_a_day(
    store: Store, clock: FakeClock, memgov: Memgov, recalled: tuple[str, str]
) -> None:
    deploy, tests = recalled
    clock.advance(hours=3)  # within a day of both recalls
    out = memgov("cite", deploy, tests)
    assert out.returncode == 0, out.stderr
    cites = [e for e in events(store.root) if e["action"] == "cite"]
    assert sorted(i for e in cites for i in e["memory_ids"]) == sorted([deploy, tests])
    assert all(e["details"]["task"] is None for e in cites)
    # by hand: both recalls cited within a day of them: 0 of 2 unused
    measure = unused(store, clock)
    assert (measure.value, measure.shown) == (0.0, "0% of 2 recalled")


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ("no-such-memory", "no memory with id 'no-such-memory' in any store given"),
        ("../x", "field 'ids[1]': invalid id: holds '/', '\\' or '..': '../x'"),
    ],
)
def test_a_bad_id_refuses_the_whole_citation(
    store: Store,
    clock: FakeClock,
    memgov: Memgov,
    recalled: tuple[str, str],
    bad: str,
    said: str,
) -> None:
    deploy, _tests = recalled
    logged, commits = events(store.root), commit_count(store.root)
    out = memgov("cite", deploy, bad, "--task", "t1")  # a good id first: not cited either
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert said in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""
    assert events(store.root) == logged  # nothing written
    assert commit_count(store.root) == commits
    assert unused(store, clock).value == 1.0


def test_an_invalid_id_among_several_is_named(
    store: Store, memgov: Memgov, recalled: tuple[str, str]
) -> None:
    deploy, tests = recalled
    out = memgov("cite", deploy, "../x", tests)
    assert out.returncode == 2
    assert "'../x'" in out.stderr and "ids[1]" in out.stderr, out.stderr


# ------------------------------------------------------------------ sample_size
def _month(store: Store, clock: FakeClock, make_memory: MakeMemory, count: int) -> set[str]:
    """``count`` records written this month, and three last month (another period)."""
    this = [
        make_memory(id=f"fact-{n}", subject=SUBJECT, attribute=f"fact_{n}", content=f"F{n}")
        for n in range(count)
    ]
    last = [
        make_memory(
            id=f"old-{n}",
            subject=SUBJECT,
            attribute=f"old_{n}",
            content=f"O{n}",
            created_at=clock.now - timedelta(days=31),
        )
        for n in range(3)
    ]
    add_memories(store, *this, *last)
    return {m.id for m in this}


def _set(store: Store, text: str) -> Path:
    path = store.root / CONFIG_FILE
    kept = [
        line for line in path.read_text("utf-8").splitlines() if not line.startswith("sample_size")
    ]
    path.write_text("\n".join([*kept, text]) + "\n", "utf-8")
    return path


def test_sample_size_from_the_config(
    store: Store, clock: FakeClock, make_memory: MakeMemory, memgov: Memgov
) -> None:
    month = f"{clock.now:%Y-%m}"
    written = _month(store, clock, make_memory, 25)
    assert "sample_size: 20" in (store.root / CONFIG_FILE).read_text("utf-8")  # as init wrote it
    path = _set(store, "")  # unset: the default
    assert "sample_size" not in path.read_text("utf-8")
    default = [m.id for m in precision_sample(Store(store.root, clock=clock), month)]
    assert len(default) == 20 and set(default) <= written

    _set(store, "sample_size: 7")
    fresh = Store(store.root, clock=clock)
    assert fresh.config.sample_size == 7
    seven = [m.id for m in precision_sample(fresh, month)]
    assert len(seven) == 7 == len(set(seven))
    # the same draw, smaller: the seven ids whose hash with the month is lowest
    assert seven == default[:7]
    # and what the CLI offers to label is that sample
    out = memgov("labels", "--measure", "precision", "--json")
    assert out.returncode == 0, out.stderr
    offered = sorted(i["id"] for i in json.loads(out.stdout))
    last = f"{clock.now - timedelta(days=31):%Y-%m}"  # last month is labelled too: all 3
    assert offered == sorted(
        [f"precision-{month}-{i}" for i in seven] + [f"precision-{last}-old-{n}" for n in range(3)]
    )


@pytest.mark.parametrize("value", ["0", "-1", "x", "'7'", "1001", "2.5", "true", "[5]", "null"])
def test_a_bad_sample_size_names_the_file_and_the_field(
    store: Store, clock: FakeClock, memgov: Memgov, value: str
) -> None:
    path = _set(store, f"sample_size: {value}")
    with pytest.raises(ValidationError) as info:
        Store(store.root, clock=clock)
    assert (info.value.path, info.value.field) == (str(path), "sample_size"), str(info.value)
    assert str(info.value).startswith(f"{path}: field 'sample_size': must be a ")
    out = memgov("labels", "--measure", "precision")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert f"{path.resolve()}: field 'sample_size'" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("value", [1, 1000])
def test_the_sample_size_bounds_are_accepted(store: Store, clock: FakeClock, value: int) -> None:
    _set(store, f"sample_size: {value}")
    assert Store(store.root, clock=clock).config.sample_size == value
