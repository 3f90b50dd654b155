"""Health metrics count what happened: an erasure removes a record's file, so the
deleted records are counted from the event log ("Health says 'deleted 0'
right after an erasure")."""

from __future__ import annotations

from pathlib import Path

from support_decisions import stores, the_item
from support_desk import OWNER, workspace

from core.reports.metrics import health
from core.review.decide import decide
from core.store.store import Store


def test_health_counts_an_erasure_as_deleted(demo: Path) -> None:
    private, team = stores(demo)
    before = health(private).by_status
    assert before["deleted"] == 0

    decide(workspace(demo), the_item(demo, "deletion").id, approve=True, actor=OWNER)

    after = health(Store(private.root)).by_status
    assert after["deleted"] == 1
    assert after["active"] == before["active"] - 1
    assert health(team).by_status["deleted"] == 0


def test_neither_erases_both_records_of_a_conflict(demo: Path) -> None:
    private, _team = stores(demo)
    item = the_item(demo, "conflict", scope="private")

    decide(workspace(demo), item.id, approve=True, option="neither", actor=OWNER)

    counts = health(Store(private.root)).by_status
    assert counts["deleted"] == 2 and counts["conflict"] == 0
