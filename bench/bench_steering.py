"""What the steering detector costs: per text, per record, per store.

    .venv/bin/python bench/bench_steering.py             # 10,000 memories
    .venv/bin/python bench/bench_steering.py --size 100000
    .venv/bin/python bench/bench_steering.py --throughput-only --rounds 9

1. Throughput of :func:`core.domain.steering.detect` and
   :func:`core.domain.steering.assess` (a text from a tool, and a semantic memory from a
   tool: the gate's path, with the foreign-rule check) over the test corpora's benign and
   poisoned texts (repeated to about 0.5 MB), against the secret scanner on the same
   texts: the gate already runs that on every candidate, so it is the floor a user pays
   today. CPU time, the runs taking turns, best of ``--rounds``; the ratio is CPU per
   byte of each against the scanner's, measured in the same run. Then where each one's
   time goes: the prefilter's pass, the regex engine's calls (recorded, then replayed
   alone) and the rest (the Python around them), each against the scanner (see
   :func:`breakdown`).
2. A 10,000-memory bench store (bench/stores.py, as many commits): the catalog
   rebuilt from nothing (every row gets its steering hint), then the quarantine
   items of the queue (only the hinted rows are assessed) and doctor's steering
   check, each against reading every active record's content from the catalog and
   assessing all of them (what a store without the hint would pay).
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stores import ensure, fresh_copy
from core.domain import steering
from core.domain.lazy import LazyRegex
from core.domain.secrets.scanner import scan_text  # never the memo of short texts: each pass scans
from core.domain.steering import engine
from core.domain.steering.gates import _fold
from core.review.evidence import Evidence
from core.review.quarantine import record_items
from core.store.store import Store

CORPUS = ROOT / "tests" / "fixtures" / "steering"


def corpus_texts() -> list[str]:
    texts = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        texts += [json.loads(line)["text"] for line in path.read_text("utf-8").splitlines()]
    return texts


def timed(run: object) -> float:
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - start


def cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def paired(runs: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Each run's best CPU seconds over ``rounds`` rounds, the runs taking turns within a
    round (a busy machine slows them alike, so their ratios hold)."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            best[name] = min(best[name], cpu(run))
    return best


def throughput(rounds: int = 5) -> None:
    texts = corpus_texts()
    size = sum(len(t.encode()) for t in texts)
    repeat = max(1, 500_000 // size)
    batch = texts * repeat
    mb = size * repeat / 1e6
    steering.detect("warm")  # compiles the rules: the first text pays that, once
    best = paired(
        {
            "secret scan": lambda: [scan_text(t) for t in batch],
            "detect": lambda: [steering.detect(t) for t in batch],
            "assess, role tool": lambda: [
                steering.assess(t, role="tool", known_hosts=()) for t in batch
            ],
            "assess, semantic from a tool": lambda: [
                steering.assess(t, memory_type="semantic", role="tool", known_hosts=())
                for t in batch
            ],
        },
        rounds,
    )
    scan = best["secret scan"]
    print(
        f"{len(batch):,} texts, {mb:.2f} MB (the corpora), CPU time, best of {rounds} rounds "
        "taking turns:"
    )
    for name, took in best.items():
        print(
            f"  {name:>29}: {took:.3f} s = {mb / took:5.2f} MB/s, "
            f"{took / len(batch) * 1e6:4.0f} us a text, {took / scan:.2f}x the secret scan"
        )
    breakdown(texts, rounds)
    long = ("Use tables for comparisons and keep answers short. " * 40)[:2048]
    n = 200
    each = timed(lambda: [steering.assess(long, role="tool", known_hosts=()) for _ in range(n)])
    print(f"assess of a 2 KB text: {each / n * 1e3:.2f} ms")


class _Recorder:
    """A compiled regex that notes each call (the method and its arguments) and answers as
    the regex does."""

    def __init__(self, compiled: re.Pattern[str], calls: list[tuple[Any, tuple[Any, ...]]]):
        self.compiled, self.calls = compiled, calls
        self.pattern, self.flags = compiled.pattern, compiled.flags

    def _noted(self, name: str, args: tuple[Any, ...]) -> Any:
        method = getattr(self.compiled, name)
        if name == "finditer":  # replayed to its end, as the engine reads it
            self.calls.append((lambda *a, m=method: list(m(*a)), args))
        else:
            self.calls.append((method, args))
        return method(*args)

    def search(self, *args: Any) -> Any:
        return self._noted("search", args)

    def match(self, *args: Any) -> Any:
        return self._noted("match", args)

    def fullmatch(self, *args: Any) -> Any:
        return self._noted("fullmatch", args)

    def finditer(self, *args: Any) -> Any:
        return self._noted("finditer", args)

    def findall(self, *args: Any) -> Any:
        return self._noted("findall", args)

    def sub(self, *args: Any) -> Any:
        return self._noted("sub", args)


def _regex_calls(run: Callable[[str], object], texts: list[str]) -> list[tuple[Any, Any]]:
    """Every call ``run`` makes into the regex engine over ``texts`` (the engine's
    alternatives and every lazily compiled regex), recorded while it runs once."""
    calls: list[tuple[Any, tuple[Any, ...]]] = []
    branches = [(b, b.compiled) for b in engine._BRANCHES]
    lazies = [o for o in gc.get_objects() if isinstance(o, LazyRegex) and "search" in vars(o)]
    saved = [(o, {m: vars(o)[m] for m in LazyRegex._METHODS}) for o in lazies]
    try:
        for branch, compiled in branches:
            branch._compiled = _Recorder(compiled, calls)  # type: ignore[assignment]
        for lazy in lazies:
            recorder = _Recorder(re.compile(lazy.pattern, lazy.flags), calls)
            for name in LazyRegex._METHODS:
                setattr(lazy, name, getattr(recorder, name))
        for text in texts:
            run(text)
    finally:
        for branch, compiled in branches:
            branch._compiled = compiled
        for lazy, methods in saved:
            for name, method in methods.items():
                setattr(lazy, name, method)
    return calls


def breakdown(texts: list[str], rounds: int) -> None:
    """Where a text's time goes, for each of detect, a tool's text and the gate's path:
    the one pass over the text (the compiled set's, :mod:`core.domain.steering.compiled`,
    over an ASCII text; the prefilter's, folding and the Aho-Corasick automaton, over
    another), the
    regex engine (every call the run makes into it, replayed alone: the replay's own
    loop, about 0.1 us a call, counts as the engine's), and the rest (the Python that
    decides what runs), each against the scanner's time a text, paired as above."""
    runs: dict[str, Callable[[str], object]] = {
        "detect": steering.detect,
        "assess, role tool": lambda t: steering.assess(t, role="tool", known_hosts=()),
        "assess, semantic from a tool": lambda t: steering.assess(
            t, memory_type="semantic", role="tool", known_hosts=()
        ),
    }
    prefilter = engine._PREFILTER[0]
    compiled = engine._SET[0]

    def one_pass(text: str) -> object:
        """The pass :func:`engine._seen` makes: the compiled set's over an ASCII text
        (when it answers), else the prefilter's over the folded text."""
        if compiled is not None and text.isascii():
            found = compiled.matching(text)
            if found is not None:
                return found
        return prefilter.mask(_fold(text))

    print("where a text's time goes (us a text, and x the secret scan's):")
    for name, run in runs.items():
        calls = _regex_calls(run, texts)
        best = paired(
            {
                "scan": lambda: [scan_text(t) for t in texts],
                "whole": lambda run=run: [run(t) for t in texts],
                "prefilter": lambda: [one_pass(t) for t in texts],
                "regex": lambda calls=calls: [call(*args) for call, args in calls],
            },
            rounds,
        )
        scan, whole, pre, rx = (
            best[k] / len(texts) for k in ("scan", "whole", "prefilter", "regex")
        )
        rest = whole - pre - rx
        print(
            f"  {name:>29}: {whole * 1e6:4.0f} ({whole / scan:.2f}x) = prefilter"
            f" {pre * 1e6:4.1f} ({pre / scan:.2f}x)"
            f" + regex engine {rx * 1e6:4.1f} ({rx / scan:.2f}x, {len(calls) / len(texts):.1f}"
            f" calls) + the rest {rest * 1e6:4.1f} ({rest / scan:.2f}x)"
        )


