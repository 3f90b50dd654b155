"""End to end in a real terminal: the installed ``memgov`` in tmux, real keys."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support_desk import DEMO_SECRET_NOTE

MEMGOV = Path(sys.executable).with_name("memgov")
pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None or not MEMGOV.exists(),
    reason="needs tmux and the installed memgov console script",
)


def tmux(*args: str, env: dict[str, str]) -> str:
    return subprocess.run(
        ["tmux", "-L", env["TMUX_SOCKET"], *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    ).stdout


def wait_for(text: str, env: dict[str, str], timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", "desk", env=env)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def test_resolve_a_conflict_with_real_keys(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "GIT_CONFIG_GLOBAL": str(tmp_path / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "TMUX_SOCKET": f"memgov-test-{os.getpid()}",
    }
    env.pop("TMUX", None)
    (tmp_path / ".gitconfig").write_text("")
    demo = tmp_path / "demo"
    subprocess.run(
        [str(MEMGOV), "demo", "--store", str(demo), "--no-open"],
        env=env,
        check=True,
        capture_output=True,
    )
    command = f"{MEMGOV} review --store {demo} --as liys05"
    tmux("new-session", "-d", "-s", "desk", "-x", "100", "-y", "30", command, env=env)
    try:
        wait_for("items waiting", env)
        time.sleep(0.5)  # keys typed in the terminal's first instants can be taken as a reply
        # past the demo's old secret, to the team's deploy-command conflict
        for _ in range(2):
            tmux("send-keys", "-t", "desk", "j", env=env)
            time.sleep(0.3)  # one key, one cursor move: the desk redraws in between
        tmux("send-keys", "-t", "desk", "Enter", env=env)
        screen = wait_for("Newer wins", env)
        assert "deploy_command" in screen
        tmux("send-keys", "-t", "desk", "n", env=env)
        wait_for("Reason", env)
        tmux("send-keys", "-t", "desk", "Enter", env=env)
        wait_for("Decided", env)
        tmux("send-keys", "-t", "desk", "q", env=env)
        time.sleep(0.5)
    finally:
        tmux("kill-server", env=env)
    listed = subprocess.run(
        [str(MEMGOV), "list", "--store", str(demo / "team"), "--json"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    deploy = {
        m["content"]: m["status"] for m in json.loads(listed) if m["attribute"] == "deploy_command"
    }
    assert deploy == {
        "部署命令是 `npm run deploy`。": "superseded",
        "部署命令是 `bash deploy.sh`。": "active",
    }
    log = subprocess.run(
        ["git", "log", "-1", "--format=%an %s"],
        cwd=demo / "team",
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert log.startswith("liys05 decide conflict-")
    doctor = subprocess.run(
        [str(MEMGOV), "doctor", "--store", str(demo)], env=env, capture_output=True, text=True
    )
    # exit 1 for one thing only: the demo's old note that holds a (fake) token on purpose
    errors = [line for line in doctor.stdout.splitlines() if line.strip().startswith("error")]
    assert doctor.returncode == 1 and len(errors) == 1, doctor.stdout
    assert DEMO_SECRET_NOTE in errors[0] and "holds a credential" in errors[0]
