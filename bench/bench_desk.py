"""The review desk on a large queue: time to the queue on screen, and key to frame.

    .venv/bin/python bench/bench_desk.py                      # 10,000 open conflicts
    .venv/bin/python bench/bench_desk.py --memories 2000 --conflicts 1000 --presses 9

Builds (once, under bench/.stores/, with bench_decide's builder) a private store of
N memories of which 2 x C are in conflict (each its own open item: 2 x C items),
copies it, opens the copy once untimed (a copy has other inodes, so its catalog is
read again from the files, as after a clone: ``--cold`` keeps that in the timing),
and runs the desk headless (Textual's ``App.run_test``) in this process:

- queue on screen: from starting the app until the queue table shows rows of the
  read queue: its outline (the conflict sets from the catalog's columns), the records
  and evidence read next and the secret scan of every file after ("everything read");
- key to frame, median of P presses each, of every key a user presses on the
  queue: ``j`` and ``k``, ``pagedown`` and ``pageup``, ``end`` and ``home`` (each
  moves the window), ``s`` (the scope filter), ``/`` (the search box opens), a
  search keystroke (letters, each one filtering), backspace (the search shrinks),
  escape (the search cleared, the box closed), ``]`` and ``[`` (the kind), and
  ``j`` right after a decision; each time is from the key until its handlers ran
  (every message it caused handled) and the screen composed its next frame.
  Not ``Pilot.press``: it waits for the process to idle, at least two 20 ms sleeps
  a key, which would be counted as the key's time. ``--profile-keys DIR`` writes a
  cProfile of the UI thread for each of these phases (the keys timed only);
- a decision ("newer wins" on the first conflict, enter in the reason dialog):
  until the queue is back without the item, and the longest the UI thread froze
  from the key until every worker finished (a 5 ms timer on the UI thread).

Prints seconds and the ratio to the goals (queue on screen 1.5 s, key to frame
50 ms median; a ratio under 1 meets the goal).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import re
import shutil
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import itertools

from bench_decide import OWNER, build
from stores import warm

from core.store.workspace import open_workspace

GOAL_ON_SCREEN = 1.5
GOAL_KEY = 0.050


def row_keys(app: Any) -> list[str]:
    from tui.screens.queue.table import QueueTable

    return app.screen.query_one("#queue", QueueTable).row_keys


async def until(check: Callable[[], bool], timeout: float = 300.0) -> None:
    deadline = time.perf_counter() + timeout
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError("the desk did not get there in time")
        await asyncio.sleep(0.002)


def key_event(key: str) -> Any:
    """The event a terminal's key sends, as ``Pilot.press`` makes it."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(
            _get_unicode_name_from_key(REPLACED_KEYS.get(key, key))
        )
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def handled(pilot: Any) -> None:
    """Until the app and every widget of its screen have handled every message waiting
    (those the handlers post in turn too), without sleeping."""
    for _ in range(20):
        await pilot._wait_for_screen()
        app = pilot.app
        nodes = [app, *app.screen.walk_children(with_self=True)]
        if all(node._message_queue.empty() for node in nodes):
            return


async def key_to_frame(pilot: Any, key: str) -> float:
    app = pilot.app
    event = key_event(key)
    event.set_sender(app)
    profile = PROFILES.get("dir")
    if profile:
        PROFILER.enable()
    started, cpu = time.perf_counter(), time.thread_time()
    app.post_message(event)  # as the driver does with a key read from the terminal
    await handled(pilot)
    app.screen._on_timer_update()  # compose the frame now, as the next refresh would
    elapsed = time.perf_counter() - started
    UI_CPU.setdefault(key, []).append(time.thread_time() - cpu)
    if profile:
        PROFILER.disable()
    await pilot.pause()  # what the key left (a deferred scroll): done before the next
    return elapsed


#: the UI thread's CPU time of each key to its frame (less noisy than the wall time
#: on a loaded machine), by the phase of the run
UI_CPU: dict[str, list[float]] = {}


async def presses(pilot: Any, keys: list[str], only: str | None = None) -> list[float]:
    """Each key pressed in turn; the times of those named ``only`` (all: None)."""
    UI_CPU.clear()
    profile = PROFILES.get("dir")
    times = []
    for key in keys:
        timed = only is None or key == only
        if profile and not timed:
            PROFILES["dir"] = ""  # not profiled
        elapsed = await key_to_frame(pilot, key)
        PROFILES["dir"] = profile or ""
        if timed:
            times.append(elapsed)
    CPU_BY_PHASE.append(UI_CPU.get(only, []) if only else [t for ts in UI_CPU.values() for t in ts])
    if profile:
        name = re.sub(r"[^a-z0-9]+", "-", (only or keys[0]).lower()) + f"-{len(CPU_BY_PHASE)}"
        PROFILER.dump_stats(str(Path(profile) / f"{name}.prof"))
        PROFILER.clear()
    return times


#: ``--profile-keys DIR``: a cProfile of the UI thread for each phase of keys
PROFILES: dict[str, str] = {}
PROFILER = cProfile.Profile()


CPU_BY_PHASE: list[list[float]] = []


