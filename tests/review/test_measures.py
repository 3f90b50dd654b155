"""The seed's measures: the repeat detector on logs made for it, each
measure against a value computed by hand on a store built for it, labels as decisions
(recorded, reverted), and the red-team replay. Every store is real: its logs written by
``log_message``, its records by the write pipeline, its recalls and citations by the
functions the CLI and the MCP server call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from core.domain.record import Source
from core.domain.repeats import marker, similarity, statement
from core.reports.measures import wilson
from core.reports.metrics import health
from core.review.decide import decide
from core.review.evidence import Evidence
from core.review.items import LabelAnalysis
from core.review.labels import (
    label_items,
    labels,
    precision_sample,
    repeat_candidates,
    workspace_label_items,
)
from core.review.revert import revert
from core.store import logs
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace
from core.writing.citing import cite_in
from core.writing.decay import recall
from core.writing.pipeline import Candidate, remember
from core.writing.redteam import replay, samples
from tests.conftest import ACTOR, FakeClock, events

AGENT = "agent@example.com"


# ------------------------------------------------------------------ the detector
@pytest.mark.parametrize(
    "text",
    [
        "我说过了，文档用中文",
        "上次说过不要用 npm",
        "跟你说了好几次了，用 pnpm",
        "还是用 pnpm 吧",
        "又用成 npm 了",
        "I told you to use pnpm",
        "As I said, tabs in Go files",
        "Please use the staging DB again, not prod",
        "for the third time: no force pushes",
        "you're still using npm",
        "不是说过了吗，用 pnpm",
        "跟你讲过了，别动生产库",
        "我已经说了两次：提交前先跑测试",
        "说过了，文档用中文",
    ],
)
def test_a_marker_is_found(text: str) -> None:
    found = marker(text)
    assert found is not None
    assert text[found.start : found.end]


@pytest.mark.parametrize(
    "text",
    [
        "用 A 还是 B？",  # asks which of two
        "这个方案还是不错的",  # praise
        "他又名老王",  # a name
        "既快又好",  # both ... and
        "This is against the rules",  # "again" inside a word
        "Use pnpm for the monorepo",
        "我们用 pnpm",
        "说明文档放在 docs 目录",  # 说 in another word
        "讲座过了就归档",  # 讲 and 过 apart
    ],
)
def test_near_misses_are_no_marker(text: str) -> None:
    assert marker(text) is None


def test_statements_and_similarity() -> None:
    assert statement("Use pnpm, not npm!") == statement("use PNPM not npm")
    assert statement("ok") is None and statement("好的") is None
    assert statement("文档一律用中文写") is not None
    assert similarity("文档都用中文写", "我说过了，文档用中文") > 0.2
    assert similarity("deploy with argo", "the cat sat on the mat") == 0.0


# ------------------------------------------------------------------ a store's logs
def said(store: Store, task: str, index: int, text: str, role: str = "user") -> Source:
    rel, _ = store.log_message(task=task, index=index, role=role, text=text, actor=AGENT)
    return Source(task=task, message_index=index, evidence=text, log=rel)


def write(store: Store, source: Source, attribute: str, content: str) -> str:
    outcome = remember(
        store,
        Candidate(
            content=content,
            type="preference",
            scope="private",
            subject="user:alice/project:shop",
            attribute=attribute,
            source=source,
            s1=0.9,
            s2=0.9,
        ),
        actor=AGENT,
    )
    assert outcome.memory_ids, outcome
    return outcome.memory_ids[0]


def test_candidates_from_markers_statements_and_keys(store: Store, clock: FakeClock) -> None:
    first = said(store, "t1", 1, "Always use pnpm in this repo, never npm")
    write(store, first, "package_manager", "Use pnpm, never npm.")
    clock.advance(days=1)
    said(store, "t2", 1, "what is the weather like")  # nothing
    said(store, "t2", 2, "我说过了，用 pnpm 不要用 npm")  # a marker, no similar earlier
    clock.advance(days=2)
    said(store, "t3", 1, "Always use pnpm in this repo, never npm")  # same statement, 3 days on
    clock.advance(days=1)
    said(store, "t3", 2, "Always use pnpm in this repo, never npm")  # same task: not again
    clock.advance(days=10)
    said(store, "t4", 1, "Always use pnpm in this repo, never npm")  # 11 days after t3's: too late
    found = {c.later.task + ":" + str(c.later.index): c for c in repeat_candidates(store)}
    assert set(found) == {"t2:2", "t3:1"}
    assert found["t2:2"].marker is not None and found["t2:2"].why[0].startswith("marker")
    assert found["t3:1"].earlier is not None and found["t3:1"].earlier.task == "t1"
    assert "the same statement" in found["t3:1"].why
    # the earlier message is a source of the key's record: the item shows that record
    assert found["t3:1"].memory is not None
    assert found["t3:1"].memory.attribute == "package_manager"


def test_the_same_key_twice_is_a_candidate(store: Store, clock: FakeClock) -> None:
    write(store, said(store, "t1", 1, "deploys go through ArgoCD"), "deploy", "ArgoCD deploys.")
    clock.advance(days=2)
    write(store, said(store, "t2", 1, "deploy via argo please"), "deploy", "ArgoCD deploys.")
    (candidate,) = repeat_candidates(store)
    assert candidate.why == ("the same key user:alice/project:shop#deploy",)
    assert (candidate.earlier and candidate.earlier.task, candidate.later.task) == ("t1", "t2")
    # a repeat's label names the two messages by where they are, the key and its record
    decide(Workspace([store]), candidate.id, approve=True, option="confirm", actor=ACTOR)
    (event,) = [e for e in events(store.root) if e["action"] == "decide"]
    details = event["details"]
    assert (details["earlier"]["task"], details["later"]["task"]) == ("t1", "t2")
    assert details["later"]["index"] == 1 and details["later"]["log"].startswith("logs/")
    assert details["key"] == "user:alice/project:shop#deploy"
    assert event["memory_ids"] == [candidate.memory.id if candidate.memory else None]
    assert "argo" not in json.dumps(details).lower()  # where, never the words


def test_sources_written_without_their_log_are_found_by_task(
    store: Store, clock: FakeClock
) -> None:
    """A source's ``log`` is optional (the task's line is looked up): the repeat finder
    and the hit rate look it up too, as source completeness does."""

    def bare(task: str, text: str) -> Source:
        said(store, task, 1, text)
        return Source(task=task, message_index=1, evidence=text)

    first = write(store, bare("t1", "deploys go through ArgoCD"), "deploy", "ArgoCD deploys.")
    assert store.memories.get(first).source.log is None  # type: ignore[union-attr]
    clock.advance(days=2)
    write(store, bare("t2", "deploy via argo please"), "deploy", "ArgoCD deploys.")
    (candidate,) = repeat_candidates(store)
    assert candidate.why == ("the same key user:alice/project:shop#deploy",)
    hit_rate = {m.name: m for m in health(store).measures}["hit_rate"]
    # t2 touched the key held since t1 and did not recall it
    assert (hit_rate.value, hit_rate.shown) == (0.0, "0% of 1 task")


def _repeat_item(store: Store) -> Any:
    (item,) = label_items(Evidence(store), store, measures=["repeat"])
    return item


def test_diagnosis_follows_the_events(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    said(store, "t0", 1, "hello")
    clock.advance(hours=1)
    said(store, "t1", 1, "again: answer in Chinese")  # nothing written: never-written
    assert _repeat_item(store).analysis.diagnosis == "never-written"
    decide(ws, _repeat_item(store).id, approve=True, option="confirm", actor=ACTOR)

    memory = write(store, said(store, "t2", 1, "use tabs in Go"), "go_indent", "Tabs in Go.")
    clock.advance(days=1)
    said(store, "t3", 1, "I told you, tabs in Go files")
    item = _repeat_item(store)
    assert (item.analysis.diagnosis, item.analysis.memory_id) == ("not-recalled", memory)
    decide(ws, item.id, approve=False, actor=ACTOR)  # dismissed

    clock.advance(days=1)
    recall(store, subject_prefix="user:alice", attribute="go_indent", actor=AGENT, task="t4")
    clock.advance(minutes=5)
    said(store, "t4", 1, "tabs in Go, I told you")
    assert _repeat_item(store).analysis.diagnosis == "not-used"
    decide(ws, _repeat_item(store).id, approve=True, option="confirm", actor=ACTOR)

    clock.advance(days=1)
    recall(store, subject_prefix="user:alice", attribute="go_indent", actor=AGENT, task="t5")
    cite_in(ws, [memory], actor=AGENT, task="t5")
    clock.advance(minutes=5)
    said(store, "t5", 1, "still using spaces in Go, I told you")
    assert _repeat_item(store).analysis.diagnosis == "used-but-wrong"
    decision = decide(ws, _repeat_item(store).id, approve=True, option="confirm", actor=ACTOR)

    done = labels(store)
    assert sorted(lab.option for lab in done.values()) == [
        "confirm",
        "confirm",
        "confirm",
        "dismiss",
    ]
    repeats = next(m for m in health(store).measures if m.name == "repeats")
    assert sum(repeats.series) == 3 and repeats.value == 3  # all this week
    assert "never written: 1" in repeats.detail and "(1 dismissed)" in repeats.detail
    decide_events = [e for e in events(store.root) if e.get("action") == "decide"]
    assert decide_events[-1]["details"]["diagnosis"] == "used-but-wrong"
    assert decide_events[-1]["actor"] == ACTOR

    revert(ws, decision.id, actor=ACTOR)  # a label is undone like a decision
    assert len(labels(store)) == 3
    assert _repeat_item(store).id == decision.item  # open again
    repeats = next(m for m in health(store).measures if m.name == "repeats")
    assert sum(repeats.series) == 2


# ---------------------------------------------------------------------- samples
def test_precision_is_the_labelled_share_with_its_interval(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    ids = [
        write(store, said(store, f"t{i}", 1, f"fact number {i} about shop"), f"fact_{i}", f"F{i}")
        for i in range(4)
    ]
    sample = precision_sample(store, f"{clock.now:%Y-%m}")
    assert sorted(m.id for m in sample) == sorted(ids)
    assert precision_sample(store, f"{clock.now:%Y-%m}") == sample  # reproducible
    items = label_items(Evidence(store), store, measures=["precision"])
    assert len(items) == 4
    for item, label in zip(items, ["reusable", "reusable", "reusable", "noise"], strict=True):
        if label == "noise":
            decide(ws, item.id, approve=False, actor=ACTOR)
        else:
            decide(ws, item.id, approve=True, option=label, actor=ACTOR)
    assert label_items(Evidence(store), store, measures=["precision"]) == []
    precision = next(m for m in health(store).measures if m.name == "precision")
    assert precision.value == 0.75
    low, high = wilson(3, 4) or (0, 0)
    # by hand: p = 3/4, n = 4, z = 1.96: centre 0.6275, half-width 0.3269
    assert (round(low, 3), round(high, 3)) == (0.301, 0.954)
    assert "75% (30%–95%) of 4" in precision.shown
    # each label names the record it judged: its history shows who labelled it, and how
    from core.reports.history import history

    (label,) = [e for e in history(store, ids[0]).events if e.action == "decide"]
    assert (label.details["measure"], label.actor, label.memory_ids) == (
        "precision",
        ACTOR,
        (ids[0],),
    )


def test_a_sample_drawn_is_at_most_sample_size(store: Store, clock: FakeClock) -> None:
    for i in range(25):
        write(store, said(store, f"t{i}", 1, f"fact {i} on the shop"), f"fact_{i}", f"Fact {i}")
    assert len(precision_sample(store, f"{clock.now:%Y-%m}")) == 20


def test_stale_citations_check_recalled_memories(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    kept = write(store, said(store, "t1", 1, "deploy with make ship"), "deploy", "make ship")
    old = write(store, said(store, "t2", 1, "the test command is tox"), "tests", "tox")
    never = write(store, said(store, "t3", 1, "we like tabs"), "indent", "tabs")
    clock.advance(hours=1)
    recall(store, subject_prefix="user:alice", attribute="deploy", actor=AGENT)
    recall(store, subject_prefix="user:alice", attribute="tests", actor=AGENT)
    items = {
        i.analysis.memory_id: i for i in label_items(Evidence(store), store, measures=["citation"])
    }
    assert set(items) == {kept, old}  # the one never recalled is not drawn
    assert never not in items
    clock.advance(hours=1)
    decide(ws, items[kept].id, approve=True, option="true", actor=ACTOR)
    decide(ws, items[old].id, approve=True, option="expire", actor=ACTOR)
    assert store.memories.get(kept).verified_at == clock.now
    assert store.memories.get(old).status == "expired"
    stale = next(m for m in health(store).measures if m.name == "stale_citations")
    assert stale.value == 0.5 and "of 2 checked" in stale.shown
    # and the expiry is a decision like any: reverted, the record is active again
    decision = next(d for d in labels(store).values() if d.option == "expire")
    revert(ws, decision.decision, actor=ACTOR)
    assert store.memories.get(old).status == "active"


def test_hit_rate_and_unused_injections_by_hand(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    a = write(store, said(store, "t1", 1, "deploy with make ship"), "deploy", "make ship")
    b = write(store, said(store, "t2", 1, "tests run with tox"), "tests", "tox")
    clock.advance(days=1)
    # t3 recalls deploy, then the user states it again: the key was held, and recalled
    recall(store, subject_prefix="user:alice", attribute="deploy", actor=AGENT, task="t3")
    cite_in(ws, [a], actor=AGENT, task="t3")
    clock.advance(minutes=2)
    write(store, said(store, "t3", 1, "deploy with make ship, as before"), "deploy", "make ship")
    # t4 states the tests key again without recalling it: a miss
    clock.advance(days=1)
    write(store, said(store, "t4", 1, "tests run with tox, remember"), "tests", "tox")
    # and a recall of tests never cited
    recall(store, subject_prefix="user:alice", attribute="tests", actor=AGENT, task="t5")
    del b
    h = {m.name: m for m in health(store).measures}
    # tasks that touched a held key: t3 (deploy, recalled) and t4 (tests, not): 1/2
    assert h["hit_rate"].value == 0.5 and "of 2 tasks" in h["hit_rate"].shown
    # recalls: deploy in t3 (cited), tests in t5 (never cited): 1 of 2 unused
    assert h["unused_injections"].value == 0.5


def test_label_items_of_a_workspace_leave_the_queue_alone(store: Store) -> None:
    from core.review.queue import build_queue

    write(store, said(store, "t1", 1, "we deploy on Tuesdays"), "deploy_day", "Tuesdays.")
    assert [i.kind for i in workspace_label_items(Workspace([store]))] == ["label"]
    assert build_queue(Workspace([store])) == []


# ---------------------------------------------------------------------- red team
def test_redteam_replays_through_the_gate_and_records_only_counts(store: Store) -> None:
    result = replay(store, actor=ACTOR)
    assert result.total == sum(1 for s in samples() if s.kind != "control")
    assert result.controls_passed[0] == result.controls_passed[1]  # no false alarm
    assert result.steering[0] == result.steering[1]
    # a plain "password = ..." got through until the scanner's likely tier (a secret's
    # name and a value like one): now every sample is intercepted
    assert result.missed == ()
    assert result.intercepted == result.total
    (event,) = [e for e in events(store.root) if e.get("action") == "redteam"]
    assert event["details"]["intercepted"] == result.intercepted
    texts = [s.text for s in samples() if s.kind == "credentials"]
    everything = json.dumps(events(store.root), ensure_ascii=False)
    assert not any(t in everything for t in texts)
    interception = next(m for m in health(store).measures if m.name == "interception")
    assert interception.value == round(result.intercepted / result.total, 3)
    assert list(store.memories.values()) == []  # nothing was written but the event


def test_cli_health_json_and_redteam_print_no_secret(store: Store, tmp_path: Path) -> None:
    env_store = ["--store", str(store.root), "--as", ACTOR]
    out = subprocess.run(
        [sys.executable, "-m", "tui.cli", "redteam", *env_store],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    # (exit 1 was "something got through"; since the likely tier nothing does)
    assert out.returncode == 0, out.stderr
    assert "cred-password-assignment" not in out.stdout
    assert not any(s.text in out.stdout for s in samples() if s.kind == "credentials")
    shown = subprocess.run(
        [sys.executable, "-m", "tui.cli", "health", "--json", *env_store],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
        check=True,
    )
    (data,) = json.loads(shown.stdout)
    names = [m["name"] for m in data["measures"]]
    assert names[0] == "repeats"
    assert set(names) >= {"precision", "stale_citations", "hit_rate", "unused_injections"}
    assert all(m["definition"] for m in data["measures"])
    interception = next(m for m in data["measures"] if m["name"] == "interception")
    assert interception["value"] == next(
        m.value for m in health(Store(store.root)).measures if m.name == "interception"
    )


# --------------------------------------------------------------- reverse signals
def signals(store: Store) -> dict[str, dict[str, Any]]:
    return {s["signal"]: s for s in health(store).signals}


def test_memories_growing_faster_than_tasks_is_a_signal(store: Store, clock: FakeClock) -> None:
    clock.advance(weeks=-10)
    for task in ("t1", "t2"):
        write(store, said(store, task, 1, f"a fact from {task}"), f"fact_{task}", "F.")
    clock.advance(weeks=8)
    for n in range(12):  # twelve memories out of two tasks: extraction is too wide
        task = f"t{3 + n % 2}"
        write(store, said(store, task, n + 1, f"detail {n} of this task"), f"d_{n}", f"D{n}.")
    clock.advance(weeks=2)
    found = signals(store)["memories grow much faster than tasks"]
    assert found["detail"] == "2 memories / 2 tasks -> 12 / 2 per 6 weeks"
    assert "theta" in found["cause"]


def test_a_consolidation_that_cuts_with_answers_unchanged_is_a_signal(
    store: Store, make_memory: Any, add: Any, clock: FakeClock
) -> None:
    from support_consolidate import item_of, mem

    from core.consolidation.consolidate import consolidate

    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm."),
    )
    consolidate(store, actor=ACTOR)
    batch = item_of(store)
    decide(Workspace([store]), batch.id, approve=True, actor=ACTOR)
    found = signals(store)["consolidation cut records, answers unchanged"]
    assert found["detail"].startswith(f"{batch.id}: 1 record retired")
    assert "raw evidence" in found["cause"]


async def test_mcp_recall_keeps_the_task_for_the_hit_rate(store: Store) -> None:
    from support_mcp import served

    write(store, said(store, "t1", 1, "deploy with make ship"), "deploy", "make ship")
    async with served(store.root) as s:
        await s.call("recall", subject_prefix="user:alice", task="t9")
    used = [e for e in events(store.root) if e["action"] == "use"]
    assert used and used[-1]["details"]["task"] == "t9"


def test_index_lines_of_new_records_growing_is_a_signal(store: Store, clock: FakeClock) -> None:
    clock.advance(weeks=-10)
    for n in range(5):
        write(store, said(store, f"a{n}", 1, f"short fact {n}"), f"short_{n}", f"Short {n}.")
    clock.advance(weeks=8)
    for n in range(5):  # the same kind of fact, its whole text written into the title
        text = f"long fact {n}: " + "the deploy runs make ship after the smoke test passes " * 3
        source = said(store, f"b{n}", 1, text)
        outcome = remember(
            store,
            Candidate(
                content=text,
                type="semantic",
                scope="private",
                subject="user:alice/project:shop",
                attribute=f"long_{n}",
                title=text,
                source=source,
                s1=0.9,
                s2=0.9,
            ),
            actor=AGENT,
        )
        assert outcome.memory_ids
    clock.advance(weeks=1)
    found = signals(store)["index lines keep growing"]
    assert "mean line of new records" in found["detail"] and "index" in found["cause"]


# ------------------------------------------------------------- untrusted logs
def test_hostile_logs_are_read_without_harm(store: Store, tmp_path: Path, clock: FakeClock) -> None:
    from tests.conftest import fake_token

    outside = tmp_path / "outside.md"
    outside.write_text("## task tx\n\n- [1] 10:00 user: I told you, outside the store\n")
    day = store.root / "logs" / "2027" / "03"
    day.mkdir(parents=True, exist_ok=True)
    (day / "2027-03-13.md").symlink_to(outside)  # a link: never read
    (day / "notes.md").write_text("## task tn\n\n- [1] 10:00 user: again, not a log\n")
    token = fake_token("ghp_", 36)
    (day / "2027-03-12.md").write_text(
        "# 2027-03-12\n\n## task th\n\n"
        "- [1] 99:99 user: again and again\n"  # no such time: skipped
        f"- [2] 10:00 user: I told you the token is {token}\n"
        "- [3] 10:01 user: " + "again " * 20_000 + "\n"
    )
    found = repeat_candidates(store)
    assert {c.later.task for c in found} == {"th"}
    assert {c.later.index for c in found} == {2, 3}
    items = label_items(Evidence(store), store, measures=["repeat"])
    shown = json.dumps([i.to_dict() for i in items], ensure_ascii=False)
    assert token not in shown and "[secret: github-pat]" in shown
    assert health(store).measures[0].name == "repeats"


def test_label_from_the_command_line(store: Store, clock: FakeClock) -> None:
    said(store, "t0", 1, "hello")
    clock.advance(hours=1)
    said(store, "t1", 1, "again: answer in Chinese")

    def memgov(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tui.cli", *args, "--store", str(store.root), "--as", ACTOR],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parents[2],
            check=check,
            env={**os.environ, "MEMGOV_NOW": clock.now.isoformat()},
        )

    (item,) = [
        i for i in json.loads(memgov("labels", "--json").stdout) if i["id"].startswith("repeat-")
    ]
    shown = memgov("show", item["id"]).stdout
    assert "later:" in shown and "again: answer in Chinese" in shown
    assert "if confirmed: never-written" in shown
    memgov("decide", item["id"], "--approve", "--option", "confirm")
    (label,) = labels(Store(store.root)).values()
    assert (label.item, label.option, label.actor) == (item["id"], "confirm", ACTOR)
    assert item["id"] not in memgov("labels").stdout


# ----------------------------------------------- what a review of the measures found
def test_a_labelled_repeat_keeps_its_id_when_its_log_grows(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    said(store, "t1", 1, "use tabs in Go files please")
    clock.advance(hours=1)
    said(store, "t2", 1, "I told you again, tabs in Go files")
    (item,) = label_items(Evidence(store), store, measures=["repeat"])
    decide(ws, item.id, approve=True, option="confirm", actor=ACTOR)
    clock.advance(minutes=5)
    said(store, "t1", 2, "and spaces in YAML")  # goes above t2's line in the day's log
    assert label_items(Evidence(store), store, measures=["repeat"]) == []
    repeats = next(m for m in health(store).measures if m.name == "repeats")
    assert "1 confirmed" in repeats.shown


def test_hostile_dates_and_events_do_not_crash_health(store: Store) -> None:
    old = store.root / "logs" / "0001" / "01"
    old.mkdir(parents=True)
    (old / "0001-01-01.md").write_text("## task t\n\n- [1] 00:00 user: again, I told you\n")
    (store.root / "logs" / "README.md").write_text("not a log\n")
    with transaction(store, actor=ACTOR, message="test: hostile events") as tx:
        tx.event("redteam", (), reason="x", details={"intercepted": -5, "total": 3})
        tx.event("redteam", (), reason="x", details={"intercepted": True, "total": True})
        tx.event(
            "redteam",
            (),
            reason="x",
            details={"intercepted": 1, "total": 2, "credentials": ["x" * 10_000, 1]},
        )
        tx.event(
            "decide",
            (),
            reason="x",
            decision="dec-20270314T102000-abcdef",
            details={"kind": "consolidation", "replay": {"gained": "lots", "changed": [1]}},
        )
    h = health(store)
    interception = next(m for m in h.measures if m.name == "interception")
    assert interception.value == 0.5 and "x" * 100 not in interception.detail
    assert repeat_candidates(store) == []
    first = logs.messages(store.root)
    assert logs.messages(store.root) is first  # a file that is no log changes nothing


def test_reverting_an_older_label_leaves_the_newer_alone(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    said(store, "t1", 1, "hello")
    clock.advance(hours=1)
    said(store, "t2", 1, "again: answer in Chinese")
    (item,) = label_items(Evidence(store), store, measures=["repeat"])
    first = decide(ws, item.id, approve=True, option="confirm", actor=ACTOR)
    revert(ws, first.id, actor=ACTOR)
    second = decide(ws, item.id, approve=False, actor=ACTOR)
    assert labels(store)[item.id].decision == second.id
    reverts = [e for e in events(store.root) if e["details"].get("option") == "revert"]
    assert reverts[-1]["details"]["reverts"] == first.id


def test_a_citation_no_longer_current_can_be_labelled_stale(store: Store, clock: FakeClock) -> None:
    ws = Workspace([store])
    memory = write(store, said(store, "t1", 1, "tests run with tox"), "tests", "tox")
    clock.advance(hours=1)
    recall(store, subject_prefix="user:alice", attribute="tests", actor=AGENT)
    (item,) = label_items(Evidence(store), store, measures=["citation"])
    assert item.analysis.options == ("true", "expire", "correct")
    with transaction(store, actor=ACTOR, message="test: expire") as tx:
        tx.transition(memory, "expired", action="expire", reason="by hand")
    (item,) = label_items(Evidence(store), store, measures=["citation"])
    assert item.analysis.options == ("true", "stale")
    decide(ws, item.id, approve=True, option="stale", actor=ACTOR)
    stale = next(m for m in health(store).measures if m.name == "stale_citations")
    assert stale.value == 1.0
    assert store.memories.get(memory).status == "expired"  # left as it is


def test_a_recall_after_the_restating_is_no_hit(store: Store, clock: FakeClock) -> None:
    write(store, said(store, "t1", 1, "deploy with make ship"), "deploy", "make ship")
    clock.advance(days=1)
    write(store, said(store, "t2", 1, "deploy with make ship!"), "deploy", "make ship")
    clock.advance(minutes=10)
    recall(store, subject_prefix="user:alice", attribute="deploy", actor=AGENT, task="t2")
    hit = next(m for m in health(store).measures if m.name == "hit_rate")
    assert hit.value == 0.0 and "of 1 task" in hit.shown


def test_a_key_whose_value_keeps_changing_is_a_signal(store: Store, clock: FakeClock) -> None:
    """Rewritten repeatedly means new values of a key (a record superseded or
    contradicted), not the same fact confirmed again from another task."""
    for n in range(4):  # the same words from four tasks: confirmed again, a stable fact
        write(store, said(store, f"t{n}", 1, "we use pnpm"), "package_manager", "pnpm.")
        clock.advance(days=1)
    assert "records rewritten repeatedly" not in signals(store)
    for n, value in enumerate(("npm", "yarn", "bun")):  # a newer preference supersedes
        write(store, said(store, f"u{n}", 1, f"we use {value}"), "package_manager", f"{value}.")
        clock.advance(days=1)
    found = signals(store)["records rewritten repeatedly"]
    assert found["detail"] == "user:alice/project:shop#package_manager (3 new values)"


def test_team_records_are_counted_by_contributor_not_by_approver(
    tmp_path: Path, clock: FakeClock, make_memory: Any
) -> None:
    """A team record's contributor is who asked for it (a promotion's requester, a
    proposal's author), whichever maintainer approved it."""
    from core.review.promotion import place_copy

    team = Store.init(tmp_path / "team", scope="team", owner=ACTOR, actor=ACTOR, clock=clock)

    def land(n: int, contributor: str, approver: str) -> None:
        record = make_memory(id=f"team-{n}", scope="team", attribute=f"convention_{n}")
        with transaction(team, actor=approver, message=f"test: land {n}") as tx:
            place_copy(
                tx,
                record,
                f"private-{n}",
                reason="promoted",
                request=f"promote-{n}",
                decision=f"decision-{n}",
                contributor=contributor,
            )
        clock.advance(minutes=1)

    for n in range(5):  # five people's conventions, all approved by one maintainer
        land(n, f"human:person{n}", "human:maintainer")
    assert "team records from one contributor" not in signals(Store(team.root, clock=clock))
    for n in range(5, 13):  # then one person's habits, approved by several maintainers
        land(n, "human:bob", f"human:maintainer{n % 3}")
    found = signals(Store(team.root, clock=clock))["team records from one contributor"]
    assert found["detail"] == "human:bob: 62% of 13"


