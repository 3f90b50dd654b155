"""Consolidate a 10,000-memory store with 5% duplicates and 1% stale relative dates.

    .venv/bin/python bench/bench_consolidate.py              # 10,000 memories
    .venv/bin/python bench/bench_consolidate.py --size 2000

The store is built once under bench/.stores/ (like bench_store.py: records,
daily logs and events written directly, one commit) and copied for each run,
since consolidating changes it (a batch branch, tags, commits). Each run times
the steps a person goes through: consolidate (orient, gather, consolidate,
prune, and writing the batch branch), building the queue item (every file's
diff), approving the whole batch (one transaction, one commit, a baseline tag),
and rolling back to the baseline before it. It also checks the outcome: every
planted duplicate merged, every planted relative date rewritten.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.consolidation.consolidate import consolidate, rollback
from core.domain.record import TYPES, Memory, Source
from core.review.batch import decide_batch, pending_items
from core.store import gitstore
from core.store.events import EVENTS_DIR, Event, append_to_log
from core.store.index import INDEX_FILE, render_index
from core.store.logs import LOG_DIR, log_path
from core.store.store import MEMORY_DIR, Store

TZ = timezone(timedelta(hours=8))
BASE = datetime(2027, 1, 1, 9, 0, tzinfo=TZ)
from bench_store import ATTRS, WORDS

RELATIVE = (
    "The freeze starts next week.",
    "Agreed yesterday with the team.",
    "上周定的,下周开始执行。",
    "Migrated 3 days ago.",
    "昨天改的配置。",
)
ACTOR = "bench@example.com"
SIGNALS = 25  # messages that reconfirm a record, and as many that disprove one


def build(root: Path, count: int) -> dict[str, int]:
    """A store of ``count`` records: 5% duplicate another record, 1% carry relative dates."""
    rng = random.Random(count)
    span = timedelta(days=25)  # every record created within the last month: all are input
    store = Store.init(root, actor=ACTOR, clock=lambda: BASE)
    memories: list[Memory] = []
    logs: dict[str, dict[str, list[str]]] = {}
    dupes = int(count * 0.05)
    dated = int(count * 0.01)
    originals = count - dupes
    for i in range(count):
        when = BASE + span * i / count
        if i < originals:
            attr = f"{rng.choice(ATTRS)}_{i}"
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120)))
            body = f"{words.capitalize()}.\n\n**Why:** {rng.choice(WORDS)}."
            if i % (originals // dated) == 0 and i // (originals // dated) < dated:
                body = f"{rng.choice(RELATIVE)}\n\n{body}"
            model = None
        else:  # a duplicate: same key, value and text as an earlier record, another task
            model = memories[rng.randrange(originals)]
            attr, body = model.attribute, model.content
        task = f"tr_{i:06d}"
        evidence = " ".join(rng.choice(WORDS) for _ in range(8))
        log = log_path(when)
        day = logs.setdefault(log, {})
        day.setdefault(task, []).append(f"- [1] {when:%H:%M} user: {evidence}")
        ident = f"{attr.replace('_', '-')}-{i:06x}"
        memories.append(
            Memory(
                id=ident,
                type=model.type if model else rng.choice(TYPES[1:]),
                scope="private",
                status="active",
                subject=model.subject if model else f"user:u{i % 50}/project:p{i % 7}",
                attribute=attr,
                value=model.value if model else f"v{i}",
                content=body,
                title=model.title if model else None,
                confidence=round(rng.uniform(0.5, 0.99), 2),
                created_at=when,
                verified_at=when,
                source=Source(task=task, message_index=1, evidence=evidence, log=log),
                path=f"{MEMORY_DIR}/{ident}.md",
            )
        )
    for memory in memories:
        (root / memory.path).write_text(memory.to_markdown(), encoding="utf-8")
    # new signal in the last day's log: messages that restate or disprove a record's value
    signal_day = log_path(BASE + span)
    for n, memory in enumerate(
        memories[107 : originals : originals // (SIGNALS * 2)][: SIGNALS * 2]
    ):
        words = memory.attribute.rsplit("_", 1)[0].replace("_", " ")
        said = (
            f"the {words} is still {memory.value}"
            if n % 2 == 0
            else f"we no longer use {memory.value} for that"
        )
        logs.setdefault(signal_day, {}).setdefault("tr_signals", []).append(
            f"- [{n}] 23:00 user: {said}"
        )
    for rel, tasks in logs.items():
        lines = [f"# {rel.rsplit('/', 1)[-1][:-3]}"]
        for task, messages in tasks.items():
            lines += ["", f"## task {task}", "", *messages]
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / INDEX_FILE).write_text(render_index(memories, store.config), encoding="utf-8")
    append_to_log(
        root,
        [
            Event(
                id=f"ev-{i:08d}",
                ts=m.created_at.isoformat(),
                actor="bench",
                action="create",
                memory_ids=(m.id,),
                to_status="active",
                reason="bench",
            )
            for i, m in enumerate(memories)
        ],
    )
    gitstore.commit(
        store.repo,
        [MEMORY_DIR, LOG_DIR, INDEX_FILE, EVENTS_DIR],
        actor="bench",
        message=f"bench: {count} memories",
        when=BASE + span,
    )
    # pack now: git's automatic gc would otherwise run in the background while we copy
    subprocess.run(["git", "gc", "--quiet"], cwd=root, check=True)
    Store(root).load()  # the derived cache, as a store in use has it
    return {"duplicates": dupes, "dated": dated}


def timed(label: str, results: dict[str, float], fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    out = fn()
    results[label] = time.perf_counter() - start
    return out


def main() -> None:
    # no automatic gc in the background of this process's commits: it would repack
    # the store while the bench copies or reads it
    os.environ.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="gc.auto", GIT_CONFIG_VALUE_0="0")
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    args = parser.parse_args()
    template = ROOT / "bench" / ".stores" / f"consolidate-{args.size}"
    planted = {"duplicates": int(args.size * 0.05), "dated": int(args.size * 0.01)}
    if not (template / "memgov.yaml").exists():
        shutil.rmtree(template, ignore_errors=True)
        t0 = time.perf_counter()
        planted = build(template, args.size)
        print(f"# built {args.size:,} memories in {time.perf_counter() - t0:.1f}s at {template}")
    now = BASE + timedelta(days=26)
    with tempfile.TemporaryDirectory(prefix="memgov-bench-") as tmp:
        root = Path(tmp) / "store"
        t0 = time.perf_counter()
        shutil.copytree(template, root, symlinks=True)
        copied = time.perf_counter() - t0
        t0 = time.perf_counter()  # a copy is a store not opened yet: warm it as in use
        store = Store(root, clock=lambda: now)
        store.load()
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=root, check=False)
        warmed = time.perf_counter() - t0
        results: dict[str, float] = {}
        report = timed("consolidate", results, lambda: consolidate(store, actor=ACTOR))
        item = timed("queue item", results, lambda: next(iter(pending_items(store))))
        decision = timed("approve all", results, lambda: decide_batch(item, True, actor=ACTOR))
        back = timed("rollback", results, lambda: rollback(store, actor=ACTOR))
        c = report.counts
        merged = {
            i for ch in report.changes if ch["action"] == "merge-exact" for i in ch["memory_ids"]
        }
        rewritten = sum(ch["action"] == "absolute-dates" for ch in report.changes)
        signalled = {
            a: sum(ch["action"] == a for ch in report.changes) for a in ("reconfirm", "retire")
        }
        superseded = sum(m.status == "superseded" for m in Store(root).memories.values())
        print(
            f"store: {c['records']:,} memories ({c['input']:,} input, {c['unused']:,} unused), "
            f"{planted['duplicates']} planted duplicates, {planted['dated']} planted relative "
            f"dates; copied in {copied:.1f}s, warmed in {warmed:.1f}s"
        )
        print(
            f"batch: {c['changes']:,} changes ({c['automatic']:,} automatic, "
            f"{c['needs_approval']:,} need approval) in {c['files']:,} files; "
            f"{len(merged) - len([ch for ch in report.changes if ch['action'] == 'merge-exact'])}"
            f" duplicates merged, {rewritten} date rewrites, {signalled['reconfirm']} "
            f"reconfirmed and {signalled['retire']} retired from {c['signals']:,} log messages"
        )
        print(
            f"index: {report.index['before']['lines']:,} -> {report.index['after']['lines']:,} "
            f"lines; replay: {report.replay['queries']:,} queries, {report.replay['same']:,} "
            f"same answer, {len(report.replay['changed'])} changed, "
            f"{len(report.replay['lost'])} lost"
        )
        print(
            f"approve: {decision.baseline}, {len(decision.approved):,} changes applied; "
            f"rollback: {len(back.restored):,} records restored ({back.baseline})"
        )
        print(f"{'step':<12} {'seconds':>8}")
        for label, seconds in results.items():
            print(f"{label:<12} {seconds:>8.2f}")
        assert superseded == 0, "the rollback left superseded records behind"
        assert (
            len(merged) - sum(ch["action"] == "merge-exact" for ch in report.changes)
            == planted["duplicates"]
        ), "not every planted duplicate was merged"
        assert rewritten == planted["dated"], "not every planted relative date was rewritten"
        assert signalled == {"reconfirm": SIGNALS, "retire": SIGNALS}, signalled


if __name__ == "__main__":
    main()
