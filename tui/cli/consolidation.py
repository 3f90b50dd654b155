"""The consolidation commands: ``consolidate`` proposes a batch of changes for
review, ``rollback`` returns a store to an approved baseline (or lists them).
``rollback`` works on one store: :func:`core.writing.target.home_store`.
"""

from __future__ import annotations

import argparse

from core.writing.target import home_store
from tui.cli.common import EXIT_OK, Adder, actor_from, emit, workspace


def cmd_consolidate(args: argparse.Namespace) -> int:
    from core.consolidation.consolidate import consolidate

    reports = [
        (store, consolidate(store, actor=actor_from(args), dry_run=args.dry_run))
        for store in workspace(args).stores
    ]
    emit(
        args,
        [r.to_dict() for _s, r in reports],
        lambda: "\n".join(r.render(diffs=args.diff) for _s, r in reports),
    )
    return EXIT_OK


def cmd_rollback(args: argparse.Namespace) -> int:
    from core.consolidation.consolidate import baselines, rollback

    store = home_store(workspace(args))
    if args.list:
        found = baselines(store)
        emit(
            args,
            [b.to_dict() for b in found],
            lambda: (
                "\n".join(
                    f"{b.name}  {b.when[:16]}  {b.commit[:10]}  {b.actor or ''}  "
                    f"{b.message.splitlines()[0] if b.message else ''}"
                    for b in found
                )
                or "no baseline yet: run 'memgov consolidate' first"
            ),
        )
        return EXIT_OK
    result = rollback(store, args.baseline, actor=actor_from(args), reason=args.reason or "")
    emit(args, result.to_dict(), result.render)
    return EXIT_OK


def add_consolidate(add: Adder) -> None:
    p = add(
        "consolidate",
        cmd_consolidate,
        "orient, gather, consolidate, prune: propose a "
        "batch of changes for review (automatic ones may apply by policy)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the batch, keep nothing")
    p.add_argument("--diff", action="store_true", help="print each file's diff")


def add_rollback(add: Adder) -> None:
    p = add(
        "rollback",
        cmd_rollback,
        "return the store to an approved baseline (a new commit with events; history is kept)",
    )
    p.add_argument(
        "baseline",
        nargs="?",
        help="baseline/NNNN, NNNN or N (default: the one before the last approved batch)",
    )
    p.add_argument("--list", action="store_true", help="list the baselines")
    p.add_argument("--reason")
