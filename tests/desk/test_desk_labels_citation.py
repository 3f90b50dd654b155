"""Labelling stale citations from the desk, driven with Pilot on a store
whose two records were recalled: ``tab`` to the citation samples, ``x`` expires one,
``c`` corrects the other through its dialog, ``u`` undoes the correction; the records,
the ``decide`` events and health's stale-citation measure are checked in the store."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from support_desk import settle, text_of
from textual.widgets import Static, TextArea

from core.reports.metrics import health
from core.review.items import LabelAnalysis
from core.review.labels import labels
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.decay import recall
from tests.conftest import ACTOR, FakeClock, MakeMemory, add_memories, events
from tui.app import MemgovDesk
from tui.screens.health import HealthScreen
from tui.screens.labels import LabelScreen
from tui.screens.secret import SecretCorrectDialog

AGENT = "agent@example.com"
SUBJECT = "user:alice/project:shop"
CORRECTED = "Tests run with nox now"


def stale(root: Any, clock: FakeClock) -> Any:
    fresh = Store(root, clock=clock)
    return next(m for m in health(fresh).measures if m.name == "stale_citations")


def measure_of(screen: LabelScreen) -> str | None:
    item = screen.current
    return item.analysis_as(LabelAnalysis).measure if item is not None else None


async def test_expire_and_correct_citations_then_undo(
    store: Store, clock: FakeClock, make_memory: MakeMemory
) -> None:
    # written last month (its precision samples come first), recalled this month
    written = clock.now - timedelta(days=31)
    add_memories(
        store,
        *(
            make_memory(id=ident, subject=SUBJECT, attribute=key, content=text, created_at=written)
            for ident, key, text in (
                ("deploy-1", "deploy", "make ship"),
                ("tests-1", "tests", "Tests run with tox"),
            )
        ),
    )
    clock.advance(hours=1)
    for attribute in ("deploy", "tests"):
        recall(store, subject_prefix="user:alice", attribute=attribute, actor=AGENT, task="t1")
    assert stale(store.root, clock).value is None  # nothing labelled: a gap, not 0%
    app = MemgovDesk(Workspace([store]), actor=ACTOR, cursor_blink=False)
    async with app.run_test(size=(180, 50)) as pilot:
        await settle(pilot, app)
        await pilot.press("m")
        await settle(pilot, app)
        assert isinstance(app.screen, HealthScreen)
        await pilot.press("l")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        head = text_of(screen.query_one("#labels-head", Static))
        assert "precision 2 · stale citations 2" in head, head
        assert measure_of(screen) == "precision"  # last month's samples first
        await pilot.press("tab")  # to the citation samples
        await settle(pilot, app)
        assert measure_of(screen) == "citation"
        first = screen.current
        assert first is not None
        expired = first.analysis_as(LabelAnalysis).memory_id
        assert "x  expire" in text_of(screen.query_one("#labels-left", Static))

        await pilot.press("x")  # no longer true: expire it
        await settle(pilot, app)
        second = screen.current
        assert second is not None and measure_of(screen) == "citation"
        corrected = second.analysis_as(LabelAnalysis).memory_id
        assert {expired, corrected} == {"deploy-1", "tests-1"}

        await pilot.press("c")  # no longer true: what it should say
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, SecretCorrectDialog)
        area = dialog.query_one("#content", TextArea)
        assert area.text == Store(store.root).memories[corrected].content  # prefilled
        await pilot.press("f7")  # select all: typing replaces it
        await pilot.press(*CORRECTED)
        assert area.text == CORRECTED
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert app.screen is screen

        after = Store(store.root, clock=clock)
        assert after.memories[expired].status == "expired"
        old = after.memories[corrected]
        assert old.status == "superseded"
        (new,) = [m for m in after.memories.values() if m.supersedes == corrected]
        assert (new.status, new.content, new.attribute) == ("active", CORRECTED, old.attribute)
        decided = [e for e in events(store.root) if e["action"] == "decide"]
        month = f"{clock.now:%Y-%m}"
        assert [
            (
                e["memory_ids"],
                e["details"]["kind"],
                e["details"]["measure"],
                e["details"]["option"],
                e["details"]["period"],
                e["actor"],
            )
            for e in decided
        ] == [
            ([expired], "label", "citation", "expire", month, ACTOR),
            ([corrected], "label", "citation", "correct", month, ACTOR),
        ]
        measure = stale(store.root, clock)
        assert measure.value == 1.0 and measure.shown.startswith("100% of 2 checked")
        assert "stale citations 0" in text_of(screen.query_one("#labels-head", Static))

        await pilot.press("u")  # undo the last label: the correction
        await settle(pilot, app)

    after = Store(store.root, clock=clock)
    assert after.memories[corrected].status == "active"  # the corrected record is back
    assert after.memories[new.id].status != "active"
    assert [m.id for m in after.memories.values() if m.status == "active"] == [corrected]
    assert after.memories[expired].status == "expired"  # the first label stands
    done = {lab.option for lab in labels(after).values() if lab.measure == "citation"}
    assert done == {"expire"}
    options = [e["details"]["option"] for e in events(store.root) if e["action"] == "decide"]
    assert options == ["expire", "correct", "revert"]
    measure = stale(store.root, clock)
    assert measure.value == 1.0 and measure.shown.startswith("100% of 1 checked")
