"""The CLI's store handling: init, --store, MEMGOV_STORE, clear errors.

In-process through ``tui.cli.main`` for speed, plus one run of the installed
console script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from conftest import add_memories

from core.domain.record import Memory
from core.store.store import Store
from tui.cli import main

MakeMemory = Callable[..., Memory]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_init_creates_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "mine"
    code, out, err = run(capsys, "init", "--store", str(target), "--as", "me@example.com")
    assert (code, err) == (0, "")
    assert out.strip() == f"created an empty private store at {target.resolve()}"
    store = Store(target)
    assert store.config.scope == "private"
    repo = git.Repo(target)
    assert len(list(repo.iter_commits())) == 1
    assert repo.head.commit.author.email == "me@example.com"


@pytest.mark.parametrize("command", ["init", "demo"])
@pytest.mark.parametrize("where", ["file", "under a file"])
def test_a_store_where_a_file_is_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, where: str
) -> None:
    """``--store`` naming a file, or a folder under a file: exit 2 and the path named,
    no traceback, and the file untouched."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    target = blocker if where == "file" else blocker / "store"
    argv = [command, "--store", str(target)] + (
        ["--as", "me@example.com"] if command == "init" else []
    )
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert str(blocker) in err and "Traceback" not in err
    assert "not a folder" in err or "cannot make the folder" in err
    assert blocker.read_text() == "mine\n"


def test_init_team_store_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "team"
    code, out, _ = run(
        capsys, "init", "--store", str(target), "--scope", "team",
        "--maintainer", "lead@example.com", "--maintainer", "ops@example.com", "--json",
    )  # fmt: skip
    assert code == 0
    assert json.loads(out) == {"store": str(target.resolve()), "scope": "team"}
    config = Store(target).config
    assert config.scope == "team"
    assert config.maintainers == ("lead@example.com", "ops@example.com")


@pytest.mark.parametrize("maintainers", [[], ["--maintainer", "  "]])
def test_init_team_store_without_a_maintainer_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], maintainers: list[str]
) -> None:
    target = tmp_path / "team"
    code, out, err = run(
        capsys, "init", "--store", str(target), "--scope", "team", "--as", "me", *maintainers
    )
    assert (code, out) == (2, "")
    assert "field 'maintainers'" in err and "--maintainer EMAIL" in err
    assert not target.exists()  # nothing half-made


def test_init_takes_the_actor_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGOV_ACTOR", "env-actor@example.com")
    assert run(capsys, "init", "--store", str(tmp_path / "s"))[0] == 0
    assert git.Repo(tmp_path / "s").head.commit.author.email == "env-actor@example.com"


def test_init_takes_the_store_from_memgov_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGOV_STORE", str(tmp_path / "from-env"))
    assert run(capsys, "init", "--as", "me")[0] == 0
    assert Store(tmp_path / "from-env").memories == {}


def test_init_twice_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "init", "--store", str(tmp_path / "s"), "--as", "me")[0] == 0
    code, out, err = run(capsys, "init", "--store", str(tmp_path / "s"), "--as", "me")
    assert code == 2
    assert out == ""
    assert err.startswith("memgov: ") and "a store already exists here" in err


@pytest.fixture
def filled(store: Store, make_memory: MakeMemory) -> Store:
    add_memories(store, make_memory(id="mem-1"), make_memory(id="mem-2", attribute="lang"))
    return store


def listed(out: str) -> list[str]:
    return sorted(m["id"] for m in json.loads(out))


def test_store_option(filled: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--store", str(filled.root), "--json")
    assert code == 0
    assert listed(out) == ["mem-1", "mem-2"]


def test_memgov_store_environment_variable(
    filled: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGOV_STORE", str(filled.root))
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    assert listed(out) == ["mem-1", "mem-2"]


def test_store_option_wins_over_the_environment(
    filled: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("MEMGOV_STORE", str(tmp_path / "not-a-store"))
    code, out, _ = run(capsys, "list", "--store", str(filled.root), "--json")
    assert code == 0
    assert listed(out) == ["mem-1", "mem-2"]


def test_memgov_store_may_name_several_stores(
    filled: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    team = Store.init(tmp_path / "team", scope="team", actor="me")
    monkeypatch.setenv("MEMGOV_STORE", os.pathsep.join([str(filled.root), str(team.root)]))
    code, out, _ = run(capsys, "doctor", "--json")
    assert code == 0
    assert [s["store"] for s in json.loads(out)["stores"]] == [str(filled.root), str(team.root)]


@pytest.mark.parametrize(
    "argv",
    [["doctor"], ["list"], ["history", "mem-1"], ["init"], ["doctor", "--json"]],
    ids=lambda argv: " ".join(argv),
)
def test_no_store_given_is_a_clear_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("memgov: no store given: pass --store PATH or set MEMGOV_STORE")
    if "--json" in argv:  # the error is an object on stdout too (docs/cli.md, --json)
        error = json.loads(out)["error"]
        assert (error["code"], error["exit"]) == ("store", 2)
        assert err == f"memgov: {error['message']}\n"
    else:
        assert out == ""


@pytest.mark.parametrize("argv", [["doctor"], ["list"], ["history", "mem-1"]])
def test_a_path_that_is_not_a_store_is_a_clear_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plain").mkdir()
    for path in (tmp_path / "plain", tmp_path / "missing"):
        code, out, err = run(capsys, *argv, "--store", str(path))
        assert code == 2
        assert out == ""
        assert f"{path}: not a memgov store" in err
        assert "memgov init --store" in err  # and what to do about it


def test_a_store_with_a_broken_config_is_a_clear_error(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    (store.root / "memgov.yaml").write_text("theta: lots\n")
    code, _, err = run(capsys, "doctor", "--store", str(store.root))
    assert code == 2
    assert "memgov.yaml: field 'theta'" in err


def test_a_folder_holding_private_and_team_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store.init(tmp_path / "both" / "private", actor="me")
    Store.init(tmp_path / "both" / "team", scope="team", actor="me")
    code, out, _ = run(capsys, "doctor", "--store", str(tmp_path / "both"), "--json")
    assert code == 0
    assert [Path(s["store"]).name for s in json.loads(out)["stores"]] == ["private", "team"]


def test_main_with_an_empty_argv_does_not_read_sys_argv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["memgov", "--store", str(tmp_path / "elsewhere")])
    code, _, err = run(capsys)
    assert code == 2
    assert "no store given" in err


def test_options_without_a_command_open_the_desk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--store", str(tmp_path / "missing"))
    assert code == 2
    assert "not a memgov store" in err


def test_the_installed_console_script_works(filled: Store) -> None:
    script = Path(sys.executable).with_name("memgov")
    assert script.exists(), f"no console script next to {sys.executable}"
    result = subprocess.run(
        [str(script), "doctor", "--store", str(filled.root), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["clean"] is True
    assert data["stores"][0]["memories"] == 2
