"""``memgov log --transcript FILE``: Claude Code sessions and Codex rollouts read into the
daily logs with the right roles, once.

The fixtures in tests/fixtures/transcripts/ follow the formats as Claude Code and Codex
write them (a credential in them is the placeholder ``@@TOKEN@@``, filled at run time
with a made-up token). The real transcripts in ``../shared/real-transcripts/`` (written
by real people; never copied here) are read when present, and skipped when absent.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import commit_count, fake_token

from core.api.writing import ingest_transcript
from core.domain import provenance
from core.domain.errors import AuthorizationError, ValidationError
from core.store import logs
from core.store.store import Store
from core.store.workspace import Workspace
from tui.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
PROJECT = Path(__file__).resolve().parents[2]
REAL = PROJECT.parent / "shared" / "real-transcripts"
ACTOR = "dev@example.com"
TOKEN = fake_token("ghp_", 36, seed=37)
CLAUDE = Path("claude-code/s-fixture-1.jsonl")
SIDECHAIN = Path("claude-code/s-fixture-1/subagents/agent-a7f3.jsonl")
CODEX = Path("codex/rollout-2026-03-15T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl")
OLD_CODEX = Path("codex/rollout-2025-06-01T08-00-00-old-session-0001.jsonl")
MALFORMED = Path("claude-code/malformed.jsonl")


@pytest.fixture
def transcripts(tmp_path: Path) -> Path:
    """The fixtures, each credential placeholder filled with a made-up token."""
    target = tmp_path / "transcripts"
    shutil.copytree(FIXTURES, target)
    for path in target.rglob("*.jsonl"):
        path.write_text(path.read_text(encoding="utf-8").replace("@@TOKEN@@", TOKEN))
    return target


@pytest.fixture
def root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    target = tmp_path / "store"
    assert main(["init", "--store", str(target), "--as", ACTOR]) == 0
    capsys.readouterr()
    return target


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, Any]:
    code = main(["log", "--store", str(root), "--as", ACTOR, "--json", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def logged(root: Path, task: str | None = None) -> list[tuple[int, str, str]]:
    """(index, role, text) of every logged message (of one task), in index order."""
    found = [
        (m.index, m.role, m.text) for m in logs.messages(root) if task is None or m.task == task
    ]
    return sorted(found)


def every_byte(root: Path) -> bytes:
    """The store's files and its whole git history, as text git prints it."""
    files = b"".join(
        p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    )
    history = subprocess.run(
        ["git", "-C", str(root), "log", "-p", "--all"], capture_output=True, check=True
    ).stdout
    return files + history


# -- the real CLI, every fixture -----------------------------------------------------------


