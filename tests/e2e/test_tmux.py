"""End to end in a real terminal: the installed ``memgov`` in tmux, real keys."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support_desk import DEMO_SECRET_NOTE
from support_screen import REASON, queue_shown, waiting
from support_tmux import Desk

MEMGOV = Path(sys.executable).with_name("memgov")
pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None or not MEMGOV.exists(),
    reason="needs tmux and the installed memgov console script",
)


def test_resolve_a_conflict_with_real_keys(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "GIT_CONFIG_GLOBAL": str(tmp_path / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
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
    desk = Desk(f"memgov-test-{os.getpid()}", env)
    desk.start(f"{MEMGOV} review --store {demo} --as liys05", (100, 30))
    try:
        desk.ready(10)
        # past the demo's old secret, to the team's deploy-command conflict
        desk.down_to("#deploy_command")
        desk.send("Enter")
        screen = desk.wait_for("Newer wins")
        assert "deploy_command" in screen
        desk.send("n")
        desk.wait_for(REASON)
        desk.send("Enter")
        desk.wait_for("Decided")
        desk.until(lambda s: queue_shown(s, 9), "the queue of 9")
        desk.quit()
    finally:
        desk.close()
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


#: clearing the demo's queue top-down, one item at a time: (the item on top, as the
#: queue's preview names it; what its view shows; the keys of the decision, each with
#: what shows once it is taken; the items left afterwards)
CLEAR_THE_DEMO = (
    # the doctor conflict: the newer record wins
    ("user:liys05 #doctor", "Newer wins", [("n", REASON)], 9),
    # the pending consolidation batch, before the first item that would discard it
    # (core.review.losses): approved as it is, so nothing discards it
    ("consolidation: 2 changes", "Decide as marked", [("a", REASON)], 8),
    # the note that holds a token: corrected (its redacted text), which erases the old
    # file and moves the token-blocked promotion request
    ("secret in a record", "Correct", [("c", "ctrl+s"), ("C-s", REASON)], 7),
    ("#deploy_command", "Newer wins", [("n", REASON)], 6),  # the team's deploy-command conflict
    ("Package mana", "Approve", [("a", REASON)], 5),  # promote Package manager
    ("Home city", "Erase", [("e", REASON)], 4),  # delete Home city, for good
    ("Merge freeze", "Expire", [("e", REASON)], 3),  # the merge freeze called off
    # a README's "note to AI assistants", held by the gate: discarded
    ("Deploy preflight", "Discard", [("x", REASON)], 2),
    # the agent's team note with a staging address: kept as a private memory (the team
    # store would take the address off this machine; the private store never does)
    ("Staging", "Keep", [("K", REASON)], 1),
    # the moved request, for the corrected CI note: withdrawn (its source is a file of the
    # private store, which a team copy could not resolve: the confirmation would say so)
    ("CI registry", "Withdraw", [("w", REASON)], 0),
)


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
    desk = Desk(f"memgov-clear-{os.getpid()}", env)
    desk.start(f"{MEMGOV} review --store {demo} --as liys05", (120, 50))
    try:
        desk.ready(10)
        for top, view, decision_keys, left in CLEAR_THE_DEMO:
            desk.until(lambda s, top=top: top in desk.selected(), f"{top!r} on top")
            desk.send("Enter")
            desk.wait_for(view)
            for key, next_shown in decision_keys:
                desk.send(key)
                screen = desk.wait_for(next_shown)
            shown.append(screen)  # the confirmation
            since = len(desk.seen)
            desk.send("Enter")
            # the notification comes first, then the queue read again: every screen read
            # between is looked at, so a notification gone before the queue is back counts
            queue = desk.until(
                lambda s, left=left, since=since: (
                    queue_shown(s, left) and decided(desk.seen[since:])
                ),
                f"the decision's notification and {waiting(left)}",
            )
            shown.extend(s for s in desk.seen[since:] if "Decided" in s)  # the notification
            shown.append(queue)
        desk.quit()
    finally:
        desk.close()
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
    # top-down, the batch is decided before anything would discard it
    assert not said["discarded"]
    assert said["closed"] and said["opened"] and erased
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


def decided(screens: list[str]) -> bool:
    """The decision's notification in one of ``screens``."""
    return any("Decided" in s for s in screens)
