"""The report of one import: what happened to each memory found, never its content.

:class:`ImportReport` holds an :class:`ImportItem` per entry (written, merged,
conflict, refused, skipped, already-imported or failed) with its reasons, the
ids of the records it made or met, and source pointers relative to the
imported folder. An item never holds content, and :func:`shown` withholds any
title, key or warning that matches a secret or sensitive pattern: a refused
entry may hold a secret.

Several folders imported in one command: :func:`summary_table` is the text
table of their counts, a row per folder (a :class:`NotImported` folder says why)
and a total row; :func:`summary_counts` the counts of one report or the total.

A sync with an agent's folder, whatever its format, gives a :class:`SyncReport`:
its import's report and what it wrote back, deleted or held.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.domain import gate, secrets
from core.domain.data import AsData, shown_as
from core.domain.words import counted

WITHHELD = "[withheld: matches a secret or sensitive pattern]"
OUTCOMES = (
    "written",
    "merged",
    "conflict",
    "refused",
    "held",
    "skipped",
    "already-imported",
    "failed",
)


@dataclass(frozen=True)
class ImportItem(AsData):
    """What happened to one entry. Never holds content: a refused entry may hold a secret."""

    origin: str
    kind: str
    scope: str
    outcome: str  # one of OUTCOMES
    reasons: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()
    title: str | None = None
    type: str | None = None
    subject: str | None = None
    attribute: str | None = None
    sources: tuple[str, ...] = ()  # "rollout_summaries/x.md:12", relative to the folder
    secret_rules: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportReport(AsData):
    """The outcome of one import: an item per entry, in file and line order."""

    format: str  # claude-code | codex
    folder: str
    dry_run: bool
    items: tuple[ImportItem, ...]
    warnings: tuple[str, ...] = ()
    stores: tuple[tuple[str, str], ...] = field(
        default=(), metadata=shown_as(convert=dict)
    )  # (scope, root)

    DATA_PROPERTIES = ("counts",)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(item.outcome for item in self.items)
        return {outcome: found.get(outcome, 0) for outcome in OUTCOMES}

    def by_outcome(self, outcome: str) -> list[ImportItem]:
        return [item for item in self.items if item.outcome == outcome]

    def render(self) -> str:
        head = f"{self.format} import from {self.folder}"
        if self.dry_run:
            head += (
                " (dry run: nothing was written; ids are those a real run would make on the "
                "stores as they are now)"
            )
        lines = [head]
        lines += [f"  {scope} store: {root}" for scope, root in self.stores]
        lines.append("  " + ", ".join(f"{n} {name}" for name, n in self.counts.items()))
        for outcome in OUTCOMES:
            group = self.by_outcome(outcome)
            if not group:
                continue
            if outcome == "already-imported":  # unchanged: one line is enough
                lines += ["", f"{outcome} (no change): " + ", ".join(i.origin for i in group)]
            else:
                lines += ["", f"{outcome}:"] + [_render_item(item) for item in group]
        if self.warnings:
            lines += ["", "warnings:"] + [f"  {w}" for w in self.warnings]
        return "\n".join(lines)


def _render_item(item: ImportItem) -> str:
    key = [part for part in (item.type, item.subject, item.attribute) if part and part != WITHHELD]
    if item.memory_ids:
        key.append("-> " + ", ".join(item.memory_ids))
    text = f"  {item.origin}  {item.title or ''}".rstrip()
    if key:
        text += f"  [{' '.join(key)}]"
    for reason in item.reasons:
        text += f"\n      {reason}"
    for note in item.notes:
        text += f"\n      note: {note}"
    return text


def shown(text: str | None) -> str | None:
    """Text for a report, unless it matches a secret or sensitive pattern."""
    if text and (secrets.scan(text) or gate.sensitive_patterns(text)):
        return WITHHELD
    return text


# ------------------------------------------------------------ several folders at once
@dataclass(frozen=True)
class NotImported(AsData):
    """A folder of a several-folder import that could not be imported, and why."""

    folder: str
    error: str


#: the summary's columns: (heading, the outcomes it adds up)
SUMMARY_COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("imported", ("written", "conflict")),
    ("merged", ("merged",)),
    ("refused", ("refused",)),
    ("held", ("held",)),
    ("skipped", ("skipped",)),
    ("already-imported", ("already-imported",)),
    ("failed", ("failed",)),
)


def summary_counts(reports: Sequence[ImportReport]) -> dict[str, int]:
    """The summary's counts over ``reports``: imported (written or opened a conflict),
    then every outcome on its own."""
    total = Counter[str]()
    for report in reports:
        total.update(report.counts)
    counts = {name: sum(total[o] for o in outcomes) for name, outcomes in SUMMARY_COLUMNS}
    counts.update({outcome: total[outcome] for outcome in OUTCOMES})
    return counts


def summary_table(rows: Sequence[ImportReport | NotImported]) -> str:
    """Plain text: a row per folder with its counts, in the order given, and a total
    row; a folder that was not imported says so in place of its counts."""
    reports = [row for row in rows if isinstance(row, ImportReport)]
    headings = ["folder"] + [name for name, _ in SUMMARY_COLUMNS]
    table: list[list[str]] = []
    for row in rows:
        if isinstance(row, NotImported):
            table.append([row.folder, f"not imported: {row.error}"])
        else:
            counts = summary_counts([row])
            table.append([row.folder] + [str(counts[name]) for name, _ in SUMMARY_COLUMNS])
    total = summary_counts(reports)
    table.append(["total"] + [str(total[name]) for name, _ in SUMMARY_COLUMNS])
    width = [max(len(headings[0]), *(len(r[0]) for r in table))] + [len(h) for h in headings[1:]]
    for cells in table:
        if len(cells) == len(headings):
            width[1:] = [max(w, len(c)) for w, c in zip(width[1:], cells[1:], strict=True)]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(width[0])
        if len(cells) != len(headings):  # a folder not imported: its reason, not counts
            return f"{first}  {cells[1]}"
        rest = [c.rjust(w) for c, w in zip(cells[1:], width[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    head = f"summary of {counted(len(rows), 'folder')}"
    if any(report.dry_run for report in reports):
        head += " (dry run: nothing was written)"
    out = [head, line(headings), *(line(cells) for cells in table)]
    if total["conflict"]:
        out.append(
            f"imported: written, or written and opened a conflict "
            f"({counted(total['conflict'], 'conflict')} to review: memgov queue)"
        )
    return "\n".join(out)


@dataclass(frozen=True)
class SyncReport(AsData):
    """What one sync with an agent's folder did, each way (any format)."""

    format: str
    folder: str
    imported: ImportReport
    written: tuple[str, ...] = ()  # files memgov wrote back (a decision changed them)
    deleted: tuple[str, ...] = ()  # files of erased records (or kept forgotten)
    held: tuple[str, ...] = ()  # "file: held-id" changed on both sides
    asked: tuple[str, ...] = ()  # "file: delete-id": the agent deleted the file
    unchanged: int = 0
    notes: tuple[str, ...] = ()

    def render(self) -> str:
        counts = self.imported.counts
        came = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "nothing new"
        lines = [f"{self.format} sync with {self.folder}", f"  from the agent: {came}"]
        back = [
            f"{counted(len(self.written), 'file')} written back" if self.written else "",
            f"{counted(len(self.deleted), 'file')} deleted" if self.deleted else "",
            f"{counted(len(self.held), 'file')} changed on both sides, held for review"
            if self.held
            else "",
        ]
        lines.append("  to the agent: " + (", ".join(b for b in back if b) or "nothing to change"))
        lines += [f"    wrote {rel}" for rel in self.written]
        lines += [f"    deleted {rel}" for rel in self.deleted]
        lines += [f"    held {entry}" for entry in self.held]
        lines += [
            f"    the agent deleted {entry}: deletion requested (memgov queue)"
            for entry in self.asked
        ]
        lines.append(f"  in agreement: {counted(self.unchanged, 'file')}")
        detail = [
            item
            for item in self.imported.items
            if item.outcome not in ("already-imported", "written", "merged")
        ]
        for item in detail:
            lines.append(f"  {item.outcome}: {item.origin}")
            lines += [f"      {reason}" for reason in item.reasons[:2]]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
