"""The writing commands: ``remember`` runs a candidate through the write pipeline,
``log`` appends raw evidence to a daily log, ``scan`` checks text for credentials
and ``sweep`` expires what decay says is past.

Which store a candidate or a log line goes to is the pipeline's
(:func:`core.writing.remember.remember_in`, :func:`~core.writing.remember.log_in`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from core.domain.errors import MemgovError, ValidationError
from tui.cli.common import (
    EXIT_CONFLICT,
    EXIT_FOUND,
    EXIT_OK,
    actor_from,
    emit,
    read_input,
    workspace,
)


def cmd_remember(args: argparse.Namespace) -> int:
    """One candidate (a JSON object) or many (a JSON list: one transaction and one
    commit per store, one outcome per candidate in order; ``--json`` prints a list)."""
    from core.api.writing import Outcome, candidates_from_data, remember_many_in

    raw = read_input(args.file)
    try:
        data = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise MemgovError(
            f"{args.file or 'stdin'}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    candidates = candidates_from_data(data)
    if args.keep_likely:  # a person at this terminal, never the agent's MCP call
        candidates = [dataclasses.replace(c, keep_likely=True) for c in candidates]
    outcomes = remember_many_in(workspace(args), candidates, actor=actor_from(args))

    def shown(outcome: Outcome) -> list[str]:
        ids = ", ".join(outcome.memory_ids)
        lines = [f"{outcome.kind}: {ids}" if ids else outcome.kind]
        lines += [f"  {reason}" for reason in outcome.reasons]
        if outcome.held_for_review:
            lines.append(f"  held for review: {outcome.held_for_review}")
        return lines

    if not isinstance(data, list):
        (outcome,) = outcomes
        emit(args, outcome.to_dict(), lambda: "\n".join(shown(outcome)))
        return _remember_exit(outcome.kind)
    emit(
        args,
        [o.to_dict() for o in outcomes],
        lambda: "\n".join(
            f"[{i}] {line}" if not line.startswith(" ") else line
            for i, o in enumerate(outcomes)
            for line in shown(o)
        ),
    )
    kinds = {o.kind for o in outcomes}
    # the most serious outcome of the list decides: a conflict, then a refusal
    worst = next((k for k in ("conflict", "quarantined", "refused") if k in kinds), "written")
    return _remember_exit(worst)


def _remember_exit(kind: str) -> int:
    # a conflict and a held candidate both wait for a person (3); a refusal is a no (1)
    return {"refused": EXIT_FOUND, "conflict": EXIT_CONFLICT, "quarantined": EXIT_CONFLICT}.get(
        kind, EXIT_OK
    )


def cmd_scan(args: argparse.Namespace) -> int:
    from core.domain import secrets

    findings = secrets.scan(read_input(args.file))
    name = args.file if args.file not in (None, "-") else "stdin"
    emit(
        args,
        {"file": name, "clean": not findings, "findings": [f.to_dict() for f in findings]},
        lambda: (
            "\n".join(
                f"{name}:{f.line}:{f.column}: {f.tier} {f.rule_id} ({f.description})"
                for f in findings
            )
            or f"{name}: clean"
        ),
    )
    return EXIT_FOUND if findings else EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    from core.api.writing import sweep_workspace

    env = {}
    for item in args.env or ():
        tool, sep, version = item.partition("=")
        if not sep or not tool:
            raise MemgovError(f"--env {item!r}: write TOOL=VERSION, e.g. --env node=20.11")
        env[tool] = version
    reports = sweep_workspace(
        workspace(args), actor=actor_from(args), environment=env, dry_run=args.dry_run
    )

    def text() -> str:
        lines = []
        for store, rep in reports:
            verb = "would expire" if args.dry_run else "expired"
            lines.append(
                f"{store.root}: {verb} {len(rep.expired)}, "
                f"{len(rep.unused)} not consolidation input (unused "
                f"{store.config.unused_days}+ days)"
            )
            lines += [f"  {verb} {i}: {why}" for i, why in rep.expired]
            lines += [f"  unused {i}" for i in rep.unused]
        return "\n".join(lines)

    emit(
        args,
        [{"dry_run": args.dry_run, "store": str(s.root), **r.to_dict()} for s, r in reports],
        text,
    )
    return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    if args.transcript is not None:
        return _log_transcript(args)
    if args.text is None or args.task is None or args.index is None:
        raise ValidationError("log: give --task, --index and TEXT, or --transcript FILE")
    from core.api.writing import log_in

    logged = log_in(
        workspace(args),
        task=args.task,
        index=args.index,
        role=args.role,
        text=args.text,
        actor=actor_from(args),
    )
    emit(
        args,
        logged.to_dict(),
        lambda: f"{logged.log}:{logged.line}" + (f"\n  {logged.note}" if logged.note else ""),
    )
    return EXIT_OK


def _log_transcript(args: argparse.Namespace) -> int:
    if args.text is not None or args.task is not None or args.index is not None:
        raise ValidationError(
            "log: --transcript reads a whole session; give no --task, --index or TEXT"
        )
    from core.api.writing import ingest_transcript

    report = ingest_transcript(
        workspace(args), args.transcript, actor=actor_from(args), format=args.format
    )

    def text() -> str:
        roles = ", ".join(f"{r} {n}" for r, n in report.by_role.items()) or "none"
        lines = [
            f"{report.file} ({report.format}, session {report.session}): "
            f"{report.added} added, {report.already} already there, {report.skipped} skipped",
            f"  messages by role: {roles}",
            f"  turns {report.turns}, tool calls {report.tool_calls}, "
            f"tool results {report.tool_results}",
        ]
        lines += [f"  skipped {why}" for why in report.skipped_lines]
        lines += [f"  {report.note}"] if report.note else []
        return "\n".join(lines)

    emit(args, report.to_dict(), text)
    return EXIT_OK


def cmd_cite(args: argparse.Namespace) -> int:
    from core.api.writing import cite_in

    cited = cite_in(workspace(args), args.ids, actor=actor_from(args), task=args.task)
    emit(
        args,
        [c.to_dict() for c in cited],
        lambda: "\n".join(
            f"{c.memory_id}: "
            + ("cited" if c.recorded else "not cited")
            + (f" ({c.note})" if c.note else "")
            for c in cited
        ),
    )
    return EXIT_OK
