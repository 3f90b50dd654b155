"""Consolidation (SPEC 9, seed 6.4/6.5): each step on a store built for it: orient and
gather, the changes step 3 proposes (merge, dates, retire, reconfirm, repoint) and
step 4's prune of the index. The batch, its decisions, baselines and rollback are in
``test_consolidate_batch.py``.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import pytest
from conftest import ACTOR, FIXED_NOW, record_file, statuses
from support_consolidate import item_of, mem, say

from core.consolidation.consolidate import consolidate
from core.domain.dates import absolutise, fix_formats
from core.domain.errors import StoreError
from core.review.batch import decide_batch, pending_items
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction, write_raw


def change(report_or_item: Any, action: str) -> dict[str, Any]:
    changes = (
        report_or_item.changes
        if hasattr(report_or_item, "changes")
        else [c.to_dict() for c in report_or_item.analysis.changes]
    )
    found = [c for c in changes if c["action"] == action]
    assert len(found) == 1, [c["action"] for c in changes]
    return dict(found[0])


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
    record_file(store, "pm").write_text("hand edit\n")
    with pytest.raises(StoreError, match=re.escape(memory_path("pm")) + " .*commit or discard"):
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
    with transaction(store, actor=ACTOR, message="test: expire") as tx:
        tx.transition("gone", "expired", action="expire", reason="test")
    long_hook = "Docs in Chinese, " + "with every heading translated and the glossary kept " * 4
    drifted = (
        (store.root / "MEMORY.md").read_text()
        + f"- [Editor]({memory_path('gone')}) — Uses vim.\n"
        + f"- [Doc language]({memory_path('long')}) — {long_hook}\n"
    )
    write_raw(store, "MEMORY.md", drifted, actor=ACTOR, message="test: an index edited by hand")
    report = consolidate(store, actor=ACTOR)
    pointer = change(report, "index-pointer")
    assert pointer["class"] == "automatic" and "expired" in pointer["reason"]
    move = change(report, "index-move")
    assert move["class"] == "needs-approval" and memory_path("long") in move["files"]
    index_file = next(f for f in report.files if f["path"] == "MEMORY.md")
    assert f"\n-- [Editor]({memory_path('gone')})" in index_file["diff"]
    assert pointer["id"] in index_file["changes"] and move["id"] in index_file["changes"]
    assert report.index["after"]["lines"] == 2
    decide_batch(item_of(store), True, actor=ACTOR)
    after = Store(store.root)
    assert "glossary kept" in after.get("long").content
    assert all(len(line) <= 150 for line in (store.root / "MEMORY.md").read_text().splitlines())
    assert "gone.md" not in (store.root / "MEMORY.md").read_text()