def store_costs(size: int) -> None:
    ensure(size)
    root = fresh_copy(size, "steering")
    catalog = root / ".git" / "memgov" / "catalog.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{catalog}{suffix}").unlink(missing_ok=True)
    build = timed(lambda: Store(root).memories.catalog.steering_ids())
    store = Store(root)
    hinted = store.memories.catalog.steering_ids()
    active = [m for m in store.memories.values() if m.status in ("active", "conflict")]
    items: list[object] = []
    queue = timed(lambda: items.extend(record_items(Evidence(store), store)))
    every = timed(
        lambda: [
            steering.assess(m.content, memory_type=m.type, known_hosts=store.config.known_hosts)
            for m in active
        ]
    )
    print(
        f"{size:,} memories: catalog rebuilt with steering hints in {build:.2f} s; "
        f"{len(hinted):,} rows hinted of {len(active):,} active or in conflict; "
        f"quarantine items ({len(items)}) in {queue:.3f} s, against {every:.2f} s to assess "
        f"every record ({every / max(queue, 1e-9):.0f}x)"
    )
    shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the paired runs")
    parser.add_argument(
        "--throughput-only", action="store_true", help="skip the bench store (part 2)"
    )
    args = parser.parse_args()
    throughput(args.rounds)
    if not args.throughput_only:
        store_costs(args.size)


if __name__ == "__main__":
    main()
