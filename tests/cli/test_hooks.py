"""The hooks as Claude Code runs them, and ``memgov setup claude-code``.

Each hook runs as a subprocess of the installed ``memgov`` entry point with the
event's JSON (the fields Claude Code documents for it) on standard input, the
project as its current folder, HOME a temporary folder, and a timeout; the store
is checked afterwards (the log lines and their roles, no credential on disk) and
so is what the hook printed (the index within Claude Code's caps). A hook never
fails the session: bad input is one line on standard error, exit 0, nothing written.
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
from conftest import ACTOR, DEMO_TOKEN, add_memories, commit_count, demo_token

from core.domain.record import TRUST
from core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
MEMGOV = Path(sys.executable).parent / "memgov"
SESSION = "5f3c1a2e-9b7d-4c61-8e0f-2a4b6c8d0e1f"
#: Claude Code's caps on what a session loads at its start, and on a hook's output
MAX_LINES, MAX_BYTES, MAX_CHARS = 200, 25_000, 10_000


def run(
    args: list[str], *, cwd: Path, home: Path, stdin: bytes | str = b"", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    result = subprocess.run(
        [str(MEMGOV), *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        timeout=timeout,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "HOME": str(home),
            "MEMGOV_ACTOR": "",
        },
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8"),
        result.stderr.decode("utf-8"),
    )


def event(name: str, project: Path, **fields: Any) -> str:
    return json.dumps(
        {
            "session_id": SESSION,
            "transcript_path": str(project.parent / "transcript.jsonl"),
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": name,
            **fields,
        }
    )


def hook(
    name: str, store: Path, project: Path, stdin: bytes | str
) -> subprocess.CompletedProcess[str]:
    return run(
        ["hook", name, "--store", str(store), "--as", ACTOR],
        cwd=project,
        home=project.parent,
        stdin=stdin,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def logged(store: Path) -> list[str]:
    """Every message line of the store's daily logs."""
    return [
        line
        for path in sorted((store / "logs").rglob("*.md"))
        for line in path.read_text("utf-8").splitlines()
        if line.startswith("- [")
    ]


def every_text(root: Path) -> str:
    """Every file of the store's working tree, and its git history as patches."""
    parts = [
        p.read_bytes().decode("utf-8", "replace")
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    ]
    history = subprocess.run(
        ["git", "-C", str(root), "log", "-p", "--all"], capture_output=True, text=True
    ).stdout
    return "\n".join([*parts, history])


# -------------------------------------------------------------- SessionStart
def within_caps(text: str) -> None:
    assert len(text.splitlines()) <= MAX_LINES
    assert len(text.encode("utf-8")) <= MAX_BYTES
    assert len(text) <= MAX_CHARS


