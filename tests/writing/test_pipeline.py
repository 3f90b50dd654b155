"""The write pipeline (SPEC sections 5 to 8): one candidate in, exactly one outcome out.

Each test runs on a fresh private store (the ``store`` and ``clock`` fixtures of
conftest.py) whose sources point at daily-log lines the test writes with
``core.store.logs.append_message``, as ``memgov log`` does.
"""

from __future__ import annotations

import json
import random
import string
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from core.domain import secrets
from core.domain.errors import SecretBlocked, ValidationError
from core.domain.record import Memory, Source
from core.domain.values import MAX_CONFIDENCE
from core.store import logs
from core.store.events import Event
from core.store.store import Store
from core.store.transaction import transaction
from core.writing.decay import sweep
from core.writing.pipeline import (
    Candidate,
    Outcome,
    candidate_from_dict,
    conflict_item_id,
    remember,
)

ACTOR = "agent@example.com"
SUBJECT = "project:liyyro"
KEY = ("private", SUBJECT, "package_manager", None)
OUTCOMES = {"written", "merged", "conflict", "refused", "empty"}


# ------------------------------------------------------------------ helpers
def said(store: Store, clock: Any, task: str, text: str = "we use pnpm", index: int = 1) -> Source:
    """Log one message in today's daily log and point a source at it."""
    rel, _ = logs.append_message(
        store.root, task=task, index=index, role="user", text=text, when=clock.now
    )
    return Source(task=task, message_index=index, evidence=text, log=rel)


def candidate(source: Source | None, **overrides: Any) -> Candidate:
    fields: dict[str, Any] = {
        "content": "The project uses pnpm as its package manager.",
        "type": "semantic",
        "scope": "private",
        "subject": SUBJECT,
        "attribute": "package_manager",
        "value": "pnpm",
        "source": source,
        "s1": 0.9,
        "s2": 0.9,
        "confidence": 0.7,
    }
    fields.update(overrides)
    return Candidate(**fields)


def run(store: Store, cand: Candidate) -> Outcome:
    outcome = remember(store, cand, actor=ACTOR)
    assert outcome.kind in OUTCOMES
    return outcome


def events(store: Store, action: str | None = None) -> list[Event]:
    found, bad = store.events()
    assert bad == []
    return [e for e in found if action is None or e.action == action]


def memory_files(store: Store) -> list[str]:
    """The names of every memory file of a store (in the shards and the flat folder)."""
    return sorted(p.name for p in (store.root / "memories").rglob("*.md"))


def git_log_patch(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "log", "-p", "--all"], capture_output=True, text=True, check=True
    ).stdout


def store_text(root: Path) -> str:
    """Every file of the working tree and the derived state, as text (not .git)."""
    parts = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(root).parts:
            parts.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(parts)


def fake_token(prefix: str, length: int, alphabet: str, seed: int) -> str:
    rng = random.Random(seed)
    token = prefix + "".join(rng.choice(alphabet) for _ in range(length))
    assert secrets.scan(token), "the fake token must look real to the scanner"
    return token


ALNUM = string.ascii_letters + string.digits


# ------------------------------------------------------------ the five outcomes
def test_written_creates_an_active_record_with_its_source(store: Store, clock: Any) -> None:
    source = said(store, clock, "tr_1")
    outcome = run(store, candidate(source))
    assert outcome.kind == "written"
    (memory_id,) = outcome.memory_ids
    memory = store.get(memory_id)
    assert memory.status == "active"
    assert memory.source == source
    assert memory.created_at == memory.verified_at == clock.now
    assert (store.root / memory.path).is_file()
    (create,) = events(store, "create")
    assert (create.from_status, create.to_status) == (None, "active")
    assert create.memory_ids == (memory_id,)
    assert outcome.gate is not None and outcome.gate.passed


def test_empty_is_a_valid_logged_outcome(store: Store, clock: Any) -> None:
    for content in ("", "  \n "):
        outcome = run(store, candidate(said(store, clock, "tr_1"), content=content))
        assert outcome.kind == "empty"
        assert outcome.memory_ids == ()
    assert store.memories == {}
    assert memory_files(store) == []
    assert len(events(store, "empty-write")) == 2


