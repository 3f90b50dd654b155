"""Consolidation (SPEC 9, seed 6.4/6.5): each step on a store built for it, the
batch as a branch diff, decisions per file, baselines, rollback, and a replay
of recall queries that must not get worse."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    ACTOR,
    FIXED_NOW,
    FakeClock,
    commit_count,
    git,
    git_status,
    head,
    snapshot_files,
    statuses,
)

from core.consolidation.consolidate import (
    DeterministicEngine,
    Edit,
    Gathered,
    Proposal,
    baselines,
    consolidate,
    decide_batch,
    file_diff,
    load_batch,
    pending_items,
    rollback,
)
from core.domain.dates import absolutise, fix_formats
from core.domain.errors import AuthorizationError, NotFoundError, StoreError, ValidationError
from core.domain.record import Memory, Source
from core.review.decisions import decide, revert
from core.review.queue import build_queue
from core.store import logs
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.decay import recall
from core.writing.pipeline import Candidate, remember

LOG = logs.log_path(FIXED_NOW)
SUBJECT = "user:alice/project:demo"


def src(task: str, index: int = 1, evidence: str = "said so") -> Source:
    return Source(task=task, message_index=index, evidence=evidence, log=LOG)


def mem(
    make_memory: Callable[..., Memory],
    ident: str,
    attribute: str,
    value: str | None,
    content: str,
    **extra: Any,
) -> Memory:
    extra.setdefault("source", src(f"tr_{ident}", 1, content[:30]))
    return make_memory(id=ident, attribute=attribute, value=value, content=content, **extra)


def say(
    store: Store,
    clock: FakeClock,
    text: str,
    *,
    task: str = "tr_new",
    index: int = 1,
    days: float = 1,
) -> None:
    clock.advance(days=days)
    store.log_message(task=task, index=index, role="user", text=text, actor="agent")


def change(report_or_item: Any, action: str) -> dict[str, Any]:
    changes = (
        report_or_item.changes
        if hasattr(report_or_item, "changes")
        else report_or_item.analysis["changes"]
    )
    found = [c for c in changes if c["action"] == action]
    assert len(found) == 1, [c["action"] for c in changes]
    return dict(found[0])


def item_of(store: Store) -> Any:
    items = list(pending_items(store))
    assert len(items) == 1
    return items[0]


# ---------------------------------------------------------------- step 1 and 2
def test_orient_and_gather_leave_unused_records_out_of_the_input(store, make_memory, add, clock):
    old = FIXED_NOW - timedelta(days=45)
    add(
        store,
        mem(make_memory, "fresh", "a", "x", "Ship it tomorrow."),
        mem(make_memory, "idle", "b", "y", "Ship it tomorrow.", created_at=old, verified_at=old),
        mem(make_memory, "idle2", "b", "y", "Ship it tomorrow.", created_at=old, verified_at=old),
    )
    report = consolidate(store, actor=ACTOR, dry_run=True)
    assert report.status == "dry-run"
    assert (report.counts["records"], report.counts["input"], report.counts["unused"]) == (3, 1, 2)
    touched = {i for c in report.changes for i in c["memory_ids"]}
    assert touched == {"fresh"}  # the idle duplicates and dates are not consolidation input
    assert statuses(store) == {"fresh": "active", "idle": "active", "idle2": "active"}
    assert list(pending_items(store)) == []
    (store.root / "memgov.yaml").write_text(
        (store.root / "memgov.yaml").read_text() + "unused_days: 60\n"
    )
    wider = consolidate(Store(store.root, clock=clock), actor=ACTOR, dry_run=True)
    assert wider.counts["input"] == 3 and wider.counts["unused"] == 0
    assert change(wider, "merge-exact")["memory_ids"] == ["idle", "idle2"]


def test_gather_reads_only_log_messages_added_since_the_last_baseline(
    store, make_memory, add, clock
):
    add(store, mem(make_memory, "pm", "package_manager", "pnpm", "Use pnpm."))
    say(store, clock, "we use pnpm for the package manager", index=1)
    first = consolidate(store, actor=ACTOR)
    assert first.counts["signals"] == 2  # the source's own line and the new message
    decide_batch(item_of(store), True, actor=ACTOR)
    say(store, clock, "pnpm again, package manager", index=2)
    again = consolidate(store, actor=ACTOR, dry_run=True)
    assert again.since == "baseline/0001"
    assert again.counts["signals"] == 1


def test_a_dirty_store_is_refused_with_the_file_named(store, make_memory, add):
    add(store, mem(make_memory, "pm", "package_manager", "pnpm", "Use pnpm."))
    (store.root / "memories" / "pm.md").write_text("hand edit\n")
    with pytest.raises(StoreError, match=r"memories/pm.md .*commit or discard"):
        consolidate(store, actor=ACTOR)


# ----------------------------------------------------------------- step 3
def test_exact_duplicates_merge_keeping_every_source(store, make_memory, add):
    later = FIXED_NOW + timedelta(minutes=5)
    add(
        store,
        mem(make_memory, "d1", "package_manager", "pnpm", "Use pnpm.", confidence=0.8),
        mem(
            make_memory,
            "d2",
            "package_manager",
            "pnpm",
            "Use pnpm.",
            confidence=0.7,
            created_at=later,
            verified_at=later,
        ),
        mem(make_memory, "d3", "package_manager", "pnpm", "use pnpm", confidence=0.6),
    )
    report = consolidate(store, actor=ACTOR)
    merge = change(report, "merge-exact")
    assert merge["class"] == "automatic"
    assert set(merge["memory_ids"]) == {"d1", "d2", "d3"}
    # prefer updating an existing file: the oldest survives, no file is added
    assert {f["status"] for f in report.files} == {"modified"}
    decide_batch(item_of(store), True, actor=ACTOR)
    after = Store(store.root).memories
    assert {i: m.status for i, m in after.items()} == {
        "d1": "active",
        "d2": "superseded",
        "d3": "superseded",
    }
    assert {s.task for s in after["d1"].all_sources} == {"tr_d1", "tr_d2", "tr_d3"}
    assert after["d1"].confidence == pytest.approx(0.976)  # 1 - 0.2 * 0.3 * 0.4
    assert after["d1"].verified_at == later
    index = (store.root / "MEMORY.md").read_text()
    assert "d1.md" in index and "d2.md" not in index and "d3.md" not in index


def test_same_value_in_other_words_needs_approval(store, make_memory, add):
    add(
        store,
        mem(make_memory, "w1", "package_manager", "pnpm", "用 pnpm,不用 npm。"),
        mem(make_memory, "w2", "package_manager", "pnpm", "包管理器是 pnpm。"),
        mem(make_memory, "other", "package_manager_ci", "npm", "CI uses npm."),
    )
    report = consolidate(store, actor=ACTOR, dry_run=True)
    merge = change(report, "merge")
    assert merge["class"] == "needs-approval" and "other words" in merge["reason"]
    assert "other" not in merge["memory_ids"]  # another attribute is another key


@pytest.mark.parametrize(
    ("text", "anchor", "expected"),
    [
        ("Deploy yesterday.", date(2027, 3, 14), "Deploy 2027-03-13."),
        ("Freeze starts next week.", date(2027, 3, 14), "Freeze starts the week of 2027-03-15."),
        (
            "Moved 3 days ago; back in 2 weeks.",
            date(2027, 3, 14),
            "Moved 2027-03-11; back by 2027-03-28.",
        ),
        ("Next Friday and last month.", date(2027, 3, 10), "2027-03-19 and 2027-02."),
        ("昨天改用 pnpm", date(2027, 3, 14), "2027-03-13改用 pnpm"),
        ("上周三说过,下周上线", date(2027, 3, 14), "2027-03-03说过,2027-03-15 那一周上线"),
        ("两天前和下个月,去年", date(2027, 3, 14), "2027-03-12和2027-04,2026年"),
        (
            "run `git log --since=yesterday` today",
            date(2027, 3, 14),
            "run `git log --since=yesterday` 2027-03-14",
        ),
        ("这周期不变,最近也许", date(2027, 3, 14), "这周期不变,最近也许"),
    ],
)
def test_relative_dates_become_absolute(text: str, anchor: date, expected: str) -> None:
    assert absolutise(text, anchor)[0] == expected
    assert fix_formats("on 2027/3/4, not 2027.13.40")[0] == "on 2027-03-04, not 2027.13.40"


def test_relative_dates_use_the_sources_date(store, make_memory, add, clock):
    written_later = FIXED_NOW + timedelta(days=3)
    add(
        store,
        mem(make_memory, "freeze", "release_freeze", None, "Release freeze starts next week."),
        mem(
            make_memory,
            "zh",
            "standup",
            None,
            "昨天起站会改到十点。",
            created_at=written_later,
            verified_at=written_later,
        ),
        mem(make_memory, "fmt", "launch", None, "Launch on 2027/4/1."),
    )
    clock.advance(days=4)
    report = consolidate(store, actor=ACTOR)
    dated = [c for c in report.changes if c["action"] == "absolute-dates"]
    by_id = {c["memory_ids"][0]: c for c in dated}
    assert by_id["freeze"]["class"] == "automatic"  # its log and created_at agree
    assert by_id["zh"]["class"] == "needs-approval"  # said 03-14, written 03-17
    assert "2027-03-14" in by_id["zh"]["reason"]
    assert change(report, "date-format")["class"] == "automatic"
    decide_batch(item_of(store), True, actor=ACTOR)
    after = Store(store.root).memories
    assert after["freeze"].content == "Release freeze starts the week of 2027-03-15."
    assert after["zh"].content == "2027-03-13起站会改到十点。"  # the log's day, not created_at
    assert after["fmt"].content == "Launch on 2027-04-01."
    events, _ = Store(store.root).events()
    rewrites = [e for e in events if e.action == "rewrite-dates"]
    assert {e.memory_ids[0] for e in rewrites} == {"freeze", "zh"}
    assert all(e.decision and e.actor == ACTOR for e in rewrites)


def test_a_disproved_record_is_retired_only_with_approval(store, make_memory, add, clock):
    add(
        store,
        mem(make_memory, "npm", "deploy_command", "npm run deploy", "Deploy: `npm run deploy`."),
        mem(make_memory, "pm", "package_manager", "pnpm", "Use pnpm."),
    )
    say(store, clock, "部署不再用 npm run deploy 了,改成 bash deploy.sh", task="tr_9", index=4)
    report = consolidate(store, actor=ACTOR)
    retire = change(report, "retire")
    assert retire["class"] == "needs-approval"
    assert retire["memory_ids"] == ["npm"]
    assert any(e.get("kind") == "log" and e["task"] == "tr_9" for e in retire["evidence"])
    assert statuses(store)["npm"] == "active"  # nothing changes before a person decides
    decide_batch(item_of(store), True, actor=ACTOR)
    assert statuses(store)["npm"] == "superseded"
    events, _ = Store(store.root).events()
    retired = next(e for e in events if e.action == "retire")
    assert (retired.from_status, retired.to_status) == ("active", "superseded")


def test_a_newer_message_reconfirms_a_record(store, make_memory, add, clock):
    add(store, mem(make_memory, "pm", "package_manager", "pnpm", "Use pnpm."))
    say(store, clock, "the package manager here is pnpm", task="tr_7", index=3)
    report = consolidate(store, actor=ACTOR)
    reconfirm = change(report, "reconfirm")
    assert reconfirm["class"] == "automatic"  # value and an attribute word: unambiguous
    decide_batch(item_of(store), True, actor=ACTOR)
    pm = Store(store.root).get("pm")
    assert pm.verified_at.date() == date(2027, 3, 15)
    assert ("tr_7", 3) in {(s.task, s.message_index) for s in pm.all_sources}


def test_links_to_a_merged_record_are_repointed(store, make_memory, add):
    add(
        store,
        mem(make_memory, "p1", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "p2", "package_manager", "pnpm", "Use pnpm."),
        mem(make_memory, "ci", "ci_install", None, "CI installs with the [manager](p2.md)."),
    )
    report = consolidate(store, actor=ACTOR)
    link = change(report, "repoint-link")
    assert link["class"] == "automatic" and "p2.md -> p1.md" in link["reason"]
    decide_batch(item_of(store), True, actor=ACTOR)
    assert Store(store.root).get("ci").content == "CI installs with the [manager](p1.md)."


# ----------------------------------------------------------------- step 4
def test_prune_drops_stale_pointers_and_moves_long_lines_back(store, make_memory, add, clock):
    add(
        store,
        mem(make_memory, "keep", "output_format", None, "Tables for comparisons."),
        mem(make_memory, "long", "doc_language", None, "Docs in Chinese."),
        mem(make_memory, "gone", "editor", None, "Uses vim."),
    )
    with store.transaction(actor=ACTOR, message="test: expire") as tx:
        tx.transition("gone", "expired", action="expire", reason="test")
    long_hook = "Docs in Chinese, " + "with every heading translated and the glossary kept " * 4
    drifted = (
        (store.root / "MEMORY.md").read_text()
        + "- [Editor](memories/gone.md) — Uses vim.\n"
        + f"- [Doc language](memories/long.md) — {long_hook}\n"
    )
    store.write_raw("MEMORY.md", drifted, actor=ACTOR, message="test: an index edited by hand")
    report = consolidate(store, actor=ACTOR)
    pointer = change(report, "index-pointer")
    assert pointer["class"] == "automatic" and "expired" in pointer["reason"]
    move = change(report, "index-move")
    assert move["class"] == "needs-approval" and "memories/long.md" in move["files"]
    index_file = next(f for f in report.files if f["path"] == "MEMORY.md")
    assert "\n-- [Editor](memories/gone.md)" in index_file["diff"]
    assert pointer["id"] in index_file["changes"] and move["id"] in index_file["changes"]
    assert report.index["after"]["lines"] == 2
    decide_batch(item_of(store), True, actor=ACTOR)
    after = Store(store.root)
    assert "glossary kept" in after.get("long").content
    assert all(len(line) <= 150 for line in (store.root / "MEMORY.md").read_text().splitlines())
    assert "gone.md" not in (store.root / "MEMORY.md").read_text()


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
    narrow = file_diff(store, batch.id, "memories/f.md", context=0)
    wide = file_diff(store, batch.id, "memories/f.md", context=5)
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
    with store.transaction(actor=ACTOR, message="test: reconfirm p2") as tx:
        tx.transition("p2", "active", action="reconfirm", reason="test", confidence=0.95)
    item = item_of(store)
    assert any(c["stale"] == ["p2"] for c in item.analysis["changes"])
    with pytest.raises(ValidationError, match=r"memories/p2.md: changed since batch .*--reject"):
        decide_batch(item, True, actor=ACTOR)
    assert statuses(store) == {"p1": "active", "p2": "active", "f": "active"}
    decision = decide_batch(item, False, actor=ACTOR, files=["memories/p2.md"])
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
    assert decision.to_dict()["files"]["memories/npm.md"] == "rejected"
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
    assert analysis["files"] and [e["path"] for e in analysis["files"]] == [
        f["path"] for f in report.files
    ]
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
    for number, path in ((1, "memories/a2.md"), (2, "memories/b.md"), (3, "memories/c2.md")):
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
    with store.transaction(actor=ACTOR, message="test: erase p2") as tx:
        tx.erase("p2", action="erase", reason="the user asked")
    assert list(pending_items(store)) == []
    events, _ = Store(store.root).events()
    assert any(e.action == "batch-discarded" for e in events)
    missing = subprocess.run(["git", "-C", str(store.root), "cat-file", "-e", commit], check=False)
    assert missing.returncode != 0  # pruned with the history rewrite
    assert consolidate(store, actor=ACTOR, dry_run=True).status == "dry-run"