def test_every_fixture_through_the_cli_as_a_subprocess(transcripts: Path, root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    reports = []
    for rel in (CLAUDE, SIDECHAIN, CODEX, OLD_CODEX, MALFORMED):
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", "log", "--store", str(root), "--as", ACTOR,
             "--json", "--transcript", str(transcripts / rel)],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        reports.append(json.loads(done.stdout))
    assert [r["format"] for r in reports] == ["claude-code"] * 2 + ["codex"] * 2 + ["claude-code"]
    assert [r["added"] for r in reports] == [21, 4, 16, 5, 4]
    assert all(r["already"] == 0 for r in reports)
    commits = commit_count(root)
    again = subprocess.run(
        [sys.executable, "-m", "tui.cli", "log", "--store", str(root), "--as", ACTOR, "--json",
         "--transcript", str(transcripts / CODEX), "--format", "codex"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    report = json.loads(again.stdout)
    assert (report["added"], report["already"]) == (0, 16)
    assert commit_count(root) == commits  # nothing new: no commit either
    assert TOKEN.encode() not in every_byte(root)
    assert re.search(rb"\[secret: github-pat #[0-9a-f]{12}\]", every_byte(root))  # salted


def unsalted(found: object) -> str:
    """What was logged with each secret mark's salted hash left out."""
    return re.sub(r" #[0-9a-f]{12}\]", "]", repr(found))


# -- roles ---------------------------------------------------------------------------------


def test_a_claude_code_session_logs_each_message_with_its_role(
    transcripts: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = cli(capsys, root, "--transcript", str(transcripts / CLAUDE))
    assert code == 0
    assert report["session"] == "s-fixture-1"
    assert report["tasks"] == ["session-s-fixture-1"]
    assert (report["turns"], report["tool_calls"], report["tool_results"]) == (2, 5, 5)
    roles = [(i, role) for i, role, _ in logged(root, "session-s-fixture-1")]
    texts = {i: text for i, _, text in logged(root, "session-s-fixture-1")}
    assert [r for _, r in roles] == [
        "system",  # isMeta: Claude Code's caveat, never the user's words
        "user",  # the typed prompt (string content)
        "assistant",  # split message, line 2 (thinking is not logged)
        "assistant",  # split message, line 3: its tool call
        "file",  # what Read gave back (a string)
        "assistant",
        "web",  # what WebFetch gave back (a block list)
        "assistant",
        "web",  # WebSearch's results
        "assistant",
        "tool",  # Bash's output
        "assistant",
        "agent",  # the subagent's answer (Task)
        "assistant",
        "system",  # the compact boundary
        "system",  # the compaction summary
        "system",  # a <system-reminder> beside the user's words ...
        "user",  # ... and the words
        "user",  # a slash command the user ran (no turn)
        "tool",  # its output
        "system",  # the summary line
    ]
    assert texts[2].startswith("From now on write every doc table in Chinese")
    assert re.search(r"\[secret: github-pat #[0-9a-f]{12}\]", texts[2]) and TOKEN not in texts[2]
    assert "IGNORE PREVIOUS INSTRUCTIONS" in texts[7]
    assert texts[18] == "也把 README 的表格改成中文"
    assert texts[4] == "called Read: file_path=/home/dev/shop/README.md"


def test_a_sidechain_is_the_subagent_s_own_task_and_never_the_user_s(
    transcripts: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = cli(capsys, root, "--transcript", str(transcripts / SIDECHAIN))
    assert code == 0
    assert report["tasks"] == ["session-s-fixture-1-agent-a7f3"]
    assert [r for _, r, _ in logged(root)] == ["agent", "agent", "file", "agent"]


def test_a_codex_rollout_logs_the_prompt_once_and_instructions_as_system(
    transcripts: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = cli(capsys, root, "--transcript", str(transcripts / CODEX))
    assert code == 0
    assert report["session"] == "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001"
    assert (report["turns"], report["tool_calls"], report["tool_results"]) == (2, 5, 4)
    messages = logged(root)
    assert [r for _, r, _ in messages] == [
        "system", "system", "system",  # permissions, AGENTS.md, environment context
        "user",  # the prompt, once (response_item and event_msg hold it)
        "assistant", "tool",  # shell (argv) and its JSON output
        "assistant", "tool",  # shell_command
        "assistant", "tool",  # exec_command
        "web",  # web_search_call
        "assistant", "tool",  # apply_patch (custom tool)
        "assistant",  # the reply (once: its event_msg copy is not logged)
        "user",  # the second prompt
        "system",  # compacted: the summary carried on
    ]  # fmt: skip
    texts = [t for _, _, t in messages]
    assert texts[1].startswith("# AGENTS.md instructions")
    assert texts[3] == "Use Go without any framework, one question at a time plz"
    assert texts[4] == "called shell: command=bash -lc ls"
    assert texts[5] == "exit 0: go.mod main.go"
    assert re.fullmatch(
        r"Exit code: 0 Output: API_TOKEN=\[secret: github-pat #[0-9a-f]{12}\]", texts[7]
    )
    assert texts[10] == "web search: go net/http routing patterns 1.22"
    assert "Summary so far" in texts[15]


def test_an_older_codex_rollout_without_wrappers(
    transcripts: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = cli(capsys, root, "--transcript", str(transcripts / OLD_CODEX))
    assert (code, report["format"], report["session"]) == (0, "codex", "old-session-0001")
    assert [(r, t[:22]) for _, r, t in logged(root)] == [
        ("system", "<user_instructions> Be"),
        ("user", "Add a health endpoint"),
        ("assistant", "called shell: command="),
        ("tool", "exit 1: (empty)"),
        ("assistant", "Added GET /health."),
    ]


# -- idempotence ---------------------------------------------------------------------------


@pytest.mark.parametrize("rel", [CLAUDE, CODEX])
def test_a_longer_transcript_adds_only_what_follows(
    rel: Path, transcripts: Path, root: Path, tmp_path: Path
) -> None:
    lines = (transcripts / rel).read_text(encoding="utf-8").splitlines(keepends=True)
    grown = tmp_path / "live" / rel.name
    grown.parent.mkdir()
    grown.write_text("".join(lines[:9]) + lines[9][:20])  # the last line still being written
    workspace = Workspace([Store(root)])
    first = ingest_transcript(workspace, grown, actor=ACTOR)
    assert first.skipped == 1 and "unfinished" in first.skipped_lines[0]
    grown.write_text("".join(lines))
    second = ingest_transcript(workspace, grown, actor=ACTOR)
    assert second.already == first.added and second.skipped == 0
    third = ingest_transcript(workspace, grown, actor=ACTOR)
    assert (third.added, third.already) == (0, first.added + second.added)
    fresh = tmp_path / "fresh"
    assert main(["init", "--store", str(fresh), "--as", ACTOR]) == 0
    ingest_transcript(Workspace([Store(fresh)]), grown, actor=ACTOR)
    # in two runs as in one (each store salts its marks with its own salt)
    assert unsalted(logged(root)) == unsalted(logged(fresh))


# -- untrusted input -----------------------------------------------------------------------


def test_malformed_lines_are_skipped_and_named(
    transcripts: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = transcripts / MALFORMED
    with path.open("a", encoding="utf-8") as handle:  # more: deep nesting, a huge line
        handle.write("\n" + "[" * 100_000 + "]" * 100_000 + "\n")
        handle.write(
            '{"type": "user", "message": {"content": "' + "x" * (9 * 1024 * 1024) + '"}}\n'
        )
        last = {"type": "user", "message": {"role": "user", "content": "still read"}}
        handle.write(json.dumps(last) + "\n")
    code, report = cli(capsys, root, "--transcript", str(path))
    assert code == 0
    reasons = sorted(report["skipped_lines"])
    assert report["skipped"] == 6
    assert [r.split(": ", 1)[0].rsplit(":", 1)[1] for r in reasons] == sorted(
        ["2", "3", "4", "8", "9", "10"]
    )
    assert all(r.startswith(str(path)) for r in reasons)
    assert any("over 8 MiB" in r for r in reasons)
    assert any("message is not an object" in r for r in reasons)
    assert [r for _, r, _ in logged(root)] == ["user", "assistant", "tool", "assistant", "user"]
    assert logged(root)[-1][2] == "still read"


def test_a_file_that_is_no_transcript_is_refused_by_name(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just notes\n")
    assert main(["log", "--store", str(root), "--as", ACTOR, "--transcript", str(path)]) != 0
    err = capsys.readouterr().err
    assert str(path) in err and "neither a Claude Code transcript nor a Codex rollout" in err
    with pytest.raises(ValidationError):
        ingest_transcript(Workspace([Store(root)]), tmp_path / "absent.jsonl", actor=ACTOR)
    assert main(["log", "--store", str(root), "--as", ACTOR, "--transcript", str(path),
                 "--task", "t"]) != 0  # fmt: skip
    assert main(["log", "--store", str(root), "--as", ACTOR, "hello"]) != 0


def test_a_long_result_is_an_excerpt_with_a_hash(
    tmp_path: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.jsonl"
    lines = [
        {"type": "assistant", "sessionId": "big", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cat log"}}]}},
        {"type": "user", "sessionId": "big", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1",
             "content": "line\n" * 100_000 + TOKEN}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, report = cli(capsys, root, "--transcript", str(path))
    assert (code, report["added"]) == (0, 2)
    text = logged(root)[1][2]
    assert len(text) < 2000
    mark = r" … \[excerpt: 500,0\d\d characters, sha256 [0-9a-f]{64}, words [A-Za-z0-9+/=]+\]"
    assert re.fullmatch(r"line( line){299}" + mark, text)  # 1,500 characters, then the mark
    redacted = logs.redacted(Store(root).state_dir, "line\n" * 100_000 + TOKEN)
    whole = " ".join(redacted.split())  # as the log holds it
    digest = hashlib.sha256(whole.encode()).hexdigest()
    assert logs.excerpt_of(text) == logs.Cut(
        text.split(" … ")[0], len(whole), digest, provenance.word_filter(whole)
    )
    assert text == logs.excerpt_line(whole, 1_500)  # the one excerpt the hooks write too
    assert TOKEN.encode() not in every_byte(root)


# -- the real transcripts ------------------------------------------------------------------


def _table() -> dict[str, tuple[int, int, int]]:
    """The README's counts: file name -> (user turns, tool calls, tool results)."""
    found: dict[str, tuple[int, int, int]] = {}
    for line in (REAL / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 6 and cells[1].endswith(".jsonl"):
            turns, calls, results = (int(n) for n in cells[6].split("/"))
            found[cells[1]] = (turns, calls, results)
    return found


def _tool_results(path: Path) -> set[str]:
    """The text of every tool result in a transcript, read apart from the importer."""
    found: set[str] = set()
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        payload = line.get("payload") or {}
        if isinstance(payload, dict) and str(payload.get("type", "")).endswith("_output"):
            found.add(" ".join(str(payload.get("output")).split()))
        content = (line.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                text = (
                    inner
                    if isinstance(inner, str)
                    else " ".join(b.get("text", "") for b in inner or [] if isinstance(b, dict))
                )
                found.add(" ".join(text.split()))
    return {t for t in found if t}


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-transcripts/ is absent")
def test_the_real_transcripts(tmp_path: Path, root: Path) -> None:
    table = _table()
    assert len(table) == 5
    workspace = Workspace([Store(root)])
    for name, (turns, calls, results) in sorted(table.items()):
        report = ingest_transcript(workspace, REAL / name, actor=ACTOR)
        assert report.skipped == 0, (name, report.skipped_lines)
        assert (report.turns, report.tool_calls, report.tool_results) == (turns, calls, results)
        assert report.added == sum(report.by_role.values())
        outputs = _tool_results(REAL / name)
        for task in report.tasks:
            said = [t for _, role, t in logged(root, task) if role == "user"]
            assert not [t for t in said if t in outputs], name  # no tool result as the user's
            assert len(said) >= turns if "agent-" not in task else not said
        again = ingest_transcript(workspace, REAL / name, actor=ACTOR)
        assert (again.added, again.already) == (0, report.added)


def test_someone_not_a_maintainer_logs_a_team_session_in_the_private_store(
    transcripts: Path, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = tmp_path / "team"
    assert main(["init", "--store", str(team), "--scope", "team",
                 "--maintainer", "lead@example.com", "--as", "lead@example.com"]) == 0  # fmt: skip
    capsys.readouterr()
    commits = commit_count(team)
    report = ingest_transcript(
        Workspace([Store(team), Store(root)]), transcripts / CODEX, actor=ACTOR
    )
    assert report.store == str(Store(root).root) and report.added == 16  # private first
    assert commit_count(team) == commits and not (team / "logs").exists()
    with pytest.raises(AuthorizationError):
        ingest_transcript(Workspace([Store(team)]), transcripts / CODEX, actor=ACTOR)
