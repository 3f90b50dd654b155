"""One-key decisions: with ``desk_reason: prefilled`` in a store's ``memgov.yaml`` a
decision key decides at once with its prefilled reason (the event records it and the
actor); without it the reason dialog opens, as before. And the keys it takes to clear
the demo's queue top-down, either way (docs/desk.md gives both numbers)."""

from __future__ import annotations

import json
from pathlib import Path

from support_desk import OWNER, desk, settle

from tui.screens.dialogs import ReasonDialog
from tui.screens.queue.screen import QueueScreen

#: the demo's queue top-down: the kind on top, and the decision's keys (the tmux
#: test's path: tests/e2e/test_tmux.py)
CLEAR_THE_DEMO = (
    ("conflict", ("n",)),  # the doctor: newer wins
    ("consolidation", ("a",)),  # the batch, as it is
    ("secret", ("c", "ctrl+s")),  # corrected (its redacted text)
    ("conflict", ("n",)),  # the deploy command: newer wins
    ("promotion", ("a",)),  # the package manager, promoted
    ("deletion", ("a",)),  # home city, erased
    ("stale", ("e",)),  # the merge freeze, expired
    ("quarantine", ("x",)),  # the preflight note, discarded
    ("held", ("k",)),  # the staging note, kept private
    ("promotion", ("w",)),  # the moved CI request, withdrawn
)


def prefilled(demo: Path) -> None:
    for store in ("private", "team"):
        config = demo / store / "memgov.yaml"
        config.write_text(config.read_text("utf-8") + "desk_reason: prefilled\n", "utf-8")


def decision_events(demo: Path) -> list[dict]:
    out = []
    for store in ("private", "team"):
        for shard in sorted((demo / store / "events").glob("*.jsonl")):
            out += [json.loads(line) for line in shard.read_text("utf-8").splitlines()]
    return [e for e in out if e.get("decision")]


async def clear_the_demo(demo: Path) -> tuple[int, int]:
    """Clear the demo's queue top-down with keys; (keys pressed, dialogs met)."""
    app = desk(demo)
    keys = dialogs = 0
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        for kind, decision in CLEAR_THE_DEMO:
            queue = app.screen
            assert isinstance(queue, QueueScreen)
            top = queue.current()
            assert top is not None and top.kind == kind, (kind, top)
            await pilot.press("enter")
            await settle(pilot, app)
            for key in decision:
                await pilot.press(key)
                await settle(pilot, app)
            keys += 1 + len(decision)
            if isinstance(app.screen, ReasonDialog):
                dialogs += 1
                await pilot.press("enter")
                keys += 1
                await settle(pilot, app)
            await settle(pilot, app)
            assert isinstance(app.screen, QueueScreen), (kind, app.screen)
        assert app.screen.items == []
    return keys, dialogs


async def test_with_prefilled_reasons_one_key_decides_and_the_event_keeps_the_reason(
    demo: Path,
) -> None:
    prefilled(demo)
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")  # the doctor's conflict
        await settle(pilot, app)
        await pilot.press("n")  # newer wins: decided, no dialog
        await settle(pilot, app)
        assert not isinstance(app.screen, ReasonDialog)
        assert isinstance(app.screen, QueueScreen)
    [event, *_] = [e for e in decision_events(demo) if e["action"] != "defer"]
    assert event["actor"] == OWNER and event["reason"].strip()


async def test_without_the_setting_the_dialog_asks(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        await pilot.press("n")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
    assert decision_events(demo) == []


async def test_the_keys_to_clear_the_demo_with_and_without_the_setting(
    demo: Path, tmp_path: Path
) -> None:
    import shutil

    other = tmp_path / "prefilled"
    shutil.copytree(demo, other, symlinks=True)
    prefilled(other)
    asked = await clear_the_demo(demo)
    one_key = await clear_the_demo(other)
    assert asked == (31, 10)  # docs/desk.md says these numbers
    assert one_key == (23, 2)  # the correction and the erasure still ask