def test_outcome_to_dict_names_exactly_one_outcome(store: Store, clock: Any) -> None:
    data = run(store, candidate(said(store, clock, "tr_1"))).to_dict()
    assert data["outcome"] == "written"
    assert set(data) == {
        "outcome",
        "memory_ids",
        "reasons",
        "item",
        "superseded",
        "gate",
        "held_for_review",
        "store",
    }
    assert data["held_for_review"] is None and data["store"] is None
    json.dumps(data)


# ------------------------------------------------------------ refusals, by criterion
@pytest.mark.parametrize(
    ("overrides", "criterion", "words"),
    [
        ({"s1": 0.3}, "s1", "0.30 < theta 0.60"),
        ({"s2": 0.59}, "s2", "0.59 < theta 0.60"),
    ],
)
def test_refused_names_the_failing_criterion_and_why(
    store: Store, clock: Any, overrides: dict[str, Any], criterion: str, words: str
) -> None:
    outcome = run(store, candidate(said(store, clock, "tr_1"), **overrides))
    assert outcome.kind == "refused"
    assert outcome.memory_ids == ()
    (reason,) = outcome.reasons
    assert reason.startswith(f"{criterion} (")
    assert words in reason
    assert store.memories == {}
    (refuse,) = events(store, "refuse")
    assert refuse.details["criteria"] == [criterion]
    assert refuse.details["key"]["attribute"] == "package_manager"


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        ("The staging DB is at 10.0.3.7.", "internal-ip-address"),
        ("The staging API answers at https://api.staging.internal/v2.", "internal-hostname"),
    ],
)
def test_an_internal_address_is_written_privately_and_refused_for_the_team(
    store: Store, clock: Any, tmp_path: Path, content: str, pattern: str
) -> None:
    """A private store never leaves the machine: the address is data of the user's
    project. The same words for a team store, which is shared, are refused by s4."""
    outcome = run(store, candidate(said(store, clock, "tr_1"), content=content))
    assert outcome.kind == "written", outcome.reasons
    (memory,) = store.memories.values()
    assert memory.content == content
    assert outcome.gate is not None and outcome.gate.secret_rules == ()
    (s4,) = [c for c in outcome.gate.criteria if c.name == "s4"]
    assert s4.passed and pattern in s4.why

    team = Store.init(tmp_path / "team", scope="team", maintainers=(ACTOR,), clock=clock)
    refused = run(team, candidate(said(team, clock, "tr_1"), content=content, scope="team"))
    assert refused.kind == "refused"
    (reason,) = refused.reasons
    assert reason.startswith("s4 (") and pattern in reason
    assert "never leaves the machine" in reason
    assert team.memories == {}
    (refuse,) = events(team, "refuse")
    assert refuse.details["criteria"] == ["s4"] and refuse.details["secret_rules"] == [pattern]


def test_refused_when_the_source_does_not_resolve(store: Store, clock: Any) -> None:
    said(store, clock, "tr_1", index=1)
    unlogged_task = Source(task="tr_never_logged", message_index=1, evidence="we use pnpm")
    unlogged_message = Source(task="tr_1", message_index=9, evidence="we use pnpm")
    for source in (unlogged_task, unlogged_message):
        outcome = run(store, candidate(source))
        assert outcome.kind == "refused"
        assert outcome.reasons[0].startswith("s3 (has a source)")
    assert store.memories == {}
    assert [e.details["criteria"] for e in events(store, "refuse")] == [["s3"], ["s3"]]


def test_refused_without_a_source_pointer(store: Store) -> None:
    outcome = run(store, candidate(None))
    assert outcome.kind == "refused"
    assert outcome.reasons[0].startswith("s3 (has a source)")
    (refuse,) = events(store, "refuse")
    assert refuse.details["criteria"] == ["s3"]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("packages/web/vite.config.ts", "excluded: a bare file path"),
        ("3f9c2ab1d4e5", "excluded: a commit hash"),
        (
            'Traceback (most recent call last):\n  File "a.py", line 1\nKeyError',
            "excluded: a stack",
        ),
        ("$ pnpm test\n42 passed", "excluded: a command and its output"),
        ("WIP: moving the parser to pnpm workspaces", "excluded: in-progress task state"),
    ],
)
def test_derivable_content_is_refused_with_that_reason(
    store: Store, clock: Any, content: str, why: str
) -> None:
    outcome = run(store, candidate(said(store, clock, "tr_1"), content=content, s1=1.0, s2=1.0))
    assert outcome.kind == "refused"
    assert any(r.startswith(why) for r in outcome.reasons), outcome.reasons
    (refuse,) = events(store, "refuse")
    assert refuse.details["excluded"] is True
    assert content not in (store.root / "events/000001.jsonl").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "content",
    [
        "The Vite config lives in packages/web/vite.config.ts; edit that one, not the root.",
        "Prefers git rebase over merge commits; never force-push to main.",
    ],
)
def test_near_misses_are_written(store: Store, clock: Any, content: str) -> None:
    assert run(store, candidate(said(store, clock, "tr_1"), content=content)).kind == "written"


