"""``memgov setup codex``: memgov's MCP server in Codex's ``config.toml`` and its hooks
in ``hooks.json``, with real files in temporary folders and HOME a temporary folder.

The user's ``config.toml`` keeps every line, comment and table it had: memgov adds,
replaces or takes out its own ``[mcp_servers.memgov]`` table alone, a second run
writes nothing, and ``--remove`` gives back the very bytes there were. A file memgov
will not edit (not TOML, too big, a link to nothing, an entry written another way)
is refused with its name and what to do, and neither file is written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ACTOR

from core.importers.claude_code.settings import SettingsError, render_settings
from core.importers.codex.settings import MARK, edit_config, server_entry, setup_codex
from core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
MEMGOV = Path(sys.executable).parent / "memgov"
PROGRAM = "/opt/memgov/.venv/bin/memgov"

#: a config.toml as people write them: comments, a profile, other servers, a sub-table
THEIRS = """\
# ~/.codex/config.toml — my settings
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"

[features]
web_search_request = true

# the docs server I use every day
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[mcp_servers.context7.env]
LOG_LEVEL = "warn"

[profiles.review]
model = "o3"
"""

THEIR_HOOKS = {
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "PostToolUse": [
            {"matcher": "apply_patch", "hooks": [{"type": "command", "command": "ruff format"}]}
        ],
    }
}


def run(
    args: list[str], *, cwd: Path, home: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "MEMGOV_ACTOR": ""}
    environ.pop("CODEX_HOME", None)
    return subprocess.run(
        [str(MEMGOV), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env={**environ, **(env or {})},
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def no_codex_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEX_HOME", raising=False)


def setup(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(["setup", "codex", *args], cwd=project, home=home)


def test_setup_writes_the_server_and_the_hooks_keeps_theirs_and_undoes_to_the_byte(
    store: Store, project: Path, tmp_path: Path
) -> None:
    config = project / ".codex" / "config.toml"
    hooks = project / ".codex" / "hooks.json"
    config.parent.mkdir()
    config.write_text(THEIRS)
    hooks.write_text(render_settings(THEIR_HOOKS))
    original = (config.read_bytes(), hooks.read_bytes())

    first = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert first.returncode == 0, first.stderr
    assert "the MCP server written" in first.stdout and "the hooks written" in first.stdout
    text = config.read_text()
    assert text.startswith(THEIRS)  # every line of theirs, as it was, comments too
    assert text[len(THEIRS) :].startswith("\n" + MARK + "\n[mcp_servers.memgov]\n")
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["context7"] == {
        "command": "npx",
        "args": ["-y", "@upstash/context7-mcp"],
        "env": {"LOG_LEVEL": "warn"},
    }
    assert parsed["mcp_servers"]["memgov"]["args"] == [
        "mcp",
        "--store",
        str(store.root),
        "--as",
        ACTOR,
    ]
    assert Path(parsed["mcp_servers"]["memgov"]["command"]).name == "memgov"
    data = json.loads(hooks.read_text())["hooks"]
    assert set(data) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    assert data["Stop"][0] == THEIR_HOOKS["hooks"]["Stop"][0]  # theirs first, kept
    assert data["PostToolUse"][0] == THEIR_HOOKS["hooks"]["PostToolUse"][0]
    ours = data["Stop"][-1]["hooks"][0]
    assert " hook turn-end --store " in ours["command"] and ours["timeout"] == 60
    assert "Bash" in data["PostToolUse"][-1]["matcher"].split("|")
    written = (config.read_bytes(), hooks.read_bytes())

    again = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert again.returncode == 0 and again.stdout.count("already in place") == 2, again.stdout
    assert (config.read_bytes(), hooks.read_bytes()) == written

    removed = setup(project, tmp_path, "--remove")
    assert removed.returncode == 0, removed.stderr
    assert (config.read_bytes(), hooks.read_bytes()) == original
    assert not (tmp_path / ".codex").exists()  # nothing of the user's was touched


def test_a_project_with_no_codex_files_gets_them_and_loses_them_again(
    store: Store, project: Path, tmp_path: Path
) -> None:
    result = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 0, result.stderr
    config = (project / ".codex" / "config.toml").read_text()
    assert config.startswith(MARK + "\n[mcp_servers.memgov]\n")
    assert "trusted" in result.stdout  # Codex reads a project's .codex/ when trusted
    removed = setup(project, tmp_path, "--remove")
    assert removed.returncode == 0, removed.stderr
    assert not (project / ".codex" / "config.toml").exists()
    assert json.loads((project / ".codex" / "hooks.json").read_text()) == {}


def test_the_user_setup_writes_under_the_codex_home_only(
    store: Store, project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('model = "o3"\n')
    result = setup(project, home, "--user", "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 0, result.stderr
    assert "memgov" in tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert "Stop" in json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert list(project.iterdir()) == []
    assert setup(project, home, "--user", "--remove").returncode == 0
    assert (home / ".codex" / "config.toml").read_text() == 'model = "o3"\n'
    # CODEX_HOME moves Codex's folder, and memgov's files with it
    elsewhere = tmp_path / "codex-home"
    moved = run(
        ["setup", "codex", "--user", "--store", str(store.root), "--as", ACTOR],
        cwd=project,
        home=home,
        env={"CODEX_HOME": str(elsewhere)},
    )
    assert moved.returncode == 0, moved.stderr
    assert (elsewhere / "config.toml").is_file() and (elsewhere / "hooks.json").is_file()


def test_a_config_that_does_not_parse_is_named_with_its_line_and_left_alone(
    store: Store, project: Path, tmp_path: Path
) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    broken = THEIRS + "\n[mcp_servers.broken\ncommand = 'x'\n"
    config.write_text(broken)
    result = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 2
    assert str(config) in result.stderr and "not valid TOML" in result.stderr
    assert f"line {THEIRS.count(chr(10)) + 2}, column 20" in result.stderr, result.stderr
    assert config.read_text() == broken
    assert not (project / ".codex" / "hooks.json").exists()  # neither file is written


def test_the_table_is_replaced_where_it_is_and_never_doubled(tmp_path: Path) -> None:
    handwritten = THEIRS.replace(
        "[profiles.review]",
        "[mcp_servers.memgov]\n"
        'command = "memgov"\n'
        'args = ["mcp", "--store", "/old/store"]\n'
        "\n# the review profile\n[profiles.review]",
    )
    entry = server_entry(PROGRAM, ["/new/store"], "alice")
    text = edit_config(handwritten, entry, shown="config.toml")
    assert text.count("[mcp_servers.memgov]") == 1 and "/old/store" not in text
    assert '# the review profile\n[profiles.review]\nmodel = "o3"\n' in text
    assert tomllib.loads(text)["mcp_servers"]["memgov"] == entry
    assert edit_config(text, entry, shown="config.toml") == text  # a second run: the same
    removed = edit_config(text, None, shown="config.toml")
    assert "memgov" not in tomllib.loads(removed)["mcp_servers"]
    assert "# the review profile\n[profiles.review]" in removed
    # Windows line ends stay Windows line ends
    crlf = THEIRS.replace("\n", "\r\n")
    written = edit_config(crlf, entry, shown="config.toml")
    assert written.startswith(crlf) and "\n" not in written.replace("\r\n", "")
    assert edit_config(written, None, shown="config.toml") == crlf


@pytest.mark.parametrize(
    "other_form",
    [
        '[mcp_servers]\nmemgov = { command = "memgov", args = [] }\n',
        'mcp_servers.memgov.command = "memgov"\n',
        '[mcp_servers.memgov]\ncommand = "memgov"\nargs = [\n  "mcp",\n]\ntimeout = 5\n',
        'mcp_servers = "not a table"\n',
        '[mcp_servers]\nmemgov = "not a table"\n',
    ],
    ids=["inline", "dotted", "their-keys-and-a-multi-line-args", "not-a-table", "a-string"],
)
def test_an_entry_written_another_way_is_refused_and_left_alone(
    project: Path, tmp_path: Path, other_form: str
) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(other_form)
    with pytest.raises(SettingsError, match=r"edit or remove that entry by hand"):
        setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert config.read_text() == other_form
    assert not (project / ".codex" / "hooks.json").exists()


def test_a_linked_config_is_written_through_its_link(project: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "codex.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text(THEIRS)
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.symlink_to(dotfiles)
    setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert config.is_symlink() and "[mcp_servers.memgov]" in dotfiles.read_text()
    setup_codex(project, program=PROGRAM, stores=[], actor="", remove=True, home=tmp_path)
    assert config.is_symlink() and dotfiles.read_text() == THEIRS
    dotfiles.write_text("")  # a linked file that was empty stays, empty
    setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    setup_codex(project, program=PROGRAM, stores=[], actor="", remove=True, home=tmp_path)
    assert config.is_symlink() and dotfiles.read_text() == ""


def test_a_link_to_nothing_a_huge_file_and_a_folder_are_refused(
    project: Path, tmp_path: Path
) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.symlink_to(tmp_path / "gone.toml")
    with pytest.raises(SettingsError, match=r"a link to .*gone\.toml, which does not exist"):
        setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert config.is_symlink() and not (tmp_path / "gone.toml").exists()
    config.unlink()
    with config.open("wb") as out:  # a sparse file: 17 MiB, none of it read
        out.truncate(17 * 1024 * 1024)
    with pytest.raises(SettingsError, match=r"config\.toml: over 16 MiB"):
        setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert config.stat().st_size == 17 * 1024 * 1024
    config.unlink()
    config.mkdir()
    with pytest.raises(SettingsError, match=r"config\.toml: not a file"):
        setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert not (project / ".codex" / "hooks.json").exists()


def test_a_hooks_file_that_is_not_json_leaves_both_files_alone(
    project: Path, tmp_path: Path
) -> None:
    hooks = project / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"hooks": {"Stop": [}\n')
    (project / ".codex" / "config.toml").write_text(THEIRS)
    with pytest.raises(SettingsError, match=r"hooks\.json: not valid JSON \(line 1, column 21"):
        setup_codex(project, program=PROGRAM, stores=["/s"], actor="a", home=tmp_path)
    assert (project / ".codex" / "config.toml").read_text() == THEIRS


def test_hooks_switched_off_in_the_config_are_named(
    store: Store, project: Path, tmp_path: Path
) -> None:
    config = project / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text("[features]\nhooks = false\n")
    result = setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 0, result.stderr
    assert "note: [features] hooks = false: Codex runs no hooks" in result.stdout
    assert tomllib.loads(config.read_text())["features"] == {"hooks": False}  # theirs to change


def test_their_own_keys_in_memgovs_table_stay(tmp_path: Path) -> None:
    theirs = (
        "[mcp_servers.memgov]  # tuned by hand\n"
        'command = "memgov"\n'
        "startup_timeout_sec = 20  # the store is big\n"
        'args = ["mcp"]\n'
        "\n"
        "[mcp_servers.memgov.env]\n"
        'MEMGOV_STORE = "/home/me/memory"\n'
    )
    entry = server_entry(PROGRAM, ["/s"], "alice")
    text = edit_config(theirs, entry, shown="config.toml")
    assert tomllib.loads(text)["mcp_servers"]["memgov"] == {
        **entry,
        "startup_timeout_sec": 20,
        "env": {"MEMGOV_STORE": "/home/me/memory"},
    }
    assert "startup_timeout_sec = 20  # the store is big\n" in text
    assert text.startswith("[mcp_servers.memgov]  # tuned by hand\n")
    assert edit_config(text, entry, shown="config.toml") == text


async def test_the_server_starts_as_codex_starts_it_from_the_table(
    store: Store, project: Path, tmp_path: Path
) -> None:
    """``command`` and ``args`` as written, spoken to by the MCP SDK's own client."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from support_mcp import TOOLS

    assert setup(project, tmp_path, "--store", str(store.root), "--as", ACTOR).returncode == 0
    server = tomllib.loads((project / ".codex" / "config.toml").read_text())["mcp_servers"]
    entry = server["memgov"]
    env = {"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
    with (tmp_path / "mcp-stderr.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            tools = await client.list_tools()
    assert {tool.name for tool in tools.tools} == TOOLS
