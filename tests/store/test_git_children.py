"""Every git process memgov starts dies with it: a memgov killed with SIGKILL leaves no
git running beside the command that comes next (which would find its lock files).
Real processes: a parent that starts git, is killed, and the child is looked for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _state(pid: int) -> str | None:
    """The process's state letter (R, S, Z, ...), or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_a_git_child_dies_when_its_parent_is_killed(tmp_path: Path) -> None:
    """A git that would run for two minutes (an alias that waits; it reads no input,
    so no closed pipe ends it): killing its parent ends it at once."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pathlib import Path\n"
        "from core.store.gitstore.run import run\n"
        f"run(Path({str(repo)!r}), '-c', 'alias.hold=!sleep 120', 'hold')\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 20
    git = []
    while not git and time.monotonic() < deadline:
        git = [p for p in _children(parent.pid) if _comm(p) == "git"]
        time.sleep(0.02)
    assert git, "the parent started no git"
    (pid,) = git
    assert _state(pid) in ("R", "S")
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while _state(pid) in ("R", "S", "D") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _state(pid) in (None, "Z", "X"), f"git {pid} still runs after its parent was killed"
