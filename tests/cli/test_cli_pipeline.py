"""The pipeline through the command line: remember, scan, sweep, recall, log.

Commands run in-process through ``tui.cli.main`` (fast), with ``MEMGOV_NOW``
pinning the clock; one test runs the installed ``memgov`` script for real.
Exit codes: 0 written/merged/empty, 1 refused, 2 bad input, 3 conflict.
"""

from __future__ import annotations

import io
import json
import os
import random
import string
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from core.domain import secrets
from core.store.store import Store
from tui.cli import main

ACTOR = "agent@example.com"
START = datetime(2027, 3, 14, 10, 20, tzinfo=timezone(timedelta(hours=8)))


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """``memgov`` on one store, with a clock the test moves."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
        self.root = root
        self.now = START
        self._monkeypatch = monkeypatch
        self._capsys = capsys

    def __call__(self, *argv: str, stdin: str = "") -> Result:
        self._monkeypatch.setenv("MEMGOV_NOW", self.now.isoformat())
        self._monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        self._capsys.readouterr()
        code = main([*argv, "--store", str(self.root), "--as", ACTOR])
        captured = self._capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def candidate(self, name: str, **fields: Any) -> str:
        data: dict[str, Any] = {
            "content": "The project uses pnpm as its package manager.",
            "type": "semantic",
            "scope": "private",
            "subject": "project:liyyro",
            "attribute": "package_manager",
            "value": "pnpm",
            "s1": 0.9,
            "s2": 0.85,
        }
        data.update(fields)
        path = self.root.parent / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return str(path)

    def say(self, task: str, text: str, index: int = 1) -> dict[str, Any]:
        result = self("log", "--task", task, "--index", str(index), text)
        assert result.code == 0, result.err
        return {"task": task, "message_index": index, "evidence": text}

    def events(self, action: str | None = None) -> list[dict[str, Any]]:
        lines = (self.root / "events/000001.jsonl").read_text(encoding="utf-8").splitlines()
        found = [json.loads(line) for line in lines if line.strip()]
        return [e for e in found if action is None or e["action"] == action]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> Cli:
    tool = Cli(tmp_path / "store", monkeypatch, capsys)
    assert tool("init").code == 0
    return tool


def fake_token(seed: int) -> str:
    rng = random.Random(seed)
    token = "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    assert secrets.scan(token)
    return token


def git_log_patch(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "log", "-p", "--all"], capture_output=True, text=True, check=True
    ).stdout


# ------------------------------------------------------------------ remember
def test_a_message_logged_twice_is_one_line_and_another_text_is_refused(cli: Cli) -> None:
    first = cli("log", "--task", "tr_1", "--index", "7", "--json", "we use pnpm")
    assert first.code == 0, first.err
    log = cli.root / first.json["log"]
    before = log.read_text(encoding="utf-8")
    commits = git_log_patch(cli.root).count("\ncommit ")
    again = cli("log", "--task", "tr_1", "--index", "7", "--json", "we  use pnpm")
    assert again.code == 0, again.err
    assert again.json == first.json  # the same line, nothing written or committed
    assert log.read_text(encoding="utf-8") == before
    assert git_log_patch(cli.root).count("\ncommit ") == commits
    other = cli("log", "--task", "tr_1", "--index", "7", "we use npm")
    assert other.code == 2
    assert "already has message 7" in other.err and "field 'index'" in other.err
    assert log.read_text(encoding="utf-8") == before
    assert cli("log", "--task", "tr_1", "--index", "8", "we use npm").code == 0
    assert log.read_text(encoding="utf-8").count("- [") == 2


def test_a_quote_the_logged_message_does_not_hold_fails_s3(cli: Cli) -> None:
    """s3 means the quote is in the message the source points at: a pointer to a
    message that says the opposite is no source, and nothing supersedes."""
    cli.say("tr_1", "这个项目用 pnpm，不用 npm", index=3)
    quoted = cli(
        "remember",
        cli.candidate(
            "ok", source={"task": "tr_1", "message_index": 3, "evidence": "用 PNPM,不用 npm"}
        ),
        "--json",
    )
    assert quoted.code == 0 and quoted.json["outcome"] == "written", quoted.err  # width, case
    opposite = cli(
        "remember",
        cli.candidate(
            "lie",
            value="npm",
            content="The project uses npm.",
            source={"task": "tr_1", "message_index": 3, "evidence": "we switched to npm"},
        ),
        "--json",
    )
    assert opposite.code == 1
    s3 = next(c for c in opposite.json["gate"]["criteria"] if c["criterion"] == "s3")
    assert s3["passed"] is False and "not in the message the source points at" in s3["why"]
    (kept,) = [m for m in Store(cli.root).memories.values() if m.attribute == "package_manager"]
    assert (kept.value, kept.status) == ("pnpm", "active")


def test_log_then_remember_answers_written_with_exit_0(cli: Cli) -> None:
    logged = cli("log", "--task", "tr_1", "--index", "7", "--json", "we use pnpm")
    assert logged.code == 0
    assert logged.json["log"] == "logs/2027/03/2027-03-14.md"
    source = {"task": "tr_1", "message_index": 7, "evidence": "we use pnpm"}
    result = cli("remember", cli.candidate("c1", source=source), "--json")
    assert result.code == 0, result.err
    data = result.json
    assert data["outcome"] == "written"
    assert data["gate"]["passed"] is True
    assert [c["criterion"] for c in data["gate"]["criteria"]] == ["s1", "s2", "s3", "s4"]
    (memory_id,) = data["memory_ids"]
    memory = Store(cli.root).get(memory_id)
    assert memory.created_at == START
    assert memory.source is not None and memory.source.message_index == 7


def test_each_outcome_has_its_exit_code(cli: Cli) -> None:
    first = cli("remember", cli.candidate("a", source=cli.say("tr_1", "pnpm")), "--json")
    assert (first.code, first.json["outcome"]) == (0, "written")

    cli.now += timedelta(days=1)
    merged = cli("remember", cli.candidate("b", source=cli.say("tr_2", "pnpm again")), "--json")
    assert (merged.code, merged.json["outcome"]) == (0, "merged")
    assert merged.json["memory_ids"] == first.json["memory_ids"]

    yarn = cli.candidate("c", source=cli.say("tr_3", "yarn"), value="yarn", content="Uses yarn.")
    conflict = cli("remember", yarn, "--json")
    assert (conflict.code, conflict.json["outcome"]) == (3, "conflict")
    assert conflict.json["item"].startswith("conflict-")

    # no s1, and the source is the agent's own message: the gate settles it at 0
    assert cli("log", "--task", "tr_4", "--index", "1", "--role", "assistant", "tabs").code == 0
    tabs = {"task": "tr_4", "message_index": 1, "evidence": "tabs"}
    no_s1 = cli.candidate("d", source=tabs, attribute="indent", s1=None)
    refused = cli("remember", no_s1, "--json")
    assert (refused.code, refused.json["outcome"]) == (1, "refused")
    assert refused.json["memory_ids"] == []
    assert any(
        r.startswith("s1 (stable): not given, and the source is a message of role assistant")
        for r in refused.json["reasons"]
    )
    s1 = refused.json["gate"]["criteria"][0]
    assert (s1["score"], s1["settled"]) == (0.0, "not-the-users-words")
    assert cli.events("refuse")[-1]["details"]["settled"] == {
        "s1": {"score": 0.0, "rule": "not-the-users-words"}
    }

    # no s1 nor s2, from the user's own words: settled at the type's default, and said
    source = cli.say("tr_5", "spaces")
    no_scores = cli.candidate("e", source=source, attribute="indent", s1=None, s2=None)
    settled = cli("remember", no_scores, "--json")
    assert (settled.code, settled.json["outcome"]) == (0, "written"), settled.json
    assert settled.json["reasons"][1:] == [
        "s1 settled by the gate (type-default): not given: settled at 0.70, the default for "
        "a semantic memory from the user's own words (0.70 >= theta 0.60)",
        "s2 settled by the gate (type-default): not given: settled at 0.70, the default for "
        "a semantic memory from the user's own words (0.70 >= theta 0.60)",
    ]
    created = cli.events("create")[-1]
    assert created["details"]["settled"] == {
        "s1": {"score": 0.7, "rule": "type-default"},
        "s2": {"score": 0.7, "rule": "type-default"},
    }

    empty = cli("remember", "-", "--json", stdin="")
    assert (empty.code, empty.json["outcome"]) == (0, "empty")
    assert len(cli.events("empty-write")) == 1
    empty_object = cli("remember", "-", stdin='{"content": "  "}')
    assert empty_object.code == 0
    assert empty_object.out.startswith("empty\n")
    assert len(cli.events("empty-write")) == 2


def test_text_output_names_the_outcome_and_each_reason(cli: Cli) -> None:
    path = cli.candidate("x", source={"task": "tr_missing", "message_index": 1}, s2=0.2)
    result = cli("remember", path)
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0] == "refused"
    assert any(line.strip().startswith("s2 (reusable): 0.20 < theta 0.60") for line in lines)
    assert any(line.strip().startswith("s3 (has a source)") for line in lines)


def test_remember_reads_stdin(cli: Cli) -> None:
    source = cli.say("tr_1", "pnpm")
    data = Path(cli.candidate("s", source=source)).read_text(encoding="utf-8")
    result = cli("remember", "-", stdin=data)
    assert result.code == 0
    assert result.out.startswith("written: package-manager-")


def test_remember_takes_a_list_in_one_commit(cli: Cli) -> None:
    def candidate(name: str, **fields: Any) -> dict[str, Any]:
        return dict(json.loads(Path(cli.candidate(name, **fields)).read_text(encoding="utf-8")))

    pnpm = candidate("a", source=cli.say("tr_1", "pnpm"))
    again = candidate("b", source=cli.say("tr_2", "pnpm again"))
    npm = candidate(
        "c", value="npm", content="The project uses npm.", source=cli.say("tr_3", "npm now")
    )
    weak = candidate("d", attribute="lint", s1=0.1, source=pnpm["source"])
    empty = candidate("e", content="")
    batch = [pnpm, again, npm, weak, empty]
    commits = len(subprocess.run(
        ["git", "-C", str(cli.root), "rev-list", "HEAD"], capture_output=True, text=True
    ).stdout.split())  # fmt: skip

    result = cli("remember", "-", "--json", stdin=json.dumps(batch))
    assert result.code == 3, result.err  # the most serious outcome: a conflict
    kinds = [o["outcome"] for o in result.json]
    assert kinds == ["written", "merged", "conflict", "refused", "empty"]
    after = subprocess.run(
        ["git", "-C", str(cli.root), "rev-list", "HEAD"], capture_output=True, text=True
    ).stdout.split()
    assert len(after) == commits + 1
    written = result.json[0]["memory_ids"][0]
    assert result.json[1]["memory_ids"] == [written]
    assert written in result.json[2]["memory_ids"]

    # the text form: one block per candidate, its index first, as the single form says it
    text = cli("remember", "-", stdin=json.dumps([again, weak]))
    assert text.code == 1  # a refusal (the conflict's merge is not one)
    lines = text.out.splitlines()
    assert lines[0] == f"[0] merged: {written}"
    assert any(line == "[1] refused" for line in lines)
    single = cli("remember", "-", stdin=json.dumps(weak))
    assert single.out.splitlines()[0] == "refused"
    assert single.out.splitlines()[1:] == lines[lines.index("[1] refused") + 1 :]


def test_a_bad_candidate_in_a_list_writes_nothing(cli: Cli) -> None:
    source = cli.say("tr_1", "pnpm")
    good = json.loads(Path(cli.candidate("a", source=source)).read_text(encoding="utf-8"))
    before = (cli.root / "events/000001.jsonl").read_text(encoding="utf-8")
    result = cli("remember", "-", stdin=json.dumps([good, {**good, "s1": 2}]))
    assert result.code == 2
    assert "candidate 1: field 's1'" in result.err
    assert "nothing in the list was written" in result.err
    assert (cli.root / "events/000001.jsonl").read_text(encoding="utf-8") == before
    assert list((cli.root / "memories").rglob("*.md")) == []


@pytest.mark.parametrize(
    ("stdin", "words"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "a candidate is a JSON object"),
        ('{"content": "x", "type": "semantic", "scope": "private"}', "field 'subject'"),
        ('{"content": "x", "type": "fact"}', "field 'type'"),
        ('{"content": "x", "type": "semantic", "scope": "private", "subject": "s", '
         '"attribute": "a", "s1": 2}', "field 's1'"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_and_says_what_is_wrong(cli: Cli, stdin: str, words: str) -> None:
    result = cli("remember", "-", stdin=stdin)
    assert result.code == 2
    assert words in result.err
    assert result.out == ""
    assert cli.events("refuse") == [] and cli.events("create") == []


def test_a_missing_file_exits_2(cli: Cli) -> None:
    result = cli("remember", str(cli.root.parent / "nope.json"))
    assert result.code == 2
    assert "no such file" in result.err


def test_working_memory_is_refused_and_nothing_is_written(cli: Cli) -> None:
    path = cli.candidate("w", source=cli.say("tr_1", "step 3"), type="working")
    result = cli("remember", path, "--json")
    assert (result.code, result.json["outcome"]) == (1, "refused")
    assert list((cli.root / "memories").rglob("*.md")) == []


# ------------------------------------------------------------------ secrets
@pytest.mark.parametrize(
    ("fmt", "where"), [((), "content"), (("--json",), "evidence"), (("--json",), "value")]
)
def test_a_refused_secret_is_never_printed_logged_or_committed(
    cli: Cli, fmt: tuple[str, ...], where: str
) -> None:
    token = fake_token(seed=len(where) + len(fmt))
    source = cli.say("tr_1", "the deploy key is in the vault")
    fields: dict[str, Any] = {"source": source}
    if where == "evidence":
        fields["source"] = {**source, "evidence": f"key: {token}"}
    else:
        fields[where] = f"Deploy with {token} when asked."
    result = cli("remember", cli.candidate("secret", **fields), *fmt)
    assert result.code == 1
    assert "github-pat" in result.out
    assert list((cli.root / "memories").rglob("*.md")) == []
    for name, text in {
        "stdout": result.out,
        "stderr": result.err,
        "events/000001.jsonl": (cli.root / "events/000001.jsonl").read_text(encoding="utf-8"),
        "git log -p": git_log_patch(cli.root),
    }.items():
        assert token not in text, f"the secret is in the {name}"
        assert token[:8] not in text, f"the secret's first 8 characters are in the {name}"


def test_scan_names_the_rule_and_never_the_value(cli: Cli, tmp_path: Path) -> None:
    token = fake_token(seed=3)
    note = tmp_path / "note.md"
    note.write_text(f"line one\nuse {token} for CI\n", encoding="utf-8")
    result = cli("scan", str(note), "--json")
    assert result.code == 1
    (finding,) = result.json["findings"]
    assert (finding["rule"], finding["line"], finding["column"]) == ("github-pat", 2, 5)
    text = cli("scan", "-", stdin=f"x {token}")
    assert text.code == 1
    # (the tier comes first: certain or likely)
    assert text.out.strip() == "stdin:1:3: certain github-pat (GitHub personal access token)"
    for output in (result.out, text.out, result.err, text.err):
        assert token[:8] not in output
    clean = cli("scan", "-", stdin="no secrets here")
    assert (clean.code, clean.out.strip()) == (0, "stdin: clean")


def test_scan_gives_each_finding_its_tier(cli: Cli, tmp_path: Path) -> None:
    password = "Zh4ng" + "san-19" + "88x"  # (written in pieces: no literal in this file)
    note = tmp_path / "creds.env"
    note.write_text(
        f"DB_PASSWORD={password}\nthe staging password is {password}\nDB_HOST=db\n",
        encoding="utf-8",
    )
    result = cli("scan", str(note), "--json")
    assert result.code == 1
    assert [(f["tier"], f["rule"], f["line"], f["column"]) for f in result.json["findings"]] == [
        ("likely", "secret-assignment", 1, 13),
        ("likely", "password-in-prose", 2, 25),
    ]
    text = cli("scan", str(note))
    assert text.code == 1
    assert text.out.splitlines()[0] == (
        f"{note}:1:13: likely secret-assignment (A secret-named key given a value)"
    )
    for output in (result.out, text.out, result.err, text.err):
        assert password not in output and password[:6] not in output
    placeholder = cli("scan", "-", stdin="DB_PASSWORD=${CI_DB_PASSWORD}\npassword: changeme\n")
    assert (placeholder.code, placeholder.out.strip()) == (0, "stdin: clean")


# ------------------------------------------------------------------ sweep and recall
def test_sweep_expires_and_lists_unused(cli: Cli) -> None:
    hint = cli.candidate(
        "r",
        source=cli.say("tr_1", "retry e2e once"),
        type="reflection",
        attribute="flaky_tests",
        value="retry once",
        content="Retry the e2e suite once before debugging.",
        environment={"node": "20.11"},
    )
    hint_id = cli("remember", hint, "--json").json["memory_ids"][0]
    expiring = cli.candidate(
        "e",
        source=cli.say("tr_2", "freeze"),
        attribute="deploy_freeze",
        value="frozen",
        content="Deploys are frozen until the audit ends.",
        expires_at=(START + timedelta(days=1)).isoformat(),
    )
    freeze_id = cli("remember", expiring, "--json").json["memory_ids"][0]
    pnpm_id = cli("remember", cli.candidate("p", source=cli.say("tr_3", "pnpm")), "--json").json[
        "memory_ids"
    ][0]

    same = cli("sweep", "--env", "node=20.11", "--json")
    assert same.code == 0
    assert same.json[0]["expired"] == []

    cli.now += timedelta(days=2)
    dry = cli("sweep", "--env", "node=22.1", "--dry-run", "--json")
    assert {e["id"] for e in dry.json[0]["expired"]} == {hint_id, freeze_id}
    assert cli.events("expire") == []

    swept = cli("sweep", "--env", "node=22.1", "--json")
    assert swept.code == 0
    why = {e["id"]: e["why"] for e in swept.json[0]["expired"]}
    assert why[hint_id] == "environment changed: node 20.11 -> 22.1"
    assert why[freeze_id].startswith("past expires_at")
    assert {(e["memory_ids"][0], e["from"], e["to"]) for e in cli.events("expire")} == {
        (hint_id, "active", "expired"),
        (freeze_id, "active", "expired"),
    }

    cli.now += timedelta(days=29)
    text = cli("sweep")
    assert text.code == 0
    assert "expired 0, 1 not consolidation input (unused 30+ days)" in text.out
    assert f"  unused {pnpm_id}" in text.out.splitlines()
    assert Store(cli.root).get(pnpm_id).status == "active"

    bad = cli("sweep", "--env", "node")
    assert bad.code == 2
    assert "TOOL=VERSION" in bad.err


def test_recall_ranks_by_weight_shows_injection_and_trust_and_records_use(cli: Cli) -> None:
    pref = cli.candidate(
        "pref",
        source=cli.say("tr_1", "tables please"),
        type="preference",
        attribute="output_format",
        value="tables",
        content="Use tables for comparisons.",
        confidence=0.9,
    )
    pref_id = cli("remember", pref).out.split()[1]
    cli.now += timedelta(days=30)
    fact = cli.candidate(
        "fact",
        source=cli.say("tr_2", "docs in chinese"),
        attribute="output_format",
        condition="doc=readme",
        value="chinese",
        content="READMEs are written in Chinese.",
    )
    fact_id = cli("remember", fact).out.split()[1]
    cli.now += timedelta(days=1)

    result = cli("recall", "project:liyyro#output_format", "--json")
    assert result.code == 0
    ranked = result.json
    # fact: 0.7 * exp(-1/30) * exp(-1/60) = 0.6659; pref: 0.9 * exp(-31/30) * exp(-31/60) = 0.1910
    assert [r["id"] for r in ranked] == [fact_id, pref_id]
    assert [r["weight"] for r in ranked] == [0.6659, 0.191]
    assert [(r["injection"], r["trust"]) for r in ranked] == [
        ("user message or attachment", "medium, check against current state"),
        ("system prompt", "high, may change behaviour directly"),
    ]
    uses = cli.events("use")
    assert sorted(e["memory_ids"][0] for e in uses) == sorted([fact_id, pref_id])
    assert {e["details"]["query"] for e in uses} == {"project:liyyro#output_format"}
    memory = Store(cli.root).get(pref_id)
    assert memory.usage_count == 1
    assert memory.last_used_at == cli.now

    quiet = cli("recall", "project:liyyro", "--no-usage")
    assert quiet.code == 0
    assert len(quiet.out.splitlines()) == 2
    assert "[system prompt]" in quiet.out
    assert len(cli.events("use")) == 2
    assert cli("recall", "user:nobody").out.strip() == "nothing recalled"


# ------------------------------------------------------------------ the real script
def test_the_installed_script_exits_with_the_outcome_code(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("memgov")
    env = {**os.environ, "MEMGOV_ACTOR": ACTOR, "MEMGOV_STORE": str(tmp_path / "s")}
    env["MEMGOV_NOW"] = START.isoformat()
    run: Callable[..., subprocess.CompletedProcess[str]] = lambda *a, stdin="": subprocess.run(  # noqa: E731
        [str(script), *a], input=stdin, capture_output=True, text=True, env=env, check=False
    )
    assert run("init").returncode == 0
    assert run("log", "--task", "tr_1", "--index", "1", "use pnpm").returncode == 0
    candidate = {
        "content": "The project uses pnpm.",
        "type": "semantic",
        "scope": "private",
        "subject": "project:liyyro",
        "attribute": "package_manager",
        "source": {"task": "tr_1", "message_index": 1, "evidence": "use pnpm"},
        "s1": 0.9,
        "s2": 0.1,
    }
    refused = run("remember", "-", "--json", stdin=json.dumps(candidate))
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["outcome"] == "refused"
    written = run("remember", "-", stdin=json.dumps({**candidate, "s2": 0.9}))
    assert written.returncode == 0, written.stderr
    bad = run("remember", "-", stdin="{")
    assert bad.returncode == 2
