"""Consolidation's batch (SPEC 9, seed 6.4/6.5): the batch as a branch diff, decisions
per file, baselines, rollback, a replay of recall queries that must not get worse;
what an engine may not mark automatic, and an erasure discarding a pending batch.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock, commit_count, git, git_status, head, snapshot_files, statuses
from support_consolidate import SUBJECT, item_of, mem, say

from core.consolidation.consolidate import (
    DeterministicEngine,
    Edit,
    Gathered,
    Proposal,
    baselines,
    consolidate,
    file_diff,
    load_batch,
    rollback,
)
from core.domain.errors import AuthorizationError, NotFoundError, StoreError, ValidationError
from core.domain.record import Memory, Source
from core.review.batch import decide_batch, pending_items
from core.review.decide import decide
from core.review.queue import build_queue
from core.review.revert import revert
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace
from core.writing.decay import recall
from core.writing.pipeline import Candidate, remember


# --------------------------------------------------------- the batch, the branch
def test_the_batch_is_a_branch_diff_and_main_is_untouched(store, make_memory, add):
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "f", "freeze", None, "Freeze\nstarts\nnext week.\nAsk\nfirst\nplease."),
    )
    before = snapshot_files(store.root)
    commits = commit_count(store.root)
    report = consolidate(store, actor=ACTOR)
    assert report.status == "pending" and report.batch
    assert snapshot_files(store.root) == before and git_status(store.root) == []
    assert commit_count(store.root) == commits
    batch = load_batch(store, report.batch)
    names = git(store.root, "diff", "--name-only", batch.base, f"memgov/batch/{batch.id}")
    assert set(names.split()) == {f["path"] for f in report.files} | {".memgov-batch.json"}
    narrow = file_diff(store, batch.id, memory_path("f"), context=0)
    wide = file_diff(store, batch.id, memory_path("f"), context=5)
    assert narrow.count("\n") < wide.count("\n")
    assert " starts\n" not in narrow and " starts\n" in wide
    with pytest.raises(NotFoundError, match="not changed by batch"):
        file_diff(store, batch.id, "memories/none.md")
    assert [b.name for b in baselines(store)] == ["baseline/0000"]
    with pytest.raises(StoreError, match="still pending"):
        consolidate(store, actor=ACTOR)


def test_ordinary_writes_go_on_while_a_batch_is_pending(store, make_memory, add, clock):
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm."),
    )
    report = consolidate(store, actor=ACTOR)
    clock.advance(hours=1)
    log, _ = store.log_message(task="tr_w", index=0, role="user", text="tabs, please", actor="a")
    outcome = remember(
        store,
        Candidate(
            content="Indent with tabs.",
            type="preference",
            scope="private",
            subject=SUBJECT,
            attribute="indent",
            source=Source("tr_w", 0, "tabs, please", log=log),
            s1=0.9,
            s2=0.9,
        ),
        actor="agent",
    )
    assert outcome.kind == "written"
    batch = load_batch(store, report.batch or "")
    files = git(store.root, "diff", "--name-only", batch.base, batch.commit).split()
    assert not any("indent" in f for f in files)  # not mixed into the batch
    decide_batch(item_of(store), True, actor=ACTOR)
    after = statuses(store)
    assert after["p2"] == "superseded" and after[outcome.memory_ids[0]] == "active"


def test_a_record_changed_since_the_batch_is_refused_by_name(store, make_memory, add, clock):
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "f", "freeze", None, "Freeze starts next week."),
    )
    consolidate(store, actor=ACTOR)
    with transaction(store, actor=ACTOR, message="test: reconfirm p2") as tx:
        tx.transition("p2", "active", action="reconfirm", reason="test", confidence=0.95)
    item = item_of(store)
    assert any(c.stale == ("p2",) for c in item.analysis.changes)
    stale = re.escape(memory_path("p2")) + ": changed since batch .*--reject"
    with pytest.raises(ValidationError, match=stale):
        decide_batch(item, True, actor=ACTOR)
    assert statuses(store) == {"p1": "active", "p2": "active", "f": "active"}
    decision = decide_batch(item, False, actor=ACTOR, files=[memory_path("p2")])
    assert decision.option == "partial"
    assert Store(store.root).get("f").content == "Freeze starts the week of 2027-03-15."
    assert statuses(store)["p2"] == "active"


# ------------------------------------------------------------------ decisions
def _mixed_store(
    store: Store, make_memory: Callable[..., Memory], add: Callable[..., None], clock: FakeClock
) -> None:
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "npm", "deploy_command", "npm run deploy", "Deploy: npm run deploy."),
        mem(make_memory, "f", "freeze", None, "Freeze starts next week."),
    )
    say(store, clock, "no longer npm run deploy; use bash deploy.sh", task="tr_9", index=2)


def test_approve_some_files_and_reject_the_rest(store, make_memory, add, clock):
    _mixed_store(store, make_memory, add, clock)
    consolidate(store, actor=ACTOR)
    ws = Workspace([store])
    with pytest.raises(ValidationError, match=r"nope\.md is not a file of batch"):
        decide(ws, item_of(store).id, approve=True, actor=ACTOR, files=["memories/nope.md"])
    decision = decide(ws, item_of(store).id, approve=True, actor=ACTOR, files=["p2.md"])
    assert decision.option == "partial"
    assert decision.to_dict()["files"][memory_path("npm")] == "rejected"
    assert statuses(store) == {"p1": "active", "p2": "superseded", "npm": "active", "f": "active"}
    assert Store(store.root).get("f").content == "Freeze starts next week."
    assert [b.name for b in baselines(store)] == ["baseline/0000", "baseline/0001"]
    tag = git(store.root, "cat-file", "-p", "baseline/0001")
    assert f"decision: {decision.id}" in tag and "batch: batch-" in tag
    assert list(pending_items(store)) == []


def test_reject_all_leaves_the_store_at_its_baseline(store, make_memory, add, clock):
    _mixed_store(store, make_memory, add, clock)
    before = snapshot_files(store.root)
    report = consolidate(store, actor=ACTOR)
    decision = decide(Workspace([store]), report.batch or "", approve=False, actor=ACTOR)
    assert decision.option == "reject" and not decision.revertible
    after = snapshot_files(store.root)
    memory_files = {k: v[0] for k, v in before.items() if k.startswith("memories/")}
    assert {k: v[0] for k, v in after.items() if k.startswith("memories/")} == memory_files
    assert git(store.root, "branch", "--list", "memgov/batch/*").strip() == ""
    assert [b.name for b in baselines(store)] == ["baseline/0000"]
    assert (store.root / "decisions" / f"{decision.id}.json").is_file()


def test_auto_apply_policy_applies_only_what_adds_no_meaning(store, make_memory, add, clock):
    config = store.root / "memgov.yaml"
    config.write_text(config.read_text() + "consolidation_auto_apply: true\n")
    store = Store(store.root, clock=clock)
    _mixed_store(store, make_memory, add, clock)
    report = consolidate(store, actor="memgov-consolidate")
    assert report.status == "pending" and report.applied
    assert {c["action"] for c in report.applied["changes"]} == {"merge-exact", "absolute-dates"}
    assert [c["action"] for c in report.changes] == ["retire"]
    assert statuses(store) == {"p1": "active", "p2": "superseded", "npm": "active", "f": "active"}
    events, _ = Store(store.root).events()
    auto = [e for e in events if e.details.get("batch") == report.batch]
    assert auto and all(e.actor == "memgov-consolidate" for e in auto)
    assert report.applied["baseline"] == "baseline/0001"
    decide_batch(item_of(store), True, actor=ACTOR)
    assert statuses(store)["npm"] == "superseded"


def test_only_maintainers_decide_a_team_batch(tmp_path: Path, clock, make_memory, add):
    team = Store.init(
        tmp_path / "team", scope="team", maintainers=("boss",), actor=ACTOR, clock=clock
    )
    add(
        team,
        mem(make_memory, "t1", "test_command", "pnpm test", "Tests: pnpm test.", scope="team"),
        mem(make_memory, "t2", "test_command", "pnpm test", "Tests: pnpm test.", scope="team"),
    )
    consolidate(team, actor="agent")
    ws = Workspace([team])
    with pytest.raises(AuthorizationError, match="maintainers"):
        decide(ws, item_of(team).id, approve=True, actor="someone")
    decide(ws, item_of(team).id, approve=True, actor="boss")
    assert statuses(team)["t2"] == "superseded"


def test_the_queue_item_documents_every_file(store, make_memory, add, clock):
    _mixed_store(store, make_memory, add, clock)
    report = consolidate(store, actor=ACTOR)
    items = build_queue(Workspace([store]), kinds=["consolidation"])
    assert [i.id for i in items] == [report.batch]
    data = json.loads(json.dumps(items[0].to_dict()))
    analysis = data["analysis"]
    assert {"batch", "base", "summary", "changes", "files", "index", "replay"} <= set(analysis)
    assert analysis["files"] and sorted(e["path"] for e in analysis["files"]) == sorted(
        f["path"] for f in report.files
    )
    for entry in analysis["files"]:
        assert entry["class"] in ("automatic", "needs-approval")
        assert entry["diff"].startswith(f"--- a/{entry['path']}")
        assert entry["changes"] and entry["reasons"] and entry["evidence"]
    assert {r["id"] for r in data["records"]} >= {"p1", "p2", "npm", "f"}
    assert json.loads(json.dumps(report.to_dict()))["batch"] == report.batch
    assert "decide" in report.render()


# ------------------------------------------------------------ rollback, replay
def _state(store: Store) -> dict[str, tuple[str, str, int]]:
    return {
        m.id: (m.status, m.content, len(m.all_sources)) for m in Store(store.root).memories.values()
    }


def test_rollback_across_three_baselines(store, make_memory, add, clock):
    add(
        store,
        mem(make_memory, "a1", "editor", "vim", "Uses vim."),
        mem(make_memory, "a2", "editor", "vim", "Uses vim."),
        mem(make_memory, "b", "freeze", None, "Freeze starts next week."),
        mem(make_memory, "c1", "shell", "zsh", "Uses zsh."),
        mem(make_memory, "c2", "shell", "zsh", "Uses zsh."),
    )
    states = {"baseline/0000": _state(store)}
    for number, path in ((1, memory_path("a2")), (2, memory_path("b")), (3, memory_path("c2"))):
        clock.advance(hours=1)
        consolidate(store, actor=ACTOR)
        decide_batch(item_of(store), True, actor=ACTOR, files=[path])
        states[f"baseline/{number:04d}"] = _state(store)
    assert [b.name for b in baselines(store)][-1] == "baseline/0003"
    assert states["baseline/0003"]["c2"][0] == "superseded"
    before = head(store.root)

    result = rollback(store, "baseline/0001", actor=ACTOR)
    assert _state(store) == states["baseline/0001"]
    assert set(result.restored) == {"b", "c1", "c2"} and result.baseline == "baseline/0004"
    git(store.root, "merge-base", "--is-ancestor", before, "HEAD")  # history kept, not rewritten
    events, _ = Store(store.root).events()
    assert {e.memory_ids[0] for e in events if e.action == "rollback"} == {"b", "c1", "c2"}

    rollback(store, "3", actor=ACTOR)  # forward again: a rollback too
    assert _state(store) == states["baseline/0003"]
    rollback(store, "baseline/0000", actor=ACTOR)
    assert _state(store) == states["baseline/0000"]
    assert git_status(store.root) == []
    with pytest.raises(NotFoundError, match="baseline/0042"):
        rollback(store, "baseline/0042", actor=ACTOR)


def test_revert_of_a_consolidation_decision_rolls_back(store, make_memory, add):
    add(
        store,
        mem(make_memory, "a1", "editor", "vim", "Uses vim."),
        mem(make_memory, "a2", "editor", "vim", "Uses vim."),
    )
    consolidate(store, actor=ACTOR)
    decision = decide_batch(item_of(store), True, actor=ACTOR)
    assert decision.revertible and statuses(store)["a2"] == "superseded"
    undone = revert(Workspace([store]), decision.id, actor=ACTOR)
    assert undone.option == "rollback" and statuses(store)["a2"] == "active"
    record = json.loads((store.root / decision.path).read_text())
    assert record["reverted_by"] == undone.id


def test_replayed_recall_is_no_worse_after_an_approved_batch(store, make_memory, add, clock):
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm.", confidence=0.7),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm.", confidence=0.8),
        mem(make_memory, "lang", "doc_language", "中文", "文档用中文,上周定的。"),
        mem(make_memory, "fmt", "output_format", "tables", "Tables for comparisons."),
        mem(make_memory, "dep", "deploy_command", "npm run deploy", "Deploy: npm run deploy."),
    )
    say(store, clock, "we use pnpm as package manager", task="tr_5", index=1)
    queries = [
        (SUBJECT, a) for a in ("package_manager", "doc_language", "output_format", "deploy_command")
    ]

    def answers() -> dict[str, tuple[str | None, float, int]]:
        out = {}
        for subject, attribute in queries:
            top = recall(
                store, subject_prefix=subject, attribute=attribute, actor=ACTOR, record_usage=False
            )[0]
            out[attribute] = (top.memory.value, top.weight, len(top.memory.all_sources))
        return out

    before = answers()
    report = consolidate(store, actor=ACTOR)
    assert report.replay["lost"] == [] and report.replay["changed"] == []
    assert report.counts["changes"] >= 3
    decide_batch(item_of(store), True, actor=ACTOR)
    store = Store(store.root, clock=clock)
    after = answers()
    assert len(store.memories) == 5 and statuses(store)["p2"] == "superseded"
    for attribute, (value, weight, sources) in before.items():
        assert after[attribute][0] == value  # the same answer
        assert after[attribute][1] >= weight - 1e-9  # no weaker
        assert after[attribute][2] >= sources  # with no less evidence


# ------------------------------------------------------------------- the engine
class _Rewriter:
    """A stand-in for a model-driven engine: it claims a rewrite is automatic."""

    name = "test-model"

    def propose(self, gathered: Gathered) -> list[Proposal]:
        first = gathered.input_records()[0]
        return [
            Proposal(
                "merge-exact",
                True,
                "rewrite the text",
                (Edit(first.id, "rewrite", content="Something else."),),
            ),
            Proposal("retire", True, "no such record", (Edit("nope", "x", to_status="expired"),)),
        ]


def test_an_engine_cannot_mark_a_rewrite_automatic(store, make_memory, add):
    add(store, mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."))
    report = consolidate(store, actor=ACTOR, engine=_Rewriter(), dry_run=True)
    assert report.engine == "test-model"
    assert [c["class"] for c in report.changes] == ["needs-approval"]
    assert any("dropped" in f and "nope" in f for f in report.findings)
    assert DeterministicEngine().name == "deterministic"


def test_an_erasure_discards_a_pending_batch_that_may_quote_it(store, make_memory, add):
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "pnpm, said on a private call."),
    )
    report = consolidate(store, actor=ACTOR)
    commit = load_batch(store, report.batch or "").commit
    with transaction(store, actor=ACTOR, message="test: erase p2") as tx:
        tx.erase("p2", action="erase", reason="the user asked")
    assert list(pending_items(store)) == []
    events, _ = Store(store.root).events()
    assert any(e.action == "batch-discarded" for e in events)
    missing = subprocess.run(["git", "-C", str(store.root), "cat-file", "-e", commit], check=False)
    assert missing.returncode != 0  # pruned with the history rewrite
    assert consolidate(store, actor=ACTOR, dry_run=True).status == "dry-run"


def test_plain_rollback_after_a_revert_does_not_put_the_batch_back(store, make_memory, add, clock):
    """The default is the baseline before the last approved batch still in effect: a
    batch a revert (or a rollback) undid is not rolled back to, and with none in
    effect there is nothing to roll back."""
    add(
        store,
        mem(make_memory, "a1", "editor", "vim", "Uses vim."),
        mem(make_memory, "a2", "editor", "vim", "Uses vim."),
        mem(make_memory, "c1", "shell", "zsh", "Uses zsh."),
        mem(make_memory, "c2", "shell", "zsh", "Uses zsh."),
    )
    consolidate(store, actor=ACTOR)
    first = decide_batch(item_of(store), True, actor=ACTOR, files=[memory_path("a2")])
    clock.advance(hours=1)
    consolidate(store, actor=ACTOR)
    second = decide_batch(item_of(store), True, actor=ACTOR, files=[memory_path("c2")])
    assert statuses(store)["a2"] == statuses(store)["c2"] == "superseded"
    revert(Workspace([store]), second.id, actor=ACTOR)  # baseline/0002 undone
    assert statuses(store)["c2"] == "active"

    result = rollback(store, actor=ACTOR)  # undoes the first batch, the one still in effect
    assert result.target == "baseline/0000"
    assert statuses(store)["a2"] == "active" and statuses(store)["c2"] == "active"
    assert json.loads((store.root / first.path).read_text())["reverted_by"] == result.decision.id

    with pytest.raises(NotFoundError, match="no approved batch is in effect") as raised:
        rollback(store, actor=ACTOR)
    assert "memgov rollback baseline/0002" in str(raised.value)  # how to put one back
    assert statuses(store)["a2"] == statuses(store)["c2"] == "active"
