"""A command whose reader went away (``memgov queue | head -1``) ends quietly.

Each command runs in its own interpreter with its output on a pipe whose read
end is already closed: every write fails with EPIPE, as when ``head`` has read
its line and exited. The command must end with git's status for it (141, 128 +
SIGPIPE), no traceback and no "Exception ignored" at the interpreter's exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.demo import OWNER

ROOT = Path(__file__).resolve().parents[2]


def with_closed_reader(*args: str) -> tuple[int, str]:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the command writes anything
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", *args],
            cwd=ROOT,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "MEMGOV_ACTOR": OWNER},
            check=False,
            timeout=120,
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["queue"],
        ["list"],
        ["doctor"],
        ["queue", "--json"],
    ],
)
def test_a_closed_reader_ends_the_command_quietly(demo: Path, command: list[str]) -> None:
    code, err = with_closed_reader(*command, "--store", str(demo))
    assert code == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_help_into_a_closed_reader_ends_quietly() -> None:
    for args in (["--help"], ["remember", "--help"]):
        code, err = with_closed_reader(*args)
        assert code in (0, 141), err  # argparse itself ignores a failed write of help
        assert "Traceback" not in err and "Exception ignored" not in err, err
