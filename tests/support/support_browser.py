"""The desk in a real browser: ``memgov serve`` in its own process group, the
system's Chromium driven headless by Playwright (never a browser of its own:
``executable_path`` is Debian's ``/usr/bin/chromium``), keys typed as a person
types them, and the screen read back from the page's terminal.

Used by ``tests/e2e/test_serve.py`` and by ``screenshots/make_screenshots.py``.

Reading the screen: textual-serve draws the desk in xterm.js on a canvas, so no
text is in the page's DOM, and the terminal object is kept in a closure. A script
run before the page's own (``add_init_script``) notes the terminal when xterm.js
builds it (its ``_core``, set once in the constructor), and :meth:`Browser.screen`
reads the rows of its buffer: what the page shows, as text.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support_screen import DEADLINE, RESEND, selected

CHROMIUM = Path("/usr/bin/chromium")
MEMGOV = Path(sys.executable).with_name("memgov")

#: flags that work on this machine as root (a fresh profile is given per launch)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

#: notes the page's xterm.js Terminal as ``window.__memgovTerminal`` when it is built
NOTE_TERMINAL = """
Object.defineProperty(Object.prototype, "_core", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "_core", {value, writable: true, configurable: true});
    if (typeof this.loadAddon === "function") window.__memgovTerminal = this;
  },
});
"""

#: the terminal's visible rows, one line each
READ_SCREEN = """() => {
  const term = window.__memgovTerminal;
  if (!term) return "";
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""


def free_port() -> int:
    """A port nothing listens on now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def running_with(word: str) -> list[str]:
    """The running processes with ``word`` in their command line: ``pid command`` each."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or entry.name == str(os.getpid()):
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and any(word.encode() in arg for arg in argv):
            found.append(f"{entry.name} {argv[0].decode(errors='replace')}")
    return found


def live_members(group: int) -> list[str]:
    """The processes of a process group that are still running (zombies, whose
    parent has not reaped them, are not): ``pid command`` each."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(f"{entry.name} {stat[stat.index('(') + 1 : stat.rindex(')')]}")
    return found


@dataclass(frozen=True)
class Served:
    url: str
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        """The server's process id, which is its process group's too."""
        return self.process.pid

    def others(self) -> list[str]:
        """The group's running processes other than the server: the desks."""
        return [p for p in live_members(self.pid) if not p.startswith(f"{self.pid} ")]


@contextlib.contextmanager
def serving(
    stores: list[Path], *, actor: str, log: Path, env: dict[str, str] | None = None
) -> Iterator[Served]:
    """``memgov serve`` on a free loopback port, in a process group of its own,
    once it answers. On the way out the whole group (the server, each browser
    session's desk and their git children) is stopped: TERM, then KILL for anything
    left, and nothing of it may still run."""
    port = free_port()
    argv = [str(MEMGOV), "serve", *(f"--store={s}" for s in stores), f"--as={actor}"]
    argv += ["--port", str(port)]
    with log.open("wb") as out:
        server = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + DEADLINE
        while True:
            if server.poll() is not None:
                raise AssertionError(f"memgov serve exited {server.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(url + "/", timeout=5) as page:
                    if page.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"memgov serve never answered:\n{log.read_text()}")
            time.sleep(0.1)
        yield Served(url, server)
    finally:
        stop_group(server)


def stop_group(server: subprocess.Popen[bytes]) -> None:
    group = server.pid  # start_new_session: the server leads its own group
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGTERM)  # textual-serve quits each desk, then itself
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    server.wait(timeout=15)
    deadline = time.monotonic() + DEADLINE
    while (left := live_members(group)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"still running after memgov serve was stopped: {left}"


class Browser:
    """The system's Chromium, headless, on a fresh profile: one tab at a time."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.page = context.pages[0] if context.pages else context.new_page()

    def new_tab(self) -> None:
        """Close this tab and open another (the browser stays)."""
        self.page.close()
        self.page = self.context.new_page()

    def screen(self) -> str:
        return str(self.page.evaluate(READ_SCREEN))

    def until(self, check: Callable[[str], bool], what: str, *, resend: str = "") -> str:
        """The screen once ``check`` holds for it, within :data:`DEADLINE`. With
        ``resend``, a key whose effect ``check`` sees and that may be repeated without
        harm: pressed again while nothing shows it was taken."""
        deadline = time.monotonic() + DEADLINE
        sent = time.monotonic()
        while True:
            shown = self.screen()
            if check(shown):
                return shown
            now = time.monotonic()
            if now > deadline:
                raise AssertionError(f"{what}: not shown in {DEADLINE:.0f} s; the screen:\n{shown}")
            if resend and now - sent > RESEND:
                self.page.keyboard.press(resend)
                sent = now
            time.sleep(0.1)

    def wait_for(self, *texts: str, gone: str = "") -> str:
        """The screen once it shows every one of ``texts`` (and not ``gone``)."""
        return self.until(
            lambda s: all(t in s for t in texts) and not (gone and gone in s),
            f"{texts!r}" + (f" without {gone!r}" if gone else ""),
        )

    def press(self, key: str) -> None:
        """One key, typed into the terminal (the caller waits for what it shows)."""
        self.page.keyboard.press(key)

    def ready(self) -> str:
        """The desk taking keys: the last row selected, then the first again (keys it
        may get twice; the first keys typed while it talks to the terminal can be lost):
        ``G`` and ``g``."""
        first = selected(self.until(lambda s: selected(s) != "", "a selected item"))
        self.press("G")  # the key map's last row, then its first
        last = selected(
            self.until(lambda s: selected(s) not in ("", first), "the last row", resend="G")
        )
        self.press("g")
        # the first again (not compared with ``first``: the page may have resized meanwhile)
        return self.until(lambda s: selected(s) not in ("", last), "the first row", resend="g")

    def down_to(self, item: str, most: int = 20) -> str:
        """``j`` until the preview names ``item``, one row at a time: each key's move
        shown before the next key."""
        shown = self.screen()
        for _ in range(most):
            now = selected(shown)
            if item in now:
                return shown
            self.press("j")
            shown = self.until(lambda s, now=now: selected(s) not in ("", now), f"past {now!r}")
        raise AssertionError(f"{item!r} never selected:\n{shown}")

    def settled(self) -> None:
        """The page as a person sees it: the terminal faded in (the page's transition
        over) and what its buffer holds drawn (two frames of the page later)."""
        self.page.wait_for_function(
            "() => getComputedStyle(document.querySelector('.textual-terminal')).opacity === '1'",
            timeout=DEADLINE * 1000,
        )
        self.page.evaluate(
            "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )


@contextlib.contextmanager
def chromium(profile: Path, *, size: tuple[int, int] = (1280, 800)) -> Iterator[Browser]:
    """The system's Chromium, headless, on the empty profile folder ``profile``;
    closed on the way out, whatever happened, and checked gone: no process left
    with ``profile`` in its command line."""
    from playwright.sync_api import sync_playwright

    profile.mkdir(parents=True, exist_ok=False)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=list(CHROMIUM_FLAGS),
            viewport={"width": size[0], "height": size[1]},
        )
        try:
            context.add_init_script(NOTE_TERMINAL)  # in every page, before its own scripts
            yield Browser(context)
        finally:
            context.close()
    # every process of this browser ran with its profile folder in its command line
    deadline = time.monotonic() + DEADLINE
    while (left := running_with(str(profile))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"Chromium still running after it was closed: {left}"


def open_desk(browser: Browser, url: str) -> str:
    """Load the desk's page, wait until the whole queue is read, give the terminal
    the keyboard and see that the desk takes keys; the screen then."""
    browser.page.goto(url + "/", timeout=DEADLINE * 1000)
    browser.wait_for("items waiting", gone="reading")
    browser.page.focus(".xterm-helper-textarea")
    return browser.ready()
