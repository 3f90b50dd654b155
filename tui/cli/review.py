"""The review commands: the ``queue``, ``show`` one item with its evidence,
``decide`` it, ``revert`` a decision, and ``request-delete`` / ``request-promote`` /
``report-stale`` a memory (a request a maintainer or owner decides in the queue).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from core.domain.data import to_data
from core.domain.errors import MemgovError
from core.domain.words import counted
from tui.cli.common import EXIT_OK, Command, actor_from, emit, read_input, workspace
from tui.cli.shapes import decision_list_result, decision_result, plan_result, preview_result

if TYPE_CHECKING:
    from core.api.review import (
        BatchLoss,
        Decision,
        HeldAnalysis,
        Item,
        LabelAnalysis,
        QuarantineAnalysis,
        UntrustedAnalysis,
    )
    from core.domain.record import Source


def cmd_queue(args: argparse.Namespace) -> int:
    from core.api.review import build_queue

    # the batches are read with any kind: what deciding an item loses of one is its own
    kinds = [*args.kind, "consolidation"] if args.kind else None
    items = [
        i for i in build_queue(workspace(args), kinds=kinds) if not kinds or i.kind in args.kind
    ]
    emit(
        args,
        lambda: [to_data(i) for i in items],
        lambda: (
            "\n".join(
                f"{i.opened_at[:16]}  {i.kind:<13} {i.id:<26} {i.scope:<7} {i.title}"
                + "".join(f"  ! {loss_text(loss)}" for loss in i.discards)
                for i in items
            )
            or "the queue is empty"
        ),
    )
    return EXIT_OK


def loss_text(loss: BatchLoss) -> str:
    """What deciding an item would do to a pending batch, in words."""
    actions = " or ".join(loss.actions)
    if loss.effect == "discarded":
        return f"{actions} discards the pending batch {loss.batch}: decide the batch first"
    return (
        f"{actions} leaves {', '.join(loss.changes)} of the pending batch {loss.batch} "
        "stale: decide the batch first"
    )


def render_label(analysis: LabelAnalysis) -> list[str]:
    """A measure's sample: the two messages of a repeat and the diagnosis, or the
    period a record was drawn from; then what each label means."""
    lines = []
    if analysis.measure == "repeat" and analysis.later is not None:
        lines.append(f"  why: {'; '.join(analysis.why)}")
        for name, said in (("earlier", analysis.earlier), ("later", analysis.later)):
            if said is None:
                lines.append(f"  {name}: no earlier message like it in the seven days before")
                continue
            lines.append(
                f"  {name}: {said.when[:16]} task {said.task} ({said.log}:{said.line}) "
                f"{said.role}: {said.text}"
            )
        lines.append(f"  memory: {analysis.memory_id or 'none'} ({analysis.key or 'no key'})")
        lines.append(f"  if confirmed: {analysis.diagnosis} — {analysis.diagnosis_why}")
    else:
        lines.append(f"  {analysis.measure} sample of {analysis.period}: {analysis.memory_id}")
        if analysis.measure == "citation":
            lines.append(f"  recalled {analysis.recalled}x that month, cited {analysis.cited}x")
    for option in analysis.options:
        lines.append(f"  {option}: {analysis.meanings[option]}")
    lines.append("  label: memgov decide ITEM --approve --option " + "|".join(analysis.options))
    return lines


def render_held(analysis: HeldAnalysis) -> list[str]:
    """What an import held back and what each option does; the lines with an internal
    address by number and pattern, never the address."""
    lines = [
        f"  held: {analysis.named}, {analysis.file}:{analysis.line} in {analysis.folder}",
        f"  {analysis.detail}",
    ]
    if analysis.agent_text is None:
        lines.append("  the agent's file is gone or changed since it was held")
    lines += [f"  line {n}: {', '.join(patterns)}" for n, patterns in analysis.marked]
    *approving, rejecting = analysis.options
    for option in analysis.options:
        lines.append(f"  {option}: {analysis.meanings[option]}")
    lines.append(
        "  decide: memgov decide ITEM "
        + " | ".join(f"--approve --option {o}" for o in approving)
        + f" | --reject ({rejecting})"
    )
    return lines


def render_quarantine(analysis: QuarantineAnalysis) -> list[str]:
    """A quarantine item's flags, its text with invisible characters named, its source
    and the raw log lines, and what may be done."""
    from core.domain.shown import visible

    origin = "held candidate, not written" if analysis.origin == "candidate" else "stored record"
    lines = [f"  {origin}: {analysis.type} {analysis.key.subject} #{analysis.key.attribute}"]
    lines.append(f"  source message from: {analysis.role or 'unknown (a file, or not found)'}")
    if analysis.origin == "candidate":
        lines.append(f"  sent by {analysis.held_by}, {counted(analysis.seen, 'time')}")
    for flag in analysis.flags:
        where = f" on “{visible(flag.shown)}”" if flag.shown else ""
        lines.append(f"  flag: {flag.rule} ({flag.family}){where}: {flag.why}")
    if analysis.origin == "candidate":
        lines.append("  text:")
        lines += ["      " + line for line in visible(analysis.text).splitlines()]
        if analysis.source is not None:
            lines.append(f"  source: {source_pointer(analysis.source)}")
        lines += [f"    {analysis.excerpt_file}:{n}: {visible(t)}" for n, t in analysis.excerpt]
    lines += [f"  {option}: {meaning}" for option, meaning in analysis.meanings.items()]
    lines.append(
        "  decide: memgov decide ITEM --approve (release) | --reject (discard)"
        if analysis.origin == "candidate"
        else "  decide: memgov decide ITEM --approve --option erase | --approve --option "
        "correct --content FILE | --reject (keep it)"
    )
    return lines


def render_untrusted(analysis: UntrustedAnalysis) -> list[str]:
    """An untrusted change: who wrote, committed and signed it, why that is not enough,
    what it would change, its diff (credentials as [secret: rule-id], every terminal
    control named), and the two decisions."""
    from core.domain.shown import visible

    lines = [
        f"  commit {analysis.commit}: {visible(analysis.subject)}",
        f"  author: {visible(analysis.author)}; committer: {visible(analysis.committer)}; "
        f"signed by: {analysis.signer or 'nobody'}",
        f"  untrusted: {analysis.why}; not taken here",
    ]
    for entry in analysis.files:
        record = f" ({visible(entry.record)})" if entry.record else ""
        lines.append(f"  {entry.change}: {visible(entry.path)}{record}")
    lines.append("  diff:")
    lines += ["    " + line for line in visible(analysis.diff).splitlines()]
    lines += [f"  {option}: {meaning}" for option, meaning in analysis.meanings.items()]
    lines.append(
        "  decide: memgov decide ITEM --approve (ratify) | --reject (reject)"
        if analysis.first
        else "  waits behind another untrusted change: decide that one first"
    )
    return lines


def _requested(item: Item, said: str = "requested") -> list[str]:
    """Who asked, and why: the request an item of a request's kind answers."""
    request = item.request
    return [] if request is None else [f"  {said} by {request.requested_by}: {request.reason}"]