@pytest.mark.parametrize(("mtype", "scope"), [("working", "private"), ("semantic", "task")])
def test_working_memory_and_task_scope_are_never_persisted(
    store: Store, clock: Any, mtype: str, scope: str
) -> None:
    content = "Step 3 of 5: the parser refactor is half done."
    outcome = run(
        store, candidate(said(store, clock, "tr_1"), type=mtype, scope=scope, content=content)
    )
    assert outcome.kind == "refused"
    assert "never persisted" in outcome.reasons[0]
    assert store.refresh().memories == {}
    assert memory_files(store) == []
    assert content not in (store.root / "events/000001.jsonl").read_text(encoding="utf-8")
    assert content not in git_log_patch(store.root)


def test_a_team_candidate_is_refused_by_a_private_store(store: Store, clock: Any) -> None:
    outcome = run(store, candidate(said(store, clock, "tr_1"), scope="team"))
    assert outcome.kind == "refused"
    assert "private store" in outcome.reasons[0]
    assert store.memories == {}


# ------------------------------------------------------------ secrets never leak
TOKENS = [
    ("ghp_", 36, ALNUM),
    ("AKIA", 16, string.ascii_uppercase + "234567"),
    ("glpat-", 20, ALNUM),
    ("xoxb-", 0, ""),  # built below: digits-digits-alnum
    ("sk_live_", 32, ALNUM),
]


def _token(index: int) -> str:
    prefix, length, alphabet = TOKENS[index]
    if prefix == "xoxb-":
        rng = random.Random(index)
        body = "".join(rng.choice(string.digits) for _ in range(12))
        body += "-" + "".join(rng.choice(string.digits) for _ in range(12))
        body += "-" + "".join(rng.choice(ALNUM) for _ in range(24))
        token = prefix + body
        assert secrets.scan(token)
        return token
    return fake_token(prefix, length, alphabet, seed=index)


# every kind of token in the content; one kind in each other field a write would keep
@pytest.mark.parametrize(
    ("where", "token_index"),
    [("content", i) for i in range(len(TOKENS))]
    + [("evidence", 1), ("value", 2), ("title", 3), ("subject", 4)],
)
def test_a_refused_secret_never_reaches_outcome_events_files_or_git(
    store: Store, clock: Any, token_index: int, where: str
) -> None:
    token = _token(token_index)
    source = said(store, clock, "tr_1", "the deploy key is in the vault")
    overrides: dict[str, Any] = {}
    if where == "evidence":
        source = Source(task=source.task, message_index=1, evidence=f"key {token}", log=source.log)
    elif where == "subject":
        overrides["subject"] = f"{SUBJECT}/{token}"
    else:
        overrides[where] = f"Deploy with {token} please"
    outcome = run(store, candidate(source, **overrides))
    assert outcome.kind == "refused"
    assert any(r.startswith("s4 (authorised)") for r in outcome.reasons)
    assert outcome.gate is not None and outcome.gate.secret_rules
    shown = {
        "outcome": json.dumps(outcome.to_dict()) + repr(outcome),
        "events/000001.jsonl": (store.root / "events/000001.jsonl").read_text(encoding="utf-8"),
        "store files": store_text(store.root),
        "git log -p": git_log_patch(store.root),
    }
    for name, text in shown.items():
        assert token not in text, f"the secret is in the {name}"
        assert token[:8] not in text, f"the secret's first 8 characters are in the {name}"
    assert store.memories == {}


