"""The held memory view, driven with Pilot on a real agent folder imported into a real
store; then the store and the held file are checked. And the CLI's show and decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support_agent import ACTOR, ADDRESS, HELD_FILE, HOST, init_stores, write_ops_folder
from support_desk import decide_key, settle, text_of
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)
from textual.widgets import Static

from core.importers import CLAUDE_CODE, import_folder
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace
from tui.app import MemgovDesk
from tui.cli import main
from tui.screens.held import HeldScreen
from tui.screens.queue.table import QueueTable


@pytest.fixture
def root(tmp_path: Path) -> Path:
    init_stores(tmp_path / "stores")
    memory = write_ops_folder(tmp_path / "ops" / "memory")
    ws = open_workspace([tmp_path / "stores"])
    assert import_folder(CLAUDE_CODE, ws, memory, actor=ACTOR).counts["held"] == 1
    return tmp_path / "stores"


def ws_of(root: Path) -> Workspace:
    return open_workspace([root])


def contents(root: Path, scope: str = "private") -> list[str]:
    store = Store(root / scope)
    return sorted(m.content for m in store.memories.values() if m.status == "active")


def held_file(root: Path) -> dict[str, object]:
    (path,) = sorted((root / "private" / "held").glob("held-*.yaml"))
    return yaml.safe_load(path.read_text())


async def open_held(pilot: object, app: MemgovDesk) -> HeldScreen:
    await settle(pilot, app)
    items = app.screen.shown_items()  # type: ignore[attr-defined]
    table = app.screen.query_one("#queue", QueueTable)
    index = next(n for n, item in enumerate(items) if item.kind == "held")
    for _ in range(index - table.cursor_row):
        await pilot.press("j")  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, HeldScreen)
    return screen


async def test_redact_from_the_desk_imports_it_with_the_address_marked(root: Path) -> None:
    app = MemgovDesk(ws_of(root), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_held(pilot, app)
        shown = text_of(screen.query_one("#agent-file", Static))
        assert f"{HELD_FILE}:7" in shown and "← internal-ip-address" in shown
        assert "redact: import it with each internal address replaced by a mark" in shown
        # only this reason's options are keys here
        assert screen.check_action("decide", ("redact",)) is True
        assert screen.check_action("decide", ("learn",)) is False
        assert screen.check_action("decide", ("memgov",)) is False
        await decide_key(pilot, app, "M")
        await settle(pilot, app)
        assert not isinstance(app.screen, HeldScreen)  # decided: back to the queue
    assert contents(root, "team") == [
        "The cache runs on [internal-ip-address], port 6379; restart it with systemctl."
    ]
    assert not any(ADDRESS in text for text in contents(root) + contents(root, "team"))
    held = held_file(root)
    assert held["status"] == "approved" and held["decision"] == "redact"
    assert held["decided_by"] == ACTOR
    assert build_queue(ws_of(root), kinds=["held"]) == []


async def test_drop_from_the_desk_writes_nothing_and_closes_the_item(root: Path) -> None:
    before = contents(root)
    app = MemgovDesk(ws_of(root), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_held(pilot, app)
        await pilot.press("h")  # no record yet: it says so, and stays
        await pilot.pause()
        assert isinstance(app.screen, HeldScreen)
        assert any("No record yet" in n.message for n in app._notifications)
        await decide_key(pilot, app, "x")
        await settle(pilot, app)
    assert contents(root) == before
    assert before == [
        "Answer tersely.",
        f"The dashboards are on {HOST}; the on-call board is the first one.",
    ]
    assert contents(root, "team") == []
    held = held_file(root)
    assert held["status"] == "rejected" and held["decision"] == "drop"
    again = import_folder(CLAUDE_CODE, ws_of(root), root.parent / "ops" / "memory", actor=ACTOR)
    assert again.counts["held"] == 0 and again.counts["written"] == 0


def test_the_cli_shows_a_held_item_by_line_and_decides_it(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (item,) = build_queue(ws_of(root), kinds=["held"])
    store = str(root / "private")
    assert main(["show", item.id, "--store", store]) == 0
    shown = capsys.readouterr().out
    assert f"held: internal address, {HELD_FILE}:7" in shown
    assert "internal-ip-address at line 7" in shown and "line 7: internal-ip-address" in shown
    assert ADDRESS not in shown  # the line by number and pattern, never the address
    assert "--approve --option redact | --approve --option keep | --reject (drop)" in shown
    argv = ["decide", item.id, "--store", store, "--as", ACTOR, "--approve"]
    assert main([*argv, "--option", "keep", "--dry-run"]) == 0
    assert held_file(root)["status"] == "open"  # a dry run writes nothing
    assert main([*argv, "--option", "keep"]) == 0
    capsys.readouterr()
    assert sum(ADDRESS in text for text in contents(root)) == 1  # kept private
    assert contents(root, "team") == []
    assert held_file(root)["decision"] == "keep"


def events_of(store: Path) -> list[dict[str, object]]:
    lines = (line for f in sorted((store / "events").glob("*.jsonl")) for line in f.open())
    return [json.loads(line) for line in lines if line.strip()]


def records_of(store: Path) -> dict[str, str]:
    """Every record file's id and status, whatever its status."""
    found = {}
    for path in (store / "memories").rglob("*.md"):
        front = yaml.safe_load(path.read_text().split("---")[1])
        found[str(front["id"])] = str(front["status"])
    return found


