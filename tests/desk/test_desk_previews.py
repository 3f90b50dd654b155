"""What a decision's dialog previews is what it writes: the ids the preview names (the
decision's, and each new record's) are the ones written, however long the person
took between the preview and enter (the clock moves on here between the two)."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

from support_desk import DEMO_NOW, OWNER, settle, workspace
from test_desk import open_item

from core.demo import DemoClock
from core.review.decide import decide
from core.review.queue import build_queue
from core.store.workspace import open_workspace
from tui.app import MemgovDesk
from tui.screens.dialogs import ReasonDialog
from tui.screens.secret import SecretCorrectDialog

NEW_RECORD = re.compile(r"([a-z0-9-]+-[0-9a-f]{8}): new record")


def decisions(store: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((store / "decisions").glob("dec-*.json"))]


def events(store: Path) -> list[dict[str, object]]:
    lines = (line for f in sorted((store / "events").glob("*.jsonl")) for line in f.open())
    return [json.loads(line) for line in lines if line.strip()]


async def decide_after_a_while(demo: Path, kind: str, title: str, keys: str) -> tuple[str, str]:
    """Open the item, press ``keys`` (a correction's dialog accepted as it is), and
    accept the preview a minute later: (the new record's id the preview named, the
    preview's decision id)."""
    clock = DemoClock(DEMO_NOW)
    app = MemgovDesk(open_workspace([demo], clock=clock), actor=OWNER, cursor_blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_item(pilot, app, kind, title)
        await pilot.press(keys)
        await settle(pilot, app)
        if isinstance(app.screen, SecretCorrectDialog):
            await pilot.press("ctrl+s")
            await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, ReasonDialog)
        (named,) = {m for c in dialog.proposal.changes for m in NEW_RECORD.findall(c)}
        clock.at(DEMO_NOW + timedelta(minutes=1, seconds=7))  # the person reads, then enter
        await pilot.press("enter")
        await settle(pilot, app)
        assert not isinstance(app.screen, ReasonDialog)
        last = app.last_decision
        assert last is not None
        return named, last.id


def assert_written_as_previewed(demo: Path, store: str, named: str, decision_id: str) -> None:
    made = [e for e in events(demo / store) if e["action"] in ("promote", "create", "correct")]
    created = [m for e in made if e["from"] is None for m in e["memory_ids"]]
    assert created[-1] == named, (created, named)
    assert any((demo / store / "memories").rglob(f"{named}.md"))
    ids = [d["id"] for s in ("private", "team") for d in decisions(demo / s)]
    assert decision_id in ids
    on_disk = {str(d["id"]): d for s in ("private", "team") for d in decisions(demo / s)}
    created_by = [c["id"] for c in on_disk[decision_id]["created"]]  # type: ignore[index]
    assert named in created_by


async def test_the_promotion_writes_the_team_record_its_preview_named(demo: Path) -> None:
    named, decision_id = await decide_after_a_while(demo, "promotion", "Package manager", "a")
    assert_written_as_previewed(demo, "team", named, decision_id)


async def test_the_ci_promotion_writes_the_team_record_its_preview_named(demo: Path) -> None:
    (secret,) = build_queue(workspace(demo), kinds=["secret"])  # its secret corrected first
    decide(workspace(demo), secret.id, approve=True, option="correct", actor=OWNER)
    named, decision_id = await decide_after_a_while(demo, "promotion", "CI registry", "a")
    assert_written_as_previewed(demo, "team", named, decision_id)


async def test_the_secret_correction_writes_the_record_its_preview_named(demo: Path) -> None:
    named, decision_id = await decide_after_a_while(demo, "secret", "", "c")
    assert_written_as_previewed(demo, "private", named, decision_id)