def test_a_week_with_nothing_to_count_is_a_gap(store: Store) -> None:
    """Hit rate, unused injections and interception: a week with no task, no recall or
    no red-team run is None (a gap in the sparkline), never 0%."""
    from tui.render import sparkline

    replay(store, actor=ACTOR)
    h = {m.name: m for m in health(store).measures}
    assert h["interception"].series[:-1] == [None] * 11 and h["interception"].series[-1]
    assert h["hit_rate"].series == [None] * 12 and h["unused_injections"].series == [None] * 12
    assert h["repeats"].unit == "count" and h["precision"].unit == "share"
    # a share is drawn against 100%: a flat 50% is a half bar, a gap a space
    assert sparkline([0.5, 0.5, None, 1.0], top=1.0) == "▄▄ █"


def test_a_log_line_cannot_repaint_the_terminal(store: Store, clock: FakeClock) -> None:
    """A daily log is written by agents and can come from a pull: a line with terminal
    controls (clear the screen, retitle the window, reverse the text) is shown with
    them named, by the CLI and by the desk, never sent to the terminal."""
    from rich.console import Console

    from tui.screens.labels import said_card

    said(store, "t0", 1, "hello")
    clock.advance(hours=1)
    log = store.root / str(said(store, "t1", 1, "again: answer in Chinese").log)
    hostile = "again: \x1b[2J\x1b]0;owned\x07answer in \u202eesenihC\u202c\x00"
    log.write_text(log.read_text("utf-8").replace("again: answer in Chinese", hostile), "utf-8")
    run = {"capture_output": True, "text": True, "cwd": Path(__file__).parents[2]}
    env = {**os.environ, "MEMGOV_NOW": clock.now.isoformat()}
    base = [sys.executable, "-m", "tui.cli"]
    where = ["--store", str(store.root), "--as", ACTOR]
    listed = subprocess.run([*base, "labels", *where], env=env, check=True, **run).stdout
    (item,) = [i for i in label_items(Evidence(store), store, measures=["repeat"])]
    shown = subprocess.run([*base, "show", item.id, *where], env=env, check=True, **run).stdout
    for out in (listed, shown):
        assert not any(c in out for c in "\x1b\x07\x00\u202e\u202c"), out
    assert "again: <U+001B>[2J<U+001B>]0;owned<U+0007>answer in <U+202E>esenihC" in shown
    console = Console(width=200, color_system=None, record=True)
    console.print(said_card("later", item.analysis_as(LabelAnalysis).later))
    desk = console.export_text()
    assert "<U+001B>[2J" in desk and "\x1b" not in desk and "\u202e" not in desk


