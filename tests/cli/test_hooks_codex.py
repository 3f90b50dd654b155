"""The hooks as Codex runs them: each event's JSON with the fields Codex's hook
schemas give it (``codex-rs/hooks/schema/generated/*.command.input.schema.json``)
on standard input, the session's folder as the current folder, HOME a temporary
folder, and the command ``memgov setup codex`` wrote.

SessionStart prints the index; UserPromptSubmit logs the prompt; PostToolUse logs
the shell's output (Codex calls its shell ``Bash`` in a hook, older versions
``shell`` or ``exec_command``) and an MCP tool's result as ``tool``, and not the
agent's own ``apply_patch``; Stop (``turn-end``) reads the rollout into the daily
logs, a turn at a time (a second Stop adds only what the rollout gained), syncs
``~/.codex/memories``, prints nothing and exits 0 whatever it is given.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ACTOR, commit_count, demo_token

from core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
MEMGOV = Path(sys.executable).parent / "memgov"
THREAD = "0199c0de-1234-7abc-8def-0123456789ab"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    return folder


def rollout_path(home: Path) -> Path:
    return home / ".codex" / "sessions" / "2026" / "03" / "15" / f"rollout-{THREAD}.jsonl"


def codex_event(name: str, project: Path, home: Path, **fields: Any) -> str:
    """An event as Codex serialises it: the common fields, then the event's own."""
    return json.dumps(
        {
            "session_id": THREAD,
            "turn_id": "turn-0001",
            "transcript_path": str(rollout_path(home)),
            "cwd": str(project),
            "hook_event_name": name,
            "model": "gpt-5-codex",
            "permission_mode": "default",
            **fields,
        }
    )


def hook_commands(store: Path, project: Path, home: Path) -> dict[str, str]:
    """The command of each event, as ``memgov setup codex`` writes them."""
    done = subprocess.run(
        [str(MEMGOV), "setup", "codex", "--store", str(store), "--as", ACTOR],
        capture_output=True,
        text=True,
        cwd=project,
        env={**environ(home)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in hooks.items()}


def environ(home: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "MEMGOV_ACTOR": ""}
    env.pop("CODEX_HOME", None)
    return env


def as_codex(command: str, stdin: str | bytes, project: Path, home: Path) -> Any:
    """Run a hook's command as Codex does: through the shell, the event on stdin."""
    done = subprocess.run(
        command,
        shell=True,
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        cwd=project,
        env=environ(home),
        timeout=60,
    )
    done.stdout, done.stderr = done.stdout.decode(), done.stderr.decode()
    return done


def logged(store: Path) -> list[str]:
    return [
        line
        for path in sorted((store / "logs").rglob("*.md"))
        for line in path.read_text("utf-8").splitlines()
        if line.startswith("- [")
    ]


def line(kind: str, payload: dict[str, Any], minute: int) -> str:
    return json.dumps(
        {"timestamp": f"2026-03-15T09:{minute:02d}:00.000Z", "type": kind, "payload": payload}
    )


def turn(prompt: str, command: str, output: str, answer: str, minute: int) -> list[str]:
    """One turn of a rollout as Codex writes it."""
    call = f"call_{minute}"
    said = [{"type": "input_text", "text": prompt}]
    return [
        line("response_item", {"type": "message", "role": "user", "content": said}, minute),
        line("event_msg", {"type": "user_message", "message": prompt, "images": []}, minute),
        line(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": command}),
                "call_id": call,
            },
            minute,
        ),
        line(
            "response_item",
            {"type": "function_call_output", "call_id": call, "output": output},
            minute,
        ),
        line(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": answer}],
            },
            minute,
        ),
        line("event_msg", {"type": "token_count", "info": None}, minute),
    ]


def session_meta(project: Path) -> str:
    return line(
        "session_meta",
        {"id": THREAD, "timestamp": "2026-03-15T09:00:00.000Z", "cwd": str(project)},
        0,
    )


