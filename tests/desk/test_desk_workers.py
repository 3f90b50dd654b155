"""The desk reads and writes the stores in workers: a store that fails for real (a file
turned into a folder, a store folder gone) is a notification on the screen that read
it and the desk keeps running; a decision builds no queue (the items it touched and
those that opened or closed besides are read, off the UI thread); who may decide is
the core's policy; the screens import no cycle."""

from __future__ import annotations

import shutil
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import grimp
import pytest
from support_desk import DEMO_NOW, OWNER, decide_key, desk, settle, text_of, workspace
from textual.widgets import DataTable

import tui.screens.queue.reading
from core.domain.record import Memory, Source
from core.review.decide import decide
from core.review.queue import build_queue, outline_queue
from core.store.store import JOURNAL_FILE, Store, new_memory_id
from core.store.transaction import transaction
from tui.screens.about import AboutMeScreen
from tui.screens.batch import BatchScreen
from tui.screens.conflict import ConflictScreen
from tui.screens.health import HealthScreen
from tui.screens.history import HistoryScreen
from tui.screens.problems import ProblemsScreen
from tui.screens.queue import QueueScreen
from tui.screens.queue.table import QueueTable


def notifications(app: Any) -> list[tuple[str, str]]:
    return [(n.title, n.message) for n in app._notifications if n.severity == "error"]


