"""The desk, driven like a person would with Pilot; then the store is checked:
files, events, git, doctor."""

from __future__ import annotations

import json
from pathlib import Path

from support_desk import (
    decide_key,
    desk,
    doctor_clean,
    git,
    settle,
    text_of,
    workspace,
)
from textual.widgets import DataTable, Input

from core.review.queue import build_queue
from core.store.requests import load_requests
from core.store.store import Store
from tui.screens.about import AboutMeScreen
from tui.screens.batch import BatchScreen
from tui.screens.dialogs import ConditionsDialog, KeysHelp, ReasonDialog
from tui.screens.health import HealthScreen
from tui.screens.history import HistoryScreen
from tui.screens.problems import ProblemsScreen
from tui.screens.promotion import PromotionScreen
from tui.screens.queue.table import QueueTable
from tui.screens.stale import StaleScreen
from tui.screens.views import ConflictScreen, DeletionScreen


def by_attribute(path: Path, attribute: str) -> list:
    return sorted(
        (
            m
            for s in workspace(path).stores
            for m in s.memories.values()
            if m.attribute == attribute
        ),
        key=lambda m: m.created_at,
    )


def events(store: Path) -> list[dict]:
    return [
        json.loads(line)
        for line in (store / "events/000001.jsonl").read_text().splitlines()
        if line.strip()
    ]


async def open_item(pilot, app, kind: str, title_part: str = "") -> None:
    """Select the first item of a kind (by moving the cursor, as a person would)."""
    await settle(pilot, app)
    table = app.screen.query_one("#queue", QueueTable)
    items = app.screen.shown_items()
    index = next(
        i for i, item in enumerate(items) if item.kind == kind and title_part in item.title
    )
    for _ in range(index - table.cursor_row):
        await pilot.press("j")
    await pilot.press("enter")
    await settle(pilot, app)


# ------------------------------------------------------------------------- queue
async def test_queue_lists_every_kind_oldest_first_and_filters(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        kinds = [i.kind for i in screen.items]
        assert sorted(set(kinds)) == [
            "conflict",
            "consolidation",
            "deletion",
            "held",
            "promotion",
            "quarantine",
            "secret",
            "stale",
        ]
        # oldest first, the pending batch before the first item that would discard it
        opened = [i.opened_at for i in screen.items if i.kind != "consolidation"]
        assert opened == sorted(opened)
        assert [i.kind for i in screen.items][1] == "consolidation"
        await pilot.press("right_square_bracket")  # conflicts only
        await pilot.pause()
        assert {i.kind for i in screen.shown_items()} == {"conflict"}
        await pilot.press("right_square_bracket", "right_square_bracket")  # deletions
        await pilot.pause()
        assert {i.kind for i in screen.shown_items()} == {"deletion"}
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket")
        await pilot.press("s", "s")  # scope: team
        await pilot.pause()
        assert {i.scope for i in screen.shown_items()} == {"team"}
        await pilot.press("s")
        await pilot.press("slash")
        await pilot.press(*"pnpm")
        await pilot.pause()
        assert [i.kind for i in screen.shown_items()] == ["consolidation", "promotion"]
        await pilot.press("escape")
        await pilot.pause()
        assert len(screen.shown_items()) == len(screen.items)
        await pilot.press("j", "k")
        assert screen.query_one("#queue", QueueTable).cursor_row == 0


async def test_keys_help_and_palette_list_the_bindings(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysHelp)
        descriptions = {d for _k, d, _t in app.screen.rows}
        assert {"Open", "About me", "History", "Health", "Problems", "Undo"} <= descriptions
        await pilot.press("escape")
        commands = {c.title for c in app.get_system_commands(app.screen)}
        assert {"Open", "Search", "About me", "Undo"} <= commands


# ---------------------------------------------------------------------- conflicts
async def test_newer_wins_then_undo(demo: Path) -> None:
    team = demo / "team"
    older, newer = by_attribute(demo, "deploy_command")
    commits_before = git(team, "rev-list", "--count", "HEAD")
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        assert isinstance(app.screen, ConflictScreen)
        steps = text_of(app.screen.query_one("#steps"))
        assert "sources favour" in steps and "生产" in steps
        await pilot.press("n")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        assert any(newer.id in c for c in app.screen.proposal.changes)
        await pilot.press("enter")
        await settle(pilot, app)
        after = {m.id: m for m in by_attribute(demo, "deploy_command")}
        assert after[newer.id].status == "active"
        assert after[newer.id].supersedes == older.id
        assert after[older.id].status == "superseded"
        log = events(team)
        mine = [e for e in log if e["actor"] == "liys05"]
        assert [
            (e["from"], e["to"])
            for e in mine
            if older.id in e["memory_ids"] and e["action"] != "decide"
        ] == [("conflict", "active"), ("active", "superseded")]
        assert int(git(team, "rev-list", "--count", "HEAD")) == int(commits_before) + 1
        assert "liys05" in git(team, "log", "-1", "--format=%an")
        assert newer.id in (team / "MEMORY.md").read_text()
        assert older.id not in (team / "MEMORY.md").read_text()
        doctor_clean(demo)

        await pilot.press("u")  # undo, right after
        await settle(pilot, app)
        restored = {m.id: m.status for m in by_attribute(demo, "deploy_command")}
        assert restored == {older.id: "conflict", newer.id: "conflict"}
        assert events(team)[-1]["action"] == "decide"
        assert any(e["action"] == "revert" for e in events(team))
        doctor_clean(demo)


async def test_older_wins(demo: Path) -> None:
    older, newer = by_attribute(demo, "deploy_command")
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        await decide_key(pilot, app, "o")
        await settle(pilot, app)
    after = {m.id: m for m in by_attribute(demo, "deploy_command")}
    assert after[older.id].status == "active" and after[older.id].supersedes == newer.id
    assert after[newer.id].status == "superseded"
    doctor_clean(demo)


async def test_parallel_writes_each_condition(demo: Path) -> None:
    older, newer = by_attribute(demo, "deploy_command")
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        await pilot.press("p")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConditionsDialog)
        # the newer record's source says 生产 (production): prefilled from reading it
        assert dialog.query_one(f"#cond-{newer.id}", Input).value == "env=production"
        dialog.query_one(f"#cond-{older.id}", Input).value = "env=testing"
        await pilot.press("enter")  # every record has its condition: accepted
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")
        await settle(pilot, app)
    after = {m.id: m for m in by_attribute(demo, "deploy_command")}
    assert after[older.id].status == after[newer.id].status == "active"
    assert after[older.id].condition == "env=testing"
    assert after[newer.id].condition == "env=production"
    index = (demo / "team" / "MEMORY.md").read_text()
    assert older.id in index and newer.id in index
    doctor_clean(demo)


