"""Shared by the desk tests: a demo workspace per test, copied from one built once."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from core.demo import START, DemoClock
from core.reports.doctor import diagnose
from core.store.layout import memory_path
from core.store.store import new_memory_id
from core.store.workspace import Workspace, open_workspace
from tui.app import MemgovDesk

#: the demo's own "today": the day after its last request
DEMO_NOW = START + __import__("datetime").timedelta(days=92)
OWNER = "liys05"


def workspace(path: Path) -> Workspace:
    return open_workspace([path], clock=DemoClock(DEMO_NOW))


def desk(path: Path, *, actor: str = OWNER) -> MemgovDesk:
    return MemgovDesk(workspace(path), actor=actor, cursor_blink=False)


async def settle(pilot: object, app: MemgovDesk) -> None:
    """Wait for every worker (loading, deciding) and the messages they post."""
    from textual.worker import WorkerCancelled

    for _ in range(3):
        for _attempt in range(20):
            try:
                await app.workers.wait_for_complete()
                break
            except WorkerCancelled:  # replaced by a newer read (exclusive): wait for that
                await pilot.pause()  # type: ignore[attr-defined]
        await pilot.pause()  # type: ignore[attr-defined]
    # a table sizes its columns on a later refresh: give it one before a screen or
    # dialog covers it, or a snapshot taken under load catches the half-laid-out frame
    await pilot.pause(0.1)  # type: ignore[attr-defined]


async def decide_key(pilot: object, app: MemgovDesk, key: str) -> None:
    """Press a decision key, wait for the core's preview to open the reason dialog,
    and accept it with enter (a key pressed before the dialog opens goes elsewhere)."""
    await pilot.press(key)  # type: ignore[attr-defined]
    await settle(pilot, app)
    await pilot.press("enter")  # type: ignore[attr-defined]


def git(store: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=store, capture_output=True, text=True, check=True, env={**os.environ}
    ).stdout


#: the demo's note written before scanning existed holds a (fake) token on purpose: doctor
#: reports its file until someone decides its "secret in a record" item (the id as
#: core.demo makes it; the file in its shard, as the store writes every new record)
DEMO_SECRET_ID = new_memory_id("ci_token", "demo hand-written note")
DEMO_SECRET_NOTE = memory_path(DEMO_SECRET_ID)


def doctor_errors(path: Path) -> list[str]:
    """Doctor's errors on every store, but the demo's own old secret."""
    return [
        f.render()
        for store in workspace(path).stores
        for f in diagnose(store)
        if f.severity == "error"
        and not (f.path == DEMO_SECRET_NOTE and "holds a credential" in f.reason)
    ]


def doctor_clean(path: Path) -> None:
    errors = doctor_errors(path)
    assert errors == [], errors


def iter_lines(path: Path) -> Iterator[str]:
    yield from path.read_text(encoding="utf-8").splitlines()


def text_of(widget: object) -> str:
    """What a Static shows, as plain text (its Rich renderable, printed wide)."""
    import io

    from rich.console import Console

    console = Console(width=400, file=io.StringIO(), color_system=None)
    console.print(widget.content)  # type: ignore[attr-defined]
    return console.file.getvalue()  # type: ignore[attr-defined]
