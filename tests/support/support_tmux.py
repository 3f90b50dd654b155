"""The installed ``memgov`` in a real terminal: a tmux server of the test's own, one
session, real keys; every step waits on what the pane shows (``support_screen``)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from support_screen import DEADLINE, RESEND, queue_shown

#: how often the pane is read while waiting
POLL = 0.1

#: a style (SGR) sequence, as ``capture-pane -e`` writes them
STYLE = re.compile(r"\x1b\[[0-9;:]*m")

#: a row of the queue's table: its opening date, its kind
TABLE_ROW = re.compile(r"^ \d{4}-\d{2}-\d{2}  \S")


def cursor_row(styled: str) -> str:
    """The queue's selected row, as ``capture-pane -e`` shows it: the table's one row
    drawn in bold (the cursor's style; the others are not), its text; "" if none.
    tmux writes a style only where it changes, so it is followed from the first line."""
    bold = False
    for line in styled.splitlines():
        bold_at_start = None
        for piece in re.split(r"(\x1b\[[0-9;:]*m)", line):
            if not piece.startswith("\x1b["):
                if piece and bold_at_start is None:
                    bold_at_start = bold
                continue
            bold = sgr_bold(piece[2:-1], bold)
        text = STYLE.sub("", line)
        if bold_at_start and TABLE_ROW.match(text):
            return text.strip()
    return ""


def sgr_bold(params: str, bold: bool) -> bool:
    """Whether text is bold after the SGR sequence of ``params`` (colours skipped)."""
    codes = params.split(";") if params else ["0"]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code in ("38", "48", "58"):  # a colour: 5;n or 2;r;g;b follow
            i += 3 if codes[i + 1 : i + 2] == ["5"] else 5
            continue
        if code in ("", "0", "22"):
            bold = False
        elif code == "1":
            bold = True
        i += 1
    return bold


class Desk:
    """A desk in the session ``desk`` of the tmux server on socket ``socket``."""

    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env
        #: every distinct screen read, in order: what the person at the desk saw
        self.seen: list[str] = []
        self.styled = ""  # the last screen read, with its styles
        #: where the desk's exit status is written when it exits (tmux's own record of it
        #: goes with its server, which a loaded machine has been seen to lose)
        self.status = Path(tempfile.mkdtemp(prefix="memgov-desk-")) / "status"

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-f", "/dev/null", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
        )

    def start(self, command: str, size: tuple[int, int]) -> None:
        """The desk in a detached session; its pane stays when it exits, so that a
        crash's last screen can be read and its exit status checked."""
        width, height = size
        status = shlex.quote(str(self.status))
        wrapped = f"{command}; echo $? > {status}.part && mv {status}.part {status}"
        started = self.tmux(
            "new-session", "-d", "-s", "desk", "-x", str(width), "-y", str(height), wrapped,
            ";", "set-option", "-t", "desk", "remain-on-exit", "on",
        )  # fmt: skip
        assert started.returncode == 0, started.stderr

    def close(self) -> None:
        self.tmux("kill-server")
        shutil.rmtree(self.status.parent, ignore_errors=True)

    def dead(self) -> str | None:
        """The desk's exit status once it has exited (written by the shell that ran it),
        else None; "gone" when neither the status nor the session is there."""
        if self.status.is_file():
            return self.status.read_text().strip()
        shown = self.tmux("display-message", "-p", "-t", "desk", "#{pane_dead}")
        if shown.returncode != 0:
            return "gone"  # no session at all, and no status written
        return None

    def screen(self) -> str:
        self.styled = self.tmux("capture-pane", "-e", "-p", "-t", "desk").stdout
        shown = "\n".join(STYLE.sub("", line).rstrip() for line in self.styled.splitlines())
        if not self.seen or self.seen[-1] != shown:
            self.seen.append(shown)
        return shown

    def send(self, key: str) -> None:
        """One key (a tmux key name: ``j``, ``Enter``, ``C-s``)."""
        sent = self.tmux("send-keys", "-t", "desk", key)
        assert sent.returncode == 0, sent.stderr

    def until(self, check: Callable[[str], bool], what: str, *, resend: str = "") -> str:
        """The screen once ``check`` holds for it. With ``resend``, a key whose effect
        ``check`` sees and that may be repeated without harm: sent again while nothing
        shows it was taken."""
        deadline = time.monotonic() + DEADLINE
        sent = time.monotonic()
        while True:
            status = self.dead()  # before the screen: once it exited, the screen is its last
            shown = self.screen()
            if check(shown):
                return shown
            if status is not None:
                raise AssertionError(f"the desk exited ({status}) before {what}:\n{shown}")
            now = time.monotonic()
            if now > deadline:
                raise AssertionError(f"{what}: not shown in {DEADLINE:.0f} s; the screen:\n{shown}")
            if resend and now - sent > RESEND:
                self.send(resend)
                sent = now
            time.sleep(POLL)

    def wait_for(self, *texts: str, gone: str = "") -> str:
        """The screen once it shows every one of ``texts`` (and not ``gone``)."""
        return self.until(
            lambda s: all(t in s for t in texts) and not (gone and gone in s),
            f"{texts!r}" + (f" without {gone!r}" if gone else ""),
        )

    def selected(self) -> str:
        """The queue's selected row on the last screen read; "" if none."""
        return cursor_row(self.styled)

    def ready(self, items: int) -> str:
        """The queue read with ``items`` items, and the desk taking keys: the last row
        selected, then the first again (keys the desk may get twice; the first keys
        typed while it talks to the terminal can be lost): ``G`` and ``g``."""
        self.until(lambda s: queue_shown(s, items) and self.selected() != "", f"{items} items")
        first = self.selected()
        self.send("G")  # the key map's last row, then its first
        self.until(lambda s: self.selected() not in ("", first), "the last row", resend="G")
        self.send("g")
        return self.until(lambda s: self.selected() == first, "the first row", resend="g")

    def down_to(self, item: str, most: int = 20) -> str:
        """``j`` until the selected row names ``item``, one row at a time: each key's
        move shown before the next key."""
        shown = self.screen()
        for _ in range(most):
            now = self.selected()
            if item in now:
                return shown
            self.send("j")
            shown = self.until(lambda s, now=now: self.selected() not in ("", now), f"past {now!r}")
        raise AssertionError(f"{item!r} never selected:\n{shown}")

    def quit(self) -> None:
        """``q`` on the queue: the desk exits, and with status 0."""
        self.send("q")
        self.until(lambda s: self.dead() is not None, "the desk's exit")
        assert self.dead() == "0", self.screen()