async def test_neither_erases_both_for_good(demo: Path) -> None:
    records = by_attribute(demo, "doctor")  # the private Dr. Zhang conflict
    private = demo / "private"
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "doctor")
        await pilot.press("x")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog) and app.screen.proposal.destructive
        await pilot.press("enter")
        await settle(pilot, app)
    assert len(records) == 2 and by_attribute(demo, "doctor") == []
    assert not any((private / m.path).exists() for m in records)
    erased = [e for e in events(private) if e["to"] == "deleted"]
    assert {i for e in erased for i in e["memory_ids"]} == {m.id for m in records}
    # what an erasure leaves in git and in the events is core's rule
    # (tests/review/test_decisions.py::test_neither_erases_both_records_of_a_private_conflict)
    doctor_clean(demo)


async def test_a_conflict_decided_meanwhile_by_someone_else_is_a_notification(
    demo: Path,
) -> None:
    from core.review.decide import decide

    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        item_id = app.screen.item.id
        # another maintainer, in another desk, decides first
        other = decide(
            workspace(demo), item_id, approve=True, option="older", actor="wang.lead@example.com"
        )
        await pilot.press("x")  # neither: would erase both
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        shown = [n.message for n in app._notifications]
        assert any("already decided by wang.lead@example.com" in m for m in shown), shown
        assert app.is_running
    # exactly once: the other decision stands, nothing was erased
    statuses = sorted(m.status for m in by_attribute(demo, "deploy_command"))
    assert statuses == ["active", "superseded"]
    decided = [e for e in events(demo / "team") if e["action"] == "decide"]
    assert [e["decision"] for e in decided][-1] == other.id
    doctor_clean(demo)


async def test_a_git_failure_while_deciding_is_a_notification_not_an_exit(demo: Path) -> None:
    team = demo / "team"
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        head = (team / ".git" / "HEAD").read_bytes()
        (team / ".git" / "HEAD").write_text("not a ref at all\n")  # git now fails outright
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
        assert app.is_running
        assert any(n.severity == "error" for n in app._notifications)
        (team / ".git" / "HEAD").write_bytes(head)
    assert {m.status for m in by_attribute(demo, "deploy_command")} == {"conflict"}