def test_a_log_that_numbers_two_messages_alike_gives_one_candidate(
    store: Store, clock: FakeClock
) -> None:
    """A log written by hand can give two messages of a task the same index: one
    candidate, one id, not two items the desk cannot tell apart."""
    log = store.root / str(said(store, "t1", 1, "again: answer in Chinese").log)
    line = next(x for x in log.read_text("utf-8").splitlines() if "again:" in x)
    log.write_text(log.read_text("utf-8") + line.replace("Chinese", "English") + "\n", "utf-8")
    ids = [c.id for c in repeat_candidates(store)]
    assert len(ids) == 1 == len(set(ids))


def test_a_task_that_recalled_the_key_is_a_hit_without_a_restating(
    store: Store, clock: FakeClock
) -> None:
    """The hit rate's tasks are those that needed a key: the user said it again (a miss,
    unless recalled first), or the agent recalled it (a hit: the user did not have to).
    Counting only the restatements would count only misses."""
    write(store, said(store, "t1", 1, "deploy with make ship"), "deploy", "make ship")
    clock.advance(days=1)
    said(store, "t2", 1, "please ship the fix")  # a task of the logs
    recall(store, subject_prefix="user:alice", attribute="deploy", actor=AGENT, task="t2")
    recall(store, subject_prefix="user:alice", attribute="deploy", actor=AGENT, task="t9")
    clock.advance(days=1)
    write(store, said(store, "t3", 1, "deploy with make ship, remember"), "deploy", "make ship")
    hit_rate = {m.name: m for m in health(store).measures}["hit_rate"]
    # t2 recalled it (hit), t3 had to say it again (miss); t9 is in no log: not counted
    assert (hit_rate.value, hit_rate.shown) == (0.5, "50% of 2 tasks")
