"""Opening the review desk: ``review`` on the configured stores, ``demo`` on a demo
store built from the seed's scenarios. Textual loads only here, when the desk
opens; without it the queue is printed instead.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from core.store.workspace import open_workspace
from tui.cli.common import EXIT_OK, Adder, actor_from, clock_from_env, store_paths


def cmd_demo(args: argparse.Namespace) -> int:
    from core.demo import build_demo

    target = Path(
        args.store[0]
        if args.store
        else os.environ.get("MEMGOV_STORE", "").split(os.pathsep)[0] or "demo-store"
    )
    stores = build_demo(target, force=args.force)
    if not args.actor and not os.environ.get("MEMGOV_ACTOR"):
        from core.demo import OWNER

        args.actor = OWNER  # the demo's user, who owns the private store and maintains the team
    if args.no_open:
        print(f"demo stores ready: {', '.join(str(s.root) for s in stores)}")
        return EXIT_OK
    return open_desk([str(target)], args)


def open_desk(paths: Sequence[str], args: argparse.Namespace) -> int:
    try:
        from tui.app import run_desk
    except ImportError:  # the desk arrives with its own issue; until then, the queue
        from core.review.queue import build_queue

        ws = open_workspace(paths, clock=clock_from_env())
        for item in build_queue(ws):
            print(f"{item.kind:<13} {item.id:<28} {item.title}")
        return EXIT_OK
    return run_desk(open_workspace(paths, clock=clock_from_env()), actor=actor_from(args))


def cmd_review(args: argparse.Namespace) -> int:
    return open_desk(store_paths(args), args)


def add_demo(add: Adder) -> None:
    p = add("demo", cmd_demo, "build a demo store from the seed's scenarios and open the desk")
    p.add_argument("--no-open", action="store_true", help="build it, do not open the desk")
    p.add_argument("--force", action="store_true", help="replace an existing demo store")


def add_review(add: Adder) -> None:
    add("review", cmd_review, "open the review desk on the configured stores")