async def test_defer_keeps_the_conflict_open(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
    assert {m.status for m in by_attribute(demo, "deploy_command")} == {"conflict"}
    decisions = [e for e in events(demo / "team") if e["action"] == "decide"]
    assert decisions and decisions[-1]["details"]["option"] == "defer"


async def test_a_non_maintainer_is_refused_and_nothing_changes(demo: Path) -> None:
    team = demo / "team"
    before = git(team, "rev-parse", "HEAD")
    app = desk(demo, actor="intern@example.com")
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        await decide_key(pilot, app, "n")
        await settle(pilot, app)
        messages = [n.message for n in app._notifications]
        assert any("may not decide" in m for m in messages)
    assert git(team, "rev-parse", "HEAD") == before


# ----------------------------------------------------------------------- promotion
async def test_promotion_approve_creates_the_team_copy(demo: Path) -> None:
    private_pnpm = by_attribute(demo, "package_manager")[0]
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "promotion", "Package manager")
        assert isinstance(app.screen, PromotionScreen)
        assert "clean" in text_of(app.screen.query_one("#scan"))
        await decide_key(pilot, app, "a")
        await settle(pilot, app)
    copies = [m for m in by_attribute(demo, "package_manager") if m.scope == "team"]
    assert len(copies) == 1
    assert len(copies[0].all_sources) == len(private_pnpm.all_sources) == 3
    requests = {r.memory_id: r for r in load_requests(workspace(demo).private)}
    assert requests[private_pnpm.id].status == "approved"
    assert (
        copies[0].path.removeprefix("memories/").removesuffix(".md")
        in (demo / "team" / "MEMORY.md").read_text()
    )
    doctor_clean(demo)


async def test_promotion_with_a_secret_cannot_be_approved(demo: Path) -> None:
    team_head = git(demo / "team", "rev-parse", "HEAD")
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "promotion", "CI registry auth")
        screen = app.screen
        assert isinstance(screen, PromotionScreen)
        assert screen.blocked == ["github-pat"]
        shown = text_of(screen.query_one("#private-record"))
        assert "[secret: github-pat]" in shown and "ghp_" not in shown
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, PromotionScreen)  # no dialog: approval is disabled
    assert git(demo / "team", "rev-parse", "HEAD") == team_head
    assert "ghp_" not in git(demo / "team", "log", "-p", "--all")


async def test_promotion_reject_closes_the_request(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "promotion", "Package manager")
        await decide_key(pilot, app, "r")
        await settle(pilot, app)
    statuses = {r.memory_id: r.status for r in load_requests(workspace(demo).private)}
    assert "rejected" in statuses.values()
    assert [m.scope for m in by_attribute(demo, "package_manager")] == ["private"]


# ------------------------------------------------------------------------ deletion
async def test_deletion_approve_erases_the_memory(demo: Path) -> None:
    city = by_attribute(demo, "home_city")[0]
    private = demo / "private"
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "deletion")
        assert isinstance(app.screen, DeletionScreen)
        await pilot.press("e")
        await settle(pilot, app)
        assert app.screen.proposal.destructive
        await pilot.press("enter")
        await settle(pilot, app)
    assert by_attribute(demo, "home_city") == []
    assert city.content not in (private / "MEMORY.md").read_text()
    # no commit keeps it: core's rule (tests/review/test_decisions_deletion.py)
    doctor_clean(demo)


async def test_deleting_a_promoted_memory_names_its_team_copy(demo: Path) -> None:
    from core.review.decide import decide
    from core.store.decisions import team_copies
    from core.store.requests import file_request

    ws = workspace(demo)
    promotion = next(i for i in build_queue(ws) if i.kind == "promotion" and not i.scan)
    private_id = promotion.records[0].memory.id
    decide(ws, promotion.id, approve=True, actor="liys05")
    [(team, copy_id)] = team_copies(workspace(demo).stores, private_id)
    asked = file_request(
        workspace(demo).for_scope("private"),
        kind="delete",
        memory_id=private_id,
        reason="no longer true",
        actor="liys05",
    )
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "deletion", "Package manager")
        assert isinstance(app.screen, DeletionScreen)
        assert copy_id in text_of(app.screen.query_one("#request"))
        await pilot.press("e")
        await settle(pilot, app)
        assert any(copy_id in line for line in app.screen.proposal.changes)
        await pilot.press("enter")
        await settle(pilot, app)
    opened = [
        r for r in load_requests(Store(team.root)) if r.status == "open" and r.kind == "delete"
    ]
    assert [r.memory_id for r in opened] == [copy_id]
    assert private_id not in Store(demo / "private").memories
    assert [r.status for r in load_requests(Store(demo / "private")) if r.id == asked.id] == [
        "approved"
    ]
    doctor_clean(demo)