def conflict_lines(item: Item) -> list[str]:
    from core.api.review import ConflictAnalysis

    analysis = item.analysis_as(ConflictAnalysis)
    if not analysis.favoured:
        return []
    return [f"  sources favour {analysis.favoured}: {', '.join(analysis.why)}"]


def promotion_lines(item: Item) -> list[str]:
    hits = ", ".join(sorted({h.rule for h in item.scan})) or "clean"
    return [*_requested(item), f"  secret scan: {hits}"]


def batch_lines(item: Item) -> list[str]:
    from core.api.review import BatchAnalysis

    analysis = item.analysis_as(BatchAnalysis)
    summary = analysis.summary
    lines = [
        f"  {counted(summary.get('changes', 0), 'change')}: {summary.get('automatic', 0)} "
        f"automatic, {counted(summary.get('needs_approval', 0), 'needs', 'need')} approval"
    ]
    for entry in analysis.files:
        cls = "automatic" if entry.automatic else "needs approval"
        lines.append(f"  - {entry.path} [{entry.status}, {cls}]")
        lines += [f"      {reason}" for reason in entry.reasons]
    lines += [f"  note: {finding}" for finding in analysis.findings]
    lines.append("  decide: memgov decide ITEM --approve|--reject [--file PATH ...]")
    return lines


def stale_lines(item: Item) -> list[str]:
    from core.api.review import StaleAnalysis

    analysis = item.analysis_as(StaleAnalysis)
    return [
        *_requested(item, "reported out of date"),
        f"  last verified {counted(analysis.verified_days, 'day')} ago; "
        + (
            f"recalled {counted(analysis.usage_count, 'time')}, last {analysis.last_used_at[:10]}"
            if analysis.last_used_at
            else "never recalled"
        ),
        "  decide: memgov decide ITEM --approve --option expire | --approve --option "
        "correct --content FILE | --reject (keep it: verified now)",
    ]


def held_lines(item: Item) -> list[str]:
    from core.api.review import HeldAnalysis

    return render_held(item.analysis_as(HeldAnalysis))


def quarantine_lines(item: Item) -> list[str]:
    from core.api.review import QuarantineAnalysis

    return render_quarantine(item.analysis_as(QuarantineAnalysis))


def untrusted_lines(item: Item) -> list[str]:
    from core.api.review import UntrustedAnalysis

    return render_untrusted(item.analysis_as(UntrustedAnalysis))