def loaded(app: Any) -> bool:
    from tui.screens.queue import QueueScreen

    screen = app.screen
    if not isinstance(screen, QueueScreen) or not screen.is_mounted:
        return False
    try:
        return bool(row_keys(app))
    except Exception:
        return False


async def run(root: Path, count: int) -> dict[str, Any]:
    from tui.app import MemgovDesk
    from tui.screens.dialogs import ReasonDialog
    from tui.screens.queue import QueueScreen

    result: dict[str, Any] = {}
    started = time.perf_counter()
    app = MemgovDesk(open_workspace([root]), actor=OWNER, cursor_blink=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(lambda: loaded(app))
        result["queue on screen"] = time.perf_counter() - started
        await app.workers.wait_for_complete()  # the rest of the reading (the secret scan)
        await pilot.pause()
        result["everything read"] = time.perf_counter() - started
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        result["j"] = await presses(pilot, ["j"] * count)
        result["k"] = await presses(pilot, ["k"] * count)
        result["pagedown"] = await presses(pilot, ["pagedown"] * count)
        result["pageup"] = await presses(pilot, ["pageup"] * count)
        result["end"] = await presses(pilot, ["end", "home"] * count, only="end")
        result["home"] = await presses(pilot, ["end", "home"] * count, only="home")
        result["s scope"] = await presses(pilot, ["s"] * count)
        while queue.scope != "all":
            await pilot.press("s")
        await pilot.press("home")
        result["/ opens search"] = await presses(pilot, ["slash", "escape"] * count, only="slash")
        await pilot.press("slash")
        letters = list("project:p4")[:count]
        result["search keystroke"] = await presses(pilot, letters)
        result["search backspace"] = await presses(pilot, ["backspace"] * len(letters))
        await pilot.press(*"p4")
        result["escape clears search"] = await presses(
            pilot, ["escape", "slash", "p", "4"] * count, only="escape"
        )
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        result["] kind"] = await presses(pilot, ["right_square_bracket"] * count)
        result["[ kind"] = await presses(pilot, ["left_square_bracket"] * count)
        # back to all kinds, first item: a decision
        while queue.kind != "all":
            await pilot.press("right_square_bracket")
        await pilot.press("home")
        await pilot.pause()
        first = row_keys(app)[0]
        await pilot.press("enter")
        await until(lambda: not isinstance(app.screen, QueueScreen))
        await pilot.pause()
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, ReasonDialog))
        await pilot.pause()
        ticks: list[float] = []
        timer = app.set_interval(0.005, lambda: ticks.append(time.perf_counter()))
        started = time.perf_counter()
        ticks.append(started)
        await pilot.press("enter")
        await until(lambda: app.screen is queue and loaded(app) and first not in row_keys(app))
        result["decision to queue updated"] = time.perf_counter() - started
        result["j after decision"] = await presses(pilot, ["j"] * count)
        await app.workers.wait_for_complete()
        await pilot.pause()
        ticks.append(time.perf_counter())
        timer.stop()
        result["decision until every worker done"] = ticks[-1] - started
        result["longest UI freeze after deciding"] = max(
            b - a for a, b in itertools.pairwise(ticks)
        )
        assert first not in [i.id for i in queue.items]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=20_000)
    parser.add_argument("--conflicts", type=int, default=10_000)
    parser.add_argument("--presses", type=int, default=9, help="presses per key (median)")
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile of the run here")
    parser.add_argument(
        "--profile-keys", metavar="DIR", help="write a cProfile of each key phase into DIR"
    )
    parser.add_argument(
        "--cold", action="store_true", help="time the copy's first open too (catalog read again)"
    )
    args = parser.parse_args()
    template = ROOT / "bench" / ".stores" / f"decide-{args.memories}-{args.conflicts}"
    started = time.perf_counter()
    build(template, args.memories, args.conflicts)
    work = template.with_name(template.name + "-desk")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(template, work, symlinks=True)
    if not args.cold:
        warm(work)
    print(
        f"# store: {args.memories:,} memories, {args.conflicts:,} open conflicts "
        f"({time.perf_counter() - started:.1f} s to build or reuse and copy)"
    )
    if args.profile_keys:
        Path(args.profile_keys).mkdir(parents=True, exist_ok=True)
        PROFILES["dir"] = args.profile_keys
    job: Callable[[], Awaitable[dict[str, Any]]] = lambda: run(work, args.presses)  # noqa: E731
    if args.profile:
        with cProfile.Profile() as profile:
            result = asyncio.run(job())
        profile.dump_stats(args.profile)
    else:
        result = asyncio.run(job())
    shutil.rmtree(work, ignore_errors=True)
    phases = iter(CPU_BY_PHASE)
    for name, value in result.items():
        if isinstance(value, list):
            median = statistics.median(value)
            cpu = statistics.median(next(phases))
            print(
                f"{name:<22} median {median * 1000:6.1f} ms  min {min(value) * 1000:6.1f}"
                f"  max {max(value) * 1000:7.1f}  ratio to 50 ms {median / GOAL_KEY:5.2f}"
                f"  (UI thread CPU {cpu * 1000:.1f} ms)"
            )
        elif name == "queue on screen":
            print(f"{name:<34} {value:8.2f} s   ratio to 1.5 s {value / GOAL_ON_SCREEN:6.2f}")
        else:
            print(f"{name:<34} {value:8.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
