"""Codex's Stop hook (``memgov hook turn-end``) as Codex runs it, on a large store.

    .venv/bin/python bench/bench_codex_turn.py                     # 10,000 memories
    .venv/bin/python bench/bench_codex_turn.py --store PATH --turns 400 --runs 9

Copies the store (the cached bench store of bench/stores.py, or ``--store``), writes
a Codex rollout of ``--turns`` turns (six lines each: the typed prompt as an
``event_msg`` and its ``response_item`` copy, a shell call and its output, the
answer, a token count) and runs the hook as a fresh process with Codex's Stop JSON
on standard input, timed from outside (start-up included):

- the first Stop of the session reads the whole rollout (every message is new);
- a Stop with the rollout unchanged (nothing to add);
- a Stop after one more turn was appended (the common case: the end of each turn).

Prints each time in milliseconds (the last two: median and 95th percentile), and
the messages the first run added.
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

ENV = {
    **{k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "CODEX_HOME")},
    "PYTHONPATH": str(ROOT),
}
SESSION = "0199bbbb-cccc-7ddd-8eee-ffff00000001"
OWNER = "bench@example.com"


def turn_lines(n: int) -> list[str]:
    when = f"2026-03-15T{9 + n // 3600 % 10:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    prompt = f"turn {n}: please check the deploy script for the staging cluster"
    items = [
        {"type": "event_msg", "payload": {"type": "user_message", "message": prompt}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": f"grep -n deploy scripts/deploy_{n}.sh"}),
                "call_id": f"call_{n}",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": f"call_{n}",
                "output": "Process exited with code 0\nOutput:\n" + "deploy line\n" * 20,
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"Turn {n}: the script is fine."}],
            },
        },
        {"type": "event_msg", "payload": {"type": "token_count", "info": None}},
    ]
    return [json.dumps({"timestamp": when, **item}) for item in items]


def rollout_head() -> str:
    meta = {"id": SESSION, "timestamp": "2026-03-15T09:00:00.000Z", "cwd": "/home/dev/shop"}
    return json.dumps(
        {"timestamp": "2026-03-15T09:00:00.000Z", "type": "session_meta", "payload": meta}
    )


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def stop(store: Path, rollout: Path, project: Path, home: Path) -> float:
    event = {
        "session_id": SESSION,
        "turn_id": "turn-1",
        "transcript_path": str(rollout),
        "cwd": str(project),
        "hook_event_name": "Stop",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "done",
    }
    command = [sys.executable, "-m", "tui.cli", "hook", "turn-end", "--store", str(store)]
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--as", OWNER],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=project,
        env={**ENV, "HOME": str(home)},
        timeout=120,
    )
    took = time.perf_counter() - start
    if done.returncode != 0 or done.stderr or done.stdout:
        raise SystemExit(f"turn-end: exit {done.returncode}\n{done.stderr[-800:]}{done.stdout}")
    return took


def logged(store: Path) -> int:
    return sum(
        line.startswith("- [")
        for path in (store / "logs").rglob("*.md")
        for line in path.read_text("utf-8").splitlines()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="a store to copy (default: the bench's)")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=333, help="six lines a turn")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="memgov-codex-turn-"))
    if args.store:
        store = home / "store"
        subprocess.run(["cp", "-a", str(args.store.resolve()), str(store)], check=True)
    else:
        from stores import fresh_copy

        store = fresh_copy(args.size, "codex-turn")
    project = home / "project"
    project.mkdir()
    rollout = home / ".codex" / "sessions" / "2026" / "03" / "15" / f"rollout-{SESSION}.jsonl"
    rollout.parent.mkdir(parents=True)
    lines = [rollout_head()] + [line for n in range(args.turns) for line in turn_lines(n)]
    rollout.write_text("\n".join(lines) + "\n")
    before = logged(store)
    first = stop(store, rollout, project, home)
    added = logged(store) - before
    same = [stop(store, rollout, project, home) for _ in range(args.runs)]
    grown = []
    for n in range(args.turns, args.turns + args.runs):
        with rollout.open("a") as out:
            out.write("\n".join(turn_lines(n)) + "\n")
        grown.append(stop(store, rollout, project, home))
    print(f"# Codex Stop (turn-end) on {store.name}, a rollout of {len(lines):,} lines (ms)")
    print(f"first Stop (whole rollout)  {first * 1000:8.1f}  ({added:,} messages added)")
    for name, samples in (("unchanged rollout", same), ("one more turn", grown)):
        median, high = statistics.median(samples) * 1000, p95(samples) * 1000
        print(f"{name:<27} median {median:7.1f}  p95 {high:7.1f}")
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
