"""Opening the review desk: ``review`` on the configured stores, ``demo`` on a demo
store built from the seed's scenarios. Textual loads only here, when the desk
opens; without it the queue is printed instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tui.cli.common import EXIT_OK, actor_from, clock_from_env, store_paths


def cmd_demo(args: argparse.Namespace) -> int:
    from core.api.demo import build_demo, demo_language, is_demo

    target = Path(
        args.store[0]
        if args.store
        else os.environ.get("MEMGOV_STORE", "").split(os.pathsep)[0] or "demo-store"
    )
    kept = is_demo(target) and not args.force
    stores = build_demo(target, force=args.force, lang=args.lang)
    if not args.actor and not os.environ.get("MEMGOV_ACTOR"):
        from core.api.demo import OWNER

        args.actor = OWNER  # the demo's user, who owns the private store and maintains the team
    where = ", ".join(str(s.root) for s in stores)
    lang = demo_language(target)
    shown = f" ({lang})" if lang else ""
    # a demo already there is opened as it is: what was decided on it stays decided
    said = (
        f"demo stores{shown} already in place, opened as they are (what was decided on "
        f"them stays decided; --force builds fresh ones): {where}"
        if kept
        else f"demo stores{shown} built: {where}"
    )
    if args.no_open:
        print(said)
        return EXIT_OK
    if kept:
        print(said, file=sys.stderr)
    return open_desk([str(target)], args)


def open_desk(paths: Sequence[str], args: argparse.Namespace) -> int:
    from core.api.stores import open_workspace

    try:
        from tui.app import run_desk
    except ImportError:  # the desk arrives with its own issue; until then, the queue
        from core.api.review import build_queue

        ws = open_workspace(paths, clock=clock_from_env())
        for item in build_queue(ws):
            print(f"{item.kind:<13} {item.id:<28} {item.title}")
        return EXIT_OK
    return run_desk(open_workspace(paths, clock=clock_from_env()), actor=actor_from(args))


def cmd_review(args: argparse.Namespace) -> int:
    return open_desk(store_paths(args), args)
