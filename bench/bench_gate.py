"""The write gate's cost per candidate, on a 10,000-memory store.

    .venv/bin/python bench/bench_gate.py
    .venv/bin/python bench/bench_gate.py --evaluate 5000 --remember 100

It reuses ``bench/.stores/store-10000`` (built by bench/bench_store.py; built
here with its ``build`` function when missing), then measures:

(a) ``gate.evaluate`` alone: pure, no I/O (exclusions, secret and sensitive
    scans, the four criteria) over ~2,000 mixed candidates: plain statements,
    near-misses, derivable content, internal addresses and fake credentials
    (made at run time from a rule's prefix and a seeded random body);
(b) the full ``remember()`` on a throwaway copy of the store for ~50
    candidates (written, merged, conflict, refused): each is a transaction
    under the store lock, a reload of the store, the events, the index and a
    git commit. The bench store is never modified.

It prints microseconds per candidate for (a), milliseconds for (b) by outcome,
and, to explain (b), what one warm store load and the source resolution cost.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import string
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_store import build

from core.domain import gate
from core.domain.record import Memory, Source
from core.store import logs
from core.store.index import render_index
from core.store.store import Store
from core.writing.pipeline import Candidate, remember

SIZE = 10_000
ACTOR = "bench@example.com"
ALNUM = string.ascii_letters + string.digits
#: prefix, body length, body alphabet: fake credentials are assembled at run time
TOKENS = (
    ("ghp_", 36, ALNUM),
    ("AKIA", 16, string.ascii_uppercase + "234567"),
    ("glpat-", 20, ALNUM),
    ("sk_live_", 32, ALNUM),
    ("npm_", 36, string.ascii_lowercase + string.digits),
)
WORDS = [
    "deploy",
    "build",
    "test",
    "review",
    "pnpm",
    "table",
    "docs",
    "staging",
    "production",
    "schema",
    "migration",
    "cache",
    "index",
    "latency",
    "retry",
    "backoff",
    "queue",
    "worker",
    "release",
    "branch",
    "lint",
    "format",
    "canary",
    "metric",
]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 30))).capitalize() + "."


def token(rng: random.Random) -> str:
    prefix, length, alphabet = rng.choice(TOKENS)
    return prefix + "".join(rng.choice(alphabet) for _ in range(length))


KINDS: dict[str, Callable[[random.Random], str]] = {
    "plain": sentence,
    "near-miss": lambda r: (
        f"The config lives in packages/{r.choice(WORDS)}/vite.config.ts; " + sentence(r)
    ),
    "markdown": lambda r: f"# {r.choice(WORDS).title()}\n\n{sentence(r)}\n\n**Why:** {sentence(r)}",
    "path": lambda r: f"src/{r.choice(WORDS)}/{r.choice(WORDS)}.py",
    "commit": lambda r: "".join(r.choice("0123456789abcdef") for _ in range(12)) + "a1",
    "trace": lambda r: (
        'Traceback (most recent call last):\n  File "app.py", line '
        f"{r.randint(1, 99)}, in main\nKeyError: '{r.choice(WORDS)}'"
    ),
    "command": lambda r: f"$ pnpm {r.choice(WORDS)}\n{r.randint(1, 99)} passed",
    "in-progress": lambda r: f"Currently editing the {r.choice(WORDS)} module",
    "internal": lambda r: f"The {r.choice(WORDS)} service is at 10.0.{r.randint(0, 255)}.7.",
    "secret": lambda r: f"Use {token(r)} for the {r.choice(WORDS)} job.",
}
#: how often each kind occurs among the (a) candidates
MIX = {"plain": 50, "near-miss": 10, "markdown": 10, "secret": 10, "internal": 4}
MIX.update({k: 4 for k in ("path", "commit", "trace", "command", "in-progress")})


def evaluate_candidates(count: int, seed: int = 1) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    kinds = rng.choices(list(MIX), weights=list(MIX.values()), k=count)
    return [
        (
            kind,
            {
                "content": KINDS[kind](rng),
                "evidence": sentence(rng),
                "s1": round(rng.uniform(0.3, 1.0), 2),
                "s2": round(rng.uniform(0.3, 1.0), 2),
                "source_resolves": rng.random() < 0.9,
                "theta": 0.6,
            },
        )
        for kind in kinds
    ]


def bench_evaluate(count: int, repeat: int) -> None:
    candidates = evaluate_candidates(count)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _kind, args in candidates:
            gate.evaluate(**args)
        best = min(best, time.perf_counter() - start)
    per_kind: dict[str, list[float]] = defaultdict(list)
    passed = 0
    for kind, args in candidates:
        start = time.perf_counter()
        result = gate.evaluate(**args)
        per_kind[kind].append(time.perf_counter() - start)
        passed += result.passed
    print(f"(a) gate.evaluate, pure: {count:,} candidates, best of {repeat}")
    print(f"    {best / count * 1e6:8.1f} us per candidate  ({passed:,} passed)")
    for kind in sorted(per_kind, key=lambda k: -len(per_kind[k])):
        times = per_kind[kind]
        print(f"    {kind:<12} {len(times):>5}  median {statistics.median(times) * 1e6:7.1f} us")


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2027, 6, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))

    def __call__(self) -> datetime:
        return self.now


def remember_candidates(store: Store, count: int, seed: int = 2) -> list[tuple[str, Candidate]]:
    """~40% new keys, 20% restating a stored memory, 20% contradicting one, 20% refused;
    every resolvable source is a line logged in the copy's daily log beforehand."""
    rng = random.Random(seed)
    existing: list[Memory] = rng.sample(sorted(store.memories.values(), key=lambda m: m.id), count)
    clock = store.clock
    assert isinstance(clock, Clock)
    out: list[tuple[str, Candidate]] = []
    for i in range(count):
        task = f"bench_{i:04d}"
        text = sentence(rng)
        rel, _ = logs.append_message(
            store.root, task=task, index=1, role="user", text=text, when=clock.now
        )
        source = Source(task=task, message_index=1, evidence=text, log=rel)
        plan = ("new", "new", "duplicate", "contradiction", "refused")[i % 5]
        base = existing[i]
        fields: dict[str, Any] = {
            "content": sentence(rng),
            "type": "semantic",
            "scope": "private",
            "subject": f"user:bench/project:p{i % 7}",
            "attribute": f"bench_attr_{i}",
            "source": source,
            "s1": 0.9,
            "s2": 0.8,
        }
        if plan in ("duplicate", "contradiction"):
            fields.update(type=base.type, subject=base.subject, attribute=base.attribute)
            fields["content"] = base.content if plan == "duplicate" else sentence(rng)
        elif plan == "refused":
            if i % 2:
                fields["s1"] = None
            else:
                fields["content"] = f"Deploy with {token(rng)}."
        out.append((plan, Candidate(**fields)))
    return out


