"""The consolidation commands: ``consolidate`` proposes a batch of changes for
review, ``rollback`` returns a store to an approved baseline (or lists them).
``rollback`` works on one store: :func:`core.writing.target.home_store`.
"""

from __future__ import annotations

import argparse

from tui.cli.common import EXIT_OK, actor_from, emit, workspace


def cmd_consolidate(args: argparse.Namespace) -> int:
    from core.api.consolidation import consolidate

    reports = [
        (store, consolidate(store, actor=actor_from(args), dry_run=args.dry_run))
        for store in workspace(args).stores
    ]
    emit(
        args,
        [{"dry_run": args.dry_run, **r.to_dict()} for _s, r in reports],
        lambda: "\n".join(r.render(diffs=args.diff) for _s, r in reports),
    )
    return EXIT_OK


def cmd_rollback(args: argparse.Namespace) -> int:
    from core.api.consolidation import baselines, rollback
    from core.api.writing import home_store

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