def test_session_start_prints_the_governed_index_by_type(demo: Path, project: Path) -> None:
    result = hook("session-start", demo, project, event("SessionStart", project, source="startup"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    within_caps(out)
    assert out.startswith("memgov: the governed memory index.")
    assert DEMO_TOKEN not in out
    for scope in ("private", "team"):
        store = Store(demo / scope)
        listed = re.findall(r"\]\((memories/[^)]+)\)", out)
        assert listed
        for memory in store.memories.values():
            if memory.status != "active":
                assert f"]({memory.path})" not in out, memory.id
    # each type's heading says where it is injected and how far it is trusted
    for kind in ("preference", "semantic"):
        position, trust, _check = TRUST[kind]
        assert f"## {kind}: injected as {position}; trust: {trust}" in out


def test_session_start_keeps_within_the_caps_on_a_big_store(store: Store, project: Path) -> None:
    from conftest import _make_memory

    memories = [
        _make_memory(
            id=f"m-{i:04d}",
            type=("preference", "semantic", "reflection")[i % 3],
            attribute=f"attribute_{i}",
            title=f"A memory with a long title number {i} " + "x" * 60,
            condition="on the staging cluster" if i % 5 == 0 else None,
            content=f"The content of memory {i}, " + "long " * 40,
        )
        for i in range(260)
    ]
    add_memories(store, *memories)
    result = hook("session-start", store.root, project, event("SessionStart", project))
    assert result.returncode == 0, result.stderr
    within_caps(result.stdout)
    last = result.stdout.splitlines()[-1]
    assert re.match(r"^- … and [\d,]+ more not listed here: recall them by subject", last)
    assert "(on the staging cluster)" in result.stdout  # the condition is in the line


# ---------------------------------------------------------- UserPromptSubmit
def test_the_prompt_is_logged_as_the_users_message_redacted(demo: Path, project: Path) -> None:
    token = demo_token("ghp_", 36, seed=7)
    prompt = f"deploy with {token} and check project:liyyro please"
    result = hook("user-prompt", demo, project, event("UserPromptSubmit", project, prompt=prompt))
    assert result.returncode == 0, result.stderr
    lines = [line for line in logged(demo / "private") if "deploy with" in line]
    assert len(lines) == 1
    assert re.match(
        r"^- \[0\] \d\d:\d\d user: deploy with \[secret: github-pat #[0-9a-f]{12}\] and", lines[0]
    )
    assert token not in every_text(demo / "private")
    log = next(
        p for p in (demo / "private" / "logs").rglob("*.md") if "deploy with" in p.read_text()
    )
    assert f"## task {SESSION}" in log.read_text()
    # the recall of the subject the prompt names, small, as context
    assert "memories of the subjects this prompt names" in result.stdout
    assert "project:liyyro" in result.stdout and len(result.stdout) <= 2_100
    # a second prompt of the session takes the next index
    hook("user-prompt", demo, project, event("UserPromptSubmit", project, prompt="and then?"))
    assert any(
        re.match(r"^- \[1\] \d\d:\d\d user: and then\?$", line) for line in logged(demo / "private")
    )


# --------------------------------------------------------------- PostToolUse
def tool_event(project: Path, tool: str, tool_input: Any, response: Any) -> str:
    return event(
        "PostToolUse",
        project,
        tool_name=tool,
        tool_input=tool_input,
        tool_response=response,
        tool_use_id="toolu_01ABC",
    )


def test_what_came_from_outside_is_logged_with_its_role(
    store: Store, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "notes.txt"
    page = "The API moved to v3. " * 400  # long: an excerpt with a hash
    cases = [
        (
            "WebFetch",
            {"url": "https://docs.example.com/api", "prompt": "what changed"},
            {"result": page, "url": "https://docs.example.com/api", "code": 200},
            "web",
        ),
        (
            "WebSearch",
            {"query": "example api v3"},
            {"query": "example api v3", "results": [{"title": "v3", "url": "https://x.example"}]},
            "web",
        ),
        (
            "Read",
            {"file_path": str(outside)},
            {"type": "text", "file": {"filePath": str(outside), "content": "ssh host is db7"}},
            "file",
        ),
        (
            "Bash",
            {"command": "kubectl get pods"},
            {"stdout": "api-7f 1/1 Running", "stderr": "", "interrupted": False},
            "tool",
        ),
        (
            "mcp__github__get_issue",
            {"number": 3},
            [{"type": "text", "text": "issue 3: flaky test"}],
            "tool",
        ),
        (
            "Task",
            {"description": "explore", "prompt": "find the config"},
            {"content": [{"type": "text", "text": "config is in deploy/"}]},
            "agent",
        ),
    ]
    for tool, tool_input, response, _role in cases:
        result = hook(
            "post-tool", store.root, project, tool_event(project, tool, tool_input, response)
        )
        assert result.returncode == 0 and result.stdout == "", result.stderr
    lines = logged(store.root)
    said = [re.match(r"^- \[(\d+)\] \d\d:\d\d (\w+): (\w+)", line) for line in lines]
    assert [(m[1], m[2], m[3]) for m in said if m] == [
        (str(i), role, tool) for i, (tool, _in, _out, role) in enumerate(cases)
    ]
    web = lines[0]
    assert "https://docs.example.com/api" in web and "sha256 " in web and len(web) < 2_400
    assert "ssh host is db7" in lines[2] and "api-7f 1/1 Running" in lines[3]


def test_the_projects_own_files_and_memgovs_own_tools_are_not_logged(
    store: Store, project: Path
) -> None:
    inside = project / "src" / "app.py"
    for tool, tool_input in (
        ("Read", {"file_path": str(inside)}),
        ("Read", {"file_path": "src/app.py"}),
        ("mcp__memgov__recall", {"subject": "project:x"}),
        ("Edit", {"file_path": str(inside)}),
    ):
        result = hook("post-tool", store.root, project, tool_event(project, tool, tool_input, "x"))
        assert result.returncode == 0, result.stderr
    assert logged(store.root) == []


# ---------------------------------------------------------------- SessionEnd
def test_session_end_syncs_the_projects_memory_folder(store: Store, project: Path) -> None:
    encoded = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    folder = project.parent / ".claude" / "projects" / encoded / "memory"
    shutil.copytree(ROOT / "tests" / "fixtures" / "claude_code" / "liyyro", folder)
    before = len(Store(store.root).memories)
    result = hook("session-end", store.root, project, event("SessionEnd", project, reason="exit"))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert len(Store(store.root).memories) > before


# -------------------------------------------------- never blocking the session
@pytest.mark.parametrize(
    "stdin, note",
    [
        ("not json at all", "the event is not JSON"),
        ("[1, 2, 3]", "the event is not a JSON object"),
        (b"{" * 200_000, "the event is not JSON"),
        (b'{"prompt": "' + b"a" * (9 * 1024 * 1024) + b'"}', "over 8 MiB"),
    ],
    ids=["not-json", "a-list", "deeply-nested", "huge"],
)
def test_bad_input_is_a_note_and_nothing_written(
    store: Store, project: Path, stdin: str | bytes, note: str
) -> None:
    commits = commit_count(store.root)
    result = hook("user-prompt", store.root, project, stdin)
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and note in result.stderr
    assert result.stderr.startswith("memgov hook user-prompt: ")
    assert commit_count(store.root) == commits and logged(store.root) == []


def test_no_store_and_a_refused_write_are_notes_too(store: Store, project: Path) -> None:
    result = run(
        ["hook", "user-prompt"],
        cwd=project,
        home=project.parent,
        stdin=event("UserPromptSubmit", project, prompt="hello"),
    )
    assert result.returncode == 0 and "no store given" in result.stderr
    result = hook("session-start", project / "nowhere", project, event("SessionStart", project))
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.startswith("memgov hook session-start: ")


# ---------------------------------------------------------------------- setup
def setup(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(["setup", "claude-code", *args], cwd=project, home=home)


def test_setup_merges_with_what_is_there_is_idempotent_and_removed(
    store: Store, project: Path, tmp_path: Path
) -> None:
    settings = project / ".claude" / "settings.json"
    mcp = project / ".mcp.json"
    settings.parent.mkdir()
    theirs = {
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "PostToolUse": [
                {"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier"}]}
            ]
        },
    }
    settings.write_text(json.dumps(theirs, indent=2) + "\n")
    mcp.write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}, indent=2) + "\n")
    original = (settings.read_bytes(), mcp.read_bytes())

    first = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert first.returncode == 0, first.stderr
    data = json.loads(settings.read_text())
    assert data["permissions"] == theirs["permissions"]
    assert data["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"}
    server = json.loads(mcp.read_text())["mcpServers"]
    assert server["github"] == {"command": "gh-mcp"}
    assert server["memgov"]["args"] == ["mcp", "--store", str(store.root), "--as", ACTOR]
    written = (settings.read_bytes(), mcp.read_bytes())

    # the hook command as written runs, from the project, as Claude Code would
    command = data["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    ran = subprocess.run(
        command,
        shell=True,
        input=event("SessionStart", project),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)},
    )
    assert ran.returncode == 0 and ran.stdout.startswith("memgov: the governed"), ran.stderr

    again = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert again.returncode == 0 and "already in place" in again.stdout
    assert (settings.read_bytes(), mcp.read_bytes()) == written

    removed = setup(project, tmp_path, "--remove")
    assert removed.returncode == 0, removed.stderr
    assert (settings.read_bytes(), mcp.read_bytes()) == original


