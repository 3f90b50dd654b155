"""Labelling: the desk as the tool that measures what the seed says matters.

The samples of the labelled measures (core.review.labels) one at a time, each with its
evidence side by side and its labels one key away:

- a repeated explanation: the earlier message and the later one, the memory of the
  key, and what the events say went wrong if it is confirmed; ``y`` confirms, ``n``
  dismisses;
- a memory written this month or last (precision): ``y`` reusable, ``n`` noise;
- a memory recalled (stale citations): ``y`` still true (verified now), ``x`` no
  longer true (expire; a record no longer current is left as it is), ``c`` no
  longer true (correct: what it should say).

A label lands at once (no dialog: one key), through the one decision path, bound to
the item on screen, with the label's meaning as its reason; ``u`` undoes it, ``s``
skips to the next sample, ``tab`` goes to the next measure's. The samples are read in
a worker, again after every change.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, Static

from core.api.measures import DIAGNOSES, workspace_label_items
from core.api.review import Item, LabelAnalysis, Said, decide, may_decide, shown_hash
from tui.messages import StoresChanged
from tui.render import record_card, safe
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.moves import Moving, moves
from tui.screens.secret import SecretCorrectDialog

#: what each measure's keys label, in the order of the footer
KEYS = {
    "repeat": {"y": "confirm", "n": "dismiss"},
    "precision": {"y": "reusable", "n": "noise"},
    "citation": {"y": "true", "x": "expire", "c": "correct"},
}
CORRECTION = (
    "No longer true: a record with this content supersedes it (the old one is kept as "
    "superseded, and u brings it back). ctrl+s to continue."
)


def option_of(analysis: LabelAnalysis, key: str) -> str | None:
    """The label ``key`` gives this item: ``x`` on a record no longer current says it
    was no longer true (``stale``), as there is nothing left to expire."""
    option = KEYS[analysis.measure].get(key)
    if option == "expire" and "stale" in analysis.options:
        option = "stale"
    return option if option in analysis.options else None


def said_card(title: str, said: Said | None, marker: tuple[int, int] | None = None) -> Group:
    head = Text(title, style="bold reverse")
    if said is None:
        return Group(head, Text("no earlier message like it in the seven days before", style="dim"))
    where = Text(f"{said.when[:16]} · task {said.task} · {said.log}:{said.line}", style="cyan")
    text = Text(f"{said.role}: ", style="dim")
    body = Text(safe(said.text))
    if marker is not None:
        body.stylize("bold reverse yellow", *marker)
    text.append_text(body)
    return Group(head, where, text)


def render_label(item: Item, position: str) -> tuple[RenderableType, RenderableType]:
    """The item's two columns: what the person judges, and the evidence beside it."""
    analysis = item.analysis_as(LabelAnalysis)
    keys = KEYS[analysis.measure]
    head = Text(f"{position} · ", style="dim")
    head.append(item.title, style="bold")
    choices = Text()
    for key in keys:
        option = option_of(analysis, key)
        if option is not None:
            choices.append(f"\n {key} ", style="bold reverse")
            choices.append(f" {option}: {analysis.meanings[option]}")
    if analysis.measure == "repeat":
        diagnosis = Text("if confirmed: ", style="dim")
        diagnosis.append(DIAGNOSES.get(analysis.diagnosis or "", "—"), style="bold cyan")
        diagnosis.append(f"\n{analysis.diagnosis_why}", style="dim")
        left: RenderableType = Group(
            head,
            Text("why a candidate: " + "; ".join(analysis.why), style="italic"),
            Text(""),
            said_card("earlier", analysis.earlier),
            Text(""),
            said_card("later", analysis.later, analysis.marker),
            Text(""),
            diagnosis,
            choices,
        )
        right: RenderableType = (
            record_card(item.records[0], label=f"memory of {analysis.key}")
            if item.records
            else Text("no memory of this: nothing was written from either message", style="dim")
        )
        return left, right
    if analysis.measure == "precision":
        question = "Written in " + f"{analysis.period}: is it worth keeping for a later task?"
    else:
        question = (
            f"Recalled in {analysis.period} ({analysis.recalled}x, cited {analysis.cited}x): "
            "is it still true against the current state?"
        )
    left = Group(head, Text(question, style="italic"), choices)
    right = record_card(item.records[0], label=f"{analysis.measure} sample")
    return left, right