def test_a_bad_field_holding_a_secret_is_not_echoed() -> None:
    token = _token(0)
    with pytest.raises(ValidationError) as err:
        candidate_from_dict({"content": "x", "type": token, "scope": "private"})
    assert err.value.field == "type"
    with pytest.raises(ValidationError) as err2:
        candidate_from_dict(
            {
                "content": "x",
                "type": "semantic",
                "scope": "private",
                "subject": "s",
                "attribute": "a",
                "s1": token,
            }
        )
    assert err2.value.field == "s1"
    for message in (str(err.value), str(err2.value)):
        assert token[:8] not in message


# ------------------------------------------------------------ duplicates
def test_three_tasks_saying_pnpm_make_one_record_with_three_sources(
    store: Store, clock: Any
) -> None:
    ids: set[str] = set()
    for n, task in enumerate(("tr_0314_02", "tr_0401_05", "tr_0512_01")):
        clock.advance(days=1)
        outcome = run(store, candidate(said(store, clock, task, f"use pnpm ({n})")))
        assert outcome.kind == ("written" if n == 0 else "merged")
        ids.update(outcome.memory_ids)
    (memory_id,) = ids
    memory = store.get(memory_id)
    assert [s.task for s in memory.all_sources] == ["tr_0314_02", "tr_0401_05", "tr_0512_01"]
    assert memory.source is not None and memory.source.task == "tr_0314_02"  # oldest kept
    assert len(store.memories) == 1
    assert memory.confidence == pytest.approx(1 - 0.3**3, abs=1e-4)


@pytest.mark.parametrize(
    "confidences",
    [(0.7, 0.7, 0.7), (0.6, 0.5, 0.8), (0.5, 0.9), (0.95, 0.95), (0.9, 0.2, 0.99)],
)
def test_confidence_is_a_noisy_or_of_independent_sources_capped_at_099(
    store: Store, clock: Any, confidences: tuple[float, ...]
) -> None:
    expected = None
    memory_id = None
    for n, conf in enumerate(confidences):
        outcome = run(store, candidate(said(store, clock, f"tr_{n}"), confidence=conf))
        memory_id = outcome.memory_ids[0]
        # the docstring's formula, by hand: 1 - (1 - a) * (1 - b), capped at 0.99
        expected = conf if expected is None else min(1 - (1 - expected) * (1 - conf), 0.99)
        assert store.get(memory_id).confidence == pytest.approx(expected, abs=1e-4)
    assert MAX_CONFIDENCE == 0.99
    assert memory_id is not None and store.get(memory_id).confidence <= 0.99


def test_two_messages_of_one_task_are_not_independent(store: Store, clock: Any) -> None:
    first = run(store, candidate(said(store, clock, "tr_1", index=1), confidence=0.6))
    second = run(store, candidate(said(store, clock, "tr_1", index=4), confidence=0.7))
    assert second.kind == "merged"
    memory = store.get(first.memory_ids[0])
    assert len(memory.all_sources) == 2
    assert memory.confidence == pytest.approx(0.7)  # the higher one, no noisy OR


def test_the_same_source_again_is_a_reconfirmation_without_a_new_source(
    store: Store, clock: Any
) -> None:
    source = said(store, clock, "tr_1")
    first = run(store, candidate(source))
    clock.advance(days=2)
    again = run(store, candidate(source))
    assert again.kind == "merged"
    assert again.reasons == ("same key and same value: reconfirmed",)
    memory = store.get(first.memory_ids[0])
    assert len(memory.all_sources) == 1
    assert memory.confidence == pytest.approx(0.7)
    assert memory.verified_at == clock.now


def test_same_value_in_other_words_merges(store: Store, clock: Any) -> None:
    run(store, candidate(said(store, clock, "tr_1")))
    other = candidate(
        said(store, clock, "tr_2"), content="Always install with PNPM here.", value=" PNPM."
    )
    assert run(store, other).kind == "merged"
    assert len(store.memories) == 1


def test_near_identical_texts_with_different_attributes_stay_separate(
    store: Store, clock: Any
) -> None:
    a = run(
        store,
        candidate(
            said(store, clock, "tr_1"),
            attribute="deploy_command",
            content="The deploy command is pnpm run deploy.",
            value="pnpm run deploy",
        ),
    )
    b = run(
        store,
        candidate(
            said(store, clock, "tr_2"),
            attribute="deploy_script",
            content="The deploy script is pnpm run deploy.",
            value="pnpm run deploy",
        ),
    )
    assert (a.kind, b.kind) == ("written", "written")
    assert {m.status for m in store.memories.values()} == {"active"}
    assert len(store.memories) == 2