def label_lines(item: Item) -> list[str]:
    from core.api.review import LabelAnalysis

    return render_label(item.analysis_as(LabelAnalysis))


#: what ``memgov show`` says of an item of each kind between its header and its records
#: (a test checks that every kind of core.review.kinds has its lines)
KIND_LINES: dict[str, Callable[[Item], list[str]]] = {
    "conflict": conflict_lines,
    "promotion": promotion_lines,
    "deletion": _requested,
    "consolidation": batch_lines,
    "secret": lambda _item: [],  # its records (below, as every item's) say it all
    "stale": stale_lines,
    "held": held_lines,
    "quarantine": quarantine_lines,
    "untrusted": untrusted_lines,
    "label": label_lines,
}


def render_item(item: Item) -> str:
    lines = [
        f"{item.kind} {item.id}: {item.title}",
        f"  store: {item.store.root}",
        f"  opened: {item.opened_at}",
        *KIND_LINES[item.kind](item),
    ]
    for title, records in (("records", item.records), ("team records", item.team_records)):
        if records:
            lines.append(f"  {title}:")
        for rec in records:
            m = rec.memory
            lines.append(
                f"  - {m.id} [{m.status}] {m.type} confidence {m.confidence:.2f}, "
                f"{counted(len(rec.sources), 'source')}, created {m.created_at:%Y-%m-%d}, "
                f"verified {m.verified_at:%Y-%m-%d}"
                + (f", condition {m.condition}" if m.condition else "")
            )
            lines += ["      " + line for line in m.content.splitlines()]
            for src in rec.sources:
                s = src.source
                lines.append(f"      source: {source_pointer(s)}: {s.evidence}")
                if src.excerpt:
                    lines += [
                        f"        {src.excerpt.file}:{n}: {text}" for n, text in src.excerpt.lines
                    ]
                else:
                    lines.append("        (does not resolve)")
            if rec.pointers:
                lines.append("      pointed at by: " + "; ".join(rec.pointers))
    return "\n".join(lines)


def source_pointer(source: Source) -> str:
    """Where a source points: a task's message, or a file's line (an imported memory,
    a hand-written note), never "message None"."""
    where = [f"task {source.task}"]
    if source.message_index is not None:
        where.append(f"message {source.message_index}")
    if source.file is not None:
        where.append(f"{source.file}" + (f" line {source.line}" if source.line else ""))
    return ", ".join(where)


def cmd_show(args: argparse.Namespace) -> int:
    from core.api.review import get_item, shown_hash

    item = get_item(workspace(args), args.item)
    digest = shown_hash(item)
    emit(
        args,
        {**to_data(item), "shown": digest},
        lambda: (
            render_item(item)
            + f"\n  shown: {digest}\n  (memgov decide {item.id} --shown {digest[:16]} ... decides "
            "it only if it is still this)"
        ),
    )
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
    from core.api.review import Decision, Preview, decide, kind_of, preview

    if args.item == "-":
        return _decide_list(args)
    if args.approve == args.reject:
        raise MemgovError("say --approve or --reject")
    if kind_of(args.item).team_commit:
        return _decide_untrusted(args)
    if args.dry_run and args.decision_id:
        raise MemgovError("--id takes the id a --dry-run named: drop --dry-run to decide")
    choice: dict[str, Any] = {
        "approve": args.approve,
        "actor": actor_from(args),
        "reason": args.reason or "",
        "option": args.option,
        "conditions": parse_conditions(args.condition),
        "files": args.file or None,
        "content": read_input(args.content) if args.content else None,
        "shown": args.shown,
    }
    outcome: Decision | Preview = (
        preview(workspace(args), args.item, **choice)
        if args.dry_run  # the id it names is what --id carries into the decision
        else decide(workspace(args), args.item, decision_id=args.decision_id, **choice)
    )
    if not isinstance(outcome, Decision):
        shown = outcome
        emit(
            args,
            lambda: preview_result(shown, actor=actor_from(args), reason=args.reason or None),
            lambda: "\n".join(["dry run: nothing written", *shown.lines()]),
        )
        return EXIT_OK
    decision = outcome
    _push_proposal(args, decision)
    emit(
        args,
        lambda: decision_result(decision),
        lambda: (
            f"{decision.id}: {decision.kind} {decision.item} "
            f"-> {decision.option} ({decision.reason})"
            + (f"\n  erased: {', '.join(decision.erased)}" if decision.erased else "")
            + "".join(f"\n  and: {c.text}" for c in decision.consequences)
            + (f"\n  note: {decision.note}" if decision.note else "")
            + ("\n  undo with: memgov revert " + decision.id if decision.revertible else "")
        ),
    )
    return EXIT_OK


