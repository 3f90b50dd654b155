"""The review desk: a Textual app over the core's queue, decisions and history.

Decisions run in a thread worker (the UI never freezes, see ``tui.screens.desk``)
and come back as messages; after each one every screen is told the stores
changed, and the app remembers the last one so ``u`` can undo it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from textual import on
from textual.app import SystemCommand
from textual.binding import Binding
from textual.notifications import Notification, Notify, SeverityLevel
from textual.screen import ModalScreen, Screen

from core.api.review import Decision, closes_a_proposal, revert, why_not_revertible
from core.api.stores import Workspace
from tui.keymap import workspace_keymap
from tui.messages import DecisionApplied, DecisionFailed, DecisionsApplied
from tui.screens.desk import Desk
from tui.screens.dialogs import KeysHelp
from tui.screens.item import (
    ItemScreen,
    decided_list_notice,
    decided_notice,
    decided_title,
    list_undo_refusal,
)
from tui.screens.queue import QueueScreen


class MemgovDesk(Desk):
    """memgov's review desk."""

    CSS_PATH = "desk.tcss"
    TITLE = "memgov"
    BINDINGS = [
        Binding("question_mark", "keys", "Keys", id="app.keys", tooltip="Every key here"),
        Binding(
            "u",
            "undo",
            "Undo",
            id="app.undo",
            tooltip="Revert the last decision made in this session",
        ),
        Binding(
            "t",
            "toggle_theme",
            "Theme",
            show=False,
            id="app.theme",
            tooltip="Switch between the light and the dark theme",
        ),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave the desk"),
    ]

    def __init__(
        self,
        workspace: Workspace,
        *,
        actor: str,
        cursor_blink: bool = True,
        keymap: dict[str, str] | None = None,
        keymap_warnings: list[str] | None = None,
    ) -> None:
        super().__init__(workspace, actor=actor, cursor_blink=cursor_blink)
        self.last_decision: Decision | None = None
        self.undo_refusal: str | None = None  # why u undoes nothing, when it is known
        self.user_keymap = keymap or {}
        self.keymap_warnings = keymap_warnings or []
        self.sub_title = f"review desk · acting as {actor}"
        #: the item view last shown, and the notifications of decisions made since
        self.item_shown: ItemScreen | None = None
        self.decision_notes: list[Notification] = []

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self.screen_changed)
        if self.user_keymap:
            self.set_keymap(self.user_keymap)
        if self.keymap_warnings:
            self.notify(
                "\n".join(self.keymap_warnings) + "\n('memgov doctor' lists them too)",
                title="Keymap: entries ignored",
                severity="warning",
                timeout=20,
            )
        self.push_screen(QueueScreen())

    def on_resize(self) -> None:
        # narrow (80 columns): the notifications run the screen's width, above the footer
        self.set_class(self.size.width < NARROW, "-narrow")

    def screen_changed(self, screen: Screen[Any]) -> None:
        """A dialog opens: the notifications on screen go (they were read, or the
        dialog is what matters now). At 80x24 a dialog fills the screen and a toast
        covered its reason and its buttons; one raised while the dialog is open shows.

        An item opens: every notification goes; they spoke of the item before or of
        its decision, and covered the card now being decided. An item closes (back
        to the queue): what was said of it goes, but the notification of the
        decision that closed it, which says what the decision changed."""
        if isinstance(screen, ModalScreen):
            self.clear_notifications()
        elif isinstance(screen, ItemScreen):
            if screen is not self.item_shown:
                self.item_shown = screen
                self.decision_notes = []
                # after the messages already posted: a deferral's notification, on
                # its way while the next item opens, goes too
                self.call_later(self.clear_notifications)
        elif self.item_shown is not None and self.item_shown not in self.screen_stack:
            self.item_shown = None
            kept = [n for n in self.decision_notes if not n.has_expired]
            self.clear_notifications()
            for note in kept:
                self.post_message(Notify(note))

    def decision_note(
        self, message: str, *, title: str, timeout: float, severity: SeverityLevel = "information"
    ) -> None:
        """A notification of a decision: it stays when its item closes (it says what
        the decision changed), and goes when the next item opens."""
        note = Notification(message, title, severity, timeout)
        self.decision_notes.append(note)
        self.post_message(Notify(note))

    # --------------------------------------------------------------- decisions
    @on(DecisionApplied)
    def decision_applied(self, message: DecisionApplied) -> None:
        decision = message.decision
        self.decision_note(
            decided_notice(message.label, decision), title=decided_title(decision), timeout=8
        )
        # the last one, undoable or not: u undoes it or says why it cannot
        self.last_decision, self.undo_refusal = decision, None
        self.stores_changed(decision)
        if closes_a_proposal(decision):
            # a contributor's proposal decided: main and the branch's end go out now
            queue = next((s for s in self.screen_stack if isinstance(s, QueueScreen)), None)
            if queue is not None:
                queue.action_sync()

    @on(DecisionsApplied)
    def decisions_applied(self, message: DecisionsApplied) -> None:
        decisions = message.decisions
        self.decision_note(
            decided_list_notice(message.label, decisions), title="Decided", timeout=10
        )
        self.last_decision = None  # u undoes one decision; a list is reverted one by one
        self.undo_refusal = list_undo_refusal(decisions)
        self.stores_changed(*decisions)

    @on(DecisionFailed)
    def decision_failed(self, message: DecisionFailed) -> None:
        self.notify(message.error, title=f"{message.label}: not done", severity="error", timeout=12)
        self.stores_changed()  # e.g. decided by someone else meanwhile: show it as it is

    def action_undo(self) -> None:
        decision = self.last_decision
        if decision is None:
            self.notify(self.undo_refusal or "Nothing to undo in this session", severity="warning")
            return
        why_not = why_not_revertible(decision)
        if why_not is not None:
            self.notify(why_not, title="Nothing to undo", severity="warning", timeout=10)
            return
        self.apply(
            f"Undo {decision.id}",
            lambda: revert(
                self.workspace, decision.id, actor=self.actor, reason=f"undo {decision.id}"
            ),
        )

    # ---------------------------------------------------------------- keys
    def key_sections(self, screen: Screen[Any]) -> list[tuple[str, list[KeyRow]]]:
        """The keys of ``screen``, memgov's first: the screen's own, then those of the
        whole desk, then the table's and the text fields' (Textual's, each once)."""
        own: list[KeyRow] = []
        desk: list[KeyRow] = []
        generic: dict[str, KeyRow] = {}  # by description: a table and its scroll view
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.description:
                continue
            row = (
                binding.key_display or self.get_key_display(binding),
                binding.description,
                binding.tooltip,
            )
            if binding.id is None:  # Textual's own (every memgov binding has an id)
                generic.setdefault(binding.description.casefold(), row)
            elif active.node is self:
                desk.append(row)
            else:
                own.append(row)
        sections = [
            (screen_title(screen), own),
            ("Everywhere", desk),
            ("Moving around", list(generic.values())),
        ]
        return [(title, rows) for title, rows in sections if rows]

    def action_keys(self) -> None:
        self.push_screen(KeysHelp(self.key_sections(self.screen)))

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Every memgov binding of the screen is also a command in the palette (ctrl+p),
        before Textual's own (theme, screenshot, ...); the table's cursor keys are not
        commands."""
        seen = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if binding.id is None or not binding.description or not active.enabled:
                continue  # Textual's own keys, or one not usable now
            if binding.action in seen:  # one action under several keys: one command
                continue
            seen.add(binding.action)
            node = active.node
            action = binding.action

            def run(node: Any = node, action: str = action) -> None:
                self.call_later(node.run_action, action)

            yield SystemCommand(binding.description, binding.tooltip or binding.description, run)
        yield from super().get_system_commands(screen)


KeyRow = tuple[str, str, str]
#: below this width (columns) the desk is narrow: one column per item view, the
#: notifications the screen's width (the queue hides its preview below 110 too)
NARROW = 110


def screen_title(screen: Screen[Any]) -> str:
    """``ConflictScreen`` -> "Conflict", ``AboutMeScreen`` -> "About me"."""
    name = type(screen).__name__.removesuffix("Screen").removesuffix("Dialog") or "This screen"
    words = re.findall(r"[A-Z][a-z]*|[a-z]+|\d+", name)
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else name


def run_desk(workspace: Workspace, *, actor: str) -> int:
    keymap, warnings = workspace_keymap(workspace.stores)
    MemgovDesk(workspace, actor=actor, keymap=keymap, keymap_warnings=warnings).run()
    return 0