def assert_waits_again(root: Path) -> None:
    """The held item open as before its decision, and no record of the file in either
    store, in any status: what the decision wrote went with its revert."""
    held = held_file(root)
    assert (held["status"], held["decision"], held["decided_by"]) == ("open", None, None)
    assert records_of(root / "team") == {}
    assert "superseded" not in records_of(root / "private").values()
    for scope in ("private", "team"):
        assert not any(e["to"] == "superseded" for e in events_of(root / scope))
    reopened = [e for e in events_of(root / "private") if e["action"] == "held-reopened"]
    assert [e["details"]["held"] for e in reopened] == [held["id"]]


async def test_u_after_a_redact_opens_the_held_item_again_and_r_decides_it_again(
    root: Path,
) -> None:
    app = MemgovDesk(ws_of(root), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_held(pilot, app)
        held_id = screen.item.id
        await decide_key(pilot, app, "M")
        await settle(pilot, app)
        assert len(contents(root, "team")) == 1
        await pilot.press("u")
        await settle(pilot, app)
        said = [str(n.message) for n in app._notifications if n.title == "Undone"]
        assert len(said) == 1 and "superseded" not in said[0], said
        assert held_id in [i.id for i in app.screen.shown_items()]  # type: ignore[attr-defined]
        assert_waits_again(root)
        (undone,) = [e for e in events_of(root / "team") if e["action"] == "revert-unwrite"]
        assert undone["to"] == "deleted"
        screen = await open_held(pilot, app)  # the same item, decided again
        assert screen.item.id == held_id
        await decide_key(pilot, app, "M")
        await settle(pilot, app)
        assert held_id not in [i.id for i in app.screen.shown_items()]  # type: ignore[attr-defined]
    assert contents(root, "team") == [
        "The cache runs on [internal-ip-address], port 6379; restart it with systemctl."
    ]
    assert held_file(root)["status"] == "approved"


def test_memgov_revert_of_a_keep_opens_the_item_again_and_leaves_no_record(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (item,) = build_queue(ws_of(root), kinds=["held"])
    argv = ["--store", str(root), "--as", ACTOR]
    assert main(["decide", item.id, *argv, "--approve", "--option", "keep", "--json"]) == 0
    decided = json.loads(capsys.readouterr().out)
    assert sum(ADDRESS in text for text in contents(root)) == 1  # kept private
    assert main(["revert", decided["id"], *argv]) == 0
    assert "superseded" not in capsys.readouterr().out
    assert_waits_again(root)
    assert not any(ADDRESS in m.content for m in Store(root / "private").memories.values())
    assert [i.id for i in build_queue(ws_of(root), kinds=["held"])] == [item.id]
    # an import of the folder finds the item waiting: nothing written, nothing held anew
    again = import_folder(CLAUDE_CODE, ws_of(root), root.parent / "ops" / "memory", actor=ACTOR)
    assert again.counts["held"] == 1 and again.counts["written"] == 0
    assert [h["id"] for h in [held_file(root)]] == [item.id]
    # and it is decided again as the first time
    assert main(["decide", item.id, *argv, "--approve", "--option", "keep"]) == 0
    assert sum(ADDRESS in text for text in contents(root)) == 1
    assert held_file(root)["decision"] == "keep"