def _decide_untrusted(args: argparse.Namespace) -> int:
    """An untrusted change: the team makes the signed commit that resolves it."""
    from core.api.review import get_item
    from core.api.team import decide_item

    ws = workspace(args)
    item = get_item(ws, args.item)
    if args.dry_run:
        verb = "ratify" if args.approve else "reject"
        meaning = dict(item.analysis.meanings)[verb]  # type: ignore[union-attr]
        emit(
            args,
            lambda: plan_result(
                item=item.id,
                kind=item.kind,
                option=verb,
                actor=actor_from(args),
                reason=args.reason or None,
                meaning=meaning,
            ),
            lambda: f"dry run: nothing written\n  {verb} {item.id}: {meaning}",
        )
        return EXIT_OK
    with ws.locked():
        decision = decide_item(item, args.approve, actor=actor_from(args), reason=args.reason or "")
    emit(
        args,
        lambda: decision_result(decision),
        lambda: (
            f"{decision.id}: untrusted {decision.item} -> {decision.option} "
            f"({decision.reason})\n  note: {decision.note}"
        ),
    )
    return EXIT_OK


def _push_proposal(args: argparse.Namespace, decision: Decision) -> None:
    """A contributor's proposal decided: the team store is synced at once, so main and
    the branch's end reach the remote (offline: the next sync sends them)."""
    from core.api.review import closes_a_proposal

    if not closes_a_proposal(decision):
        return
    from core.api.team import sync_team  # only a team store's proposal is synced

    store = next(s for s in workspace(args).stores if str(s.root) == decision.store)
    try:
        report = sync_team(store, actor=actor_from(args))
    except MemgovError as exc:
        print(f"memgov: decided here, not pushed yet: {exc}", file=sys.stderr)
        return
    print(report.render(), file=sys.stderr)


def _decide_list(args: argparse.Namespace) -> int:
    """``memgov decide -``: a JSON list of decisions on stdin, one transaction and one
    commit (core.review.decide.decide_many)."""
    from core.api.review import choices_from_data, decide_many, preview_many

    given = [
        flag
        for flag, value in (
            ("--approve", args.approve),
            ("--reject", args.reject),
            ("--option", args.option),
            ("--content", args.content),
            ("--condition", args.condition),
            ("--reason", args.reason),
            ("--file", args.file),
        )
        if value
    ]
    if given:
        raise MemgovError(
            f"memgov decide - reads each decision from the list on stdin; {given[0]} "
            f"belongs in the entries"
        )
    raw = sys.stdin.read()
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise MemgovError(
            f"stdin: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    choices = choices_from_data(data, where="stdin")
    items = [item_id for item_id, _choice in choices]
    if args.dry_run:
        shown = preview_many(workspace(args), choices, actor=actor_from(args))
        emit(
            args,
            lambda: decision_list_result(items, preview=shown, actor=actor_from(args)),
            lambda: "\n".join(["dry run: nothing written", *shown.lines()]),
        )
        return EXIT_OK
    decisions = decide_many(workspace(args), choices, actor=actor_from(args))
    emit(
        args,
        lambda: decision_list_result(items, decisions=decisions),
        lambda: (
            "\n".join(
                f"{d.id}: {d.kind} {d.item} -> {d.option}"
                + "".join(f"\n  and: {c.text}" for c in d.consequences)
                for d in decisions
            )
            + f"\n{len(decisions)} decisions, one commit"
        ),
    )
    return EXIT_OK


def cmd_revert(args: argparse.Namespace) -> int:
    from core.api.review import revert

    result = revert(
        workspace(args), args.decision, actor=actor_from(args), reason=args.reason or ""
    )
    emit(args, lambda: decision_result(result), lambda: f"{result.id}: reverted {args.decision}")
    return EXIT_OK


def cmd_request(kind: str) -> Command:
    def run(args: argparse.Namespace) -> int:
        from core.api.requests import filed_request

        ws = workspace(args)
        store = ws.find_memory(args.id)
        request, filed = filed_request(
            store, kind=kind, memory_id=args.id, reason=args.reason, actor=actor_from(args)
        )
        what = "reported out of date" if kind == "stale" else "requested"
        shown = args.id if kind == "stale" and filed else f"{kind} {args.id}"
        said = (
            f"{request.id}: {shown} {what}"
            if filed  # one open request per kind and memory: an open one is not filed again
            else f"{request.id}: {shown} was already {what} by {request.requested_by} at "
            f"{request.requested_at[:16]} ({request.reason}); nothing filed"
        )
        emit(args, {**request.to_dict(), "filed": filed}, lambda: said)
        return EXIT_OK

    return run


cmd_request_delete = cmd_request("delete")
cmd_request_promote = cmd_request("promote")
cmd_report_stale = cmd_request("stale")
