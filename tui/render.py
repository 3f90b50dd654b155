"""Rich renderables for memories and their evidence (no widgets, no state).

Every text that came from a memory goes through :func:`safe` first: secret
spans are replaced by their rule id, so the desk never prints a credential.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len, set_cell_size
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from core.api.review import RecordEvidence
from core.domain.record import TRUST, Memory
from core.domain.secrets import redact
from core.domain.terminal import printable

STATUS_STYLE = {
    "active": "green",
    "superseded": "dim",
    "conflict": "bold yellow",
    "expired": "magenta",
    "deleted": "red",
}
SPARK = "▁▂▃▄▅▆▇█"


def safe(text: str) -> str:
    """The text with every secret replaced by ``[secret: rule-id]`` and every control a
    terminal would act on named (``<U+001B>``): what a store holds is shown, never run."""
    return printable(redact(text))


ELLIPSIS = "…"


def clip(text: str, room: int) -> str:
    """``text`` in at most ``room`` terminal cells: whole when it fits, else cut and
    ended with an ellipsis, so a cut text says it was cut. Cells, not characters: a
    Chinese character takes two. Clip what :func:`safe` returned, never the other way
    round: a credential cut in half would no longer be recognised and redacted."""
    if cell_len(text) <= room:
        return text
    if room < 1:
        return ""
    return set_cell_size(text, room - 1).rstrip() + ELLIPSIS


def failure_text(exc: BaseException) -> str:
    """An unexpected failure for a notification: its type and first line, redacted."""
    first = next(iter(str(exc).strip().splitlines()), "")
    return f"{type(exc).__name__}: {clip(redact(first), 300)}"


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))


def sparkline(values: Sequence[float | None], top: float | None = None) -> str:
    """One bar a value, ``top`` the tallest (by default the highest value: give 1.0 for
    shares, so a flat 50% is a half bar); a value that is None (a month nobody
    labelled, a week with nothing to count) is a gap, not a zero."""
    if not values:
        return ""
    top = top or max((v for v in values if v is not None), default=0) or 1
    return "".join(
        " " if v is None else SPARK[min(int(v / top * (len(SPARK) - 1)), len(SPARK) - 1)]
        for v in values
    )


def memory_header(memory: Memory) -> Text:
    text = Text()
    text.append(memory.id, style="bold")
    text.append(" · ", style="dim")
    text.append_text(status_text(memory.status))
    text.append(f" · {memory.type} · {memory.scope}", style="dim")
    return text


def facts_table(rows: Iterable[tuple[str, str | Text]]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style="dim", no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in rows:
        table.add_row(label, value)
    return table


def record_card(rec: RecordEvidence, *, label: str = "", verdict: str = "") -> Group:
    """One record with its evidence: what the desk shows side by side."""
    m = rec.memory
    parts: list[RenderableType] = []
    if label:
        parts.append(Text(label, style="bold reverse"))
    parts.append(memory_header(m))
    if verdict:
        parts.append(Text(verdict, style="italic cyan"))
    parts.append(Text(safe(m.content), style="bold"))
    position, trust, _check = TRUST[m.type]
    parts.append(
        facts_table(
            [
                ("condition", m.condition or "—"),
                ("value", safe(m.value) if m.value else "—"),
                ("confidence", f"{m.confidence:.2f}"),
                ("created", m.created_at.strftime("%Y-%m-%d %H:%M")),
                ("verified", m.verified_at.strftime("%Y-%m-%d %H:%M")),
                ("sources", str(len(rec.sources))),
                ("trust", f"{trust}; injected in {position}"),
            ]
        )
    )
    for number, src in enumerate(rec.sources, start=1):
        s = src.source
        where = f"task {s.task}" + (
            f" · message {s.message_index}" if s.message_index is not None else ""
        )
        head = Text(f"source {number}: ", style="bold")
        head.append(where, style="cyan")
        parts.append(head)
        if s.evidence:
            parts.append(Text(f"“{safe(s.evidence)}”", style="italic"))
        if src.excerpt is None:
            parts.append(Text("does not resolve to a log line", style="red"))
            continue
        excerpt = Text(f"{src.excerpt.file}\n", style="dim")
        for line_no, line in src.excerpt.lines:
            mark = "▶" if line_no == src.excerpt.line else " "
            style = "reverse" if line_no == src.excerpt.line else "dim"
            excerpt.append(f"{mark}{line_no:>4} ", style="dim")
            excerpt.append(safe(line) + "\n", style=style)
        parts.append(excerpt)
    if rec.pointers:
        parts.append(Text("pointed at by: " + "; ".join(rec.pointers), style="dim"))
    return Group(*parts)