async def test_deletion_reject_keeps_the_memory(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "deletion")
        await decide_key(pilot, app, "K")
        await settle(pilot, app)
    assert [m.status for m in by_attribute(demo, "home_city")] == ["active"]
    assert [r.status for r in load_requests(workspace(demo).private) if r.kind == "delete"] == [
        "rejected"
    ]


# --------------------------------------------------------- about me, history, health
async def test_about_me_correct_and_ask_to_delete(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, AboutMeScreen)
        assert all(
            m.subject.startswith("user:liys05") or s.config.scope == "private"
            for s, m in screen.rows
        )
        # move to the active output-format preference
        target = next(i for i, (_s, m) in enumerate(screen.rows) if m.attribute == "output_format")
        listing = screen.query_one("#about-list")
        listing.highlighted = next(i for i, o in enumerate(listing.options) if o.id == str(target))
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        field = app.screen.query_one("#content", Input)
        field.value = "对比用表格,最多三列。"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")  # accept the reason
        await settle(pilot, app)
        formats = by_attribute(demo, "output_format")
        assert [m.status for m in formats] == ["superseded", "active"]
        assert formats[1].supersedes == formats[0].id
        # ask to delete the home city
        screen = app.screen
        city = next(i for i, (_s, m) in enumerate(screen.rows) if m.attribute == "home_city")
        listing = screen.query_one("#about-list")
        listing.highlighted = next(i for i, o in enumerate(listing.options) if o.id == str(city))
        await pilot.pause()
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
    assert len([r for r in load_requests(workspace(demo).private) if r.kind == "delete"]) == 1
    doctor_clean(demo)


async def test_history_shows_the_timeline_and_chain(demo: Path) -> None:
    old, new = by_attribute(demo, "doc_language")
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("h")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        await pilot.press("slash", *old.id, "enter")
        await settle(pilot, app)
        detail = text_of(screen.query_one("#history-detail"))
        assert "replaced by" in detail and new.id in detail
        assert "supersede" in detail and "active → superseded" in detail
        await pilot.press("e")
        await settle(pilot, app)
        assert "source 1" in text_of(screen.query_one("#history-detail"))


async def test_health_and_problems(demo: Path) -> None:
    broken = demo / "private" / "memories" / "broken.md"
    broken.write_text("---\nid: [unclosed\n---\nbody\n")
    app = desk(demo)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot, app)
        await pilot.press("m")
        await settle(pilot, app)
        assert isinstance(app.screen, HealthScreen)
        text = text_of(app.screen.query_one("#health"))
        assert "index lines" in text and "new memories per week" in text
        await pilot.press("escape", "p")
        await settle(pilot, app)
        assert isinstance(app.screen, ProblemsScreen)
        table = app.screen.query_one("#problems", DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert any("broken.md" in str(row[2]) for row in rows)
    assert broken.read_text().startswith("---\nid: [unclosed")  # never rewritten


async def test_queue_reads_the_same_items_as_core(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test() as pilot:
        await settle(pilot, app)
        assert [i.id for i in app.screen.items] == [i.id for i in build_queue(workspace(demo))]


# --------------------------------------------------------------------- consolidation
async def test_batch_approve_in_part(demo: Path) -> None:
    private = demo / "private"
    freeze = by_attribute(demo, "merge_freeze")[0]
    pnpm = by_attribute(demo, "package_manager")[0]
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "consolidation")
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        paths = [f.path for f in screen.files]
        assert pnpm.path in paths and freeze.path in paths
        diff = text_of(screen.query_one("#batch-diff"))
        await pilot.press("plus", "plus")
        await pilot.pause()
        assert screen.context == 5
        assert len(text_of(screen.query_one("#batch-diff"))) >= len(diff)
        for _ in range(paths.index(pnpm.path)):
            await pilot.press("j")
        await pilot.press("space")  # reject the dubious reconfirmation of pnpm
        await pilot.pause()
        assert screen.rejected == {pnpm.path}
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")
        await settle(pilot, app)
    after = {
        m.id: m for m in by_attribute(demo, "merge_freeze") + by_attribute(demo, "package_manager")
    }
    assert "2026-11-18" in after[freeze.id].content and "下周" not in after[freeze.id].content
    assert after[pnpm.id].verified_at == pnpm.verified_at  # the rejected change did not apply
    assert "baseline/0001" in git(private, "tag")
    assert "partial" in git(private, "log", "-1", "--format=%s")
    doctor_clean(demo)
    # rolling the batch back is core's (tests/review/test_consolidate_batch.py); the desk has no key


async def test_batch_reject_all_changes_nothing(demo: Path) -> None:
    private = demo / "private"
    head = git(private, "rev-parse", "HEAD").strip()
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "consolidation")
        await decide_key(pilot, app, "r")
        await settle(pilot, app)
        assert not [i for i in app.screen.items if i.kind == "consolidation"]
    memories = git(private, "diff", head, "HEAD", "--stat", "--", "memories")
    assert memories == ""


