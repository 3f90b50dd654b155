"""``memgov serve``: the desk in a real browser (the system's Chromium, headless),
real keys, then the store on disk; and the pieces that keep it the user's own desk:
the command each session runs, quoted, and the websocket refused to other sites."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support_browser import CHROMIUM, MEMGOV, chromium, live_members, open_desk, serving
from support_desk import DEMO_NOW, OWNER, doctor_clean, git, workspace
from support_screen import DEADLINE, REASON

from tui.cli.serve import (
    allowed_netlocs,
    desk_command,
    exposure_warning,
    is_loopback,
    same_site,
)

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"needs the system's Chromium at {CHROMIUM} (Debian: chromium)"
)
needs_memgov = pytest.mark.skipif(
    not MEMGOV.exists(), reason="needs the installed memgov console script"
)


def wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"waited {DEADLINE:.0f} s for {what}"
        time.sleep(0.1)


def doctor_records(path: Path) -> dict[str, str]:
    """The private store's two records about the user's doctor: id → status."""
    return {
        m.id: m.status
        for s in workspace(path).stores
        for m in s.memories.values()
        if m.attribute == "doctor"
    }


def handshake(url: str, *, origin: str | None, host: str | None = None) -> int:
    """The status of a websocket handshake to the server's ``/ws``."""
    address = url.removeprefix("http://")
    connection = http.client.HTTPConnection(address, timeout=10)
    headers = {
        "Host": host or address,
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }
    if origin is not None:
        headers["Origin"] = origin
    try:
        connection.request("GET", "/ws?width=80&height=24", headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


@needs_chromium
@needs_memgov
def test_decide_a_conflict_in_the_browser(demo_template: Path, tmp_path: Path) -> None:
    # a store path a shell would take apart: the command each session runs is quoted
    demo = tmp_path / "it's a $(store) ; -x"
    shutil.copytree(demo_template, demo, symlinks=True)
    records = doctor_records(demo)
    assert sorted(records.values()) == ["conflict", "conflict"]
    env = {**os.environ, "MEMGOV_NOW": DEMO_NOW.isoformat()}
    commits_before = int(git(demo / "private", "rev-list", "--count", "HEAD"))

    with serving([demo], actor=OWNER, log=tmp_path / "serve.log", env=env) as served:
        url = served.url
        # another site's page, or a rebound host name, gets no desk
        assert handshake(url, origin="http://evil.example") == 403
        assert handshake(url, origin=None) == 403
        assert handshake(url, origin="http://evil.example:8000", host="evil.example") == 403
        assert served.others() == []  # no desk was started for them

        with chromium(tmp_path / "profile") as browser:
            queue = open_desk(browser, url)
            assert f"acting as {OWNER}" in queue
            assert len(served.others()) >= 1  # this tab's desk (with its shell exec'd)
            rows = [line for line in queue.splitlines() if " conflict " in line]
            assert "user:liys05 #doctor" in rows[0], queue  # the first conflict, first row
            browser.press("Enter")
            shown = browser.wait_for("Newer wins", "doctor")
            assert "sources favour" in shown
            browser.press("n")
            browser.wait_for(REASON)
            browser.press("Enter")
            browser.wait_for("Decided")

            # the tab is closed: its desk quits, the server stays
            browser.new_tab()
            wait_until(lambda: served.others() == [], "the closed tab's desk to quit")

            # a TERM (or Ctrl+C) with a tab open: the server stops (exit 0) and its
            # desk with it; nothing of the group is left to kill
            assert "Decided" not in open_desk(browser, url)
            assert served.others() != []
            os.kill(served.pid, signal.SIGTERM)
            assert served.process.wait(timeout=DEADLINE) == 0
            assert live_members(served.pid) == []

    after = doctor_records(demo)
    assert sorted(after.values()) == ["active", "superseded"], after
    winner = next(i for i, status in after.items() if status == "active")
    loser = next(i for i, status in after.items() if status == "superseded")
    private = demo / "private"
    events = [
        json.loads(line)
        for shard in sorted((private / "events").glob("*.jsonl"))
        for line in shard.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    decided = [e for e in events if e["action"] == "decide"]
    assert len(decided) == 1 and decided[0]["actor"] == OWNER
    assert loser in decided[0]["memory_ids"] and winner in decided[0]["memory_ids"]
    moves = [e for e in events if loser in e["memory_ids"] and e["action"] != "decide"]
    assert [(e["from"], e["to"]) for e in moves][-2:] == [
        ("conflict", "active"),
        ("active", "superseded"),
    ]
    decision = json.loads((private / "decisions" / f"{decided[0]['decision']}.json").read_text())
    assert decision["actor"] == OWNER
    assert int(git(private, "rev-list", "--count", "HEAD")) == commits_before + 1
    assert git(private, "log", "-1", "--format=%an %s").startswith(f"{OWNER} decide conflict-")
    doctor_clean(demo)


@needs_memgov
def test_the_sessions_command_is_quoted_word_by_word(tmp_path: Path) -> None:
    """Run through the shell as textual-serve runs it, a path and an actor full of
    shell syntax arrive as one word each: the desk names the missing store exactly
    and nothing else ran."""
    missing = tmp_path / "a b'$(touch pwned)`touch pwned2`;touch pwned3" / "none"
    actor = "-x'; touch pwned4 #"
    command = desk_command([str(missing)], actor)
    done = subprocess.run(
        ["/bin/sh", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=DEADLINE
    )
    assert done.returncode == 2, done.stderr
    assert f"{missing}: not a memgov store" in done.stderr
    assert not list(tmp_path.glob("pwned*"))
    assert command.startswith("exec ") and f"{sys.executable}" in command


def test_the_working_folder_is_not_on_the_sessions_import_path(tmp_path: Path) -> None:
    """A store folder may be anyone's: serving from inside one must not import its
    ``tui`` or ``core`` (``python -P``)."""
    (tmp_path / "tui").mkdir()
    (tmp_path / "tui" / "__init__.py").write_text("raise SystemExit('planted tui ran')\n")
    (tmp_path / "tui" / "cli.py").write_text("raise SystemExit('planted tui ran')\n")
    done = subprocess.run(
        ["/bin/sh", "-c", desk_command([str(tmp_path / "none")], "someone")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert "planted" not in done.stderr
    assert "not a memgov store" in done.stderr


def test_loopback_or_a_warning() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
        assert exposure_warning(host, 8000, "liys05") is None
    for host in ("0.0.0.0", "::", "192.168.1.5", "10.0.0.1"):
        assert not is_loopback(host), host
        warning = exposure_warning(host, 8000, "liys05")
        assert warning is not None
        assert "warning" in warning and host in warning and "liys05" in warning


@needs_memgov
@pytest.mark.parametrize("host", ["0.0.0.0", "::", "[::]"])
def test_a_wildcard_host_is_refused(demo_template: Path, host: str) -> None:
    """Every interface, but the page names one address for its websocket: refused,
    saying what to give instead, before anything listens."""
    done = subprocess.run(
        [str(MEMGOV), "serve", f"--store={demo_template}", "--as=liys05", f"--host={host}"],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "listens on every interface" in done.stderr and "--host" in done.stderr
    assert done.stdout == ""


def test_only_the_desks_own_page_opens_the_websocket() -> None:
    allowed = allowed_netlocs("127.0.0.1", 8000)
    assert same_site("127.0.0.1:8000", "http://127.0.0.1:8000", allowed)
    # the page reached by another of this machine's names for itself
    assert same_site("127.0.0.1:8000", "http://localhost:8000", allowed)
    assert same_site("[::1]:8000", "http://[::1]:8000", allowed)
    assert not same_site("127.0.0.1:8000", "http://evil.example", allowed)
    assert not same_site("127.0.0.1:8000", "http://127.0.0.1:8001", allowed)
    assert not same_site("127.0.0.1:8000", "https://127.0.0.1:8000", allowed)
    assert not same_site("127.0.0.1:8000", None, allowed)
    assert not same_site("127.0.0.1:8000", "null", allowed)
    # DNS rebinding: a name an attacker points at 127.0.0.1, page and socket alike
    assert not same_site("evil.example:8000", "http://evil.example:8000", allowed)
    assert not same_site(None, "http://127.0.0.1:8000", allowed)
    assert not same_site("127.0.0.1:port", "http://127.0.0.1:8000", allowed)
    lan = allowed_netlocs("192.168.1.5", 8000)
    assert same_site("192.168.1.5:8000", "http://192.168.1.5:8000", lan)
    assert not same_site("localhost:8000", "http://localhost:8000", lan)
