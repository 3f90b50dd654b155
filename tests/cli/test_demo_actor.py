"""The demo names its actor for the command line (``default_actor`` in its private
store's ``memgov.yaml``): the README's tour runs as written on a machine with no git
identity, or another one; a real store never names one."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _env(home: Path, email: str | None = None) -> dict[str, str]:
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(f"[user]\n\temail = {email}\n" if email else "", "utf-8")
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LOGNAME": "keyboard-person",
        "USER": "keyboard-person",
        "PYTHONPATH": str(ROOT),
    }


def _memgov(cwd: Path, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv], cwd=cwd, env=env, capture_output=True, text=True
    )


def _tour() -> list[list[str]]:
    """The README's commands on the demo (``.venv/bin/memgov ...``), as written."""
    readme = (ROOT / "README.md").read_text("utf-8")
    start = readme.index("**The same queue from the command line.**")
    block = re.search(r"```sh\n(.*?)```", readme[start:], re.S)
    assert block is not None
    lines = block.group(1).replace("\\\n", " ").splitlines()
    return [shlex.split(line)[1:] for line in lines if line.strip()]


def test_the_readme_tour_acts_as_the_demos_user_without_a_git_identity(tmp_path: Path) -> None:
    env = _env(tmp_path)
    built = _memgov(tmp_path, env, "demo", "--store", "demo-store", "--no-open")
    assert built.returncode == 0, built.stderr
    tour = _tour()
    assert all("--as" not in argv for argv in tour[:3])  # the tour needs no --as
    for argv in tour[:3]:  # queue, show, decide --dry-run
        done = _memgov(tmp_path, env, *argv)
        assert done.returncode == 0, (argv, done.stderr)
    dry = _memgov(tmp_path, env, *tour[2], "--json")
    assert json.loads(dry.stdout)["actor"] == "liys05"
    # the last line of the tour names another actor: refused, as the README says
    refused = _memgov(tmp_path, env, *tour[3])
    assert refused.returncode == 1 and "guest@example.com may not decide" in refused.stderr
    # a git identity of another person does not take over the demo's
    other = _env(tmp_path, "someone@example.com")
    dry = _memgov(tmp_path, other, *tour[2], "--json")
    assert dry.returncode == 0 and json.loads(dry.stdout)["actor"] == "liys05"
    # --as and $MEMGOV_ACTOR still come first
    named = _memgov(tmp_path, {**env, "MEMGOV_ACTOR": "wang.lead@example.com"}, *tour[2], "--json")
    assert json.loads(named.stdout)["actor"] == "wang.lead@example.com"
    config = yaml.safe_load((tmp_path / "demo-store/private/memgov.yaml").read_text("utf-8"))
    assert config["default_actor"] == "liys05"
    team = yaml.safe_load((tmp_path / "demo-store/team/memgov.yaml").read_text("utf-8"))
    assert "default_actor" not in team


def test_a_real_store_names_no_actor_and_a_team_store_never_chooses_one(tmp_path: Path) -> None:
    env = _env(tmp_path)
    assert _memgov(tmp_path, env, "init", "--store", "mine").returncode == 0
    assert "default_actor" not in (tmp_path / "mine/memgov.yaml").read_text("utf-8")
    logged = _memgov(
        tmp_path, env, "log", "--store", "mine", "--task", "t1", "--index", "1", "hello", "--json"
    )
    assert logged.returncode == 0, logged.stderr
    assert _author(tmp_path / "mine") == "keyboard-person"  # the login name, as before
    # a team store's config naming an actor is never read for who acts
    assert (
        _memgov(
            tmp_path, env, "init", "--store", "team", "--scope", "team", "--maintainer", "lead"
        ).returncode
        == 0
    )
    config = tmp_path / "team/memgov.yaml"
    config.write_text(config.read_text("utf-8") + "default_actor: lead\n", "utf-8")
    logged = _memgov(
        tmp_path, env, "log", "--store", "team", "--task", "t1", "--index", "1", "hi", "--json"
    )
    # refused as the person at the keyboard, not written as the maintainer the file names
    assert logged.returncode == 1 and "keyboard-person may not write" in logged.stderr


def test_two_private_stores_naming_different_actors_is_an_error_naming_both(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path)
    for name, actor in (("a", "ann"), ("b", "bob")):
        assert _memgov(tmp_path, env, "init", "--store", name, "--as", actor).returncode == 0
        config = tmp_path / name / "memgov.yaml"
        config.write_text(config.read_text("utf-8") + f"default_actor: {actor}\n", "utf-8")
    done = _memgov(
        tmp_path, env, "log", "--store", "a", "--store", "b", "--task", "t", "--index", "1", "x"
    )
    assert done.returncode != 0
    assert "a/memgov.yaml: ann" in done.stderr and "b/memgov.yaml: bob" in done.stderr
    assert "--as" in done.stderr


def _author(store: Path) -> str:
    """Who the store's last commit says acted."""
    return subprocess.run(
        ["git", "log", "-1", "--format=%an"], cwd=store, capture_output=True, text=True, check=True
    ).stdout.strip()
