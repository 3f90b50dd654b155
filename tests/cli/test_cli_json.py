"""``--json`` everywhere: one shape per result, nulls for what a record lacks, and errors
as an error object on stdout with the exit status the text output has.

In-process through ``tui.cli.main`` (the demo's clock pinned), and one run of the
command as a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO_MAINTAINER, DEMO_TOKEN, add_memories
from support_decisions import the_item

from core.demo import OWNER
from core.domain.record import Memory
from core.store.store import Store
from tui.cli.parser import command_names

Cli = Callable[..., tuple[int, str, str]]

#: every key of the error object, always present
ERROR_KEYS = ["code", "message", "exit", "file", "field", "where", "hint", "rules"]
#: every key of a decision's result, a dry run's and a decision's alike
RESULT_KEYS = [
    "dry_run", "id", "item", "kind", "option", "actor", "reason", "ts", "store", "before",
    "after", "created", "touched", "request", "erased", "reverted_by", "note", "notes",
    "consequences", "revertible", "stores", "approved", "rejected",
]  # fmt: skip
#: every key of a listed record
RECORD_KEYS = [
    "id", "title", "type", "scope", "status", "subject", "attribute", "condition", "value",
    "source", "sources", "confidence", "created_at", "verified_at", "expires_at", "supersedes",
    "usage_count", "last_used_at", "environment", "origin", "provenance", "content", "path",
]  # fmt: skip
SOURCE_KEYS = ["task", "message_index", "evidence", "log", "file", "line"]


def the_error(out: str, status: int) -> dict[str, Any]:
    """The error object ``out`` holds, checked for its keys and exit status."""
    data = json.loads(out)
    assert list(data) == ["error"], data
    error = data["error"]
    assert list(error) == ERROR_KEYS, error
    assert error["exit"] == status and error["message"], error
    return dict(error)


@pytest.mark.parametrize("name", command_names())
def test_every_command_says_a_refused_command_line_as_json(name: str, demo_cli: Cli) -> None:
    code, out, err = demo_cli(name, "--no-such-option", "--json")
    assert code == 2
    error = the_error(out, 2)
    assert error["code"] == "usage" and f"memgov {name} --help" in error["message"]
    assert err == f"memgov: {error['message']}\n"  # the text is still said on stderr
    # without --json: argparse's own usage on stderr, nothing on stdout, as before
    with pytest.raises(SystemExit) as exited:
        demo_cli(name, "--no-such-option")
    assert exited.value.code == 2


def _cases(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """A command line each command refuses, and the error's code (exit 2 for all)."""
    nowhere = str(tmp / "not-a-store")
    taken = tmp / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine\n")
    store = ["--store", nowhere]
    missing = str(tmp / "no-such-file")
    of_store: dict[str, list[str]] = {
        "review": [], "serve": [], "mcp": [], "doctor": [], "health": [], "labels": [],
        "redteam": [], "reindex": [], "scrub-history": [], "history": ["x"], "list": [],
        "sweep": [], "recall": ["x"], "cite": ["x"], "queue": [], "show": ["x"],
        "decide": ["x", "--approve"], "consolidate": [], "rollback": ["--list"],
        "revert": ["dec-x"], "request-delete": ["x", "--reason", "r"],
        "request-promote": ["x", "--reason", "r"], "report-stale": ["x", "--reason", "r"],
        "import": ["codex", str(tmp)], "sync": [], "team": ["ratify", "abc", "--reason", "r"],
        "export": ["claude-code", str(tmp / "out")],
    }  # fmt: skip
    cases = {name: ([name, *argv, *store], "store") for name, argv in of_store.items()}
    cases |= {
        "init": (["init", "--store", str(tmp / "demo" / "private")], "store"),
        "demo": (["demo", "--no-open", "--store", str(taken)], "store"),
        "setup": (["setup", "claude-code", "--project", nowhere], "error"),
        "remember": (["remember", missing, *store], "invalid"),
        "scan": (["scan", missing], "invalid"),
        "log": (["log", "--task", "t", *store], "invalid"),
    }
    return cases


