"""A Codex rollout followed as it grows (what Codex's Stop hook runs each turn):
read in pieces, it logs exactly what ``memgov log --transcript`` logs reading it
whole, reads only what was appended, leaves a line still being written for the
next turn, and never logs a message twice (a kill after the commit, a rollout read
whole before, a rollout replaced)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import commit_count, fake_token

from core.api.stores import open_workspace
from core.api.writing import follow_rollout, ingest_transcript
from core.importers.transcripts.follow import cursor_path
from core.store import logs
from tui.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CODEX = "codex/rollout-2026-03-15T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001.jsonl"
ACTOR = "dev@example.com"
TOKEN = fake_token("ghp_", 36, seed=41)


def new_store(path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init", "--store", str(path), "--as", ACTOR]) == 0
    capsys.readouterr()
    return path


def logged(root: Path) -> list[tuple[str, int, str, str]]:
    """The messages logged, each secret mark without its hash (each store has its salt)."""
    return sorted(
        (m.task, m.index, m.role, re.sub(r" #[0-9a-f]{12}\]", "]", m.text))
        for m in logs.messages(root)
    )


@pytest.fixture
def lines(tmp_path: Path) -> list[bytes]:
    text = (FIXTURES / CODEX).read_text(encoding="utf-8").replace("@@TOKEN@@", TOKEN)
    return [line.encode() + b"\n" for line in text.splitlines()]


def follow(root: Path, rollout: Path) -> int:
    return follow_rollout(open_workspace([str(root)]), rollout, actor=ACTOR).added


def test_read_in_pieces_it_logs_what_a_whole_read_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]
) -> None:
    whole, pieces = tmp_path / "whole.jsonl", tmp_path / "rollout.jsonl"
    whole.write_bytes(b"".join(lines))
    reference = new_store(tmp_path / "reference", capsys)
    ingest_transcript(open_workspace([str(reference)]), whole, actor=ACTOR)
    expected = logged(reference)
    assert len(expected) == 16

    root = new_store(tmp_path / "store", capsys)
    pieces.write_bytes(b"")
    written, read = 0, 0
    for cut in (1, 6, 7, 8, 13, 21, len(lines), len(lines)):  # pieces of every size, none
        with pieces.open("ab") as out:
            out.write(b"".join(lines[written:cut]))
        written = cut
        report = follow_rollout(open_workspace([str(root)]), pieces, actor=ACTOR)
        read += report.read_bytes  # what was appended, less a prompt that ends it
        assert read <= pieces.stat().st_size
    assert read == pieces.stat().st_size
    assert logged(root) == expected
    assert TOKEN.encode() not in b"".join(p.read_bytes() for p in (root / "logs").rglob("*.md"))
    # read whole afterwards (memgov log --transcript): nothing is added
    commits = commit_count(root)
    assert ingest_transcript(open_workspace([str(root)]), pieces, actor=ACTOR).added == 0
    assert commit_count(root) == commits


def test_a_line_still_being_written_waits_for_the_next_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]
) -> None:
    root = new_store(tmp_path / "store", capsys)
    rollout = tmp_path / "rollout.jsonl"
    half = len(lines[6]) // 2  # the typed prompt's event, cut in two
    rollout.write_bytes(b"".join(lines[:6]) + lines[6][:half])
    report = follow_rollout(open_workspace([str(root)]), rollout, actor=ACTOR)
    # the prompt's first copy waits for its second: read together, logged once
    assert report.skipped == 0 and report.read_bytes == len(b"".join(lines[:5]))
    with rollout.open("ab") as out:
        out.write(lines[6][half:] + b"".join(lines[7:]))
    follow(root, rollout)
    users = [t for _, _, role, t in logged(root) if role == "user"]
    assert users == ["Use Go without any framework, one question at a time plz", "sqlite"]


def test_a_kill_after_the_commit_or_a_read_whole_before_logs_nothing_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]
) -> None:
    root = new_store(tmp_path / "store", capsys)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(b"".join(lines[:12]))
    assert follow(root, rollout) > 0
    state = cursor_path(root, rollout)
    assert state is not None and state.is_file()
    state.unlink()  # the hook killed after its commit, before it kept where it stopped
    with rollout.open("ab") as out:
        out.write(b"".join(lines[12:]))
    follow(root, rollout)
    reference = new_store(tmp_path / "reference", capsys)
    ingest_transcript(open_workspace([str(reference)]), rollout, actor=ACTOR)
    assert logged(root) == logged(reference)

    # a rollout read whole first, then followed: nothing added
    other = new_store(tmp_path / "other", capsys)
    ingest_transcript(open_workspace([str(other)]), rollout, actor=ACTOR)
    commits = commit_count(other)
    assert follow(other, rollout) == 0 and commit_count(other) == commits


def test_a_replaced_rollout_or_a_broken_cursor_starts_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]
) -> None:
    root = new_store(tmp_path / "store", capsys)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(b"".join(lines))
    follow(root, rollout)
    before = logged(root)
    state = cursor_path(root, rollout)
    assert state is not None
    for broken in ('{"offset": -4, "numbered": 2}', "[1, 2]", "{" * 10_000, '{"offset": "x"}'):
        state.write_text(broken)
        assert follow(root, rollout) == 0
    rollout.write_bytes(b"".join(lines[:5]))  # shorter than the offset kept
    assert follow(root, rollout) == 0
    assert logged(root) == before


def test_the_same_rollout_unchanged_is_not_read_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[bytes]
) -> None:
    root = new_store(tmp_path / "store", capsys)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(b"".join(lines))
    follow(root, rollout)
    commits = commit_count(root)
    report = follow_rollout(open_workspace([str(root)]), rollout, actor=ACTOR)
    assert (report.added, report.read_bytes) == (0, 0) and commit_count(root) == commits
    shutil.rmtree(root / "logs")  # not even the logs are looked at
    assert follow(root, rollout) == 0
