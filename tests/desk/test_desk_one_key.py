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
    ("deletion", ("e",)),  # home city, erased
    ("stale", ("e",)),  # the merge freeze, expired
    ("quarantine", ("x",)),  # the preflight note, discarded
    ("held", ("K",)),  # the staging note, kept private
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


async def open_top(pilot: object, app: object, kind: str, title: str = "") -> None:
    """Move to the first item of ``kind`` (its title holding ``title``) and open it,
    as a person would."""
    screen = app.screen  # type: ignore[attr-defined]
    index = next(
        n for n, i in enumerate(screen.shown_items()) if i.kind == kind and title in i.title
    )
    step = index - screen.cursor_index()
    for _ in range(abs(step)):
        await pilot.press("j" if step > 0 else "k")  # type: ignore[attr-defined]
    assert screen.current().kind == kind
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot, app)  # type: ignore[arg-type]


async def test_enter_pressed_before_the_dialog_opens_is_not_lost(demo: Path) -> None:
    """The dialog opens once the core's preview is back (a moment later in a browser):
    enter typed meanwhile is kept for it. A routine decision is taken with the
    prefilled reason; one that erases for good shows its dialog, and waits."""
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await open_top(pilot, app, "conflict")
        with app.store_lock:  # the preview waits for the stores, as on a busy machine
            await pilot.press("n", "enter")
            assert not isinstance(app.screen, ReasonDialog)  # enter came before it
        await settle(pilot, app)
        assert isinstance(app.screen, QueueScreen)
        [event] = [e for e in decision_events(demo) if e["action"] == "decide"]
        assert event["actor"] == OWNER and event["reason"].strip()
        await open_top(pilot, app, "deletion")
        with app.store_lock:
            await pilot.press("e", "enter")  # an erasure: the dialog shows what it erases
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog) and app.screen.proposal.destructive
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, QueueScreen)


async def test_parallel_takes_one_enter_for_its_prefilled_conditions(demo: Path) -> None:
    """The deploy command's conflict, parallel: its two conditions come prefilled from
    the sources, so p, enter (the conditions), enter (the reason) decides it (it took
    an enter per condition before)."""
    from tui.screens.dialogs import ConditionsDialog

    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await open_top(pilot, app, "conflict", "deploy_command")
        await pilot.press("p")
        await settle(pilot, app)
        assert isinstance(app.screen, ConditionsDialog)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, QueueScreen)
    [event] = [e for e in decision_events(demo) if e["action"] == "decide"]
    assert event["details"]["option"] == "parallel" or "parallel" in json.dumps(event)


def test_a_desk_reason_that_is_neither_setting_is_a_clear_error(tmp_path: Path) -> None:
    import pytest

    from core.domain.errors import ValidationError
    from core.store.config import load_config_text

    assert load_config_text("desk_reason: prefilled\n", path=tmp_path / "m.yaml").desk_reason == (
        "prefilled"
    )
    assert load_config_text("", path=tmp_path / "m.yaml").desk_reason == "ask"
    for bad in ("desk_reason: yes\n", "desk_reason: [ask]\n", "desk_reason: skip\n"):
        with pytest.raises(ValidationError) as raised:
            load_config_text(bad, path=tmp_path / "m.yaml")
        said = str(raised.value)
        assert "desk_reason" in said and "m.yaml" in said and "prefilled" in said
