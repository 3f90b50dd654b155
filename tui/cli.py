"""The ``memgov`` command line, for agents, scripts and CI.

Exit status: 0 success (written, merged, clean), 1 the command found something
or refused (a refused write, a secret, doctor problems), 2 bad input or an
error, 3 a write opened or joined a conflict.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from core import __version__
from core.domain.data import to_data
from core.domain.errors import AlreadyDecided, MemgovError, shown_id
from core.domain.secrets import redact
from core.review.items import BatchAnalysis, ConflictAnalysis
from core.store.store import Clock, Store
from core.store.workspace import Workspace, open_workspace

EXIT_OK, EXIT_FOUND, EXIT_ERROR, EXIT_CONFLICT = 0, 1, 2, 3


# ------------------------------------------------------------------ shared plumbing
def clock_from_env() -> Clock | None:
    """``MEMGOV_NOW`` pins the clock (ISO 8601 with offset): for demos and tests."""
    pinned = os.environ.get("MEMGOV_NOW")
    if not pinned:
        return None
    when = datetime.fromisoformat(pinned)
    if when.tzinfo is None:
        raise MemgovError(f"MEMGOV_NOW={pinned!r} has no UTC offset; add one, e.g. +08:00")
    return lambda: when


def actor_from(args: argparse.Namespace) -> str:
    if getattr(args, "actor", None):
        return str(args.actor)
    if os.environ.get("MEMGOV_ACTOR"):
        return os.environ["MEMGOV_ACTOR"]
    try:
        email = subprocess.run(
            ["git", "config", "user.email"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        email = ""
    return email or getpass.getuser()


def store_paths(args: argparse.Namespace) -> list[str]:
    paths = list(args.store or [])
    if not paths and os.environ.get("MEMGOV_STORE"):
        paths = [p for p in os.environ["MEMGOV_STORE"].split(os.pathsep) if p]
    if not paths:
        raise MemgovError(
            "no store given: pass --store PATH or set MEMGOV_STORE "
            "(try 'memgov demo' for a demo store)"
        )
    return paths


def workspace(args: argparse.Namespace) -> Workspace:
    return open_workspace(store_paths(args), clock=clock_from_env())


def one_store(args: argparse.Namespace) -> Store:
    ws = workspace(args)
    if len(ws.stores) != 1:
        return ws.private or ws.stores[0]
    return ws.stores[0]


def redact_tree(data: Any) -> Any:
    """Every string in a JSON-able tree, with secrets replaced by their rule id."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, dict):
        return {key: redact_tree(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [redact_tree(value) for value in data]
    return data


def emit(args: argparse.Namespace, data: Any, text: Callable[[], str]) -> None:
    """Print a command's result; nothing a store holds is printed unredacted."""
    if getattr(args, "json", False):
        print(json.dumps(redact_tree(data), ensure_ascii=False, indent=2, default=str))
    else:
        out = text()
        if out:
            print(redact(out))


def read_input(name: str | None) -> str:
    if name in (None, "-"):
        return sys.stdin.read()
    path = Path(name)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MemgovError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise MemgovError(f"{path}: not UTF-8 text (byte {exc.start})") from None


# ------------------------------------------------------------------------- commands
def cmd_init(args: argparse.Namespace) -> int:
    paths = store_paths(args)
    owner = args.owner
    if owner is None and args.scope == "private":
        owner = actor_from(args)  # a private store with no owner refuses every decision
    store = Store.init(
        paths[0],
        scope=args.scope,
        owner=owner,
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
    from core.reports.doctor import diagnose

    results = []
    failing = False
    for store in workspace(args).stores:
        findings = diagnose(store)
        failing |= any(f.severity == "error" or args.strict for f in findings)
        results.append((store, findings))

    def counted(store: Store) -> int:
        try:
            return len(store.memories)
        except MemgovError:  # e.g. a crash journal that cannot be used: one of the findings
            return 0

    def text() -> str:
        lines = []
        for store, findings in results:
            count = counted(store)
            if not findings:
                lines.append(f"{store.root}: clean ({count} memories)")
                continue
            lines.append(f"{store.root}: {len(findings)} finding(s) in {count} memories")
            lines += ["  " + f.render() for f in findings]
        return "\n".join(lines)

    emit(
        args,
        {
            "clean": not failing,
            "stores": [
                {
                    "store": str(s.root),
                    "memories": counted(s),
                    "findings": [f.to_dict() for f in fs],
                }
                for s, fs in results
            ],
        },
        text,
    )
    return EXIT_FOUND if failing else EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from core.reports.history import history

    ws = workspace(args)
    store = next((s for s in ws.stores if args.id in s.memories), None)
    if store is None:  # erased or unknown: the events still tell
        store = next(
            (s for s in ws.stores if any(args.id in e.memory_ids for e in s.events()[0])), None
        )
    if store is None:
        raise MemgovError(f"no memory and no events with id {shown_id(args.id)}")
    result = history(store, args.id)

    def text() -> str:
        lines = [
            f"{result.memory_id}: {result.status or 'unknown'}"
            + ("" if result.exists else " (erased: only its events remain)")
        ]
        if result.older:
            lines.append("  replaced: " + " <- ".join(result.older))
        if result.newer:
            lines.append("  replaced by: " + " -> ".join(result.newer))
        for ev in result.events:
            change = f"{ev.from_status or 'new'} -> {ev.to_status}" if ev.to_status else "-"
            lines.append(f"  {ev.ts}  {ev.action:<12} {change:<22} {ev.actor}: {ev.reason}")
        for c in result.commits:
            lines.append(f"  commit {c.sha[:10]} {c.when} {c.author}: {c.message.splitlines()[0]}")
        return "\n".join(lines)

    emit(args, result.to_dict(), text)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for store in workspace(args).stores:
        for memory in sorted(store.memories.values(), key=lambda m: (m.subject, m.attribute)):
            if args.status and memory.status not in args.status:
                continue
            if args.subject and not memory.subject.startswith(args.subject):
                continue
            rows.append(memory)
    emit(
        args,
        [m.to_dict() for m in rows],
        lambda: (
            "\n".join(
                f"{m.id:<34} {m.status:<10} {m.type:<10} {m.subject} #{m.attribute}: "
                f"{redact(m.hook)[:60]}"
                for m in rows
            )
            or "no memories"
        ),
    )
    return EXIT_OK


def cmd_remember(args: argparse.Namespace) -> int:
    from core.writing.candidate import candidate_from_dict
    from core.writing.team_rule import remember_in

    raw = read_input(args.file)
    try:
        data = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise MemgovError(
            f"{args.file or 'stdin'}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    candidate = candidate_from_dict(data)
    outcome = remember_in(workspace(args), candidate, actor=actor_from(args))

    def text() -> str:
        lines = [f"{outcome.kind}: " + (", ".join(outcome.memory_ids) or "-")]
        lines += [f"  {reason}" for reason in outcome.reasons]
        if outcome.held_for_review:
            lines.append(f"  held for review: {outcome.held_for_review}")
        return "\n".join(lines)

    emit(args, outcome.to_dict(), text)
    return {"refused": EXIT_FOUND, "conflict": EXIT_CONFLICT}.get(outcome.kind, EXIT_OK)


def cmd_scan(args: argparse.Namespace) -> int:
    from core.domain import secrets

    findings = secrets.scan(read_input(args.file))
    name = args.file if args.file not in (None, "-") else "stdin"
    emit(
        args,
        {"file": name, "clean": not findings, "findings": [f.to_dict() for f in findings]},
        lambda: (
            "\n".join(
                f"{name}:{f.line}:{f.column}: {f.rule_id} ({f.description})" for f in findings
            )
            or f"{name}: clean"
        ),
    )
    return EXIT_FOUND if findings else EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    from core.writing.decay import sweep_workspace

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

    emit(args, [{"store": str(s.root), **r.to_dict()} for s, r in reports], text)
    return EXIT_OK


def cmd_recall(args: argparse.Namespace) -> int:
    from core.writing.decay import recall, records_usage

    subject, _, attribute = args.query.partition("#")
    attribute = args.attribute or attribute or None
    results = []
    for store in workspace(args).stores:
        if not args.no_usage and not records_usage(store, actor_from(args)):
            print(
                f"memgov: {store.root}: use not recorded (only the team store's maintainers "
                "write to it)",
                file=sys.stderr,
            )
        results += recall(
            store,
            subject_prefix=subject or None,
            attribute=attribute,
            actor=actor_from(args),
            limit=args.limit,
            record_usage=not args.no_usage,
        )
    results.sort(key=lambda r: -r.weight)
    results = results[: args.limit]
    emit(
        args,
        [r.to_dict() for r in results],
        lambda: (
            "\n".join(
                f"{r.weight:6.3f} {r.memory.type:<10} [{r.to_dict()['injection']}] "
                f"{r.memory.subject} #{r.memory.attribute}: {r.memory.hook}"
                for r in results
            )
            or "nothing recalled"
        ),
    )
    return EXIT_OK


def cmd_log(args: argparse.Namespace) -> int:
    from core.writing.team_rule import log_in

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


def cmd_queue(args: argparse.Namespace) -> int:
    from core.review.queue import build_queue

    items = build_queue(workspace(args), kinds=args.kind)
    emit(
        args,
        [to_data(i) for i in items],
        lambda: (
            "\n".join(
                f"{i.opened_at[:16]}  {i.kind:<13} {i.id:<26} {i.scope:<7} {i.title}" for i in items
            )
            or "the queue is empty"
        ),
    )
    return EXIT_OK


def render_item(item: Any) -> str:
    lines = [
        f"{item.kind} {item.id}: {item.title}",
        f"  store: {item.store.root}",
        f"  opened: {item.opened_at}",
    ]
    if item.request is not None:
        lines.append(f"  requested by {item.request.requested_by}: {item.request.reason}")
    if item.kind == "promotion":
        hits = ", ".join(sorted({h.rule for h in item.scan})) or "clean"
        lines.append(f"  secret scan: {hits}")
    analysis = item.analysis
    if isinstance(analysis, BatchAnalysis):
        summary = analysis.summary
        lines.append(
            f"  {summary.get('changes', 0)} changes: {summary.get('automatic', 0)} "
            f"automatic, {summary.get('needs_approval', 0)} need approval"
        )
        for entry in analysis.files:
            cls = "automatic" if entry.get("automatic") else "needs approval"
            lines.append(f"  - {entry['path']} [{entry.get('status')}, {cls}]")
            lines += [f"      {reason}" for reason in entry.get("reasons", [])]
        lines += [f"  note: {finding}" for finding in analysis.findings]
        lines.append("  decide: memgov decide ITEM --approve|--reject [--file PATH ...]")
    if isinstance(analysis, ConflictAnalysis) and analysis.favoured:
        lines.append(f"  sources favour {analysis.favoured}: {', '.join(analysis.why)}")
    for title, records in (("records", item.records), ("team records", item.team_records)):
        if records:
            lines.append(f"  {title}:")
        for rec in records:
            m = rec.memory
            lines.append(
                f"  - {m.id} [{m.status}] {m.type} confidence {m.confidence:.2f}, "
                f"{len(rec.sources)} source(s), created {m.created_at:%Y-%m-%d}, "
                f"verified {m.verified_at:%Y-%m-%d}"
                + (f", condition {m.condition}" if m.condition else "")
            )
            lines += ["      " + line for line in m.content.splitlines()]
            for src in rec.sources:
                s = src.source
                lines.append(f"      source: task {s.task} message {s.message_index}: {s.evidence}")
                if src.excerpt:
                    lines += [
                        f"        {src.excerpt.file}:{n}: {text}" for n, text in src.excerpt.lines
                    ]
                else:
                    lines.append("        (does not resolve)")
            if rec.pointers:
                lines.append("      pointed at by: " + "; ".join(rec.pointers))
    return "\n".join(lines)


def cmd_show(args: argparse.Namespace) -> int:
    from core.review.queue import get_item

    item = get_item(workspace(args), args.item)
    emit(args, to_data(item), lambda: render_item(item))
    return EXIT_OK


def parse_conditions(values: Sequence[str] | None) -> dict[str, str]:
    out = {}
    for raw in values or ():
        memory_id, sep, condition = raw.partition("=")
        if not sep or not condition:
            raise MemgovError(
                f"--condition {raw!r}: write MEMORY_ID=CONDITION, "
                f"e.g. --condition deploy-1a2b=env=production"
            )
        out[memory_id] = condition
    return out


def cmd_decide(args: argparse.Namespace) -> int:
    from core.review.decide import decide

    if args.approve == args.reject:
        raise MemgovError("say --approve or --reject")
    decision = decide(
        workspace(args),
        args.item,
        approve=args.approve,
        actor=actor_from(args),
        reason=args.reason or "",
        option=args.option,
        conditions=parse_conditions(args.condition),
        files=args.file or None,
        content=read_input(args.content) if args.content else None,
    )
    emit(
        args,
        to_data(decision),
        lambda: (
            f"{decision.id}: {decision.kind} {decision.item} "
            f"-> {decision.option} ({decision.reason})"
            + (f"\n  erased: {', '.join(decision.erased)}" if decision.erased else "")
            + (f"\n  note: {decision.note}" if decision.note else "")
            + ("\n  undo with: memgov revert " + decision.id if decision.revertible else "")
        ),
    )
    return EXIT_OK


def cmd_revert(args: argparse.Namespace) -> int:
    from core.review.revert import revert

    result = revert(
        workspace(args), args.decision, actor=actor_from(args), reason=args.reason or ""
    )
    emit(args, to_data(result), lambda: f"{result.id}: reverted {args.decision}")
    return EXIT_OK


def cmd_request(kind: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from core.store.requests import file_request

        ws = workspace(args)
        store = ws.find_memory(args.id)
        request = file_request(
            store, kind=kind, memory_id=args.id, reason=args.reason, actor=actor_from(args)
        )
        emit(args, request.to_dict(), lambda: f"{request.id}: {kind} {args.id} requested")
        return EXIT_OK

    return run


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

    store = one_store(args)
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


def cmd_import(args: argparse.Namespace) -> int:
    from core.importers import import_claude_code, import_codex

    run = import_claude_code if args.format == "claude-code" else import_codex
    report = run(
        workspace(args),
        Path(args.path),
        actor=actor_from(args),
        dry_run=args.dry_run,
        mapping=args.mapping,
    )
    emit(args, report.to_dict(), report.render)
    counts = report.counts
    if counts.get("refused") or counts.get("failed"):
        return EXIT_FOUND
    return EXIT_CONFLICT if counts.get("conflict") else EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from core.importers import export_claude_code

    report = export_claude_code(workspace(args), Path(args.path))
    emit(args, report.to_dict(), report.render)
    return EXIT_OK


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


# --------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memgov",
        description="Govern what AI agents remember: the store, the write "
        "pipeline and the review desk.",
        epilog="Exit status: 0 ok, 1 found something or "
        "refused, 2 bad input or error, 3 a conflict was opened.",
    )
    parser.add_argument("--version", action="version", version=f"memgov {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        action="append",
        metavar="PATH",
        help="a store folder, or a folder with private/ and team/ stores; "
        "repeatable (default: $MEMGOV_STORE)",
    )
    common.add_argument(
        "--as", dest="actor", metavar="USER", help="who is acting (default: git's user.email)"
    )
    common.add_argument("--json", action="store_true", help="machine-readable output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(
        name: str, func: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    p = add("init", cmd_init, "create an empty store (a git repository with config)")
    p.add_argument("--scope", choices=("private", "team"), default="private")
    p.add_argument("--owner", help="private store: the user it belongs to")
    p.add_argument("--maintainer", action="append", help="team store: a maintainer (repeat)")
    p.add_argument("--team-store", help="private store: path of its team store")

    p = add("demo", cmd_demo, "build a demo store from the seed's scenarios and open the desk")
    p.add_argument("--no-open", action="store_true", help="build it, do not open the desk")
    p.add_argument("--force", action="store_true", help="replace an existing demo store")

    p = add("review", cmd_review, "open the review desk on the configured stores")

    p = add("doctor", cmd_doctor, "validate the whole store without changing it")
    p.add_argument("--strict", action="store_true", help="warnings fail too")

    p = add("history", cmd_history, "one memory's events, commits and supersedes chain")
    p.add_argument("id")

    p = add("list", cmd_list, "list memories")
    p.add_argument(
        "--status",
        action="append",
        choices=("active", "superseded", "conflict", "expired", "deleted"),
    )
    p.add_argument("--subject", help="subject prefix")

    p = add("remember", cmd_remember, "run a candidate (JSON) through the write pipeline")
    p.add_argument("file", nargs="?", help="JSON file, or - for stdin (default)")

    p = add("scan", cmd_scan, "scan text for credentials (rule ids only, never values)")
    p.add_argument("file", nargs="?", help="file to scan, or - for stdin (default)")

    p = add("sweep", cmd_sweep, "expire what is past expires_at or learnt in an old environment")
    p.add_argument(
        "--env",
        action="append",
        metavar="TOOL=VERSION",
        help="the current version of a tool (repeat); reflections learnt with "
        "another version expire",
    )
    p.add_argument("--dry-run", action="store_true")

    p = add("recall", cmd_recall, "active memories for a key, ranked by weight (records use)")
    p.add_argument(
        "query", help="SUBJECT_PREFIX, optionally #ATTRIBUTE (e.g. project:liyyro#deploy_command)"
    )
    p.add_argument("--attribute")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--no-usage", action="store_true", help="do not record a usage event")

    p = add("queue", cmd_queue, "the review queue: conflicts, promotions, deletions, batches")
    p.add_argument(
        "--kind",
        action="append",
        choices=("conflict", "promotion", "deletion", "consolidation", "secret"),
    )

    p = add("show", cmd_show, "one review item with its evidence")
    p.add_argument("item")

    p = add("decide", cmd_decide, "decide a review item (recorded, committed, revertible)")
    p.add_argument("item")
    p.add_argument("--approve", action="store_true")
    p.add_argument("--reject", action="store_true", help="for a conflict: defer")
    p.add_argument(
        "--option",
        choices=("newer", "older", "parallel", "neither", "defer", "erase", "correct"),
        help="conflict: newer, older, parallel, neither or defer; secret in a record: "
        "erase or correct",
    )
    p.add_argument(
        "--content",
        metavar="FILE",
        help="secret in a record, --option correct: the corrected text (- for stdin; "
        "default: the record with each credential replaced by [secret: rule-id])",
    )
    p.add_argument(
        "--condition",
        action="append",
        metavar="ID=CONDITION",
        help="parallel: the condition under which each record holds (repeat)",
    )
    p.add_argument("--reason")
    p.add_argument(
        "--file",
        action="append",
        metavar="PATH",
        help="consolidation batch: decide only the changes to this file (repeat); "
        "the rest of the batch is decided the other way",
    )

    p = add(
        "consolidate",
        cmd_consolidate,
        "orient, gather, consolidate, prune: propose a "
        "batch of changes for review (automatic ones may apply by policy)",
    )
    p.add_argument("--dry-run", action="store_true", help="show the batch, keep nothing")
    p.add_argument("--diff", action="store_true", help="print each file's diff")

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

    p = add("revert", cmd_revert, "undo a decision (not an erasure) as a new event and commit")
    p.add_argument("decision")
    p.add_argument("--reason")

    for kind, verb in (("delete", "erasure"), ("promote", "promotion to the team store")):
        p = add(f"request-{kind}", cmd_request(kind), f"ask for the {verb} of a memory")
        p.add_argument("id")
        p.add_argument("--reason", required=True)

    p = add(
        "import",
        cmd_import,
        "review what agents already remembered: import their "
        "memory folder through the write pipeline (the folder is never modified)",
    )
    p.add_argument("format", choices=("claude-code", "codex"))
    p.add_argument("path", help="the agent's memory folder")
    p.add_argument("--dry-run", action="store_true", help="say what would happen, change nothing")
    p.add_argument(
        "--mapping",
        help="YAML file correcting subject/attribute/type per file "
        "(default: PATH/memgov-import.yaml)",
    )

    p = add("export", cmd_export, "write the active records back as an agent's memory folder")
    p.add_argument("format", choices=("claude-code",))
    p.add_argument("path", help="an empty folder, or a previous export")

    p = add("log", cmd_log, "append a message to today's daily log (raw evidence)")
    p.add_argument("--task", required=True)
    p.add_argument("--index", type=int, required=True, help="message index in the task")
    p.add_argument("--role", default="user")
    p.add_argument("text")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["review", *argv]  # plain `memgov [--store P]` opens the desk
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except AlreadyDecided as exc:  # someone decided first: a refusal, not an error
        print(f"memgov: {exc}", file=sys.stderr)
        return EXIT_FOUND
    except MemgovError as exc:
        print(f"memgov: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