def test_setup_refuses_a_settings_file_that_is_not_json(
    store: Store, project: Path, tmp_path: Path
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": {"Stop": [}\n')
    result = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 2
    assert str(settings) in result.stderr and "not valid JSON" in result.stderr
    assert settings.read_text() == '{"hooks": {"Stop": [}\n'
    assert not (project / ".mcp.json").exists()


def test_setup_for_the_user_writes_under_home_only(
    store: Store, project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"numStartups": 4, "projects": {}}) + "\n")
    result = setup(project, home, "--user", "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 0, result.stderr
    user = json.loads((home / ".claude.json").read_text())
    assert user["numStartups"] == 4 and "memgov" in user["mcpServers"]
    assert "SessionStart" in json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    assert sorted(p.name for p in project.iterdir()) == []
    setup(project, home, "--user", "--remove")
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 4, "projects": {}}


# ------------------------------------------- the live log and the transcript
def transcript_line(uuid: str, role: str, text: str, minute: int) -> str:
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    return json.dumps(
        {
            "type": role,
            "sessionId": SESSION,
            "uuid": uuid,
            "isSidechain": False,
            "timestamp": f"2027-03-14T02:{minute:02d}:00.000Z",
            "message": {"role": role, "content": content},
        }
    )


def test_the_transcript_at_session_end_does_not_log_again_what_the_hooks_logged(
    store: Store, project: Path
) -> None:
    """The prompt the user-prompt hook logged live is in the session's transcript too:
    the session's end reads the transcript and adds only what the hooks had not."""
    prompt = "Use pnpm in this repository, never npm."
    reply = "Understood: pnpm from now on."
    transcript = project.parent / "transcript.jsonl"
    transcript.write_text(
        "\n".join(
            [transcript_line("u1", "user", prompt, 1), transcript_line("a1", "assistant", reply, 2)]
        )
        + "\n",
        encoding="utf-8",
    )
    said = hook(
        "user-prompt", store.root, project, event("UserPromptSubmit", project, prompt=prompt)
    )
    assert said.returncode == 0 and said.stderr == "", said.stderr
    for _ in range(2):  # a second end (a resumed session) adds nothing either
        end = hook("session-end", store.root, project, event("SessionEnd", project, reason="exit"))
        assert end.returncode == 0, end.stderr
        lines = logged(store.root)
        assert [line for line in lines if prompt in line] == [
            next(line for line in lines if prompt in line)
        ]
        assert " user: " in next(line for line in lines if prompt in line)
        assert len([line for line in lines if reply in line]) == 1
        assert " assistant: " in next(line for line in lines if reply in line)


