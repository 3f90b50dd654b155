"""``memgov log --transcript`` killed with SIGKILL at any moment.

The real CLI runs as a subprocess (its own process group, real fsync) on a real store
with a transcript of a few thousand lines over many days, in both formats (a Claude
Code session, a Codex rollout). Each round waits for something the process has
visibly done (the transcript open, the crash journal written, the first daily log,
half of them, new git objects, the branch moved), kills the whole group with SIGKILL
at once, and checks: no daily log line is half written or there twice, the store
opens, ``memgov doctor`` finds nothing, git is clean, and running the ingestion again
to its end leaves exactly the daily logs an uninterrupted run left on a copy.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import fake_token

from core.store import logs
from core.store.fsutil import is_temp_name
from core.store.store import Store
from tui.cli import main

PROJECT = Path(__file__).resolve().parents[2]
ACTOR = "dev@example.com"
TOKEN = fake_token("ghp_", 36, seed=41)
#: the days a transcript spans: each its own daily log, written one after another
DAYS = 24
LINES = 2_500


def _stamp(n: int, total: int) -> str:
    day = 1 + n * DAYS // total
    return f"2026-03-{day:02d}T{1 + n % 20:02d}:{n % 60:02d}:{n * 7 % 60:02d}.000Z"


def _body(rng: random.Random, n: int) -> str:
    """A tool's output: a few lines to a long one (past the excerpt), now and then a
    credential."""
    rows = "\n".join(f"src/m{n}/f{i}.py:{i}: case {n} handled" for i in range(rng.randint(2, 160)))
    return rows + (f"\nexport API_TOKEN={TOKEN}" if n % 97 == 0 else "")


def claude_session(total: int) -> list[dict[str, Any]]:
    rng = random.Random(37)
    out: list[dict[str, Any]] = []
    n = 0
    while len(out) < total:
        n += 1
        base = {"sessionId": "kill-claude-0001", "isSidechain": False, "uuid": f"u{n}",
                "timestamp": _stamp(len(out), total)}  # fmt: skip
        step = n % 6
        if step == 0:
            said = {"role": "user", "content": f"Prompt {n}: handle case {n}"}
            out.append({**base, "type": "user", "message": said})
        elif step in (1, 3):
            tool = ("Bash", "WebFetch", "Read")[n % 3]
            out.append({**base, "type": "assistant", "message": {"id": f"m{n}",
                        "role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}",
                        "name": tool, "input": {"command": f"rg 'case {n}'"}}]}})  # fmt: skip
        elif step in (2, 4):
            out.append({**base, "type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{n - 1}",
                 "content": _body(rng, n)}]}})  # fmt: skip
        else:
            out.append({**base, "type": "assistant", "message": {"id": f"m{n}",
                        "role": "assistant", "content": [{"type": "text",
                        "text": f"Reply {n}: case {n} is handled."}]}})  # fmt: skip
    return out


def codex_rollout(total: int) -> list[dict[str, Any]]:
    rng = random.Random(38)
    out: list[dict[str, Any]] = [
        {"timestamp": _stamp(0, total), "type": "session_meta",
         "payload": {"id": "kill-codex-0001", "cwd": "/home/dev/shop"}}
    ]  # fmt: skip
    n = 0
    while len(out) < total:
        n += 1

        def put(kind: str, payload: dict[str, Any]) -> None:
            out.append({"timestamp": _stamp(len(out), total), "type": kind, "payload": payload})

        step = n % 8
        if step == 0:
            prompt = f"Prompt {n}: handle case {n}"
            put("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": prompt}]})  # fmt: skip
            put("event_msg", {"type": "user_message", "message": prompt})
        elif step < 6:
            call = f"call_{n}"
            put("response_item", {"type": "function_call", "name": "exec_command",
                                  "arguments": json.dumps({"cmd": f"rg 'case {n}'"}),
                                  "call_id": call})  # fmt: skip
            output = f"Process exited with code 0\nOutput:\n{_body(rng, n)}"
            put("response_item", {"type": "function_call_output", "call_id": call,
                                  "output": output})  # fmt: skip
        elif step == 6:
            put("event_msg", {"type": "token_count", "info": {"total": n}})
        else:
            reply = f"Reply {n}: case {n} is handled."
            put("event_msg", {"type": "agent_message", "message": reply})
            put("response_item", {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": reply}]})  # fmt: skip
    return out[:total]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(PROJECT), "MEMGOV_ACTOR": ""}


def ingest(root: Path, transcript: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "log", "--store", str(root), "--as", ACTOR, "--json",
         "--transcript", str(transcript)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), start_new_session=True,
    )  # fmt: skip


def memgov(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        capture_output=True, text=True, env=env(), timeout=300, check=False,
    )  # fmt: skip


def daily_logs(root: Path) -> dict[str, str]:
    base = root / logs.LOG_DIR
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(base.rglob("*.md"))
        if p.is_file()
    }


def objects(root: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(root / ".git" / "objects"))


def head(root: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def reading(pid: int, transcript: Path) -> bool:
    """Whether the process has the transcript open (it reads it)."""
    with_fd = Path(f"/proc/{pid}/fd")
    try:
        return any(os.readlink(fd) == str(transcript) for fd in with_fd.iterdir())
    except OSError:
        return False


@dataclass(frozen=True)
class Point:
    """A moment to kill at: what the process has visibly done by then."""

    name: str
    reached: Callable[[int, Path, Path, dict[str, Any]], bool]  # pid, store, transcript, at start
    must_land: bool = True  # a moment wide enough that a kill lands in it every time


def _logs_at_least(count: Callable[[int], int]) -> Callable[..., bool]:
    def reached(pid: int, root: Path, transcript: Path, start: dict[str, Any]) -> bool:
        base = root / logs.LOG_DIR
        return base.is_dir() and sum(1 for _ in base.rglob("*.md")) >= count(start["days"])

    return reached


POINTS = (
    Point("reading the transcript", lambda pid, root, t, start: reading(pid, t)),
    Point(
        "the journal written",
        lambda pid, root, t, start: (root / ".git" / "memgov" / "txn.json").exists(),
    ),
    Point("the first daily log written", _logs_at_least(lambda days: 1)),
    Point("half the daily logs written", _logs_at_least(lambda days: days // 2)),
    Point(
        "new git objects",
        lambda pid, root, t, start: objects(root) > start["objects"],
        must_land=False,
    ),
    Point(
        "the branch moved", lambda pid, root, t, start: head(root) != start["head"], must_land=False
    ),
)


def kill_at(point: Point, root: Path, transcript: Path, days: int) -> bool:
    """Run the ingestion and SIGKILL its process group once ``point`` is reached; True
    when the kill landed (the process had not ended by itself before)."""
    start = {"objects": objects(root), "head": head(root), "days": days}
    process = ingest(root, transcript)
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        if point.reached(process.pid, root, transcript, start):
            break
        time.sleep(0.0002)
    landed = process.poll() is None
    with contextlib.suppress(ProcessLookupError):  # (ended by itself, and reaped: no group)
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    return landed and process.returncode == -signal.SIGKILL


def check_lines(root: Path, whole: dict[str, str], when: str) -> None:
    """Every message line is one of the uninterrupted run's, whole, in its day's log,
    and no message of a task is there twice."""
    seen: set[tuple[str, str, int]] = set()
    for rel, text in daily_logs(root).items():
        assert text.endswith("\n"), (when, rel)
        expected = set(whole[rel].splitlines())
        for task, line in logs.lines_by_task(text):
            if not line.strip() or line.startswith("# "):
                continue
            assert line in expected, (when, rel, line[:120])
            found = logs.MESSAGE_RE.match(line)
            assert found, (when, rel, line[:120])
            key = (rel, task, int(found["index"]))
            assert key not in seen, (when, "twice", key)
            seen.add(key)


def check_store(root: Path, *, written: bool, doctor: bool) -> None:
    """The store opens, doctor finds nothing (asked when ``doctor``), git is clean,
    nothing is left over (a temporary file a killed write left stays until the next
    write removes it, under the store's lock: ``written`` says there was one)."""
    if doctor:  # the first reader: it finishes or undoes what the kill left
        done = memgov("doctor", "--store", str(root), "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        report = json.loads(done.stdout)
        assert report["clean"] and all(not s["findings"] for s in report["stores"]), report
    snapshot = Store(root).load(use_cache=False)
    assert not snapshot.warnings and not snapshot.problems, snapshot
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    left = [line for line in status.splitlines() if written or not is_temp_name(Path(line).name)]
    assert left == [], status
    assert not (root / ".git" / "memgov" / "txn.json").exists()
    assert not (root / ".git" / "index.lock").exists()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to see a file open")
@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_a_transcript_read_killed_at_any_moment_ends_as_one_that_was_not(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = claude_session if kind == "claude-code" else codex_rollout
    transcript = tmp_path / f"{kind}.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in made(LINES)))
    template = tmp_path / "template"
    assert main(["init", "--store", str(template), "--as", ACTOR]) == 0
    capsys.readouterr()

    whole_root = tmp_path / "whole"  # the uninterrupted run, on a copy
    shutil.copytree(template, whole_root, symlinks=True)
    assert main(["log", "--store", str(whole_root), "--as", ACTOR, "--json",
                 "--transcript", str(transcript)]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    whole = daily_logs(whole_root)
    assert len(whole) >= DAYS - 1 and report["added"] > LINES // 2 and report["skipped"] == 0
    assert "sha256" in "".join(whole.values())  # long outputs are excerpts
    assert TOKEN not in "".join(whole.values())

    landed: list[str] = []
    for number, point in enumerate(POINTS):
        for attempt in range(6):
            root = tmp_path / f"kill{number}-{attempt}"
            shutil.copytree(template, root, symlinks=True)
            hit = kill_at(point, root, transcript, len(whole))
            check_lines(root, whole, f"{point.name}, right after the kill")
            opened = tmp_path / f"opened{number}-{attempt}"  # the next command: doctor ...
            shutil.copytree(root, opened, symlinks=True)
            check_store(opened, written=False, doctor=True)  # it recovers first
            check_lines(opened, whole, f"{point.name}, recovered")
            # ... or the ingestion again, on the store as the kill left it
            again = memgov("log", "--store", str(root), "--as", ACTOR, "--json",
                           "--transcript", str(transcript))  # fmt: skip
            assert again.returncode == 0, (point.name, again.stderr)
            counted = json.loads(again.stdout)
            assert counted["added"] + counted["already"] == report["added"], point.name
            assert daily_logs(root) == whole, point.name
            check_store(root, written=True, doctor=False)
            if hit:
                landed.append(point.name)
                break
        else:
            assert not point.must_land, f"no kill landed at {point.name!r} in 6 tries"
    assert len(landed) >= len([p for p in POINTS if p.must_land])
