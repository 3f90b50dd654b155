"""The untrusted change view (tui.screens.untrusted), driven with Pilot on a real team
clone that a forged, unsigned commit reached: opened from the queue, rejected or
ratified with real keys, then the store checked. And its snapshot, at both sizes."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from support_desk import decide_key, desk, settle
from support_team import (
    BOB,
    PLANTED,
    Team,
    every_text,
    forge,
    plant,
    signed_team,
    signing_keys,
    sync,
)

from core.review.items import Item, Kind, UntrustedAnalysis, UntrustedFile
from core.review.untrusted import MEANINGS, OPTIONS
from core.store.store import Store
from core.store.workspace import Workspace
from core.team import signing
from tui.app import MemgovDesk
from tui.screens.queue.table import QueueTable
from tui.screens.untrusted import UntrustedScreen

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return signed_team(tmp_path, signing_keys(tmp_path))


async def open_untrusted(pilot: Any, app: MemgovDesk) -> UntrustedScreen:
    await settle(pilot, app)
    items = app.screen.shown_items()  # type: ignore[attr-defined]
    table = app.screen.query_one("#queue", QueueTable)
    index = next(n for n, item in enumerate(items) if item.kind == "untrusted")
    for _ in range(index - table.cursor_row):
        await pilot.press("j")
    await pilot.press("enter")
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, UntrustedScreen)
    return screen


@pytest.mark.parametrize("key", ["r", "A"])
async def test_a_maintainer_decides_an_untrusted_change_at_the_desk(
    tmp_path: Path, team: Team, key: str
) -> None:
    sha = forge(tmp_path, team, author=BOB, key=None, edit=plant, name="plant")
    sync(team.bob, BOB)
    app = MemgovDesk(Workspace([Store(team.bob.root)]), actor=BOB, cursor_blink=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_untrusted(pilot, app)
        shown = str(screen.query_one("#commit").render())
        assert sha in shown and "signed by: nobody" in shown
        await decide_key(pilot, app, key)
        await settle(pilot, app)

    bob = Store(team.bob.root)
    assert signing.untrusted(bob.state_dir) == []
    assert ("planted-0001" in bob.memories) == (key == "A")
    assert (PLANTED in every_text(bob)) == (key == "A")
    shards = "".join(p.read_text() for p in sorted(bob.root.rglob("*.jsonl")))
    action = "ratify" if key == "A" else "reject-commit"
    assert f'"action":"{action}"' in shards and sha in shards


def fixed_item(demo: Path) -> Item:
    """An untrusted change with fixed values, on the demo's team store."""
    team = Store(demo / "team")
    return Item(
        kind=Kind.UNTRUSTED,
        id="untrusted-4b1d9c0e7a21",
        title="untrusted change by mallory@example.com: deploy notes",
        opened_at="2026-11-20T09:30:00+00:00",
        store=team,
        scope="team",
        analysis=UntrustedAnalysis(
            commit="4b1d9c0e7a21f3a65c0d8e9b7f1a2c3d4e5f6a7b",
            author="mallory@example.com",
            committer="mallory <mallory@example.com>",
            signer=None,
            why="unsigned",
            subject="deploy notes",
            files=(
                UntrustedFile(
                    "memories/3f/deploy-flags-2c9e1b7d.md",
                    "added",
                    "deploy-flags-2c9e1b7d: deploy flags",
                ),
                UntrustedFile("notes.md", "changed", None),
            ),
            diff=(
                " memories/3f/deploy-flags-2c9e1b7d.md | 9 +++++++++\n"
                " notes.md                               | 2 +-\n\n"
                "--- /dev/null\n+++ b/memories/3f/deploy-flags-2c9e1b7d.md\n"
                "@@ -0,0 +1,9 @@\n+---\n+id: deploy-flags-2c9e1b7d\n+type: semantic\n+---\n"
                f"+{PLANTED}\n"
            ),
            first=True,
            options=OPTIONS,
            meanings=MEANINGS,
        ),
    )


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["small", "large"])
def test_snapshot_of_an_untrusted_change(
    snap_compare: Any, demo: Path, size: tuple[int, int]
) -> None:
    app = desk(demo)

    async def run(pilot: Any) -> None:
        await settle(pilot, pilot.app)
        await pilot.app.push_screen(UntrustedScreen(fixed_item(demo)))
        await settle(pilot, pilot.app)

    assert snap_compare(app, terminal_size=size, run_before=run)
