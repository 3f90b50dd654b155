"""Team sync that merges batches: 1,000 offline decisions, 100 of them decided on the remote.

    .venv/bin/python bench/bench_team_merge.py                  # 10,000 memories
    .venv/bin/python bench/bench_team_merge.py --decisions 1000 --collisions 100 --batch 100

Builds (once, under bench/.stores/) a team store of N memories with 1,000 open
conflicts (bench/stores.py), makes a bare remote of it and two clones with
``memgov team clone``. A decides ``--collisions`` items (one batch) and syncs: the
remote has them. B decides ``--decisions`` items offline, ``--batch`` at a time (the
desk's ``D``, ``memgov decide -``: one commit per batch), among them the items A
decided, the other way. Then ``memgov sync B`` merges decision by decision: B's
decisions that do not collide land, each colliding one is undone on its own and
reported; the time of each step is printed (from the sync's own progress lines).

The floor, measured in the same run on a copy of B made before its sync: ``git fetch``
of the same remote, then ``git merge`` of the same two branches (git's textual merge,
which stops with conflict markers in the records both sides changed and writes no
commit: less work than memgov's, and a wrong result), and ``git fetch`` + ``git
rev-list`` of the commits to merge. Then A takes the merge; both trees must be equal.
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

from core.review.decide import Choice, decide_many
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace
from core.team.setup import clone_team
from core.team.sync import sync_team


def timed(what: str, func, *args, **kwargs):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = func(*args, **kwargs)
    took = time.perf_counter() - started
    print(f"{what:<60} {took:8.2f} s", flush=True)
    return result, took


def git(root: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=check, capture_output=True, text=True
    ).stdout


def conflicts(store: Store) -> list[str]:
    store.forget()
    items = build_queue(Workspace([store]), kinds=["conflict"])
    return [i.id for i in sorted(items, key=lambda i: i.id)]


def decide_in_batches(store: Store, ids: list[str], option: str, batch: int) -> int:
    commits = 0
    for start in range(0, len(ids), batch):
        store.forget()
        choices = [
            (item, Choice(approve=True, option=option, reason=f"bench: {option}"))
            for item in ids[start : start + batch]
        ]
        decide_many(Workspace([store]), choices, actor=OWNER)
        commits += 1
    return commits


GIT_PROGRESS = {"Enumerating", "Counting", "Compressing", "Writing", "Total", "remote:", "Delta"}


class Steps:
    """The sync's progress lines, each with the time it took until the next."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = []

    def __call__(self, text: str) -> None:
        if not text.strip() or "%" in text or text.split()[0] in GIT_PROGRESS:
            return  # git's own progress, part of the step it runs in
        self.marks.append((text, time.perf_counter()))

    def show(self, end: float) -> None:
        for (text, at), (_next, until) in zip(
            self.marks, [*self.marks[1:], ("", end)], strict=True
        ):
            print(f"  {text:<58} {until - at:8.2f} s")


def floor(work: Path, copy: Path) -> dict[str, float]:
    """git's own time for the same fetch and merge, on a copy of B before its sync."""
    _, fetch = timed("floor: git fetch (B's copy)", git, copy, "fetch", "-q", "origin")
    _, merge = timed(
        "floor: git merge of the same two branches (textual)",
        git,
        copy,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.com",
        "merge",
        "-q",
        "--no-edit",
        "origin/main",
        check=False,  # the records both sides changed conflict: git stops there
    )
    conflicted = len(git(copy, "diff", "--name-only", "--diff-filter=U").split())
    print(f"  (git's merge left {conflicted} file(s) with conflict markers)")
    _, revlist = timed(
        "floor: git rev-list of the commits to merge",
        git,
        copy,
        "rev-list",
        "--count",
        "HEAD...origin/main",
    )
    return {"fetch": fetch, "merge": merge, "rev_list": revlist, "conflicted": conflicted}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--decisions", type=int, default=1_000)
    parser.add_argument("--collisions", type=int, default=100)
    parser.add_argument("--batch", type=int, default=100, help="decisions per commit on B")
    args = parser.parse_args()
    src = ensure(args.size, scope="team")
    work = STORES / "work" / f"team-merge-{args.size}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    remote = work / "remote.git"
    git(work, "clone", "-q", "--bare", str(src), str(remote))
    clone_team(str(remote), work / "a")
    clone_team(str(remote), work / "b")
    a, b = Store(work / "a"), Store(work / "b")
    a.load(), b.load()
    ids = conflicts(b)
    if len(ids) < args.decisions:
        raise SystemExit(f"only {len(ids)} open conflicts; pass --decisions {len(ids)} or less")
    mine = ids[: args.decisions]
    step = max(1, args.decisions // max(1, args.collisions))
    theirs = mine[::step][: args.collisions]  # spread over B's batches
    timed(
        f"A decides {len(theirs)} items (one batch)", decide_in_batches, a, theirs, "newer", 10**6
    )
    timed("memgov sync A: push them", sync_team, a, actor=OWNER)
    commits, _ = timed(
        f"B decides {len(mine):,} items offline, {args.batch} per commit",
        decide_in_batches,
        b,
        mine,
        "older",
        args.batch,
    )
    copy = work / "plain"
    subprocess.run(["cp", "-a", str(work / "b"), str(copy)], check=True)
    floors = floor(work, copy)
    steps = Steps()
    started = time.perf_counter()
    report, sync_time = timed(
        f"memgov sync B: merge {len(mine):,} with {len(theirs)} collisions",
        sync_team,
        b,
        actor=OWNER,
        progress=steps,
    )
    steps.show(started + sync_time)
    it = report.integration
    assert it is not None and it.kind == "merge", it
    undone = [u for u in it.undone if u.decision]
    message = git(work / "b", "log", "--merges", "-1", "--format=%B")
    listed = sum(f"your decision {u.decision} on {u.item}:" in message for u in undone)
    _, take = timed("memgov sync A: take the merge", sync_team, a, actor=OWNER)
    same = git(work / "a", "rev-parse", "HEAD^{tree}") == git(
        work / "b", "rev-parse", "HEAD^{tree}"
    )
    landed = len(mine) - len(undone)
    git_floor = floors["fetch"] + floors["merge"]
    result = {
        "memories": args.size,
        "decisions": len(mine),
        "batches": commits,
        "collisions": len(theirs),
        "undone_reported": len(undone),
        "undone_in_merge_message": listed,
        "landed": landed,
        "sync_merge_s": round(sync_time, 2),
        "floor_git_fetch_merge_s": round(git_floor, 2),
        "sync_vs_git_fetch_merge": round(sync_time / git_floor, 1),
        "floor_git_fetch_rev_list_s": round(floors["fetch"] + floors["rev_list"], 2),
        "git_merge_conflicted_files": floors["conflicted"],
        "take_merge_s": round(take, 2),
        "trees_equal_after": same,
    }
    print(json.dumps(result, indent=1))
    if len(undone) != len(theirs) or listed != len(undone) or not same:
        raise SystemExit("the merge did not undo exactly the colliding decisions")


if __name__ == "__main__":
    main()
