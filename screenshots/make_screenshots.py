"""Regenerate the screenshots of the README from the real desk on the demo store.

    .venv/bin/python screenshots/make_screenshots.py            # every one
    .venv/bin/python screenshots/make_screenshots.py --browser  # browser.png only

The demo store is deterministic (its clock is pinned), so the SVGs come out
byte-identical run after run unless what the desk shows has changed.

``browser.png`` is the desk in a browser: ``memgov serve`` on the demo, the
system's Chromium (``/usr/bin/chromium``) headless, the deploy-command conflict
opened with real keys (``tests/support/support_browser.py`` drives it, as the test does).
Without Chromium it is skipped with a note. The demo is in Chinese: without a CJK
font Chromium draws boxes, so the script stops, saying so, when fontconfig knows of
none (``fc-list :lang=zh``; Debian's ``fonts-noto-cjk``, which ``.ci/run`` installs).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "support"))  # support_browser: the driver

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
    ("stale", ("j",) * 6 + ("enter",)),
    ("consolidation", ("right_square_bracket",) * 4 + ("enter",)),
    ("quarantine", ("j",) * 7 + ("enter",)),
    ("held", ("j",) * 9 + ("enter",)),
    ("about-me", ("a",)),
    ("history", ("h", "j", "j", "j")),
    ("health", ("m",)),
    ("labels", ("m", "l")),
]


#: the demo's own "today", as the tests have it
NOW = START + timedelta(days=92)


async def shoot(demo: Path, name: str, keys: Sequence[str]) -> None:
    workspace = open_workspace([demo], clock=DemoClock(NOW))
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


#: what to do when no CJK font is installed
NO_CJK_FONT = (
    "screenshots/browser.png: no CJK font (fc-list :lang=zh lists none), and the demo is "
    "in Chinese: Chromium would draw boxes. Install one (Debian: apt-get install "
    "fonts-noto-cjk) and run this again."
)


def cjk_fonts() -> list[str]:
    """The fonts fontconfig (which Chromium asks) has for Chinese: one line each."""
    if shutil.which("fc-list") is None:
        return []
    listed = subprocess.run(
        ["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False
    )
    return [line for line in listed.stdout.splitlines() if line.strip()]


def shoot_browser(demo: Path, work: Path) -> None:
    """``browser.png``: the deploy-command conflict, in Chromium, through ``memgov serve``."""
    import os

    from support_browser import CHROMIUM, chromium, open_desk, serving

    if not CHROMIUM.exists():
        print(f"screenshots/browser.png: skipped, no Chromium at {CHROMIUM}")
        return
    if not cjk_fonts():
        raise SystemExit(NO_CJK_FONT)
    env = {**os.environ, "MEMGOV_NOW": NOW.isoformat()}
    with (
        serving([demo], actor="liys05", log=work / "serve.log", env=env) as served,
        chromium(work / "profile", size=(1280, 760)) as browser,
    ):
        open_desk(browser, served.url)
        browser.down_to("#deploy_command")  # past the doctor conflict and the old secret
        browser.press("Enter")
        browser.wait_for("Newer wins", "deploy_command", gone="being read")
        browser.settled()  # faded in, and drawn
        browser.page.screenshot(path=str(HERE / "browser.png"))
    print("screenshots/browser.png")


async def shoot_all(demo: Path) -> None:
    for name, keys in SHOTS:
        await shoot(demo, name, keys)


def main(argv: Sequence[str]) -> None:
    from support_browser import CHROMIUM

    if CHROMIUM.exists() and not cjk_fonts():
        raise SystemExit(NO_CJK_FONT)  # before the SVGs: no half-made set
    with tempfile.TemporaryDirectory() as tmp:
        demo = Path(tmp) / "demo"
        build_demo(demo)
        if "--browser" not in argv:
            asyncio.run(shoot_all(demo))
        # after the desk's loop: Playwright's sync API runs outside one
        shoot_browser(demo, Path(tmp))


if __name__ == "__main__":
    main(sys.argv[1:])