def test_very_similar_text_with_a_different_value_is_a_conflict_not_a_duplicate(
    store: Store, clock: Any
) -> None:
    run(store, candidate(said(store, clock, "tr_1"), content="Deploy with pnpm run deploy."))
    similar = candidate(
        said(store, clock, "tr_2"),
        content="Deploy with pnpm run deploy!",
        value="npm",  # the structured value differs: the text does not decide
    )
    assert run(store, similar).kind == "conflict"


def test_different_conditions_hold_in_parallel(store: Store, clock: Any) -> None:
    a = run(store, candidate(said(store, clock, "tr_1"), condition="env=production"))
    b = run(
        store,
        candidate(said(store, clock, "tr_2"), condition="env=staging", value="npm", content="npm"),
    )
    assert (a.kind, b.kind) == ("written", "written")
    assert {m.status for m in store.memories.values()} == {"active"}


# ------------------------------------------------------------ conflicts
def _value(store: Store, clock: Any, task: str, value: str) -> Candidate:
    return candidate(
        said(store, clock, task, f"we use {value}"),
        content=f"The project uses {value} as its package manager.",
        value=value,
    )


def test_same_key_different_value_opens_one_conflict_item(store: Store, clock: Any) -> None:
    first = run(store, _value(store, clock, "tr_1", "pnpm"))
    clock.advance(hours=1)
    second = run(store, _value(store, clock, "tr_2", "yarn"))
    item = conflict_item_id(KEY)
    assert second.kind == "conflict"
    assert second.item == item
    old, new = first.memory_ids[0], second.memory_ids[0]
    assert set(second.memory_ids) == {old, new}
    assert store.get(old).status == store.get(new).status == "conflict"

    moves = {
        (e.memory_ids, e.from_status, e.to_status, e.request) for e in events(store, "conflict")
    }
    assert moves == {((new,), None, "conflict", item), ((old,), "active", "conflict", item)}
    (opened,) = events(store, "conflict-opened")
    assert set(opened.memory_ids) == {old, new}
    assert opened.request == item

    # a third contradicting candidate joins the same item
    clock.advance(hours=1)
    third = run(store, _value(store, clock, "tr_3", "npm"))
    assert third.kind == "conflict"
    assert third.item == item
    assert {store.get(i).status for i in third.memory_ids} == {"conflict"}
    assert len(third.memory_ids) == 3
    assert len(events(store, "conflict-opened")) == 1  # joined, not reopened
    joined = [e for e in events(store, "conflict") if e.memory_ids == (third.memory_ids[0],)]
    assert [(e.from_status, e.to_status, e.request) for e in joined] == [(None, "conflict", item)]
    # the records already in conflict were not moved again
    assert len(events(store, "conflict")) == 3


def test_a_candidate_equal_to_one_side_of_a_conflict_adds_evidence_to_it(
    store: Store, clock: Any
) -> None:
    pnpm = run(store, _value(store, clock, "tr_1", "pnpm")).memory_ids[0]
    run(store, _value(store, clock, "tr_2", "yarn"))
    again = run(store, _value(store, clock, "tr_3", "pnpm"))
    assert again.kind == "merged"
    assert again.memory_ids == (pnpm,)
    assert again.item == conflict_item_id(KEY)
    memory = store.get(pnpm)
    assert memory.status == "conflict"
    assert len(memory.all_sources) == 2
    (merge,) = events(store, "merge")
    assert (merge.from_status, merge.to_status) == (None, None)


def test_a_different_type_does_not_dodge_the_conflict(store: Store, clock: Any) -> None:
    run(store, _value(store, clock, "tr_1", "pnpm"))
    pref = _value(store, clock, "tr_2", "yarn")
    outcome = run(store, Candidate(**{**pref.__dict__, "type": "preference"}))
    assert outcome.kind == "conflict"


# ------------------------------------------------------------ reconfirmation
def test_reconfirming_an_active_record_is_an_active_to_active_event(
    store: Store, clock: Any
) -> None:
    first = run(store, candidate(said(store, clock, "tr_1")))
    created = clock.now
    clock.advance(days=10)
    again = run(store, candidate(said(store, clock, "tr_2")))
    assert again.kind == "merged"
    assert again.memory_ids == first.memory_ids
    memory = store.get(first.memory_ids[0])
    assert memory.status == "active"
    assert memory.verified_at == clock.now
    assert memory.created_at == created
    assert [s.task for s in memory.all_sources] == ["tr_1", "tr_2"]
    (ev,) = events(store, "reconfirm")
    assert (ev.from_status, ev.to_status) == ("active", "active")


