"""About me: everything remembered about the current user, grouped by type.

The list, the highlighted record's evidence and a deletion request each go to
the stores in a worker; the screen says so meanwhile."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from core.api.requests import Request, filed_request
from core.api.review import correct, evidence_for
from core.api.stores import Store, Workspace
from core.domain.policy import is_owner, same_actor, shown
from core.domain.record import TRUST, TYPES, Memory
from core.domain.words import counted
from tui.messages import StoresChanged
from tui.render import clip, record_card, safe
from tui.screens.desk import DeskFooter, DeskScreen
from tui.screens.dialogs import CorrectDialog, Proposal, ReasonDialog
from tui.screens.history import HistoryScreen
from tui.screens.moves import Moving, moves


def about(workspace: Workspace, actor: str) -> list[tuple[Store, Memory]]:
    """Records about ``actor``: those whose subject is the actor (``user:<actor>``...)
    in any store, and every record of the private store when the actor is its owner
    (someone else at the desk sees only what is about them)."""
    private = workspace.private
    owns_private = private is not None and is_owner(private, actor)
    found = []
    for store in workspace.stores:
        if owns_private and store is private:
            found += [(store, memory) for memory in store.memories.values()]
            continue
        for memory in store.memories.with_subject("user:"):
            person = memory.subject.removeprefix("user:").split("/", 1)[0]
            if same_actor(actor, person):
                found.append((store, memory))
    order = {t: i for i, t in enumerate(TYPES)}
    found.sort(  # records of one key: the older first, then by id (a stable order)
        key=lambda sm: (
            order[sm[1].type],
            sm[1].status != "active",
            sm[1].subject,
            sm[1].attribute,
            sm[1].created_at,
            sm[1].id,
        )
    )
    return found


class AboutMeScreen(Moving, DeskScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="about.back"),
        Binding(
            "c",
            "correct",
            "Correct",
            id="about.correct",
            tooltip="Write what is true; the new record supersedes this one",
        ),
        Binding(
            "d",
            "request_delete",
            "Ask to delete",
            id="about.delete",
            tooltip="File a deletion request for this memory",
        ),
        Binding("h", "history", "History", id="about.history"),
        *moves("about"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[Store, Memory]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="about-head")
        with Horizontal(id="columns"):
            yield OptionList(id="about-list")
            yield VerticalScroll(
                Static(id="about-detail"), id="about-detail-column", classes="record-column"
            )
        yield DeskFooter()

    def on_mount(self) -> None:
        self.reload()
        self.query_one("#about-list", OptionList).focus()

    @on(StoresChanged)
    def reload(self) -> None:
        self.query_one("#about-head", Static).update(Text("reading the stores…", style="dim"))
        self.in_worker(
            lambda: about(self.desk.workspace, self.desk.actor),
            self.loaded,
            failure="About me could not be read",
            group="about-list",
        )

    def loaded(self, rows: list[tuple[Store, Memory]]) -> None:
        self.rows = rows
        private = self.desk.workspace.private
        actor = self.desk.actor
        others = (
            f" (the private store is {shown(private.config.owner or 'nobody')}'s: "
            "only the records about you are shown)"
            if private is not None and not is_owner(private, actor)
            else ""
        )
        self.query_one("#about-head", Static).update(
            Text.assemble(
                ("About me", "bold"),
                f" · what agents remember about {shown(actor)}{others}: "
                f"{counted(len(self.rows), 'memory', 'memories')} · c correct · "
                "d ask to delete · h history",
            )
        )
        options: list[Option | None] = []
        current_type = None
        for index, (_store, memory) in enumerate(self.rows):
            if memory.type != current_type:
                current_type = memory.type
                _pos, trust, _ = TRUST[memory.type]
                options.append(
                    Option(
                        Text(f"{memory.type} · trust {trust}", style="bold underline"),
                        disabled=True,
                    )
                )
            label = Text(f"  {memory.display_title}: ", style="bold")
            label.append(clip(safe(memory.hook), 60))
            if memory.status != "active":
                label.append(f"  [{memory.status}]", style="dim")
            options.append(Option(label, id=str(index)))
        listing = self.query_one("#about-list", OptionList)
        listing.clear_options()
        listing.add_options([o for o in options if o is not None])
        first = next((i for i, o in enumerate(listing.options) if not o.disabled), None)
        if first is not None:
            listing.highlighted = first
        self.show()

    def selected(self) -> tuple[Store, Memory] | None:
        listing = self.query_one("#about-list", OptionList)
        if listing.highlighted is None:
            return None
        option = listing.get_option_at_index(listing.highlighted)
        return self.rows[int(option.id)] if option.id is not None else None

    def show(self) -> None:
        chosen = self.selected()
        detail = self.query_one("#about-detail", Static)
        if chosen is None:
            detail.update(Text("Nothing remembered about you.", style="dim"))
            return
        store, memory = chosen
        detail.update(Text(f"reading {memory.id}…", style="dim"))
        self.in_worker(
            lambda: record_card(evidence_for(store, memory)),
            detail.update,
            failure=f"The evidence of {memory.id} could not be read",
            group="about-detail",
        )

    @on(OptionList.OptionHighlighted)
    def highlighted(self) -> None:
        self.show()

    def action_back(self) -> None:
        self.dismiss(None)

    def action_history(self) -> None:
        chosen = self.selected()
        self.app.push_screen(HistoryScreen(chosen[1].id if chosen else None))

    def action_correct(self) -> None:
        chosen = self.selected()
        if chosen is None or chosen[1].status != "active":
            self.notify("Only an active memory can be corrected", severity="warning")
            return
        memory = chosen[1]
        desk = self.desk

        def with_content(content: str | None) -> None:
            if not content or content == memory.content:
                return
            proposal = Proposal(
                f"Correct {memory.id}",
                (
                    f"new record: {clip(safe(content), 60)}",
                    f"{memory.id}: active → superseded (kept in history)",
                    "events and one commit; undo with u",
                ),
                "corrected by the person it is about",
            )

            def chosen_reason(reason: str | None) -> None:
                if reason is not None:
                    desk.apply(
                        f"correct {memory.id}",
                        lambda: correct(
                            desk.workspace,
                            memory.id,
                            content=content,
                            actor=desk.actor,
                            reason=reason,
                        ),
                    )

            desk.push_screen(ReasonDialog(proposal), chosen_reason)

        desk.push_screen(CorrectDialog(memory.id, safe(memory.content)), with_content)

    def action_request_delete(self) -> None:
        chosen = self.selected()
        if chosen is None:
            return
        store, memory = chosen
        desk = self.desk
        proposal = Proposal(
            f"Ask to delete {memory.id}",
            ("a deletion request joins the queue", "nothing is erased until it is approved"),
            "I do not want this remembered",
        )

        def requested(result: tuple[Request, bool]) -> None:
            request, filed = result
            if filed:
                self.notify(f"Deletion requested: {request.id}")
                desk.stores_changed()
            else:  # one open request per memory and kind: nothing was written
                self.notify(
                    f"Already requested by {shown(request.requested_by)} at "
                    f"{request.requested_at} ({request.id}); nothing filed",
                    title="Deletion",
                    severity="warning",
                )

        def chosen_reason(reason: str | None) -> None:
            if reason is None:
                return
            self.in_worker(
                lambda: filed_request(
                    store, kind="delete", memory_id=memory.id, reason=reason, actor=desk.actor
                ),
                requested,
                failure="Not requested",
                group="about-request",
                write=True,
            )

        desk.push_screen(ReasonDialog(proposal), chosen_reason)