def fail_reads(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
    """What a screen reads fails as a dying disk fails (EIO). A file turned into a
    folder no longer does: memgov's one reader refuses it as a problem, which doctor
    and the problems screen report (test below); an I/O error cannot be made for real
    here (the tests run as root), so the screen's read raises it."""
    import errno

    def failing(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(module, name, failing)


async def open_first(pilot: Any, app: Any, kind: str, title_part: str = "") -> None:
    await settle(pilot, app)
    items = app.screen.shown_items()
    index = next(i for i, it in enumerate(items) if it.kind == kind and title_part in it.title)
    for _ in range(index):
        await pilot.press("j")
    await pilot.press("enter")
    await settle(pilot, app)


@pytest.mark.parametrize(
    ("key", "screen", "title", "reader"),
    [
        ("h", HistoryScreen, "History could not be read", "entries"),
        ("m", HealthScreen, "Health could not be read", "health"),
        ("p", ProblemsScreen, "Problems could not be read", "diagnose"),
    ],
)
async def test_a_failing_read_is_a_notification_and_the_desk_keeps_running(
    demo: Path,
    key: str,
    screen: type,
    title: str,
    reader: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        fail_reads(monkeypatch, __import__(screen.__module__, fromlist=["x"]), reader)
        await pilot.press(key)
        await settle(pilot, app)
        assert isinstance(app.screen, screen)
        shown = notifications(app)
        assert [t for t, _m in shown] == [title], shown
        assert "OSError" in shown[0][1]
        assert app.is_running
        await pilot.press("escape")  # and the desk goes on
        await settle(pilot, app)
        assert isinstance(app.screen, QueueScreen)


async def test_an_event_log_turned_into_a_folder_is_a_problem_not_a_failure(demo: Path) -> None:
    for name in ("private", "team"):
        events = demo / name / "events/000001.jsonl"
        events.unlink()
        events.mkdir()
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("p")
        await settle(pilot, app)
        assert isinstance(app.screen, ProblemsScreen)
        assert notifications(app) == []
        table = app.screen.query_one("#problems", DataTable)
        files = {str(table.get_row_at(n)[2]) for n in range(table.row_count)}
        assert any("events/000001.jsonl" in f for f in files), files
        assert app.is_running


async def test_a_failing_read_in_about_me_is_a_notification(demo: Path) -> None:
    private = Store(demo / "private")
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        # a crash journal left behind, and the lock that guards its recovery is a folder
        (private.state_dir / JOURNAL_FILE).write_text("{}")
        lock = private.state_dir / "lock"
        if lock.exists():
            lock.unlink()
        lock.mkdir()
        await pilot.press("R")  # the queue cannot read the private store now
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, AboutMeScreen)
        titles = [t for t, _m in notifications(app)]
        assert titles == ["The queue could not be read", "About me could not be read"]
        assert app.is_running


async def test_a_failing_wider_diff_in_a_batch_is_a_notification(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_first(pilot, app, "consolidation")
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        moved = demo / "private-elsewhere"
        shutil.move(demo / "private", moved)  # the store's folder is gone: git cannot run
        await pilot.press("plus")
        await settle(pilot, app)
        shown = notifications(app)
        assert [t for t, _m in shown] == [f"The diff of {screen.files[0].path} could not be read"]
        assert app.is_running and app.screen is screen
        shutil.move(moved, demo / "private")
        await pilot.press("plus")  # and once the store is back, the diff reads again
        await settle(pilot, app)
        assert "@@" in text_of(screen.query_one("#batch-diff"))


async def test_a_decision_builds_no_queue_and_the_queue_is_what_core_holds(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[threading.Thread] = []

    def counted(ws: Any, **kinds: Any) -> Any:
        builds.append(threading.current_thread())
        return build_queue(ws, **kinds)

    monkeypatch.setattr(tui.screens.queue.reading, "build_queue", counted)
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_first(pilot, app, "conflict", "deploy_command")
        assert isinstance(app.screen, ConflictScreen)
        decided = app.screen.item
        builds.clear()
        await decide_key(pilot, app, "o")  # older wins
        await settle(pilot, app)
        assert builds == []  # the touched items read again, and the open ids compared
        # on disk: the older record won, the newer is superseded
        ids = {r.memory.id for r in decided.records}
        statuses = {
            m.id: m.status
            for s in workspace(demo).stores
            for m in s.memories.values()
            if m.id in ids
        }
        older, newer = sorted(decided.records, key=lambda r: r.memory.created_at)
        assert statuses == {older.memory.id: "active", newer.memory.id: "superseded"}
        # on screen: back to the queue, which holds what core holds, without the item
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        on_disk = [i.id for i in build_queue(workspace(demo))]
        assert [i.id for i in queue.items] == on_disk
        assert decided.id not in on_disk
        table = queue.query_one("#queue", QueueTable)
        assert table.row_keys == on_disk


async def test_the_banner_says_when_the_actor_may_not_decide(demo: Path) -> None:
    for actor, may in (("liys05", True), ("intern@example.com", False)):
        app = desk(demo, actor=actor)
        async with app.run_test(size=(140, 40)) as pilot:
            await open_first(pilot, app, "conflict", "deploy_command")
            banner = text_of(app.screen.query_one("#item-head"))
            assert "maintainers decide (liys05, wang.lead@example.com)" in banner
            assert ("may not decide" in banner) is not may


def test_the_screens_import_no_cycle() -> None:
    graph = grimp.build_graph("tui")
    modules = sorted(m for m in graph.modules if m.startswith("tui."))
    cycles = [
        (a, b)
        for a in modules
        for b in graph.find_modules_directly_imported_by(a)
        if b.startswith("tui.") and graph.chain_exists(importer=b, imported=a)
    ]
    assert cycles == []


async def test_after_a_decision_the_queue_shows_what_opened_or_closed_meanwhile(
    demo: Path,
) -> None:
    app = desk(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        # another writer meanwhile: decides the last conflict, opens a new one
        other = workspace(demo)
        conflicts = [i for i in build_queue(other) if i.kind == "conflict"]
        assert len(conflicts) >= 2
        closed = conflicts[-1]
        decide(other, closed.id, approve=True, option="newer", actor=OWNER)
        store = next(s for s in other.stores if s.config.scope == "private")
        when = DEMO_NOW - timedelta(days=1)
        with transaction(store, actor=OWNER, message="test: a new conflict") as tx:
            for value in ("npm", "pnpm"):
                tx.create(
                    Memory(
                        id=new_memory_id("package_manager", value),
                        type="semantic",
                        scope="private",
                        status="conflict",
                        subject="project:meanwhile",
                        attribute="package_manager",
                        content=f"The package manager is {value}.",
                        value=value,
                        confidence=0.8,
                        created_at=when,
                        verified_at=when,
                        source=Source(task="tr_meanwhile", message_index=1, evidence=value),
                    ),
                    action="conflict",
                    reason="test",
                )
        opened = next(
            i.id for i in build_queue(workspace(demo)) if i.subject == "project:meanwhile"
        )
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        assert opened not in [i.id for i in queue.items]  # the desk has not read it yet
        # the desk decides its first conflict: what it touched, opened and closed is read
        await open_first(pilot, app, "conflict")
        decided = app.screen.item
        await decide_key(pilot, app, "o")
        await settle(pilot, app)
        assert app.screen is queue
        on_disk = [i.id for i in build_queue(workspace(demo))]
        assert opened in on_disk
        assert closed.id not in on_disk and decided.id not in on_disk
        assert [i.id for i in queue.items] == on_disk
        table = queue.query_one("#queue", QueueTable)
        assert table.row_keys == on_disk
        assert queue.counts["all"] == len(on_disk)


async def test_the_first_read_shows_the_queue_in_outline_then_with_its_records(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()

    def gated(ws: Any, **kinds: Any) -> Any:
        gate.wait(timeout=60)  # the records are read only once the test has looked
        return build_queue(ws, **kinds)

    monkeypatch.setattr(tui.screens.queue.reading, "build_queue", gated)
    app = desk(demo)
    # every item but secrets, in the queue's order (with no secret read yet, the batch
    # comes before the deletion, the first item there that would discard it)
    full = outline_queue(workspace(demo))
    assert {i.id for i in full} == {
        i.id for i in build_queue(workspace(demo)) if i.kind != "secret"
    }
    async with app.run_test(size=(140, 40)) as pilot:
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        for _ in range(200):
            await pilot.pause(0.02)
            if queue.items:
                break
        # the outline: every item but secrets, in the queue's order, counted
        assert [i.id for i in queue.items] == [i.id for i in full]
        table = queue.query_one("#queue", QueueTable)
        assert table.row_keys == [i.id for i in full]
        assert queue.counts["conflict"] == sum(i.kind == "conflict" for i in full)
        assert "reading the records…" in text_of(queue.query_one("#status-line"))
        first = next(n for n, i in enumerate(queue.items) if i.kind == "conflict")
        for _ in range(first):
            await pilot.press("j")
        await pilot.press("enter")  # an item in outline does not open yet
        await pilot.pause()
        assert app.screen is queue
        assert any("being read" in n.message for n in app._notifications)
        gate.set()
        await settle(pilot, app)
        assert [i.id for i in queue.items] == [i.id for i in build_queue(workspace(demo))]
        # every item with its records read (a held memory and a held candidate have none:
        # nothing was written)
        assert all(i.records for i in queue.items if i.kind not in ("held", "quarantine"))
        assert queue.current() is not None and queue.current().id == full[first].id
        # now it opens, and a decision lands in the store
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ConflictScreen)
        decided = app.screen.item
        await decide_key(pilot, app, "o")  # older wins
        await settle(pilot, app)
        assert app.screen is queue
    older, newer = sorted(decided.records, key=lambda r: r.memory.created_at)
    store = next(s for s in workspace(demo).stores if str(s.root) == decided.records[0].store)
    assert store.memories[older.memory.id].status == "active"
    assert store.memories[newer.memory.id].status == "superseded"
    assert decided.id not in [i.id for i in build_queue(workspace(demo))]