def test_each_codex_event_runs_its_hook_as_setup_wrote_it(
    store: Store, project: Path, home: Path
) -> None:
    commands = hook_commands(store.root, project, home)
    assert set(commands) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}

    start = as_codex(
        commands["SessionStart"],
        codex_event("SessionStart", project, home, source="startup", transcript_path=None),
        project,
        home,
    )
    assert start.returncode == 0 and start.stderr == "", start.stderr
    assert start.stdout.startswith("memgov: the governed memory index.")

    token = demo_token("ghp_", 36, seed=11)
    prompt = as_codex(
        commands["UserPromptSubmit"],
        codex_event("UserPromptSubmit", project, home, prompt=f"deploy with {token} now"),
        project,
        home,
    )
    assert prompt.returncode == 0 and prompt.stderr == "", prompt.stderr

    def tool(name: str, tool_input: Any, response: Any) -> None:
        fields = {"tool_input": tool_input, "tool_response": response}
        done = as_codex(
            commands["PostToolUse"],
            codex_event(
                "PostToolUse", project, home, tool_name=name, tool_use_id="call_9", **fields
            ),
            project,
            home,
        )
        assert done.returncode == 0 and done.stderr == "" and done.stdout == "", done.stderr

    tool("Bash", {"command": "curl -s https://status.example.com"}, "all systems go\n")
    tool("exec_command", {"cmd": "uname -a"}, "Linux box 6.1\n")
    tool("shell", {"command": ["bash", "-lc", "cat /etc/hostname"]}, "box\n")
    tool(
        "mcp__docs__search",
        {"query": "retry policy"},
        {"content": [{"type": "text", "text": "Retries back off to 30 s."}], "isError": False},
    )
    tool("apply_patch", {"command": "*** Begin Patch\n*** End Patch"}, "Success.")
    tool("mcp__memgov__recall", {"subject_prefix": "project:shop"}, {"content": []})

    lines = logged(store.root)
    task = [line for line in lines if "user: deploy with" in line]
    assert task and re.search(r"\[secret: github-pat #[0-9a-f]{12}\]", task[0])
    assert token not in "\n".join(lines)
    tools = [line for line in lines if " tool: " in line]
    assert [re.sub(r"^- \[\d+\] \d\d:\d\d tool: ", "", t) for t in tools] == [
        "Bash curl -s https://status.example.com: all systems go",
        "exec_command uname -a: Linux box 6.1",
        "shell bash -lc cat /etc/hostname: box",
        "mcp__docs__search retry policy: Retries back off to 30 s.",
    ]
    assert not any("apply_patch" in line or "mcp__memgov__" in line for line in lines)


def test_the_stop_hook_reads_the_rollout_a_turn_at_a_time(
    store: Store, project: Path, home: Path
) -> None:
    command = hook_commands(store.root, project, home)["Stop"]
    rollout = rollout_path(home)
    rollout.parent.mkdir(parents=True)
    said = turn("Use sqlite for the cache", "ls", "go.mod\nmain.go\n", "Done: sqlite it is.", 1)
    first = [session_meta(project), *said]
    rollout.write_text("\n".join(first) + "\n")
    stop = codex_event(
        "Stop", project, home, stop_hook_active=False, last_assistant_message="Done: sqlite it is."
    )

    done = as_codex(command, stop, project, home)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done.stderr
    lines = logged(store.root)
    assert sum(" user: Use sqlite for the cache" in line for line in lines) == 1
    assert any(" assistant: Done: sqlite it is." in line for line in lines)
    assert any(" tool: go.mod main.go" in line for line in lines)
    commits = commit_count(store.root)

    again = as_codex(command, stop, project, home)  # the same rollout: nothing to add
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert commit_count(store.root) == commits and logged(store.root) == lines

    with rollout.open("a") as out:  # the next turn
        out.write("\n".join(turn("and add a test", "go test ./...", "ok\n", "Added.", 2)) + "\n")
    grown = as_codex(command, stop, project, home)
    assert grown.returncode == 0 and grown.stderr == "", grown.stderr
    now = logged(store.root)
    assert len(now) == len(lines) + 4  # the prompt, the call, its output, the answer
    assert sum(" user: Use sqlite for the cache" in line for line in now) == 1
    assert sum(" user: and add a test" in line for line in now) == 1


def test_the_stop_hook_syncs_the_codex_memories_folder(
    store: Store, project: Path, home: Path
) -> None:
    command = hook_commands(store.root, project, home)["Stop"]
    shutil.copytree(
        ROOT / "tests" / "fixtures" / "codex" / "memories", home / ".codex" / "memories"
    )
    before = len(Store(store.root).memories)
    stop = codex_event(
        "Stop",
        project,
        home,
        transcript_path=None,
        stop_hook_active=False,
        last_assistant_message=None,
    )
    done = as_codex(command, stop, project, home)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done.stderr
    assert len(Store(store.root).memories) > before


@pytest.mark.parametrize(
    "fields",
    [
        {"transcript_path": "/etc/passwd"},  # not a rollout: not read
        {"transcript_path": 42},
        {"transcript_path": "relative/rollout.jsonl"},
    ],
    ids=["not-jsonl", "not-a-string", "missing-file"],
)
def test_a_stop_with_no_rollout_to_read_does_nothing_and_exits_0(
    store: Store, project: Path, home: Path, fields: dict[str, Any]
) -> None:
    command = hook_commands(store.root, project, home)["Stop"]
    commits = commit_count(store.root)
    done = as_codex(command, codex_event("Stop", project, home, **fields), project, home)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done.stderr
    assert commit_count(store.root) == commits


def test_a_rollout_that_is_not_one_adds_nothing_and_the_turn_goes_on(
    store: Store, project: Path, home: Path
) -> None:
    command = hook_commands(store.root, project, home)["Stop"]
    rollout = rollout_path(home)
    rollout.parent.mkdir(parents=True)
    rollout.write_text('{"not": "a rollout"}\n')
    commits = commit_count(store.root)
    done = as_codex(command, codex_event("Stop", project, home), project, home)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == "", done.stderr
    assert commit_count(store.root) == commits  # read as a rollout: no message in it
    bad = as_codex(command, b"{" * 100_000, project, home)
    assert bad.returncode == 0 and "the event is not JSON" in bad.stderr