class LabelScreen(Moving, DeskScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="labels.back"),
        Binding("y", "label('y')", "Yes", id="labels.yes"),
        Binding("n", "label('n')", "No", id="labels.no"),
        Binding("x", "label('x')", "Expire", id="labels.expire"),
        Binding("c", "label('c')", "Correct", id="labels.correct"),
        Binding("s", "skip", "Skip", id="labels.skip"),
        Binding("tab", "next_measure", "Next measure", id="labels.next_measure"),
        *moves("labels"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.items: list[Item] | None = None
        self.at = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="labels-head")
        with Horizontal(id="labels-body"):
            yield VerticalScroll(Static(id="labels-left"), id="labels-left-column")
            yield VerticalScroll(Static(id="labels-right"), id="labels-right-column")
        yield DeskFooter()

    def on_mount(self) -> None:
        self.reload()

    @on(StoresChanged)
    def reload(self) -> None:
        self.query_one("#labels-head", Static).update(Text("drawing the samples…", style="dim"))
        self.in_worker(
            lambda: workspace_label_items(self.desk.workspace),
            self.show,
            failure="The samples could not be read",
            group="labels",
        )

    @property
    def current(self) -> Item | None:
        if not self.items:
            return None
        return self.items[min(self.at, len(self.items) - 1)]

    def show(self, items: list[Item]) -> None:
        """The samples as they are now; the cursor stays where it was, so the item after
        the one just labelled comes next."""
        self.items = items
        self.refresh_view()

    def refresh_view(self) -> None:
        items = self.items or []
        counts = {m: 0 for m in KEYS}
        for each in items:
            counts[each.analysis_as(LabelAnalysis).measure] += 1
        head = Text(f"{len(items)} to label", style="bold")
        head.append(
            f" · repeated explanations {counts['repeat']} · precision {counts['precision']} "
            f"· stale citations {counts['citation']}",
            style="dim",
        )
        item = self.current
        if item is not None and not may_decide(item, self.desk.actor, self.desk.workspace):
            who = "its maintainers do" if item.store.config.scope == "team" else "its owner does"
            head.append(
                f"\nyou may not label the {item.store.root.name} store's samples: {who}",
                style="yellow",
            )
        self.query_one("#labels-head", Static).update(head)
        left = self.query_one("#labels-left", Static)
        right = self.query_one("#labels-right", Static)
        if item is None:
            left.update(Text("Nothing to label: every sample is labelled.", style="green"))
            right.update("")
        else:
            at = next(n for n, i in enumerate(items) if i.id == item.id and i.store is item.store)
            one, two = render_label(item, f"{at + 1} of {len(items)}")
            left.update(one)
            right.update(two)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "label":
            return True
        item = self.current
        if item is None:
            return False
        return option_of(item.analysis_as(LabelAnalysis), str(parameters[0])) is not None

    def action_label(self, key: str) -> None:
        item = self.current
        if item is None:
            return
        analysis = item.analysis_as(LabelAnalysis)
        option = option_of(analysis, key)
        if option is None:
            return
        if option == "correct":
            content = item.records[0].memory.content

            def corrected(text: str | None) -> None:
                if text is not None:
                    self._label(item, option, content=text)

            self.app.push_screen(
                SecretCorrectDialog(analysis.memory_id or item.id, content, CORRECTION),
                corrected,
            )
            return
        self._label(item, option)

    def _label(self, item: Item, option: str, *, content: str | None = None) -> None:
        shown = shown_hash(item)
        negative = option in ("dismiss", "noise")
        self.desk.apply(
            f"Labelled {option}",
            lambda: decide(
                self.desk.workspace,
                item.id,
                approve=not negative,
                option=None if negative else option,
                actor=self.desk.actor,
                content=content,
                shown=shown,
                was=item,
            ),
        )

    def action_skip(self) -> None:
        if self.items:
            self.at = (min(self.at, len(self.items) - 1) + 1) % len(self.items)
            self.refresh_view()

    def action_next_measure(self) -> None:
        """To the first sample of the next measure (repeats, precision, citations)."""
        item = self.current
        if item is None or self.items is None:
            return
        order = list(KEYS)
        now = order.index(item.analysis_as(LabelAnalysis).measure)
        for step in range(1, len(order) + 1):
            wanted = order[(now + step) % len(order)]
            found = next(
                (
                    n
                    for n, i in enumerate(self.items)
                    if i.analysis_as(LabelAnalysis).measure == wanted
                ),
                None,
            )
            if found is not None:
                self.at = found
                self.refresh_view()
                return

    def action_back(self) -> None:
        self.dismiss(None)
