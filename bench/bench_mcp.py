"""The MCP server, warm, over a large store: ``recall`` and ``remember`` round trips.

    .venv/bin/python bench/bench_mcp.py                  # 10,000 memories
    .venv/bin/python bench/bench_mcp.py --sizes 10000 100000 --calls 200

Copies the cached store (bench/stores.py), starts ``memgov mcp`` on the copy as
its owner, connects the SDK's own client over stdio (what an agent's client
does), warms the server with a few calls, then times each call from the client's
request to its answer:

- ``recall``: a subject prefix holding about 1% of the records (ten answered),
  the use recorded as the server records it (written in one commit half a second
  after the last recall of a moment, or every 64 recalls: that commit runs on the
  store's thread, so the recalls after it wait for it, and it is in the numbers);
- ``remember``: a new candidate each call (its own key, its source a message
  logged before the timing), written and committed before the answer;
- ``log``, for reference: one line appended to the daily log.

Prints the median and the 95th percentile of each, in milliseconds, their ratio to
the floor and to the goals (recall p50 10 ms, remember p50 50 ms; a ratio under 1
meets the goal), and the load average beside them. The floor is an empty round trip
of the same client to the same server in the same run (the ``request_status`` of an
unknown id, answered without touching a record). With several sizes, the growth of
recall's p50 from the smallest to the largest (the goal: at most 1.5x).

    .venv/bin/python bench/bench_mcp.py --sizes 1000 10000 --vs /path/to/other/checkout

``--vs``: the server of another checkout of memgov (the code before a change) is
timed too, on its own copy of the same store, in the same run: before and after
under the same load. ``--recall-only`` leaves out ``log`` and ``remember``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from stores import OWNER, PROBE_SUBJECT, fresh_copy

GOALS = {"recall": 0.010, "remember": 0.050}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def timed(client: Client, tool: str, arguments: dict[str, Any]) -> float:
    start = time.perf_counter()
    result = await client.call_tool(tool, arguments)
    took = time.perf_counter() - start
    if tool != "request_status" and result.is_error:
        raise SystemExit(f"{tool}: {result.content[0].text}")  # type: ignore[union-attr]
    return took


async def run(root: Path, calls: int, code: Path, recall_only: bool) -> dict[str, list[float]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tui.cli", "mcp", "--store", str(root), "--as", OWNER],
        env={"PYTHONPATH": str(code)},  # the server of this checkout, whatever is installed
        cwd=str(code),
    )
    task = "bench-mcp"
    times: dict[str, list[float]] = {"floor": [], "recall": [], "log": [], "remember": []}
    with open(root.parent / f"{root.name}.mcp-stderr.log", "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            for _ in range(5):  # warm: the first calls read the catalog's pages
                await timed(client, "recall", {"subject_prefix": PROBE_SUBJECT})
            for _ in range(calls):
                times["floor"].append(
                    await timed(client, "request_status", {"request_id": "no-such-request"})
                )
            for _ in range(calls):
                times["recall"].append(
                    await timed(client, "recall", {"subject_prefix": PROBE_SUBJECT})
                )
            await asyncio.sleep(1.0)  # the last uses written, before the writes are timed
            if recall_only:
                return {k: v for k, v in times.items() if v}
            for i in range(calls):
                times["log"].append(
                    await timed(
                        client,
                        "log",
                        {"task": task, "index": i, "role": "user", "text": f"use tool-{i} here"},
                    )
                )
            for i in range(calls):
                candidate = {
                    "content": f"The bench project uses tool-{i}.",
                    "type": "semantic",
                    "subject": "project:bench-mcp",
                    "attribute": f"tool_{i}",
                    "source": {"task": task, "message_index": i, "evidence": f"tool-{i}"},
                    "s1": 0.9,
                    "s2": 0.9,
                    "confidence": 0.9,
                }
                times["remember"].append(await timed(client, "remember", candidate))
    return times


def report(size: int, calls: int, code: str, times: dict[str, list[float]], load: str) -> None:
    print(f"# {size:,} memories, {calls} calls each, the SDK's client over stdio; {code}; {load}")
    floor = statistics.median(times["floor"])
    print(f"{'tool':<10} {'p50 ms':>8} {'p95 ms':>8} {'x floor':>8} {'goal p50':>9} {'ratio':>6}")
    for tool, values in times.items():
        median, high = statistics.median(values), p95(values)
        goal = GOALS.get(tool)
        shown = f"{goal * 1000:>8.0f}  {median / goal:>6.2f}" if goal else f"{'-':>9} {'-':>6}"
        print(
            f"{tool:<10} {median * 1000:>8.1f} {high * 1000:>8.1f} {median / floor:>8.2f} {shown}"
        )


def load_average() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"load {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--vs", type=Path, help="another checkout, timed in the same run")
    parser.add_argument("--recall-only", action="store_true")
    args = parser.parse_args()
    codes = [("this checkout", ROOT)]
    if args.vs is not None:
        codes.insert(0, (f"--vs {args.vs}", args.vs.resolve()))
    recalls: dict[str, list[tuple[int, float]]] = {name: [] for name, _code in codes}
    for size in args.sizes:
        for name, code in codes:
            root = fresh_copy(size, "mcp")
            times = asyncio.run(run(root, args.calls, code, args.recall_only))
            report(size, args.calls, name, times, load_average())
            recalls[name].append((size, statistics.median(times["recall"])))
    if len(args.sizes) > 1:
        for name, points in recalls.items():
            (small, first), (large, last) = points[0], points[-1]
            print(
                f"# recall p50 growth {small:,} -> {large:,} ({name}): "
                f"{first * 1000:.1f} -> {last * 1000:.1f} ms, {last / first:.2f}x (goal <= 1.5x)"
            )


if __name__ == "__main__":
    main()
