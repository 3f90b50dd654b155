"""After ``u`` the desk reads every item again, so the next key finds each as it is;
and an item that changed while a person looked says what to do here, in the desk.

Here the agent confirms a record the next item shows, behind the desk's back; then the
stores are checked (files, events, decisions)."""

from __future__ import annotations

import json
from pathlib import Path

from support_desk import OWNER, decide_key, desk, settle, workspace
from test_desk import open_item

from core.domain.data import to_data
from core.review.queue import build_queue
from core.review.seen import shown_hash
from core.writing.candidate import candidate_from_dict
from core.writing.remember import remember_in
from tui.app import MemgovDesk
from tui.screens.deletion import DeletionScreen
from tui.screens.dialogs import ReasonDialog


def events(store: Path) -> list[dict[str, object]]:
    lines = (line for f in sorted((store / "events").glob("*.jsonl")) for line in f.open())
    return [json.loads(line) for line in lines if line.strip()]


def used_behind_the_desk(demo: Path) -> str:
    """The agent says again what the record the deletion item shows says, from the same
    source (verified now): that item is not what the desk read any more. Its id."""
    (item,) = build_queue(workspace(demo), kinds=["deletion"])
    memory = item.records[0].memory
    said = {
        "content": memory.content,
        "type": memory.type,
        "scope": "private",
        "subject": memory.subject,
        "attribute": memory.attribute,
        "source": to_data(memory.source),
    }
    outcome = remember_in(workspace(demo), candidate_from_dict(said), actor=OWNER)
    assert outcome.memory_ids == (memory.id,), outcome
    (again,) = build_queue(workspace(demo), kinds=["deletion"])
    assert shown_hash(again) != shown_hash(item)
    return item.id


def notes(app: MemgovDesk) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


def assert_kept(demo: Path, item_id: str) -> None:
    """The deletion request rejected by one decision, with its events."""
    decided = [
        json.loads(p.read_text())
        for p in (demo / "private" / "decisions").glob("dec-*.json")
        if json.loads(p.read_text())["item"] == item_id
    ]
    assert [(d["option"], d["actor"]) for d in decided] == [("reject", OWNER)]
    said = [e for e in events(demo / "private") if e.get("decision") == decided[0]["id"]]
    assert "decide" in [e["action"] for e in said]
    assert build_queue(workspace(demo), kinds=["deletion"]) == []


async def test_after_u_every_item_is_read_again_and_the_next_key_works_at_once(
    demo: Path,
) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "doctor")
        await decide_key(pilot, app, "n")
        await settle(pilot, app)
        item_id = used_behind_the_desk(demo)
        await pilot.press("u")
        await settle(pilot, app)
        fresh = {i.id: shown_hash(i) for i in build_queue(workspace(demo))}
        held = {i.id: shown_hash(i) for i in app.screen.items}  # type: ignore[attr-defined]
        assert held == fresh  # the undone conflict back, the used record as it is now
        await open_item(pilot, app, "deletion")
        assert isinstance(app.screen, DeletionScreen)
        assert app.screen.changed_note is None
        await pilot.press("K")  # keep it: the first press opens the dialog
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog), notes(app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert not any("changed" in n for n in notes(app)), notes(app)
    assert_kept(demo, item_id)


async def test_an_item_changed_while_looked_at_says_what_to_do_in_the_desk(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "deletion")
        screen = app.screen
        assert isinstance(screen, DeletionScreen)
        item_id = used_behind_the_desk(demo)
        await pilot.press("K")
        await settle(pilot, app)
        assert not isinstance(app.screen, ReasonDialog)  # refused: nothing decided
        (said,) = [n for n in notes(app) if "changed while you looked" in n]
        assert "memgov" not in said and "press the key again" in said, said
        assert app.screen is screen and screen.changed_note is not None  # shown as it is now
        assert "verified_at changed" in screen.changed_note
        await decide_key(pilot, app, "K")  # the second press decides
        await settle(pilot, app)
    assert_kept(demo, item_id)
