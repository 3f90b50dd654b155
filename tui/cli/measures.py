"""``memgov health``, ``memgov labels`` and ``memgov redteam``: the seed's measures.

``health`` prints every store's health and measures (``--json``: the same numbers the
desk's health screen shows); ``labels`` lists the samples waiting for a person's label
(repeated explanations, precision, stale citations), each decided with ``memgov
decide``; ``redteam`` replays the built-in synthetic corpus through the write gate and
records the share it stopped.
"""

from __future__ import annotations

import argparse

from core.domain.data import to_data
from tui.cli.common import EXIT_FOUND, EXIT_OK, actor_from, emit, workspace


def cmd_health(args: argparse.Namespace) -> int:
    from core.api.measures import health

    found = [health(store) for store in workspace(args).stores]

    def text() -> str:
        lines: list[str] = []
        for h in found:
            lines.append(f"{h.store} ({h.scope})")
            lines.append("  " + ", ".join(f"{s} {n}" for s, n in h.by_status.items()))
            for m in h.measures:
                lines.append(f"  {m.title}: {m.shown}" + (f" — {m.detail}" if m.detail else ""))
            w = h.write
            share = w["source_completeness"]
            lines.append(
                f"  source completeness: {'—' if share is None else f'{share:.0%}'}; "
                f"writes refused {w['refused']}/{w['write_attempts']}, "
                f"secrets intercepted {w['sensitive_intercepted']}"
            )
            for signal in h.signals:
                lines.append(
                    f"  ! {signal['signal']}: {signal['detail']} ({signal['meaning']}; "
                    f"likely cause: {signal['cause']})"
                )
            if not h.signals:
                lines.append("  no reverse signal")
        return "\n".join(lines)

    emit(args, lambda: [to_data(h) for h in found], text)
    return EXIT_OK


def cmd_labels(args: argparse.Namespace) -> int:
    from core.api.measures import workspace_label_items

    items = workspace_label_items(workspace(args), measures=args.measure or _all())
    emit(
        args,
        lambda: [to_data(i) for i in items],
        lambda: (
            "\n".join(f"{i.opened_at[:16]}  {i.id:<40} {i.title}" for i in items)
            or "nothing to label"
        ),
    )
    return EXIT_OK


def _all() -> tuple[str, ...]:
    from core.api.measures import MEASURES

    return MEASURES


def cmd_redteam(args: argparse.Namespace) -> int:
    from core.api.writing import replay

    results = [
        (store, replay(store, actor=actor_from(args), record=not args.dry_run))
        for store in workspace(args).stores
    ]

    def text() -> str:
        lines = []
        for store, r in results:
            lines.append(
                f"{store.root}: {r.intercepted}/{r.total} intercepted ({r.share:.0%}): "
                f"credentials {r.credentials[0]}/{r.credentials[1]}, "
                f"steering {r.steering[0]}/{r.steering[1]}; "
                f"controls passed {r.controls_passed[0]}/{r.controls_passed[1]}"
                + ("" if args.dry_run else f" (recorded: {r.event})")
            )
            if r.missed:
                lines.append("  got through: " + ", ".join(r.missed))
            if r.false_alarms:
                lines.append("  controls stopped (false alarms): " + ", ".join(r.false_alarms))
        return "\n".join(lines)

    emit(
        args,
        [{"dry_run": args.dry_run, "store": str(s.root), **to_data(r)} for s, r in results],
        text,
    )
    missed = any(r.missed or r.false_alarms for _s, r in results)
    return EXIT_FOUND if missed else EXIT_OK
