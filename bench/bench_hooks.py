"""The Claude Code hooks as Claude Code runs them, on a large store.

    .venv/bin/python bench/bench_hooks.py                 # 10,000 memories, 15 runs
    .venv/bin/python bench/bench_hooks.py --sizes 10000 --runs 30

Copies the cached store (bench/stores.py) and runs ``memgov hook EVENT`` for each
event as a fresh process (what Claude Code starts every time), the event's JSON on
standard input and a project folder as the current folder, timed from outside:
start-up included. The events:

- ``session-start``: prints the governed index (its size in lines, bytes and
  characters is printed too, against Claude Code's caps);
- ``user-prompt``: logs a prompt (one commit) and recalls the subject it names;
- ``post-tool``: logs a WebFetch result of 20 KB as an excerpt with its hash;
- ``session-end``: syncs the project's Claude Code memory folder (a small one,
  made for the run; the sync imports it once, then finds it unchanged).

Prints the median and the 95th percentile of each, in milliseconds, against two
floors run in the same way: ``python -c pass`` and ``memgov --help``. The demo's
SessionStart output size is printed as well.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from stores import OWNER, PROBE_SUBJECT, fresh_copy

ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPATH": str(ROOT),
}
SESSION = "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def timed(command: list[str], stdin: str, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )
    took = time.perf_counter() - start
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{' '.join(command[:4])}: exit {done.returncode}\n{done.stderr[-800:]}")
    return took, done.stdout


def events(project: Path) -> dict[str, str]:
    common = {"session_id": SESSION, "cwd": str(project), "permission_mode": "default"}
    page = "The deploy API moved to v3; tokens rotate weekly. " * 400
    return {
        "session-start": json.dumps(
            {**common, "hook_event_name": "SessionStart", "source": "startup"}
        ),
        "user-prompt": json.dumps(
            {**common, "hook_event_name": "UserPromptSubmit", "prompt": f"what of {PROBE_SUBJECT}?"}
        ),
        "post-tool": json.dumps(
            {
                **common,
                "hook_event_name": "PostToolUse",
                "tool_name": "WebFetch",
                "tool_input": {"url": "https://docs.example.com/deploy", "prompt": "what changed"},
                "tool_response": {"result": page, "code": 200},
            }
        ),
        "session-end": json.dumps({**common, "hook_event_name": "SessionEnd", "reason": "exit"}),
    }


def size_of(text: str) -> str:
    return (
        f"{len(text.splitlines())} lines, {len(text.encode('utf-8')):,} bytes, "
        f"{len(text):,} characters (caps: 200 lines, 25,000 bytes, 10,000 characters)"
    )


def demo_size(memgov: list[str], home: Path) -> str:
    demo = home / "demo-store"
    env = {**ENV, "HOME": str(home), "MEMGOV_ACTOR": OWNER}
    subprocess.run(
        [*memgov, "demo", "--no-open", "--store", str(demo)],
        capture_output=True,
        env=env,
        check=True,
        cwd=home,
    )
    _took, out = timed(
        [*memgov, "hook", "session-start", "--store", str(demo), "--as", OWNER],
        events(home)["session-start"],
        home,
        env,
    )
    return size_of(out)


def bench(size: int, runs: int) -> None:
    memgov = [sys.executable, "-m", "tui.cli"]
    store = fresh_copy(size, "hooks")
    home = Path(tempfile.mkdtemp(prefix="memgov-hooks-"))
    project = home / "project"
    project.mkdir()
    folder = (
        home
        / ".claude"
        / "projects"
        / "".join(c if c.isascii() and c.isalnum() else "-" for c in str(project))
        / "memory"
    )
    shutil.copytree(ROOT / "tests" / "fixtures" / "claude_code" / "liyyro", folder)
    env = {**ENV, "HOME": str(home)}
    floors = {
        "python -c pass": ([sys.executable, "-c", "pass"], ""),
        "memgov --help": ([*memgov, "--help"], ""),
    }
    results: dict[str, list[float]] = {}
    for name, (command, stdin) in floors.items():
        results[name] = [timed(command, stdin, project, env)[0] for _ in range(runs)]
    output = ""
    for name, stdin in events(project).items():
        command = [*memgov, "hook", name, "--store", str(store), "--as", OWNER]
        timed(command, stdin, project, env)  # once untimed: the first sync imports the folder
        samples = []
        for _ in range(runs):
            took, out = timed(command, stdin, project, env)
            samples.append(took)
            output = out if name == "session-start" else output
        results[name] = samples
    print(f"# hooks on {size:,} memories, {runs} runs each (ms; start-up included)")
    for name, samples in results.items():
        median, high = statistics.median(samples) * 1000, p95(samples) * 1000
        print(f"{name:<16} median {median:7.1f}  p95 {high:7.1f}")
    print(f"session-start output at {size:,}: {size_of(output)}")
    print(f"session-start output on the demo: {demo_size(memgov, home)}")
    shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for size in args.sizes:
        bench(size, args.runs)


if __name__ == "__main__":
    main()
