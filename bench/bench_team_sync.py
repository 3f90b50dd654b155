"""Team sync between two clones of a large team store over a real bare remote.

    .venv/bin/python bench/bench_team_sync.py                 # 10,000 memories, 1,000 decisions
    .venv/bin/python bench/bench_team_sync.py --size 2000 --decisions 150

Builds (once, under bench/.stores/) a team store of N memories with as many commits
(bench/stores.py) and 1,000 open conflicts, makes a bare remote of it and two clones
with ``memgov team clone``. Clone A decides D conflicts, one commit each; then:

- ``sync A``: verify nothing new, reindex, scan the D commits, push them;
- ``sync B``: fetch the D commits, verify them, read every file they change as
  memgov reads it, fast-forward, reindex;
- the floor a user would use instead on B's side: ``git pull --ff-only`` of the same
  commits into a plain git clone made at the same moment as B.

Then both decide offline (A 100 items, B 100 others of which 10 are A's too) and
sync: A first, then B merges (events by id, 10 of its decisions undone as recorded
events), pushes, and A takes the merge. Prints the times and the ratios.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from stores import OWNER, STORES, ensure

from core.review.decide import decide
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace
from core.team.setup import clone_team
from core.team.sync import sync_team


def timed(what: str, func, *args, **kwargs):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = func(*args, **kwargs)
    took = time.perf_counter() - started
    print(f"{what:<52} {took:8.2f} s", flush=True)
    return result, took


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def conflicts(store: Store) -> list[str]:
    store.forget()
    return [i.id for i in build_queue(Workspace([store]), kinds=["conflict"])]


def decide_all(store: Store, ids: list[str], option: str) -> None:
    ws = Workspace([store])
    for item in ids:
        decide(ws, item, approve=True, option=option, actor=OWNER, reason=f"bench: {option}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--decisions", type=int, default=1_000)
    args = parser.parse_args()
    src = ensure(args.size, scope="team")
    work = STORES / "work" / f"team-sync-{args.size}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    remote = work / "remote.git"
    git(work, "clone", "-q", "--bare", str(src), str(remote))
    _, clone_time = timed(
        f"memgov team clone ({args.size:,} memories)", clone_team, str(remote), work / "a"
    )
    clone_team(str(remote), work / "b")
    _, git_clone = timed(
        "floor: git clone of the same remote",
        git,
        work,
        "clone",
        "-q",
        str(remote),
        str(work / "plain"),
    )
    a, b = Store(work / "a"), Store(work / "b")
    a.load(), b.load()
    ids = conflicts(a)
    todo = ids[: args.decisions]
    timed(f"A decides {len(todo):,} conflicts, one commit each", decide_all, a, todo, "newer")
    pushed, push_time = timed(
        f"memgov sync A: push {len(todo):,} decisions", sync_team, a, actor=OWNER
    )
    taken, pull_time = timed(
        f"memgov sync B: take {len(todo):,} decisions", sync_team, b, actor=OWNER
    )
    _, git_pull = timed(
        "floor: git pull --ff-only of the same commits",
        git,
        work / "plain",
        "pull",
        "-q",
        "--ff-only",
    )
    assert taken.integration is not None and taken.integration.incoming == pushed.pushed
    result = {
        "memories": args.size,
        "decisions": len(todo),
        "clone_s": round(clone_time, 2),
        "clone_vs_git_clone": round(clone_time / git_clone, 1),
        "sync_push_s": round(push_time, 2),
        "sync_take_s": round(pull_time, 2),
        "git_pull_s": round(git_pull, 2),
        "sync_take_vs_git_pull": round(pull_time / git_pull, 1),
    }
    # concurrent: 100 each, 10 of B's the same items as A's
    rest = ids[args.decisions :]
    if len(rest) < 190:
        print("(fewer than 190 open conflicts left: no concurrent round; pass --decisions 800)")
        print(json.dumps(result, indent=1))
        return
    mine, theirs = rest[:100], rest[90:190]
    decide_all(a, mine, "newer")
    decide_all(b, theirs, "older")
    _, a_time = timed("memgov sync A: push 100 decisions", sync_team, a, actor=OWNER)
    merged, merge_time = timed(
        "memgov sync B: merge 100 with its own 100", sync_team, b, actor=OWNER
    )
    assert merged.integration is not None
    undone = len(merged.integration.undone)
    _, back_time = timed("memgov sync A: take the merge", sync_team, a, actor=OWNER)
    same = git(work / "a", "rev-parse", "HEAD^{tree}") == git(
        work / "b", "rev-parse", "HEAD^{tree}"
    )
    result |= {
        "concurrent_merge_s": round(merge_time, 2),
        "concurrent_undone": undone,
        "trees_equal_after": same,
        "sync_a_s": round(a_time, 2),
        "take_merge_s": round(back_time, 2),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
