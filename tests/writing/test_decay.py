"""Decay, expiry, sweep and recall (SPEC section 7, seed 6.2).

weight = w0 * confidence * exp(-d1 / tau1) * exp(-d2 / tau2), tau2 = 2 * tau1.
The numbers below were worked out by hand (see each test), not by calling the
formula under test.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from core.domain.record import TRUST, Memory, Source
from core.store import logs
from core.store.config import Config, load_config
from core.store.events import Event
from core.store.store import Store
from core.store.transaction import transaction
from core.writing.decay import recall, sweep, unused, weight
from core.writing.pipeline import Candidate, remember

ACTOR = "agent@example.com"


def said(store: Store, clock: Any, task: str, text: str = "noted") -> Source:
    rel, _ = logs.append_message(
        store.root, task=task, index=1, role="user", text=text, when=clock.now
    )
    return Source(task=task, message_index=1, evidence=text, log=rel)


def write(store: Store, clock: Any, attribute: str, **overrides: Any) -> str:
    fields: dict[str, Any] = {
        "content": f"The {attribute} rule holds for this project.",
        "type": "semantic",
        "scope": "private",
        "subject": "project:liyyro",
        "attribute": attribute,
        "source": said(store, clock, f"tr_{attribute}"),
        "s1": 0.9,
        "s2": 0.9,
    }
    fields.update(overrides)
    outcome = remember(store, Candidate(**fields), actor=ACTOR)
    assert outcome.kind == "written", outcome.reasons
    return outcome.memory_ids[0]


def events(store: Store, action: str) -> list[Event]:
    return [e for e in store.events()[0] if e.action == action]


# ------------------------------------------------------------------ the weight
def test_weight_follows_the_formula_with_the_default_time_constants(
    make_memory: Callable[..., Memory], clock: Any
) -> None:
    now = clock.now
    memory = make_memory(
        confidence=0.8, created_at=now - timedelta(days=40), verified_at=now - timedelta(days=10)
    )
    config = Config()
    assert (config.w0, config.tau1_days, config.tau2_days) == (1.0, 30.0, 60.0)
    # never used: d1 counts from creation (40 days); d2 = 10 days
    # 0.8 * exp(-40/30) * exp(-10/60) = 0.8 * 0.263597 * 0.846482
    assert weight(memory, now, config) == pytest.approx(0.178504128, rel=1e-6)
    used = memory.with_changes(
        last_used_at=now - timedelta(days=5), verified_at=now - timedelta(days=5)
    )
    # 1.0 * 0.8 * exp(-5/30) * exp(-5/60)
    assert weight(used, now, config) == pytest.approx(0.8 * math.exp(-1 / 6 - 1 / 12))


def test_a_fresh_record_weighs_w0_times_its_confidence(
    make_memory: Callable[..., Memory], clock: Any
) -> None:
    memory = make_memory(confidence=0.9, created_at=clock.now, verified_at=clock.now)
    assert weight(memory, clock.now, Config(w0=0.5)) == pytest.approx(0.45)


def test_tau2_defaults_to_twice_a_configured_tau1(
    store: Store, clock: Any, make_memory: Callable[..., Memory]
) -> None:
    (store.root / "memgov.yaml").write_text("scope: private\ntau1_days: 10\n", encoding="utf-8")
    config = load_config(store.root)
    assert (config.tau1_days, config.tau2_days) == (10, 20)
    memory = make_memory(
        confidence=0.8,
        created_at=clock.now - timedelta(days=40),
        verified_at=clock.now - timedelta(days=10),
    )
    # 0.8 * exp(-40/10) * exp(-10/20) = 0.8 * 0.0183156 * 0.6065307
    assert weight(memory, clock.now, config) == pytest.approx(0.0088871972, rel=1e-6)
    assert Store(store.root, clock=clock).config.tau2_days == 20


def test_an_explicit_tau2_is_kept(store: Store) -> None:
    (store.root / "memgov.yaml").write_text("tau1_days: 10\ntau2_days: 45\n", encoding="utf-8")
    assert load_config(store.root).tau2_days == 45


def test_unused_counts_from_last_use_or_from_creation(
    make_memory: Callable[..., Memory], clock: Any
) -> None:
    config = Config()
    old = make_memory(created_at=clock.now - timedelta(days=30))
    assert unused(old, clock.now, config)
    assert not unused(
        old.with_changes(last_used_at=clock.now - timedelta(days=29)), clock.now, config
    )
    assert not unused(
        make_memory(created_at=clock.now - timedelta(days=29, hours=23)), clock.now, config
    )


# ------------------------------------------------------------------ sweep
def test_sweep_expires_records_past_expires_at_with_events(store: Store, clock: Any) -> None:
    due = write(store, clock, "deploy_freeze", expires_at=clock.now + timedelta(days=1))
    later = write(store, clock, "release_train", expires_at=clock.now + timedelta(days=5))
    forever = write(store, clock, "package_manager")
    clock.advance(days=2)

    preview = sweep(store, actor=ACTOR, dry_run=True)
    assert [i for i, _ in preview.expired] == [due]
    assert store.refresh().memories[due].status == "active"
    assert events(store, "expire") == []

    report = sweep(store, actor=ACTOR)
    assert [i for i, _ in report.expired] == [due]
    assert "past expires_at" in report.expired[0][1]
    assert store.refresh().memories[due].status == "expired"
    assert store.memories[later].status == store.memories[forever].status == "active"
    (ev,) = events(store, "expire")
    assert (ev.memory_ids, ev.from_status, ev.to_status) == ((due,), "active", "expired")
    assert ev.actor == ACTOR
    # a second sweep has nothing left to do, and makes no empty commit
    assert sweep(store, actor=ACTOR).expired == ()
    assert len(events(store, "expire")) == 1


def test_sweep_lists_records_unused_for_30_days_and_keeps_them(store: Store, clock: Any) -> None:
    idle = write(store, clock, "output_format")
    used = write(store, clock, "package_manager")
    clock.advance(days=29)
    assert sweep(store, actor=ACTOR).unused == ()
    recall(store, subject_prefix="project:liyyro", attribute="package_manager", actor=ACTOR)
    clock.advance(days=2)
    report = sweep(store, actor=ACTOR)
    assert report.unused == (idle,)
    assert report.expired == ()
    assert report.to_dict()["not_consolidation_input"] == [idle]
    memory = store.refresh().memories[idle]
    assert memory.status == "active"  # not deleted, not expired, only listed
    assert (store.root / memory.path).is_file()
    assert used in store.memories


def test_sweep_never_touches_a_record_in_conflict(store: Store, clock: Any) -> None:
    a = write(
        store, clock, "package_manager", value="pnpm", expires_at=clock.now + timedelta(days=1)
    )
    b = remember(
        store,
        Candidate(
            content="The project uses yarn.",
            type="semantic",
            scope="private",
            subject="project:liyyro",
            attribute="package_manager",
            value="yarn",
            source=said(store, clock, "tr_yarn"),
            s1=0.9,
            s2=0.9,
        ),
        actor=ACTOR,
    )
    assert b.kind == "conflict"
    clock.advance(days=3)
    assert sweep(store, actor=ACTOR).expired == ()  # conflict -> expired is not a transition
    assert store.refresh().memories[a].status == "conflict"


def test_a_reflection_expires_when_its_tool_version_changes(store: Store, clock: Any) -> None:
    hint = write(
        store,
        clock,
        "flaky_tests",
        type="reflection",
        content="Retry the e2e suite once before debugging: it flakes on cold caches.",
        environment={"node": "20.11", "playwright": "1.41"},
    )
    other_tool = write(store, clock, "lint_hint", type="reflection", environment={"eslint": "8"})
    semantic = write(store, clock, "node_version", environment={"node": "20.11"})

    assert sweep(store, actor=ACTOR, environment={"node": "20.11"}).expired == ()
    report = sweep(store, actor=ACTOR, environment={"node": "22.1"})
    assert report.expired == ((hint, "environment changed: node 20.11 -> 22.1"),)
    memories = store.refresh().memories
    assert memories[hint].status == "expired"
    assert memories[other_tool].status == "active"  # learnt with a tool not named
    assert memories[semantic].status == "active"  # only reflections are advisory
    (ev,) = events(store, "expire")
    assert (ev.from_status, ev.to_status) == ("active", "expired")


def test_the_store_config_can_name_the_current_environment(store: Store, clock: Any) -> None:
    hint = write(store, clock, "flaky_tests", type="reflection", environment={"node": "20"})
    config = (store.root / "memgov.yaml").read_text(encoding="utf-8")
    (store.root / "memgov.yaml").write_text(config + "environment:\n  node: '22'\n")
    reopened = Store(store.root, clock=clock)
    assert [i for i, _ in sweep(reopened, actor=ACTOR).expired] == [hint]


def test_a_reflection_reverified_in_the_new_environment_stays(store: Store, clock: Any) -> None:
    fields: dict[str, Any] = {"type": "reflection", "value": "retry once"}
    hint = write(store, clock, "flaky_tests", environment={"node": "20"}, **fields)
    sweep(store, actor=ACTOR, environment={"node": "22"})
    again = remember(
        store,
        Candidate(
            content="The e2e suite still flakes on cold caches: retry once.",
            scope="private",
            subject="project:liyyro",
            attribute="flaky_tests",
            source=said(store, clock, "tr_again"),
            s1=0.9,
            s2=0.9,
            environment={"node": "22"},
            **fields,
        ),
        actor=ACTOR,
    )
    assert (again.kind, again.memory_ids) == ("merged", (hint,))
    assert store.get(hint).environment == {"node": "22"}
    assert sweep(store, actor=ACTOR, environment={"node": "22"}).expired == ()
    assert store.refresh().memories[hint].status == "active"


# ------------------------------------------------------------------ recall
def test_recall_ranks_active_records_by_weight_and_records_their_use(
    store: Store, clock: Any, add: Callable[..., None], make_memory: Callable[..., Memory]
) -> None:
    now = clock.now
    subject = "user:liys05/project:liyyro"
    records = [
        # fresh preference, high confidence: weight 0.9
        make_memory(id="fmt-pref", subject=subject, confidence=0.9),
        # semantic verified 30 days ago: 0.9 * exp(-30/30) * exp(-30/60) = 0.2008
        make_memory(
            id="fmt-old",
            type="semantic",
            subject=subject,
            condition="lang=en",
            created_at=now - timedelta(days=30),
            verified_at=now - timedelta(days=30),
        ),
        # reflection, used yesterday, verified today: 0.5 * exp(-1/30) = 0.4836
        make_memory(
            id="fmt-hint",
            type="reflection",
            subject=subject,
            condition="lang=zh",
            confidence=0.5,
            created_at=now - timedelta(days=60),
            last_used_at=now - timedelta(days=1),
            usage_count=3,
        ),
        make_memory(id="fmt-conflict", subject=subject, condition="c", status="conflict"),
        make_memory(id="fmt-expired", subject=subject, condition="d"),
        make_memory(id="fmt-superseded", subject=subject, condition="e"),
        make_memory(id="other-user", subject="user:bob/project:liyyro"),
        make_memory(id="other-attr", subject=subject, attribute="language"),
    ]
    add(store, *records)
    with transaction(store, actor=ACTOR, message="test: retire two") as tx:
        tx.transition("fmt-expired", "expired", action="expire", reason="test")
        tx.transition("fmt-superseded", "superseded", action="supersede", reason="test")
    clock.advance(seconds=1)

    ranked = recall(store, subject_prefix="user:liys05", attribute="output_format", actor=ACTOR)
    assert [r.memory.id for r in ranked] == ["fmt-pref", "fmt-hint", "fmt-old"]
    assert [round(r.weight, 4) for r in ranked] == [0.9, 0.4836, 0.2008]
    shown = [r.to_dict() for r in ranked]
    assert [d["injection"] for d in shown] == [
        TRUST[t][0] for t in ("preference", "reflection", "semantic")
    ]
    assert shown[0]["injection"] == "system prompt"
    assert shown[1]["trust"] == "low, advisory only"
    assert shown[2]["check"] == "yes"

    uses = events(store, "use")
    assert sorted(e.memory_ids[0] for e in uses) == ["fmt-hint", "fmt-old", "fmt-pref"]
    assert all(e.details["query"] == "user:liys05#output_format" for e in uses)
    memories = store.refresh().memories
    assert memories["fmt-pref"].usage_count == 1
    assert memories["fmt-hint"].usage_count == 4
    assert memories["fmt-pref"].last_used_at == clock.now
    assert memories["fmt-conflict"].usage_count == 0


def test_recall_without_usage_changes_nothing(store: Store, clock: Any) -> None:
    memory_id = write(store, clock, "package_manager")
    head = (store.root / ".git" / "HEAD").read_text()
    before = _commits(store.root)
    ranked = recall(
        store, subject_prefix="project:", attribute=None, actor=ACTOR, record_usage=False
    )
    assert [r.memory.id for r in ranked] == [memory_id]
    assert events(store, "use") == []
    assert store.refresh().memories[memory_id].usage_count == 0
    assert (store.root / ".git" / "HEAD").read_text() == head
    assert _commits(store.root) == before


def test_recall_respects_the_limit_and_a_recent_use_lifts_the_weight(
    store: Store, clock: Any
) -> None:
    a = write(store, clock, "a_rule")
    clock.advance(days=20)
    b = write(store, clock, "b_rule")
    clock.advance(days=1)
    (top,) = recall(store, subject_prefix="project:liyyro", attribute=None, actor=ACTOR, limit=1)
    assert top.memory.id == b  # newer: less decayed
    recall(store, subject_prefix="project:liyyro", attribute="a_rule", actor=ACTOR)
    ranked = recall(
        store, subject_prefix="project:liyyro", attribute=None, actor=ACTOR, record_usage=False
    )
    weights = {r.memory.id: r.weight for r in ranked}
    # a: used now (d1 = 0), verified 21 days ago: 0.7 * exp(-21/60)
    assert weights[a] == pytest.approx(0.7 * math.exp(-21 / 60))


def _commits(root: Path) -> int:
    import subprocess

    out = subprocess.run(
        ["git", "-C", str(root), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    )
    return int(out.stdout.strip())
