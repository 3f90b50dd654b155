"""What the queue shows of an item: its row in the table and its preview beside it."""

from __future__ import annotations

from functools import lru_cache

from rich.console import Group, RenderableType
from rich.text import Text

from core.api.review import (
    BatchLoss,
    ConflictAnalysis,
    Item,
    QuarantineAnalysis,
    first_action_loses,
    is_outline,
)
from core.domain.policy import shown
from core.domain.words import counted
from tui.render import clip, memory_header, safe
from tui.screens.queue.table import Row


@lru_cache(maxsize=100_000)
def shown_title(title: str) -> str:
    return safe(title)


#: before the title of an item someone deferred (looked at and left open)
DEFERRED_MARK = "↷ "
#: before the title of an item whose first action would lose a pending batch
LOSS_MARK = "⚠ "


def loss_words(loss: BatchLoss) -> str:
    """What deciding an item does to a pending batch, short enough for its row."""
    return "discards the batch" if loss.effect == "discarded" else "leaves the batch stale"


def row_of(item: Item, marked: bool = False) -> Row:
    """The item's row: opened, kind, scope and title (marked: a dot before it). An item
    whose first action would discard a pending batch, or leave it stale, says so before
    its title (the queue puts the batch before it: core.review.losses)."""
    title = shown_title(item.title)
    loss = first_action_loses(item)
    if loss is not None:
        title = f"{LOSS_MARK}{loss.actions[0]} {loss_words(loss)} · {title}"
    if item.deferred is not None:
        title = DEFERRED_MARK + title
    return item.id, (item.opened_at[:10], item.kind, item.scope, f"● {title}" if marked else title)


def preview(item: Item) -> RenderableType:
    parts: list[RenderableType] = [
        Text(item.title, style="bold"),
        Text(f"{item.kind} · {item.scope} · opened {item.opened_at[:16]}", style="dim"),
    ]
    if item.deferred is not None:
        last = item.deferred
        parts.append(
            Text(
                f"{DEFERRED_MARK}deferred by {shown(last.actor)} on {last.ts[:10]}: "
                f"{safe(last.reason)}",
                style="yellow",
            )
        )
    for loss in item.discards:
        changes = f" ({', '.join(loss.changes)})" if loss.changes else ""
        parts.append(
            Text(
                f"{LOSS_MARK}{' or '.join(loss.actions)} {loss_words(loss)} "
                f"{loss.batch}{changes}: decide the batch first",
                style="bold yellow",
            )
        )
    if is_outline(item):
        return Group(*parts, Text("\nreading its records…", style="dim"))
    if item.request is not None:
        parts.append(
            Text(f"{item.request.requested_by}: {safe(item.request.reason)}", style="italic")
        )
    if isinstance(item.analysis, ConflictAnalysis) and item.analysis.favoured:
        parts.append(
            Text(
                f"sources favour {item.analysis.favoured}: " + ", ".join(item.analysis.why),
                style="cyan",
            )
        )
    if item.kind in ("promotion", "secret"):
        rules = sorted({h.rule for h in item.scan})
        parts.append(
            Text(
                "secret scan: " + (", ".join(rules) or "clean"),
                style="bold red" if rules else "green",
            )
        )
    if isinstance(item.analysis, QuarantineAnalysis):
        found = item.analysis
        parts.append(
            Text(
                "tries to steer the agent: "
                + ", ".join(dict.fromkeys(f.rule for f in found.flags)),
                style="bold red",
            )
        )
        if found.origin == "candidate":
            parts.append(Text("\nnot written: held for you to release or discard", style="yellow"))
            parts.append(Text(clip(safe(found.text), 600)))
    for rec in item.records:
        parts.append(Text(""))
        parts.append(memory_header(rec.memory))
        parts.append(Text(safe(rec.memory.content)))
        parts.append(
            Text(
                f"{counted(len(rec.sources), 'source')} · confidence {rec.memory.confidence:.2f}",
                style="dim",
            )
        )
    parts.append(Text("\nenter: open with the evidence", style="dim"))
    return Group(*parts)
