"""The candidate example of the CLI's documentation (``docs/cli.md``, linked from the
README) works as written: the ``memgov log`` line, then the JSON candidate through
``memgov remember`` (a newcomer copies both)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ACTOR = "newcomer@example.com"


def _example() -> tuple[list[list[str]], dict[str, object]]:
    text = (ROOT / "docs" / "cli.md").read_text("utf-8")
    start = text.index("A candidate, as an agent sends it to `memgov remember`")
    commands_block, json_block = re.findall(r"```(?:json)?\n(.*?)```", text[start:], re.S)[:2]
    commands = [shlex.split(line) for line in commands_block.splitlines() if line.strip()]
    return commands, json.loads(json_block)


def _memgov(tmp: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv, "--store", str(tmp / "store"), "--as", ACTOR],
        cwd=tmp,
        capture_output=True,
        text=True,
    )


def test_the_readme_candidate_is_written_as_the_readme_says(tmp_path: Path) -> None:
    commands, candidate = _example()
    assert [c[:2] for c in commands] == [["memgov", "log"], ["memgov", "remember"]]
    assert _memgov(tmp_path, "init").returncode == 0
    (tmp_path / commands[1][2]).write_text(json.dumps(candidate, ensure_ascii=False), "utf-8")
    for command in commands:
        done = _memgov(tmp_path, *command[1:])
        assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("written: ")
    listed = _memgov(tmp_path, "list", "--json")
    [record] = json.loads(listed.stdout)
    assert record["attribute"] == candidate["attribute"]
    assert record["source"]["evidence"] == candidate["source"]["evidence"]  # type: ignore[index]