def test_an_expired_record_reverified_comes_back_and_stays(store: Store, clock: Any) -> None:
    first = run(
        store, candidate(said(store, clock, "tr_1"), expires_at=clock.now + timedelta(days=1))
    )
    memory_id = first.memory_ids[0]
    clock.advance(days=2)
    assert [i for i, _ in sweep(store, actor=ACTOR).expired] == [memory_id]
    assert store.get(memory_id).status == "expired"

    again = run(store, candidate(said(store, clock, "tr_2")))
    assert again.kind == "merged"
    assert again.memory_ids == (memory_id,)
    memory = store.get(memory_id)
    assert memory.status == "active"
    assert memory.verified_at == clock.now
    assert memory.expires_at is None  # the candidate set no new expiry
    (ev,) = events(store, "reverify")
    assert (ev.from_status, ev.to_status) == ("expired", "active")
    # the past expiry date went with the re-verification: the next sweep keeps it
    clock.advance(hours=1)
    assert sweep(store, actor=ACTOR).expired == ()
    assert store.get(memory_id).status == "active"


def test_an_expired_value_coming_back_against_a_newer_value_is_a_conflict(
    store: Store, clock: Any
) -> None:
    old = run(
        store, candidate(said(store, clock, "tr_1"), expires_at=clock.now + timedelta(days=1))
    )
    clock.advance(days=2)
    sweep(store, actor=ACTOR)
    yarn = run(store, _value(store, clock, "tr_2", "yarn"))
    assert yarn.kind == "written"  # the expired record does not contradict
    back = run(store, _value(store, clock, "tr_3", "pnpm"))
    assert back.kind == "conflict"
    assert yarn.memory_ids[0] in back.memory_ids
    assert store.get(old.memory_ids[0]).status == "expired"
    active = [m for m in store.memories.values() if m.status == "active"]
    assert active == []  # never two active records of one key with different values


# ------------------------------------------------------------ preferences
def _format(store: Store, clock: Any, task: str, value: str) -> Candidate:
    return candidate(
        said(store, clock, task, f"use {value}"),
        type="preference",
        subject="user:liys05",
        attribute="output_format",
        content=f"Answers use {value} for comparisons.",
        value=value,
    )


def test_a_newer_preference_supersedes_the_older_one(store: Store, clock: Any) -> None:
    older = run(store, _format(store, clock, "tr_1", "tables")).memory_ids[0]
    clock.advance(days=3)
    outcome = run(store, _format(store, clock, "tr_2", "bullet lists"))
    assert outcome.kind == "written"
    (newer,) = outcome.memory_ids
    assert outcome.superseded == (older,)
    assert store.get(older).status == "superseded"
    assert store.get(newer).status == "active"
    assert store.get(newer).supersedes == older
    (ev,) = events(store, "supersede")
    assert (ev.memory_ids, ev.from_status, ev.to_status) == ((older,), "active", "superseded")
    assert ev.details["by"] == newer
    # and a third one supersedes the second, never the already superseded first
    clock.advance(days=3)
    third = run(store, _format(store, clock, "tr_3", "prose"))
    assert third.superseded == (newer,)
    assert store.get(third.memory_ids[0]).supersedes == newer


def test_a_preference_restated_at_the_same_instant_gets_a_fresh_id(
    store: Store, clock: Any
) -> None:
    # ids are derived from (key, content, time): with the clock pinned, "tables" again
    # must not reuse the id of the superseded "tables" record
    first = run(store, _format(store, clock, "tr_1", "tables")).memory_ids[0]
    second = run(store, _format(store, clock, "tr_2", "prose")).memory_ids[0]
    again = run(store, _format(store, clock, "tr_3", "tables"))
    assert again.kind == "written"
    (third,) = again.memory_ids
    assert len({first, second, third}) == 3
    assert again.superseded == (second,)
    statuses = {i: m.status for i, m in store.memories.items()}
    assert statuses == {first: "superseded", second: "superseded", third: "active"}