async def test_keys_can_be_remapped_from_the_store_config(demo: Path) -> None:
    config = demo / "private" / "memgov.yaml"
    config.write_text(config.read_text() + "keymap:\n  queue.about: g\n")
    from tui.app import MemgovDesk
    from tui.keymap import workspace_keymap

    ws = workspace(demo)
    keymap, warnings = workspace_keymap(ws.stores)
    assert (keymap, warnings) == ({"queue.about": "g"}, [])
    app = MemgovDesk(ws, actor="liys05", cursor_blink=False, keymap=keymap)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("g")
        await settle(pilot, app)
        assert isinstance(app.screen, AboutMeScreen)


# --------------------------------------------------------------------- stale report
def freeze(path: Path) -> list:
    return by_attribute(path, "merge_freeze")


async def test_stale_report_shows_the_users_words_beside_the_record(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "stale")
        assert isinstance(app.screen, StaleScreen)
        report = text_of(app.screen.query_one("#report"))
        assert "the freeze was called off" in report or "代码冻结取消了" in report
        assert "last verified" in report
        record = text_of(app.screen.query_one("#record"))
        assert freeze(demo)[0].id in record and "source 1" in record


async def test_stale_expire_takes_the_record_out_of_use(demo: Path) -> None:
    (record,) = freeze(demo)
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "stale")
        await pilot.press("e")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        assert any("active -> expired" in line for line in app.screen.proposal.changes)
        await pilot.press("enter")
        await settle(pilot, app)
        assert not [i for i in app.screen.items if i.kind == "stale"]
    assert [m.status for m in freeze(demo)] == ["expired"]
    assert record.id not in (demo / "private" / "MEMORY.md").read_text()
    (report,) = [r for r in load_requests(workspace(demo).private) if r.kind == "stale"]
    assert report.status == "approved" and report.decided_by == "liys05"
    doctor_clean(demo)


async def test_stale_correct_writes_what_the_person_typed(demo: Path) -> None:
    (old,) = freeze(demo)
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "stale")
        await pilot.press("c")
        await settle(pilot, app)
        field = app.screen.query_one("#content", Input)
        assert field.value == old.content  # prefilled with what the record says
        field.value = "The code freeze was called off."
        await pilot.press("enter")  # the content, then the reason with the preview
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")
        await settle(pilot, app)
    records = {m.status: m for m in freeze(demo)}
    assert set(records) == {"active", "superseded"}
    assert records["superseded"].id == old.id
    assert records["active"].content == "The code freeze was called off."
    assert records["active"].supersedes == old.id
    doctor_clean(demo)


async def test_stale_keep_verifies_the_record_and_undo_reopens_the_report(demo: Path) -> None:
    (old,) = freeze(demo)
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "stale")
        await decide_key(pilot, app, "K")
        await settle(pilot, app)
        (kept,) = freeze(demo)
        assert kept.status == "active" and kept.verified_at > old.verified_at
        assert [r.status for r in load_requests(workspace(demo).private) if r.kind == "stale"] == [
            "rejected"
        ]
        await pilot.press("u")  # undo: the exact prior state, the report open again
        await settle(pilot, app)
        assert [i.kind for i in app.screen.items].count("stale") == 1
    (back,) = freeze(demo)
    assert back.verified_at == old.verified_at
    assert [r.status for r in load_requests(workspace(demo).private) if r.kind == "stale"] == [
        "open"
    ]
    doctor_clean(demo)


async def test_only_the_owner_may_decide_a_stale_report(demo: Path) -> None:
    app = desk(demo, actor="agent:claude-code")
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, "stale")
        await pilot.press("e")
        await settle(pilot, app)
        assert isinstance(app.screen, StaleScreen)  # refused: no dialog opens
    assert [m.status for m in freeze(demo)] == ["active"]
