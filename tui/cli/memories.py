"""The reading commands: ``list`` the records, ``recall`` the active ones for a key
(ranked by weight across the stores, their use recorded) and one memory's
``history``. What is listed or recalled, and in what order, is
:mod:`core.reports.recall`'s; which store tells a history is
:mod:`core.reports.history`'s.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tui.cli.common import EXIT_OK, actor_from, emit, workspace

if TYPE_CHECKING:
    from core.api.stores import Store


def cmd_history(args: argparse.Namespace) -> int:
    from core.api.reading import history_in

    # the output's redaction (the secret scanner's patterns) made ready while git
    # walks the history
    result = history_in(workspace(args), args.id, meanwhile=_redaction_ready)

    def text() -> str:
        lines = [
            f"{result.memory_id}: {result.status or 'unknown'}"
            + ("" if result.exists else " (erased: only its events remain)")
        ]
        if result.older:
            lines.append("  replaced: " + " <- ".join(result.older))
        if result.newer:
            lines.append("  replaced by: " + " -> ".join(result.newer))
        # events, then the commits that touched the file, in one set of columns: when,
        # what, the change (or the commit), who and why
        rows = [
            (
                ev.ts,
                ev.action,
                f"{ev.from_status or 'new'} -> {ev.to_status}" if ev.to_status else "-",
                f"{ev.actor}: {ev.reason}",
            )
            for ev in result.events
        ]
        rows += [
            (
                c.when,
                "commit",
                c.sha[:10],
                f"{c.author}: {(c.message.splitlines() or [''])[0]}"
                + (f" [{result.untrusted[c.sha]}]" if c.sha in result.untrusted else ""),
            )
            for c in result.commits
        ]
        widths = [max((len(row[n]) for row in rows), default=0) for n in range(3)]
        for when, what, change, rest in rows:
            lines.append(
                f"  {when:<{widths[0]}}  {what:<{widths[1]}}  {change:<{widths[2]}}  {rest}"
            )
        return "\n".join(lines)

    emit(args, result.to_dict(), text)
    return EXIT_OK


def _redaction_ready() -> None:
    import core.domain.secrets  # noqa: F401 - its import is the work: the patterns compiled


def cmd_list(args: argparse.Namespace) -> int:
    from core.api.reading import list_in, listed_line

    rows = list_in(workspace(args), statuses=args.status, subject_prefix=args.subject)
    emit(
        args,
        lambda: [m.to_dict() for m in rows],
        lambda: "\n".join(listed_line(m) for m in rows) or "no memories",
    )
    return EXIT_OK


def say_unrecorded(store: Store) -> None:
    print(
        f"memgov: {store.root}: use not recorded (only the team store's maintainers write to it)",
        file=sys.stderr,
    )


def cmd_recall(args: argparse.Namespace) -> int:
    from core.api.reading import recall_in, recalled_line

    subject, _, attribute = args.query.partition("#")
    attribute = args.attribute or attribute or None
    withheld: list[str] = []
    results = recall_in(
        workspace(args),
        subject_prefix=subject or None,
        attribute=attribute,
        actor=actor_from(args),
        limit=args.limit,
        record_usage=not args.no_usage,
        on_unrecorded=say_unrecorded,
        withheld=withheld,
        task=args.task,
    )
    if withheld:
        print(
            f"memgov: withheld {len(withheld)} memory(ies) that try to steer the agent, "
            "until a person decides: " + ", ".join(f"steering-{i}" for i in withheld),
            file=sys.stderr,
        )
    emit(
        args,
        lambda: [r.to_dict() for r in results],
        lambda: "\n".join(recalled_line(r) for r in results) or "nothing recalled",
    )
    return EXIT_OK
