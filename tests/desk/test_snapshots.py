"""Snapshots of every screen and dialog of the desk, at 80x24 and at 160x48.

Regenerate after an intended change with ``pytest tests/desk/test_snapshots.py
--snapshot-update`` and look at the report before committing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support_desk import desk, settle

SIZES = {"small": (80, 24), "large": (160, 48)}

# (name, keys pressed after the queue has loaded). The demo's queue, top-down: the
# doctor conflict, the consolidation batch (before the first item that would discard
# it: core.review.losses), the secret, the team's conflict, the two promotions, the
# deletion, the stale report, the quarantined candidate, the held note
SCREENS: list[tuple[str, Sequence[str]]] = [
    ("queue", ()),
    ("secret", ("j", "j", "enter")),
    ("secret_erase_dialog", ("j", "j", "enter", "e")),
    ("conflict", ("j", "j", "j", "enter")),
    ("conflict_newer_dialog", ("j", "j", "j", "enter", "n")),
    ("conflict_parallel_dialog", ("j", "j", "j", "enter", "p")),
    ("conflict_neither_dialog", ("j", "j", "j", "enter", "x")),
    ("promotion_blocked", ("j",) * 4 + ("enter",)),
    ("promotion", ("j",) * 5 + ("enter",)),
    ("deletion", ("j",) * 6 + ("enter",)),
    ("deletion_dialog", ("j",) * 6 + ("enter", "e")),
    ("stale", ("j",) * 7 + ("enter",)),
    ("stale_expire_dialog", ("j",) * 7 + ("enter", "e")),
    ("stale_correct_dialog", ("j",) * 7 + ("enter", "c")),
    ("quarantine", ("j",) * 8 + ("enter",)),
    ("quarantine_discard_dialog", ("j",) * 8 + ("enter", "x")),
    ("batch", ("j", "enter")),
    ("batch_wider", ("j", "enter", "plus", "plus")),
    ("held", ("j",) * 9 + ("enter",)),
    # the demo's held note is the team's: keep makes it private (redacting it would make
    # it the team's, with a source in this machine's folder, which the dialog names)
    ("held_keep_dialog", ("j",) * 9 + ("enter", "K")),
    ("about_me", ("a",)),
    ("correct_dialog", ("a", "c")),
    ("history", ("h",)),
    ("health", ("m",)),
    ("health_definitions", ("m", "d")),
    ("labels_repeat", ("m", "l")),
    ("labels_precision", ("m", "l", "tab")),
    ("labels_citation", ("m", "l", "tab", "tab")),
    ("problems", ("p",)),
    ("keys", ("question_mark",)),
    ("search", ("slash", "d", "e", "p", "l", "o", "y")),
    ("queue_marked", ("j", "j", "j", "space")),
    ("selection_outcome_dialog", ("j", "j", "j", "space", "D")),
    ("selection_reason_dialog", ("j", "j", "j", "space", "D", "enter")),
]


def before(keys: Sequence[str]) -> Any:
    async def run(pilot: Any) -> None:
        await settle(pilot, pilot.app)
        for key in keys:
            await pilot.press(key)
            await settle(pilot, pilot.app)

    return run


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(("name", "keys"), SCREENS, ids=[s[0] for s in SCREENS])
def test_screen(snap_compare: Any, demo: Path, name: str, keys: Sequence[str], size: str) -> None:
    assert snap_compare(desk(demo), terminal_size=SIZES[size], run_before=before(keys))


def test_light_theme(snap_compare: Any, demo: Path) -> None:
    app = desk(demo)

    async def run(pilot: Any) -> None:
        await settle(pilot, pilot.app)
        await pilot.press("t")
        await pilot.press("j", "j", "enter")  # the secret
        await settle(pilot, pilot.app)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run)