def test_an_expired_preference_restated_supersedes_the_current_one(
    store: Store, clock: Any
) -> None:
    first = _format(store, clock, "tr_1", "tables")
    old = run(store, Candidate(**{**first.__dict__, "expires_at": clock.now + timedelta(days=1)}))
    clock.advance(days=2)
    sweep(store, actor=ACTOR)
    current = run(store, _format(store, clock, "tr_2", "prose")).memory_ids[0]
    back = run(store, _format(store, clock, "tr_3", "tables"))
    assert back.kind == "written"
    assert back.superseded == (current,)
    assert store.get(old.memory_ids[0]).status == "expired"
    assert [m.value for m in store.memories.values() if m.status == "active"] == ["tables"]


# ------------------------------------------------------------ candidates as agents send them
def test_candidate_from_dict_reads_every_field() -> None:
    cand = candidate_from_dict(
        {
            "content": " Use pnpm. ",
            "type": "semantic",
            "scope": "private",
            "subject": SUBJECT,
            "attribute": "package_manager",
            "value": "pnpm",
            "condition": "env=ci",
            "source": {"task": "tr_1", "message_index": 2, "evidence": "pnpm"},
            "s1": 0.8,
            "s2": 1,
            "expires_at": "2027-06-01T00:00:00+08:00",
            "environment": {"node": 20},
        }
    )
    assert cand.content == "Use pnpm."
    assert cand.key == ("private", SUBJECT, "package_manager", "env=ci")
    assert cand.source == Source(task="tr_1", message_index=2, evidence="pnpm")
    assert (cand.s1, cand.s2, cand.confidence) == (0.8, 1.0, 0.7)
    assert cand.environment == {"node": "20"}
    assert cand.expires_at is not None and cand.expires_at.utcoffset() == timedelta(hours=8)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"content": "x", "type": "semantic", "scope": "private", "attribute": "a"}, "subject"),
        ({"content": "x", "type": "fact", "scope": "private"}, "type"),
        ({"content": "x", "s1": 1.5}, "s1"),
        ({"content": "x", "s2": True}, "s2"),
        ({"content": "x", "confidence": "high"}, "confidence"),
        ({"content": 3}, "content"),
        ({"content": "x", "environment": ["node"]}, "environment"),
    ],
)
def test_candidate_from_dict_names_the_bad_field(data: dict[str, Any], field: str) -> None:
    base = {"type": "semantic", "scope": "private", "subject": "s", "attribute": "a"}
    with pytest.raises(ValidationError) as err:
        candidate_from_dict({**base, **data} if field != "subject" else data)
    assert err.value.field == field


def test_an_empty_candidate_needs_no_other_field() -> None:
    assert candidate_from_dict({}).content == ""
    assert candidate_from_dict({"content": "   "}).content == ""


# ------------------------------------------------------------ the store's own team guard
# The pipeline's gate refuses these; the store's last line of defence for the team scope
# (core/store/store.py, _guard_team_writes and log_message) does too, for writers that do not
# go through the gate (promotions, decisions, `memgov log`).
def test_the_team_store_blocks_a_secret_in_any_field(tmp_path: Path, clock: Any) -> None:
    team = Store.init(tmp_path / "team", scope="team", maintainers=("lead",), clock=clock)
    token = _token(0)
    memory = Memory(
        id="ci-token-1",
        type="semantic",
        scope="team",
        status="active",
        subject=SUBJECT,
        attribute="ci_token",
        value=token,
        content="CI pulls private packages with a token.",
        confidence=0.7,
        created_at=clock.now,
        verified_at=clock.now,
        source=Source(task="tr_1", message_index=1, evidence="ci token"),
    )
    with pytest.raises(SecretBlocked), transaction(team, actor=ACTOR, message="t") as tx:
        tx.create(memory, action="create", reason="test")


def test_the_team_store_blocks_a_secret_in_a_logged_message(tmp_path: Path, clock: Any) -> None:
    team = Store.init(tmp_path / "team", scope="team", maintainers=("lead",), clock=clock)
    token = _token(0)
    try:
        with pytest.raises(SecretBlocked):
            team.log_message(task="tr_1", index=1, role="user", text=f"key {token}", actor=ACTOR)
    finally:
        assert token[:8] not in git_log_patch(team.root)
