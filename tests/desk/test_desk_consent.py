"""Consent from the desk: a day's new memories of the agent, held at sync, kept with
``k`` or dropped with ``x`` in the held view, or marked with space and decided
together with ``D``; then the store and the agent's folder are checked on disk."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support_desk import decide_key, settle, text_of
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)
from textual.widgets import Static

from core.importers import CLAUDE_CODE, sync_folder
from core.importers.held import load_held
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace
from tui.app import MemgovDesk
from tui.screens.held import HeldScreen
from tui.screens.queue import QueueScreen
from tui.screens.queue.table import QueueTable
from tui.screens.selection import OutcomeDialog

ACTOR = "alice@example.com"
STYLE = "---\nname: Style\ndescription: terse answers\ntype: feedback\n---\n\nAnswer tersely.\n"
INDEX = "# Index\n\n- [Style](feedback_style.md) — terse answers\n"
NEW = {
    "project_tests.md": "---\nname: Tests\ndescription: how we test\ntype: project\n---\n\n"
    "Run the tests with pytest -n 0 before each commit.\n",
    "project_deploy.md": "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\n\n"
    "Deploys go out from main after CI is green.\n",
}
LINES = {
    "project_tests.md": "- [Tests](project_tests.md) — how we test\n",
    "project_deploy.md": "- [Deploy](project_deploy.md) — how we deploy\n",
}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    """A store asking for consent, a folder synced once, then a session's two new
    memories, held by the next sync."""
    stores = tmp_path / "stores"
    Store.init(stores / "private", scope="private", owner=ACTOR, actor=ACTOR)
    config = stores / "private" / "memgov.yaml"
    config.write_text(config.read_text() + "agent_memory_consent: true\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": ACTOR}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": ACTOR}
    git = ["git", "-C", str(config.parent)]
    subprocess.run([*git, "commit", "-qam", "consent on"], check=True, env=env)
    folder = tmp_path / "proj" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(INDEX)
    (folder / "feedback_style.md").write_text(STYLE)
    sync_folder(CLAUDE_CODE, ws_of(stores), folder, actor=ACTOR)
    for name, text in NEW.items():
        (folder / name).write_text(text)
    (folder / "MEMORY.md").write_text(INDEX + "".join(LINES.values()))
    assert len(sync_folder(CLAUDE_CODE, ws_of(stores), folder, actor=ACTOR).held) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["MEMORY.md", "feedback_style.md"]
    return stores, folder


def ws_of(stores: Path) -> Workspace:
    return open_workspace([stores])


def active(stores: Path) -> list[str]:
    store = Store(stores / "private")
    return sorted(m.content for m in store.memories.values() if m.status == "active")


def statuses(stores: Path) -> dict[str, str | None]:
    return {h.file: h.decision for h in load_held(Store(stores / "private"))[0]}


async def open_first_held(pilot: object, app: MemgovDesk) -> HeldScreen:
    await settle(pilot, app)
    items = app.screen.shown_items()  # type: ignore[attr-defined]
    table = app.screen.query_one("#queue", QueueTable)
    index = next(n for n, item in enumerate(items) if item.kind == "held")
    for _ in range(index - table.cursor_row):
        await pilot.press("j")  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot, app)
    assert isinstance(app.screen, HeldScreen)
    return app.screen


async def test_keep_and_drop_from_the_held_view(setup: tuple[Path, Path]) -> None:
    stores, folder = setup
    app = MemgovDesk(ws_of(stores), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_first_held(pilot, app)
        shown = text_of(screen.query_one("#agent-file", Static))
        assert "waiting for consent" in shown
        assert "keep: let it reach the agent: written back to its folder and imported" in shown
        first = screen.item.id
        assert screen.check_action("decide", ("keep",)) is True
        assert screen.check_action("decide", ("redact",)) is False
        await decide_key(pilot, app, "K")
        await settle(pilot, app)
        screen = await open_first_held(pilot, app)
        assert screen.item.id != first
        await decide_key(pilot, app, "x")
        await settle(pilot, app)
    decided = statuses(stores)
    kept = next(f for f, d in decided.items() if d == "keep")
    dropped = next(f for f, d in decided.items() if d == "drop")
    assert (folder / kept).read_text() == NEW[kept]
    assert not (folder / dropped).exists()
    assert (folder / "MEMORY.md").read_text() == INDEX + LINES[kept]
    assert any(NEW[kept].splitlines()[-1] in c for c in active(stores))
    assert not any(NEW[dropped].splitlines()[-1] in c for c in active(stores))
    # the agent's next sync: nothing held again, nothing brought back
    report = sync_folder(CLAUDE_CODE, ws_of(stores), folder, actor=ACTOR)
    assert report.held == ()
    assert not (folder / dropped).exists()


async def test_mark_both_and_keep_them_with_one_decision(setup: tuple[Path, Path]) -> None:
    stores, folder = setup
    app = MemgovDesk(ws_of(stores), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        held = [n for n, item in enumerate(queue.shown_items()) if item.kind == "held"]
        assert len(held) == 2
        table = queue.query_one("#queue", QueueTable)
        for _ in range(held[0] - table.cursor_row):
            await pilot.press("j")
        await pilot.press("space", "space")
        assert len(queue.marked) == 2
        await pilot.press("D")
        await settle(pilot, app)
        assert isinstance(app.screen, OutcomeDialog)
        await pilot.press("enter")  # the first outcome: keep them
        await settle(pilot, app)
        await pilot.press("enter")  # the reason dialog, with the preview
        await settle(pilot, app)
        assert app.screen is queue
    assert set(statuses(stores).values()) == {"keep"}
    for name, text in NEW.items():
        assert (folder / name).read_text() == text
    assert (folder / "MEMORY.md").read_text() == INDEX + "".join(LINES.values())
    assert len(active(stores)) == 3


def waiting_now(stores: Path, folder: Path) -> tuple[dict[str, bytes], list[str], list[str]]:
    """The folder byte for byte, the open items, the active records."""
    files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    items = sorted(h.id for h in load_held(Store(stores / "private"))[0] if h.status == "open")
    return files, items, active(stores)


async def test_u_undoes_a_keep_and_a_drop_and_the_items_wait_again(
    setup: tuple[Path, Path],
) -> None:
    """``k`` then ``u``, ``x`` then ``u``: each item waits again as before its decision,
    the folder and the store as they were; the next sync imports nothing."""
    stores, folder = setup
    before = waiting_now(stores, folder)
    app = MemgovDesk(ws_of(stores), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_first_held(pilot, app)
        kept = screen.item.id
        await decide_key(pilot, app, "K")
        await settle(pilot, app)
        assert waiting_now(stores, folder) != before  # written back, imported
        await pilot.press("u")
        await settle(pilot, app)
        assert waiting_now(stores, folder) == before
        if not isinstance(app.screen, QueueScreen):
            await pilot.press("escape")
        screen = await open_first_held(pilot, app)
        await decide_key(pilot, app, "x")
        await settle(pilot, app)
        assert waiting_now(stores, folder)[1] == [i for i in before[1] if i != screen.item.id]
        await pilot.press("u")
        await settle(pilot, app)
        assert waiting_now(stores, folder) == before
    assert kept in before[1]
    report = sync_folder(CLAUDE_CODE, ws_of(stores), folder, actor=ACTOR)
    assert report.held == ()
    assert all(i.outcome not in ("written", "conflict") for i in report.imported.items)
    assert waiting_now(stores, folder) == before