def test_every_command_has_an_error_case(tmp_path: Path) -> None:
    """``hook`` alone has none: a hook never fails the agent's turn (it says what went
    wrong on stderr and exits 0), so its one error under --json is a refused command
    line (the test above)."""
    assert set(_cases(tmp_path)) | {"hook"} == set(command_names())


@pytest.mark.parametrize("name", sorted(set(command_names()) - {"hook"}))
def test_every_command_says_its_error_as_json(
    name: str, demo: Path, demo_cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMGOV_STORE", raising=False)
    argv, expected = _cases(tmp_path)[name]
    code, out, err = demo_cli(*argv, "--json")
    assert code == 2, err
    error = the_error(out, 2)
    assert error["code"] == expected
    if argv[1] == str(tmp_path / "no-such-file"):  # the file is named apart too
        assert error["file"] == argv[1]
    assert err == f"memgov: {error['message']}\n"  # the same words as the text output
    # the text output is as it was: the error on stderr, nothing on stdout
    code, out, err = demo_cli(*argv)
    assert (code, out) == (2, "") and err.startswith("memgov: ")


def test_a_refusal_is_exit_1_and_a_bad_field_is_named(demo: Path, demo_cli: Cli) -> None:
    item = the_item(demo, "conflict", scope="team")
    store = ["--store", str(demo)]
    # someone who may not decide the team's conflict: a refusal, exit 1
    code, out, _ = demo_cli("decide", item.id, "--approve", "--option", "newer", *store,
                            "--as", "stranger@example.com", "--json")  # fmt: skip
    assert code == 1
    assert the_error(out, 1)["code"] == "not_allowed"
    # a conflict approved without an option: the field is named, exit 2
    code, out, _ = demo_cli("decide", item.id, "--approve", *store, "--as", DEMO_MAINTAINER,
                            "--json")  # fmt: skip
    assert code == 2
    error = the_error(out, 2)
    assert (error["code"], error["field"]) == ("invalid", "option")
    assert error["hint"] and "newer" in error["hint"]


def test_no_secret_in_an_error_object(demo: Path, demo_cli: Cli) -> None:
    code, out, err = demo_cli("show", DEMO_TOKEN, "--store", str(demo), "--json")
    assert code == 2 and DEMO_TOKEN not in out + err
    assert the_error(out, 2)["code"] == "not_found"
    code, out, err = demo_cli("show", "x", "--store", str(demo), "--json", f"--as={DEMO_TOKEN}")
    assert DEMO_TOKEN not in out


def _decided(demo_cli: Cli, *argv: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``decide ARGV`` as a dry run and for real, both with --json."""
    code, out, err = demo_cli("decide", *argv, "--dry-run", "--json")
    assert (code, err) == (0, "")
    dry = json.loads(out)
    code, out, err = demo_cli("decide", *argv, "--json")
    assert (code, err) == (0, ""), err
    return dry, json.loads(out)


@pytest.mark.parametrize(
    ("kind", "where", "flags"),
    [
        ("deletion", {}, ["--reject", "--reason", "keep it"]),
        ("deletion", {}, ["--approve"]),
        ("conflict", {"scope": "team"}, ["--approve", "--option", "newer"]),
        ("promotion", {"attribute": "package_manager"}, ["--approve"]),
    ],
)
def test_a_dry_run_and_its_decision_have_one_shape(
    demo: Path, demo_cli: Cli, kind: str, where: dict[str, str], flags: list[str]
) -> None:
    item = the_item(demo, kind, **where)
    actor = DEMO_MAINTAINER if where.get("scope") == "team" else OWNER
    dry, real = _decided(demo_cli, item.id, *flags, "--store", str(demo), "--as", actor)
    assert list(dry) == list(real) == RESULT_KEYS
    assert (dry["dry_run"], real["dry_run"]) == (True, False)
    for key in ("item", "kind", "option", "actor"):
        assert dry[key] == real[key], key
    # a reason given is the decision's; none given, the decision says its kind's own
    assert dry["reason"] == (real["reason"] if "--reason" in flags else None)
    assert dry["store"] == real["store"] == str(item.store.root)
    assert dry["erased"] == real["erased"] and dry["created"] == real["created"]
    # what only one of them knows is null in the other, never left out
    assert dry["ts"] is None and dry["before"] is None and dry["revertible"] is None
    assert real["stores"] is None and dry["stores"]
    # a revert is a decision: the same shape
    if real["revertible"]:
        code, out, _ = demo_cli("revert", real["id"], "--store", str(demo), "--as", actor,
                                "--json")  # fmt: skip
        assert code == 0 and list(json.loads(out)) == RESULT_KEYS


def test_a_list_of_decisions_has_one_shape(
    demo: Path, demo_cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    item = the_item(demo, "deletion")
    listing = json.dumps([{"item": item.id, "reject": True, "reason": "keep"}])
    shapes = []
    for dry in (["--dry-run"], []):
        monkeypatch.setattr("sys.stdin", io.StringIO(listing))
        code, out, err = demo_cli("decide", "-", *dry, "--store", str(demo), "--as", OWNER,
                                  "--json")  # fmt: skip
        assert (code, err) == (0, "")
        shapes.append(json.loads(out))
    dry_run, made = shapes
    assert list(dry_run) == list(made) == ["dry_run", "items", "decisions", "preview"]
    assert (dry_run["dry_run"], made["dry_run"]) == (True, False)
    assert dry_run["items"] == made["items"] == [item.id]
    assert dry_run["decisions"] is None and list(dry_run["preview"]) == RESULT_KEYS
    assert made["preview"] is None and [list(d) for d in made["decisions"]] == [RESULT_KEYS]


@pytest.mark.parametrize("name", ["sweep", "redteam"])
def test_other_dry_runs_say_which_they_are(name: str, store: Store, demo_cli: Cli) -> None:
    shapes = []
    for dry in (["--dry-run"], []):
        _code, out, _err = demo_cli(name, *dry, "--store", str(store.root), "--json")
        (report,) = json.loads(out)
        shapes.append(report)
    assert list(shapes[0]) == list(shapes[1]) and next(iter(shapes[0])) == "dry_run"
    assert (shapes[0]["dry_run"], shapes[1]["dry_run"]) == (True, False)


def test_a_consolidation_dry_run_says_it_is_one(demo: Path, demo_cli: Cli) -> None:
    code, out, _err = demo_cli("consolidate", "--dry-run", "--store", str(demo), "--json")
    assert code == 0 and [r["dry_run"] for r in json.loads(out)] == [True, True]


def _rows(demo_cli: Cli, root: Path) -> list[dict[str, Any]]:
    code, out, err = demo_cli("list", "--store", str(root), "--json")
    assert (code, err) == (0, "")
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def test_listed_records_have_every_key_whatever_the_record(
    store: Store, make_memory: Callable[..., Memory], demo: Path, demo_cli: Cli
) -> None:
    from core.domain.record import Source

    bare = make_memory(id="mem-bare")
    full = make_memory(
        id="mem-full",
        title="Output format",
        value="tables",
        condition="env=ci",
        attribute="lang",
        environment={"node": "22.1"},
        provenance={"roles": ["user"], "external": False},
        sources=(Source(task="tr_2", message_index=3, evidence="said", file="a.md", line=4),),
    )
    add_memories(store, bare, full)
    rows = {r["id"]: r for r in _rows(demo_cli, store.root)}
    assert all(list(r) == RECORD_KEYS for r in rows.values())
    assert rows["mem-bare"]["title"] is None and rows["mem-bare"]["environment"] is None
    assert rows["mem-bare"]["provenance"] is None and rows["mem-bare"]["sources"] == []
    assert rows["mem-full"]["environment"] == {"node": "22.1"}
    for row in rows.values():
        for source in [row["source"], *row["sources"]]:
            assert list(source) == SOURCE_KEYS
    assert rows["mem-bare"]["source"]["file"] is None
    assert rows["mem-full"]["sources"][0]["line"] == 4
    # the demo's records, of every kind and store: one set of keys
    for part in ("private", "team"):
        assert {tuple(r) for r in _rows(demo_cli, demo / part)} == {tuple(RECORD_KEYS)}


def test_the_command_says_its_error_as_json(tmp_path: Path) -> None:
    """As an agent's script runs it: a process, stdout parsed, the exit status read."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("MEMGOV_STORE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tui.cli", "list", "--json", "--store", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert the_error(proc.stdout, 2)["code"] == "store"
