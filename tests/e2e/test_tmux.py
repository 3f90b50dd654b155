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


#: clearing the demo's queue top-down, one item at a time: (keys on the queue, what the
#: item view shows, the keys of the decision, the items left afterwards)
CLEAR_THE_DEMO = (
    (["Enter"], "Newer wins", ["n"], 9),  # the doctor conflict: the newer record wins
    # the note that holds a token: corrected (its redacted text), which erases the old
    # file, discards the pending batch and moves the token-blocked promotion request
    (["Enter"], "Correct", ["c", "C-s"], 7),
    (["Enter"], "Newer wins", ["n"], 6),  # the team's deploy-command conflict
    (["Enter"], "Approve", ["a"], 5),  # promote Package manager
    (["Enter"], "Erase", ["a"], 4),  # delete Home city, for good
    (["Enter"], "Expire", ["e"], 3),  # the merge freeze the user says was called off
    # a README's "note to AI assistants", held by the gate: discarded
    (["Enter"], "Discard", ["x"], 2),
    # the agent's team note with a staging address: kept as a private memory (the team
    # store would take the address off this machine; the private store never does)
    (["Enter"], "Keep", ["k"], 1),
    # the moved request, for the corrected CI note: withdrawn (its source is a file of the
    # private store, which a team copy could not resolve: the confirmation would say so)
    (["Enter"], "Withdraw", ["w"], 0),
)


def waiting(n: int) -> str:
    return f"{n} item{'' if n == 1 else 's'} waiting"


def test_clear_the_demo_queue_top_down_and_nothing_goes_unannounced(tmp_path: Path) -> None:
    """Every item of the demo decided from the top of the queue with real keys; what the
    stores say was discarded, closed, opened or erased by the decisions was each on the
    screen first (the confirmation) or with the decision (its notification)."""
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "GIT_CONFIG_GLOBAL": str(tmp_path / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "TMUX_SOCKET": f"memgov-clear-{os.getpid()}",
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
    shown: list[str] = []  # every screen captured: the confirmations and notifications
    command = f"{MEMGOV} review --store {demo} --as liys05"
    tmux("new-session", "-d", "-s", "desk", "-x", "120", "-y", "50", command, env=env)
    try:
        wait_for(waiting(10), env)
        time.sleep(0.5)  # keys typed in the terminal's first instants can be taken as a reply
        for open_keys, view, decision_keys, left in CLEAR_THE_DEMO:
            for key in open_keys:
                tmux("send-keys", "-t", "desk", key, env=env)
            wait_for(view, env)
            for key in decision_keys:
                time.sleep(0.3)
                tmux("send-keys", "-t", "desk", key, env=env)
            shown.append(wait_for("Reason (enter to accept", env))
            tmux("send-keys", "-t", "desk", "Enter", env=env)
            shown.append(wait_for(waiting(left), env, timeout=60))
            shown.append(wait_for("Decided", env))
            time.sleep(0.5)
        tmux("send-keys", "-t", "desk", "q", env=env)
        time.sleep(0.5)
    finally:
        tmux("kill-server", env=env)
    on_screen = " ".join(shown)
    said: dict[str, set[str]] = {"discarded": set(), "closed": set(), "opened": set()}
    erased: set[str] = set()
    for store in (demo / "private", demo / "team"):
        for shard in sorted((store / "events").glob("*.jsonl")):
            for line in shard.read_text(encoding="utf-8").splitlines():
                event = json.loads(line)
                if event["action"] == "batch-discarded":
                    said["discarded"] |= set(event["details"]["batches"])
                elif event["action"] == "request-closed":
                    said["closed"].add(event["request"])
                elif event["action"] == "request-promote" and event.get("details"):
                    said["opened"].add(event["request"])  # moved, not filed by someone
                elif event.get("to") == "deleted":
                    erased |= set(event["memory_ids"])
    assert said["discarded"] and said["closed"] and said["opened"] and erased
    unannounced = {what: sorted(i for i in ids if i not in on_screen) for what, ids in said.items()}
    assert unannounced == {"discarded": [], "closed": [], "opened": []}, on_screen
    assert sorted(i for i in erased if i not in on_screen) == []
    # and the stores are as decided: nothing open, the team has both promoted notes
    queue = subprocess.run(
        [str(MEMGOV), "queue", "--store", str(demo), "--json"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert json.loads(queue) == []
    team = subprocess.run(
        [str(MEMGOV), "list", "--store", str(demo / "team"), "--json"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    attributes = {m["attribute"] for m in json.loads(team) if m["status"] == "active"}
    assert {"deploy_command", "package_manager"} <= attributes
    assert "ci_registry_auth" not in attributes
    log = subprocess.run(
        ["git", "log", "-p", "--all"], cwd=demo / "team", env=env, capture_output=True
    ).stdout
    assert b"ghp_" not in log
    assert b"10.0.4.12" not in log  # the held team note's address never reached the team
    private_log = subprocess.run(
        ["git", "log", "-p", "--all"], cwd=demo / "private", env=env, capture_output=True
    ).stdout
    assert b"The staging database runs on 10.0.4.12" in private_log  # kept, as it is
    doctor = subprocess.run(
        [str(MEMGOV), "doctor", "--store", str(demo)], env=env, capture_output=True, text=True
    )
    assert doctor.returncode == 0, doctor.stdout  # the note's token is gone too
