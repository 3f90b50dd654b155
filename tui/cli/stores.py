"""The store commands: ``init`` creates a store, ``doctor`` validates every store
given without changing it (exit 1 when it fails, see :mod:`core.reports.checkup`),
``reindex`` writes each store's ``MEMORY.md`` again from its records
(:mod:`core.reports.reindex`).
"""

from __future__ import annotations

import argparse

from core.domain.words import counted
from tui.cli.common import (
    EXIT_FOUND,
    EXIT_OK,
    actor_from,
    clock_from_env,
    emit,
    store_paths,
    workspace,
)


def cmd_init(args: argparse.Namespace) -> int:
    from core.api.stores import create_store

    paths = store_paths(args)
    store = create_store(
        paths[0],
        scope=args.scope,
        owner=args.owner,
        maintainers=tuple(args.maintainer or ()),
        team_store=args.team_store,
        actor=actor_from(args),
        clock=clock_from_env(),
    )
    emit(
        args,
        {"store": str(store.root), "scope": args.scope},
        lambda: f"created an empty {args.scope} store at {store.root}",
    )
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from core.api.doctor import check_workspace
    from tui.keymap import read_keymap

    checkup = check_workspace(
        workspace(args), strict=args.strict, more=lambda store: read_keymap(store)[1]
    )

    def text() -> str:
        lines = []
        for check in checkup.stores:
            root, count = check.store.root, check.memories
            if not check.findings:
                lines.append(f"{root}: clean ({count} memories)")
                continue
            lines.append(f"{root}: {counted(len(check.findings), 'finding')} in {count} memories")
            lines += ["  " + f.render() for f in check.findings]
        return "\n".join(lines)

    emit(args, checkup.to_dict(), text)
    return EXIT_FOUND if checkup.failing else EXIT_OK


def cmd_scrub_history(args: argparse.Namespace) -> int:
    from core.api.doctor import scrub_history

    actor = actor_from(args)
    done = [
        scrub_history(store, actor=actor)
        for store in workspace(args).stores
        if store.config.scope == "private"
    ]
    emit(args, [d.to_dict() for d in done], lambda: "\n".join(d.render() for d in done))
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace) -> int:
    from core.api.doctor import reindex_workspace

    done = reindex_workspace(workspace(args), actor=actor_from(args))
    emit(args, [r.to_dict() for r in done], lambda: "\n".join(r.render() for r in done))
    return EXIT_OK
