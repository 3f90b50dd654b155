"""A session transcript of 2,000 lines into the daily logs, then again (nothing added).

    .venv/bin/python bench/bench_transcripts.py [--lines 2000] [--format codex|claude-code]

The transcript is made here, in a temporary folder: a Codex rollout (or a Claude Code
session) of ``--lines`` lines in the proportions of a real one (prompts, replies, tool
calls and their outputs, token counts, reasoning), outputs of a few hundred bytes to
20 KB. Prints, in the same run: the floor (reading the file and parsing each line's
JSON, nothing else), the first ingest (every message added, one commit) and the second
(nothing added, no commit), in seconds: the median of ``--repeat`` runs, and the best.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.api.writing import ingest_transcript
from core.store.store import Store
from core.store.workspace import Workspace
from tui.cli import main

ACTOR = "bench@example.com"


def codex_lines(count: int, rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"timestamp": "2026-03-18T18:00:00.000Z", "type": "session_meta",
         "payload": {"id": "bench-0001", "cwd": "/home/dev/bench", "cli_version": "0.105.0"}}
    ]  # fmt: skip
    n = 0
    while len(out) < count:
        n += 1
        stamp = f"2026-03-18T{18 + n // 600 % 6:02d}:{n // 10 % 60:02d}:{n % 60:02d}.000Z"

        def put(kind: str, payload: dict[str, Any], stamp: str = stamp) -> None:
            out.append({"timestamp": stamp, "type": kind, "payload": payload})

        step = n % 10
        if step == 0:
            prompt = f"Prompt {n}: please change the parser so that case {n} is handled"
            put("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": prompt}]})  # fmt: skip
            put("event_msg", {"type": "user_message", "message": prompt})
        elif step in (1, 2, 3, 4, 5, 6):
            call = f"call_{n}"
            cmd = {"cmd": f"rg -n 'case {n}' src/"}
            put("response_item", {"type": "function_call", "name": "exec_command",
                                  "arguments": json.dumps(cmd), "call_id": call})  # fmt: skip
            body = "\n".join(f"src/p{i}.rs:{i}: match case {n}" for i in range(rng.randint(5, 400)))
            output = f"Process exited with code 0\nOutput:\n{body}"
            put(
                "response_item", {"type": "function_call_output", "call_id": call, "output": output}
            )
        elif step == 7:
            put("event_msg", {"type": "token_count", "info": {"total": n}})
            put(
                "response_item",
                {"type": "reasoning", "summary": [], "encrypted_content": "gA" * 200},
            )
        else:
            reply = f"Reply {n}: handled case {n} in the parser; tests pass."
            put("event_msg", {"type": "agent_message", "message": reply})
            put("response_item", {"type": "message", "role": "assistant",
                                  "content": [{"type": "output_text", "text": reply}]})  # fmt: skip
    return out[:count]


def claude_lines(count: int, rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    base = {"sessionId": "bench-0002", "isSidechain": False, "version": "2.1.27"}
    n = 0
    while len(out) < count:
        n += 1
        stamp = f"2026-03-18T{18 + n // 600 % 6:02d}:{n // 10 % 60:02d}:{n % 60:02d}.000Z"
        step = n % 6
        line = {**base, "uuid": f"u{n}", "timestamp": stamp}
        if step == 0:
            line |= {"type": "user", "message": {"role": "user", "content": f"Prompt {n}"}}
        elif step in (1, 3):
            line |= {"type": "assistant", "message": {"id": f"m{n}", "role": "assistant",
                     "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read",
                                  "input": {"file_path": f"/src/f{n}.py"}}]}}  # fmt: skip
        elif step in (2, 4):
            body = "\n".join(f"{i}\tline {i} of file {n}" for i in range(rng.randint(5, 400)))
            line |= {"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{n - 1}", "content": body}]}}  # fmt: skip
        else:
            line |= {"type": "assistant", "message": {"id": f"m{n}", "role": "assistant",
                     "content": [{"type": "text", "text": f"Reply {n}: done."}]}}  # fmt: skip
        out.append(line)
    return out


def best(repeat: int, run: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--format", choices=("codex", "claude-code"), default="codex")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(2000)
    made = codex_lines if args.format == "codex" else claude_lines
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rollout-bench.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in made(args.lines, rng)))
        size = path.stat().st_size

        def floor() -> int:
            with path.open("rb") as handle:
                return sum(1 for line in handle if json.loads(line))

        floor_s, _ = best(args.repeat, floor)
        firsts, agains = [], []
        report = again = None
        for i in range(args.repeat):
            root = Path(tmp) / f"store{i}"
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(["init", "--store", str(root), "--as", ACTOR]) == 0
            workspace = Workspace([Store(root)])
            start = time.perf_counter()
            report = ingest_transcript(workspace, path, actor=ACTOR)
            firsts.append(time.perf_counter() - start)
            start = time.perf_counter()
            again = ingest_transcript(workspace, path, actor=ACTOR)
            agains.append(time.perf_counter() - start)
        assert report is not None and again is not None and again.added == 0
        print(f"transcript: {args.format}, {args.lines:,} lines, {size / 1e6:.1f} MB")
        print(f"floor (read + json.loads each line): {floor_s:.3f} s")
        print(f"first ingest: median {statistics.median(firsts):.3f} s, best {min(firsts):.3f} s "
              f"({report.added:,} messages added, "
              f"{report.already} already there, {report.skipped} skipped)")  # fmt: skip
        print(f"again:        median {statistics.median(agains):.3f} s, best {min(agains):.3f} s "
              f"({again.added} added, "
              f"{again.already:,} already there)")  # fmt: skip


if __name__ == "__main__":
    main_bench()