def bench_remember(source_root: Path, count: int) -> None:
    with tempfile.TemporaryDirectory(prefix="memgov-bench-gate-") as tmp:
        copy = Path(tmp) / "store"
        start = time.perf_counter()
        shutil.copytree(source_root, copy, symlinks=True)
        copied = time.perf_counter() - start
        clock = Clock()
        store = Store(copy, clock=clock)
        start = time.perf_counter()
        store.load()
        first_load = time.perf_counter() - start
        start = time.perf_counter()
        size = len(store.refresh().memories)
        warm_load = time.perf_counter() - start
        start = time.perf_counter()
        render_index(store.memories.values(), store.config)
        index = time.perf_counter() - start
        candidates = remember_candidates(store, count)
        sample = candidates[0][1].source
        assert sample is not None
        start = time.perf_counter()
        for _ in range(20):
            logs.resolve(store.root, sample, context=0)
        resolve = (time.perf_counter() - start) / 20

        by_outcome: dict[str, list[float]] = defaultdict(list)
        plans: Counter[tuple[str, str]] = Counter()
        total = time.perf_counter()
        for plan, candidate in candidates:
            clock.now += timedelta(minutes=1)
            start = time.perf_counter()
            outcome = remember(store, candidate, actor=ACTOR)
            by_outcome[outcome.kind].append(time.perf_counter() - start)
            plans[(plan, outcome.kind)] += 1
        total = time.perf_counter() - total

    print(f"(b) remember() on a copy of the {size:,}-memory store: {count} candidates")
    print(f"    {total / count * 1e3:8.1f} ms per candidate (transaction + git commit each)")
    for kind, times in sorted(by_outcome.items()):
        print(
            f"    {kind:<9} {len(times):>4}  median {statistics.median(times) * 1e3:7.1f} ms"
            f"  max {max(times) * 1e3:7.1f} ms"
        )
    print("    planned -> outcome: " + ", ".join(f"{p} -> {k} x{n}" for (p, k), n in plans.items()))
    print("    (a contradiction of a stored preference is written: the newer one supersedes it)")
    print(
        f"    context: copy {copied:.1f} s, first open {first_load * 1e3:.0f} ms, "
        f"warm reload {warm_load * 1e3:.0f} ms and index render {index * 1e3:.0f} ms "
        f"(each transaction does both), source resolve {resolve * 1e3:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--evaluate", type=int, default=2000, help="candidates for (a)")
    parser.add_argument("--remember", type=int, default=50, help="candidates for (b)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of (a); the best counts")
    args = parser.parse_args()
    root = ROOT / "bench" / ".stores" / f"store-{SIZE}"
    if not (root / "memgov.yaml").exists():
        shutil.rmtree(root, ignore_errors=True)
        start = time.perf_counter()
        build(root, SIZE)
        print(f"# built {SIZE:,} memories in {time.perf_counter() - start:.1f}s at {root}")
    bench_evaluate(args.evaluate, args.repeat)
    bench_remember(root, args.remember)


if __name__ == "__main__":
    main()
