"""memgov's entries in Claude Code's settings, merged as pure data: another tool's
hooks and servers stay, memgov's own are replaced and never doubled, a second merge
changes nothing, removal takes out memgov's alone; a file that is not a JSON object
is refused and never written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.importers.claude_code.settings import (
    HOOKS,
    SettingsError,
    is_memgov_hook,
    memgov_groups,
    memory_folder,
    merge_hooks,
    merge_server,
    read_settings,
    remove_hooks,
    remove_server,
    setup_claude_code,
)

PROGRAM = "/opt/memgov/.venv/bin/memgov"
OTHER = {"type": "command", "command": "npx lint-on-save", "timeout": 30}


def settings_with_others() -> dict[str, Any]:
    return {
        "permissions": {"allow": ["Bash(git status)"]},
        "hooks": {
            "PostToolUse": [{"matcher": "Edit|Write", "hooks": [OTHER]}],
            "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
        },
        "model": "opus",
    }


def test_a_memgov_hook_is_recognised_by_its_command() -> None:
    assert is_memgov_hook({"type": "command", "command": "memgov hook session-start"})
    assert is_memgov_hook({"type": "command", "command": f"'{PROGRAM}' hook post-tool --as a"})
    assert not is_memgov_hook(OTHER)
    assert not is_memgov_hook({"type": "command", "command": "memgov sync claude-code x"})
    assert not is_memgov_hook({"type": "command", "command": "echo 'unclosed"})
    assert not is_memgov_hook({"type": "prompt", "prompt": "memgov hook"})
    assert not is_memgov_hook("memgov hook session-start")


def test_merge_keeps_every_other_setting_and_hook_and_is_idempotent() -> None:
    groups = memgov_groups(PROGRAM, ["/s/private"], "alice")
    merged = merge_hooks(settings_with_others(), groups)
    assert merged["permissions"] == {"allow": ["Bash(git status)"]} and merged["model"] == "opus"
    assert merged["hooks"]["PostToolUse"][0] == {"matcher": "Edit|Write", "hooks": [OTHER]}
    assert merged["hooks"]["Stop"] == settings_with_others()["hooks"]["Stop"]
    for spec in HOOKS:
        ours = [g for g in merged["hooks"][spec.event] if any(map(is_memgov_hook, g["hooks"]))]
        assert len(ours) == 1 and ours[0]["hooks"][0]["timeout"] == spec.timeout
        assert f"hook {spec.name} --store /s/private --as alice" in ours[0]["hooks"][0]["command"]
    assert merge_hooks(merged, groups) == merged


def test_merge_replaces_an_older_memgov_hook_without_doubling_it() -> None:
    old = merge_hooks(settings_with_others(), memgov_groups("memgov", ["/old"], "bob"))
    # an older entry shares a group with another tool's handler
    old["hooks"]["SessionStart"][0]["hooks"].append(OTHER)
    new = merge_hooks(old, memgov_groups(PROGRAM, ["/new"], "alice"))
    commands = [
        h["command"]
        for groups in new["hooks"].values()
        for g in groups
        for h in g["hooks"]
        if is_memgov_hook(h)
    ]
    assert len(commands) == len(HOOKS) and all("/new" in c and "/old" not in c for c in commands)
    assert {"hooks": [OTHER]} in new["hooks"]["SessionStart"]  # the other handler stays


def test_remove_takes_out_memgov_alone() -> None:
    original = settings_with_others()
    merged = merge_hooks(original, memgov_groups(PROGRAM, ["/s"], "alice"))
    assert remove_hooks(merged) == original
    alone = merge_hooks({}, memgov_groups(PROGRAM, ["/s"], "alice"))
    assert remove_hooks(alone) == {}
    assert remove_hooks(original) == original


def test_the_mcp_server_is_merged_and_removed_by_its_name() -> None:
    config = {"mcpServers": {"github": {"command": "gh-mcp"}}}
    entry = {"command": PROGRAM, "args": ["mcp", "--store", "/s", "--as", "alice"]}
    merged = merge_server(config, entry)
    assert merged["mcpServers"] == {"github": {"command": "gh-mcp"}, "memgov": entry}
    assert merge_server(merged, entry) == merged
    assert remove_server(merged) == config
    assert remove_server(merge_server({}, entry)) == {}


@pytest.mark.parametrize(
    "content, problem",
    [
        ('{"hooks": {', "not valid JSON (line 1"),
        ("[1, 2]", "not a JSON object"),
        (b"\xff\xfe{}", "not UTF-8"),
        ('{"hooks": []}', "'hooks' is not a JSON object"),
        ('{"hooks": {"Stop": {}}}', "'hooks.Stop' is not a list"),
    ],
)
def test_a_settings_file_that_is_not_what_claude_code_reads_is_never_written(
    tmp_path: Path, content: str | bytes, problem: str
) -> None:
    project = tmp_path / "project"
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    data = content.encode() if isinstance(content, str) else content
    settings.write_bytes(data)
    with pytest.raises(SettingsError) as caught:
        setup_claude_code(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert str(settings) in str(caught.value) and problem in str(caught.value)
    assert "nothing was written" in str(caught.value)
    assert settings.read_bytes() == data
    assert not (project / ".mcp.json").exists()


def test_read_settings_of_no_file_and_an_empty_one(tmp_path: Path) -> None:
    assert read_settings(tmp_path / "none.json") is None
    (tmp_path / "empty.json").write_text("  \n")
    assert read_settings(tmp_path / "empty.json") == {}


def test_setup_writes_once_and_removes_to_the_same_bytes(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    before = json.dumps(settings_with_others(), indent=2) + "\n"
    (project / ".claude" / "settings.json").write_text(before)
    first = setup_claude_code(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert [c.written for c in first] == [True, True]
    again = setup_claude_code(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert [c.written for c in again] == [False, False]
    setup_claude_code(project, program=PROGRAM, stores=[], actor="", remove=True, home=tmp_path)
    assert (project / ".claude" / "settings.json").read_text() == before
    assert json.loads((project / ".mcp.json").read_text()) == {}


def test_the_memory_folder_of_a_project_is_named_as_claude_code_names_it() -> None:
    home = Path("/home/u")
    folder = memory_folder(Path("/home/u/src/my_app.v2"), home)
    assert folder == home / ".claude" / "projects" / "-home-u-src-my-app-v2" / "memory"
