"""The desk on a team clone: `S` syncs with the real bare remote, a proposal
opens with its branch and quoted evidence, and approving it from the desk lands on main.
Pilot tests; each checks the stores and the remote afterwards."""

from __future__ import annotations

from pathlib import Path

from support_desk import decide_key, settle
from support_team import (
    ALICE,
    BOB,
    CAROL,
    contributor,
    decide_conflict,
    git,
    make_team,
    private_record,
    sync,
)

from core.store.requests import file_request
from core.store.workspace import Workspace
from core.team.sync import sync_team
from tui.app import MemgovDesk
from tui.screens.promotion import PromotionScreen
from tui.screens.queue import QueueScreen


def _desk(*stores: object, actor: str) -> MemgovDesk:
    return MemgovDesk(Workspace(list(stores)), actor=actor, cursor_blink=False)  # type: ignore[arg-type]


async def test_s_syncs_the_team_store_from_the_desk(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    decide_conflict(team.alice, 0, "newer", ALICE)
    sync(team.alice, ALICE)
    decide_conflict(team.bob, 1, "older", BOB)
    app = _desk(team.bob, actor=BOB)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, QueueScreen) and len(app.screen.items) == 3
        await pilot.press("S")
        await settle(pilot, app)
        await settle(pilot, app)
        assert len(app.screen.items) == 2  # Alice's decision arrived, Bob's stayed
        shown = [n.message for n in app._notifications]
        assert any("merged 1 remote commit(s) with 1 local one(s)" in m for m in shown)
    assert git(team.remote, "rev-parse", "main") == git(team.bob.root, "rev-parse", "HEAD")


async def test_s_without_a_remote_says_so(tmp_path: Path) -> None:
    from core.store.store import Store

    alone = Store.init(tmp_path / "solo", scope="team", maintainers=(ALICE,), actor=ALICE)
    app = _desk(alone, actor=ALICE)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("S")
        await pilot.pause()
        assert any("No team store with a remote" in n.message for n in app._notifications)


async def test_a_proposal_is_approved_from_the_desk(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    carol_team, carol = contributor(tmp_path, team)
    memory_id = private_record(carol)
    request = file_request(
        carol, kind="promote", memory_id=memory_id, reason="for all", actor=CAROL
    )
    sync_team(carol_team, actor=CAROL, private=carol)
    sync(team.alice, ALICE)
    app = _desk(team.alice, actor=ALICE)
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot, app)
        await pilot.press("right_square_bracket", "right_square_bracket")  # promotions
        await settle(pilot, app)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        ids = [it.id for it in queue.shown]
        assert request.id in ids, (queue.kind, ids, [it.id for it in queue.items])
        row = ids.index(request.id)
        queue.place(row)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, PromotionScreen)
        text = str(app.screen.query_one("#scan").render())
        assert f"memgov/proposals/{request.id}" in text and "quoted: - [3]" in text
        await decide_key(pilot, app, "a")
        await settle(pilot, app)
        await settle(pilot, app)  # the sync the approval starts
        assert any("proposal branch deleted" in n.message for n in app._notifications)
    team.alice.forget()
    assert [m for m in team.alice.records.all() if m.attribute == "release_tags"]
    assert (team.alice.root / "proposals" / f"{request.id}.json").is_file()
    # pushed at once: main has the decision, the branch is gone
    assert git(team.remote, "rev-parse", "main") == git(team.alice.root, "rev-parse", "HEAD")
    assert git(team.remote, "branch", "--list", "memgov/*").strip() == ""
