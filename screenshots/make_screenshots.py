"""Regenerate the SVG screenshots of the README from the real desk on the demo store.

    .venv/bin/python screenshots/make_screenshots.py

The demo store is deterministic (its clock is pinned), so the SVGs come out
byte-identical run after run unless what the desk shows has changed.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from core.demo import START, DemoClock, build_demo  # noqa: E402
from core.store.workspace import open_workspace  # noqa: E402
from tui.app import MemgovDesk  # noqa: E402

SIZE = (120, 36)
SHOTS: list[tuple[str, Sequence[str]]] = [
    ("queue", ()),
    ("secret", ("j", "enter")),
    ("conflict", ("j", "j", "enter")),
    ("promotion", ("j", "j", "j", "enter")),
    ("deletion", ("j", "j", "j", "j", "j", "enter")),
    ("consolidation", ("right_square_bracket",) * 4 + ("enter",)),
    ("about-me", ("a",)),
    ("history", ("h", "j", "j", "j")),
    ("health", ("m",)),
]


async def shoot(demo: Path, name: str, keys: Sequence[str]) -> None:
    workspace = open_workspace([demo], clock=DemoClock(START + timedelta(days=92)))
    app = MemgovDesk(workspace, actor="liys05", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        for key in ("", *keys):
            if key:
                await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
        await pilot.pause(0.1)  # let tables size their columns before the shot
        app.save_screenshot(f"{name}.svg", str(HERE))
    print(f"screenshots/{name}.svg")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        build_demo(demo)
        for name, keys in SHOTS:
            await shoot(demo, name, keys)


if __name__ == "__main__":
    asyncio.run(main())
