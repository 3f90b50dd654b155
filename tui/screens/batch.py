"""Consolidation batch: the diff file by file, each change automatic or needs approval.

Every file starts as "apply"; space marks one to reject (or back). ``a`` decides
the batch as marked (all files, or the marked ones rejected and the rest
applied), ``r`` rejects the whole batch (the store stays at its baseline).
``+`` and ``-`` widen and narrow the diff's context: a wider diff is read from
git in a worker (the screen says so meanwhile).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Header, Static

from core.api.consolidation import file_diff
from core.api.review import BatchAnalysis, BatchFile, Item
from core.domain.errors import MemgovError
from core.domain.words import counted
from tui.render import safe
from tui.screens.desk import DeskFooter
from tui.screens.dialogs import Proposal
from tui.screens.item import ItemScreen
from tui.screens.moves import moves

MAX_CONTEXT = 40


def render_diff(diff: str) -> Text:
    out = Text()
    for line in safe(diff).splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = "dim"
        out.append(line + "\n", style=style)
    return out


class BatchScreen(ItemScreen):
    KIND = "consolidation"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "space",
            "toggle_file",
            "Apply/reject file",
            id="batch.toggle",
            tooltip="Mark this file's changes to be rejected, or applied again",
        ),
        Binding(
            "a",
            "approve",
            "Decide as marked",
            id="batch.approve",
            tooltip="Apply the batch; files marked reject are left out",
        ),
        Binding(
            "r",
            "reject",
            "Reject all",
            id="batch.reject",
            tooltip="Reject the whole batch: the store stays at its baseline",
        ),
        Binding(
            "plus,equals_sign",
            "context(1)",
            "More context",
            key_display="+",
            id="batch.wider",
            tooltip="Widen the diff's context",
        ),
        Binding(
            "minus",
            "context(-1)",
            "Less context",
            key_display="-",
            id="batch.narrower",
            tooltip="Narrow the diff's context",
        ),
        *moves("batch"),
    ]

    def __init__(self, item: Item) -> None:
        super().__init__(item)
        self.context = 3
        self.rejected: set[str] = set()

    @property
    def files(self) -> list[BatchFile]:
        return list(self.item.analysis_as(BatchAnalysis).files)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.banner(), id="item-head")
        yield Static(id="batch-summary")
        with Horizontal(id="columns"):
            yield DataTable(id="batch-files", cursor_type="row")
            yield VerticalScroll(
                Static(id="batch-diff"), id="batch-diff-column", classes="record-column"
            )
        yield DeskFooter()

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_view)  # once the table has its new width

    def on_mount(self) -> None:
        table = self.query_one("#batch-files", DataTable)
        table.add_columns("", "Class", "File")
        self.refresh_view()
        table.focus()

    def refresh_view(self) -> None:
        a = self.item.analysis_as(BatchAnalysis)
        summary = a.summary
        replay = a.replay
        text = Text()
        text.append(
            f"{counted(int(summary.get('changes', 0)), 'change')} in "
            f"{counted(int(summary.get('files', 0)), 'file')}: ",
            style="bold",
        )
        text.append(f"{summary.get('automatic', 0)} automatic", style="green")
        text.append(" · ")
        waiting = int(summary.get("needs_approval", 0))
        text.append(f"{waiting} {'needs' if waiting == 1 else 'need'} approval", style="yellow")
        text.append(
            f" · input {summary.get('input', 0)} of "
            f"{counted(int(summary.get('records', 0)), 'record')} "
            f"({summary.get('unused', 0)} unused 30+ days left out)",
            style="dim",
        )
        if replay:

            def count(key: str) -> int:
                value = replay.get(key, 0)
                return len(value) if isinstance(value, list) else int(value)

            text.append(
                f"\nreplay of {count('queries')} recall queries: {count('same')} same, "
                f"{count('changed')} changed, {count('lost')} lost, {count('weaker')} weaker",
                style="cyan",
            )
        for finding in a.findings[:2]:
            text.append(f"\n{safe(finding)}", style="dim italic")
        self.query_one("#batch-summary", Static).update(text)
        table = self.query_one("#batch-files", DataTable)
        row = table.cursor_row
        table.clear()
        # the file's name in the room the mark and the class leave (the diff's heading
        # gives its whole path)
        room = table.size.width - table.styles.scrollbar_size_vertical - 13
        for entry in self.files:
            path = entry.path
            mark = Text("✗", style="red") if path in self.rejected else Text("✓", style="green")
            cls = Text("auto", style="green") if entry.automatic else Text("review", style="yellow")
            table.add_row(mark, cls, short_name(path, room), key=path)
        if self.files:
            table.move_cursor(row=min(max(row, 0), len(self.files) - 1))
        self.show_file()

    def current(self) -> BatchFile | None:
        table = self.query_one("#batch-files", DataTable)
        files = self.files
        row = table.cursor_row
        return files[row] if 0 <= row < len(files) else None

    def show_file(self) -> None:
        entry = self.current()
        view = self.query_one("#batch-diff", Static)
        if entry is None:
            view.update(Text("no file", style="dim"))
            return
        parts: list[RenderableType] = []
        head = Text(entry.path, style="bold")
        head.append(
            f"  {entry.status} · " + ("automatic" if entry.automatic else "needs approval"),
            style="green" if entry.automatic else "yellow",
        )
        if entry.path in self.rejected:
            head.append("  · marked: reject", style="red")
        parts.append(head)
        for reason in entry.reasons:
            parts.append(Text(f"• {safe(reason)}", style="italic"))
        stale = [
            c
            for c in self.item.analysis_as(BatchAnalysis).changes
            if c.stale and c.id in entry.changes
        ]
        if stale:
            parts.append(
                Text(
                    "changed since the batch was made: approving it will be refused; "
                    "reject this file",
                    style="bold red",
                )
            )
        parts.append(Text(f"context: {self.context} lines (+/-)", style="dim"))
        if self.context == 3:  # the batch's own diff: nothing to read
            view.update(Group(*parts, render_diff(entry.diff)))
            return
        view.update(Group(*parts, Text("reading the diff…", style="dim")))
        path, context = entry.path, self.context
        self.in_worker(
            lambda: self.diff_with_context(path, context),
            lambda diff: view.update(Group(*parts, render_diff(diff))),
            failure=f"The diff of {path} could not be read",
            group="batch-diff",
        )

    def diff_with_context(self, path: str, context: int) -> str:
        """In the worker: one file's diff with more or less context, read from git."""
        try:
            return file_diff(self.item.store, self.item.id, path, context=context)
        except MemgovError as exc:  # e.g. the batch was decided meanwhile: said in place
            return str(exc)

    @on(DataTable.RowHighlighted, "#batch-files")
    def highlighted(self) -> None:
        self.show_file()

    def action_down(self) -> None:
        self.query_one("#batch-files", DataTable).action_cursor_down()

    def action_up(self) -> None:
        self.query_one("#batch-files", DataTable).action_cursor_up()

    def action_toggle_file(self) -> None:
        entry = self.current()
        if entry is None:
            return
        self.rejected ^= {entry.path}
        self.refresh_view()

    def action_context(self, step: int) -> None:
        self.context = min(
            max(self.context + step * (1 if self.context < 5 else 5), 0), MAX_CONTEXT
        )
        self.show_file()

    def core_action(self, action: str, parameters: tuple[object, ...]) -> str | None:
        return action if action in ("approve", "reject") else None

    def action_approve(self) -> None:
        paths = [f.path for f in self.files]
        applied = [p for p in paths if p not in self.rejected]
        if not applied:
            self.action_reject()
            return
        proposal = Proposal(
            "Approve the batch" + (" in part" if self.rejected else ""),
            (),
            "consolidation reviewed" if not self.rejected else "consolidation reviewed in part",
        )
        if self.rejected:
            self.decide_with(
                proposal, f"batch {self.item.id}", approve=False, files=sorted(self.rejected)
            )
        else:
            self.decide_with(proposal, f"batch {self.item.id}", approve=True)

    def action_reject(self) -> None:
        self.decide_with(
            Proposal(
                "Reject the whole batch: the store stays at its baseline",
                (),
                "consolidation rejected",
                warning="Its branch is deleted: a rejection cannot be undone "
                "('memgov consolidate' proposes the changes again).",
            ),
            f"reject {self.item.id}",
            approve=False,
        )


def short_name(path: str, room: int) -> str:
    """A batch file's name in ``room`` cells: a memory without its shard folders
    (``memories/04/x.md`` -> ``x.md``), then cut in the middle with an ellipsis when
    longer, so both the attribute and the id show."""
    name = path.rsplit("/", 1)[-1] if path.startswith("memories/") else path
    if room < 5 or len(name) <= room:
        return name
    head = (room - 1) // 2
    return name[:head] + "…" + name[len(name) - (room - 1 - head) :]
