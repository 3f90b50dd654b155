"""Labelling from the desk, driven with Pilot on the demo: health's ``l``
opens the samples; one key labels each; ``u`` undoes a label; the events, the labels
and the health numbers are checked in the stores afterwards."""

from __future__ import annotations

from pathlib import Path

from support_desk import desk, settle, text_of, workspace
from textual.widgets import Static

from core.reports.metrics import health
from core.review.labels import labels, workspace_label_items
from core.store.store import Store
from tests.conftest import events
from tui.screens.health import HealthScreen
from tui.screens.labels import LabelScreen

OWNER = "liys05"


def measure(store: Store, name: str) -> object:
    return next(m for m in health(store).measures if m.name == name)


async def open_labels(pilot: object, app: object) -> LabelScreen:
    await settle(pilot, app)  # type: ignore[arg-type]
    await pilot.press("m")  # type: ignore[attr-defined]
    await settle(pilot, app)  # type: ignore[arg-type]
    assert isinstance(app.screen, HealthScreen)  # type: ignore[attr-defined]
    await pilot.press("l")  # type: ignore[attr-defined]
    await settle(pilot, app)  # type: ignore[arg-type]
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, LabelScreen)
    return screen


async def test_label_the_samples_with_one_key_each(demo: Path) -> None:
    private = demo / "private"
    before = workspace_label_items(workspace(demo))
    repeats = [i for i in before if i.analysis.measure == "repeat"]  # type: ignore[union-attr]
    assert repeats, "the demo holds the seed's repeated explanations"
    app = desk(demo)
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_labels(pilot, app)
        head = text_of(screen.query_one("#labels-head", Static))
        assert f"{len(before)} to label" in head
        first = screen.current
        assert first is not None and first.id == before[0].id
        left = text_of(screen.query_one("#labels-left", Static))
        assert "later" in left and "if confirmed:" in left
        await pilot.press("y")  # confirm the first repeat
        await settle(pilot, app)
        assert screen.current is not None and screen.current.id != first.id
        await pilot.press("n")  # dismiss the next
        await settle(pilot, app)
        await pilot.press("u")  # undo the dismissal: that item is open again
        await settle(pilot, app)
        # to the precision samples (tab: the next measure), and label them all:
        # reusable, noise, reusable, ...
        await pilot.press("tab")
        await settle(pilot, app)
        for _ in range(50):
            item = screen.current
            if item is None or item.analysis.measure != "precision":  # type: ignore[union-attr]
                break
            reusable = sum(1 for lab in labels(item.store).values() if lab.measure == "precision")
            await pilot.press("y" if reusable % 2 == 0 else "n")
            await settle(pilot, app)
        await pilot.press("escape")
        await settle(pilot, app)
        assert isinstance(app.screen, HealthScreen)
        await pilot.press("d")  # every definition, one key away
        await settle(pilot, app)
        shown = text_of(app.screen.query_one("#health", Static))
        assert "Repeated explanations (seed 8.1)" in shown
        assert "Wilson" in shown

    store = Store(private)
    done = labels(store)
    confirmed = [lab for lab in done.values() if lab.measure == "repeat"]
    assert [lab.option for lab in confirmed] == ["confirm"]  # the dismissal was undone
    assert confirmed[0].actor == OWNER and confirmed[0].diagnosis
    decided = [
        e for e in events(private) if e["action"] == "decide" and e["details"]["kind"] == "label"
    ]
    assert [e["details"]["option"] for e in decided][:3] == ["confirm", "dismiss", "revert"]
    assert all(e["actor"] == OWNER for e in decided)
    precision = [lab for lab in done.values() if lab.measure == "precision"]
    assert precision
    reusable = sum(1 for lab in precision if lab.option == "reusable")
    value = measure(store, "precision").value  # type: ignore[attr-defined]
    by_month: dict[str | None, list[str]] = {}
    for lab in precision:
        by_month.setdefault(lab.period, []).append(lab.option)
    newest = max(p for p in by_month if p)
    labelled = by_month[newest]
    assert value == round(labelled.count("reusable") / len(labelled), 3)
    assert reusable >= 1
    repeats_now = measure(store, "repeats")
    assert "1 confirmed" in repeats_now.shown  # type: ignore[attr-defined]


async def test_someone_who_may_not_label_is_told_and_nothing_is_written(demo: Path) -> None:
    app = desk(demo, actor="mallory@example.com")
    async with app.run_test(size=(180, 50)) as pilot:
        screen = await open_labels(pilot, app)
        head = text_of(screen.query_one("#labels-head", Static))
        assert "you may not label the private store's samples: its owner does" in head
        await pilot.press("y")
        await settle(pilot, app)
    assert labels(Store(demo / "private")) == {}