def tool_lines(uuid: str, tool: str, tool_input: Any, content: Any, minute: int) -> list[str]:
    """A tool's call and its result, as a Claude Code transcript keeps them."""
    stamp = f"2027-03-14T02:{minute:02d}:00.000Z"
    base = {"sessionId": SESSION, "isSidechain": False, "timestamp": stamp}
    call = {"type": "tool_use", "id": f"toolu_{uuid}", "name": tool, "input": tool_input}
    result = {"type": "tool_result", "tool_use_id": f"toolu_{uuid}", "content": content}
    return [
        json.dumps({**base, "type": "assistant", "uuid": f"c{uuid}",
                    "message": {"role": "assistant", "content": [call]}}),
        json.dumps({**base, "type": "user", "uuid": f"r{uuid}",
                    "message": {"role": "user", "content": [result]}}),
    ]  # fmt: skip


def test_what_the_hooks_logged_from_tools_the_transcript_does_not_log_again(
    store: Store, project: Path
) -> None:
    """A long page (an excerpt, its hash kept), an MCP tool's short answer and a
    subagent's: PostToolUse logged each live; the session's end reads the transcript,
    which holds the same results, and adds none of them again."""
    token = demo_token("ghp_", 36, seed=11)
    page = "The API moved to v3; set " + token + ". " + "Each route changed. " * 300
    issue = [{"type": "text", "text": "issue 3: the flaky test is in ci/retry.sh"}]
    found = [{"type": "text", "text": "the config is in deploy/app.yaml"}]
    calls = [
        ("WebFetch", {"url": "https://docs.example.com/v3", "prompt": "what changed"},
         {"result": page, "url": "https://docs.example.com/v3", "code": 200}, page),
        ("mcp__github__get_issue", {"number": 3}, issue, issue),
        ("Task", {"description": "explore", "prompt": "find the config"},
         {"content": found, "totalTokens": 12}, found),
    ]  # fmt: skip
    lines = [transcript_line("u1", "user", "Check the API docs", 1)]
    for n, (tool, tool_input, response, content) in enumerate(calls):
        result = hook(
            "post-tool", store.root, project, tool_event(project, tool, tool_input, response)
        )
        assert result.returncode == 0 and result.stderr == "", result.stderr
        lines += tool_lines(str(n), tool, tool_input, content, 2 + n)
    lines.append(transcript_line("a9", "assistant", "The API moved to v3.", 9))
    (project.parent / "transcript.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    live = logged(store.root)
    assert len(live) == 3 and " … [excerpt: " in live[0] and token not in live[0]
    for _ in range(2):  # a second end (a resumed session) adds nothing either
        end = hook("session-end", store.root, project, event("SessionEnd", project, reason="exit"))
        assert end.returncode == 0, end.stderr
        after = logged(store.root)
        assert [line for line in after if " web: " in line] == [live[0]]  # the page once
        assert [line for line in after if "ci/retry.sh" in line] == [live[1]]
        assert [line for line in after if "deploy/app.yaml" in line] == [live[2]]
        # what the hooks do not see is logged from the transcript: the prompt, the
        # calls and the reply (7 messages)
        assert len(after) == 3 + 1 + 3 + 1, after
        assert any(" user: Check the API docs" in line for line in after)
    assert token not in every_text(store.root)
