"""What a kind of review item is: :class:`ReviewKind`, the one description each kind
gives of itself, read by the queue, the decision path, the revert and the faces.

A kind names its id prefixes (an item id alone says its kind), the actions the desk
and ``memgov show`` list and the options an approval takes, how the queue finds
its open items and builds one by id, how a person's :class:`Choice` is checked and
decided, and what of a decision of its kind cannot be undone. The defaults are what
most kinds do; a kind overrides only what it does otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from core.domain.errors import ValidationError
from core.review.authority import check_may_decide
from core.review.evidence import Evidence
from core.review.items import Item, Kind
from core.review.preview import Preview
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace


@dataclass(frozen=True)
class Choice:
    """What a person chose: approve or reject, and the option and its details."""

    approve: bool
    reason: str = ""
    option: str | None = None
    conditions: dict[str, str] | None = None
    files: Sequence[str] | None = None
    content: str | None = None
    #: the hash of the item as the person was shown it (core.review.seen)
    shown: str | None = None


@dataclass(frozen=True)
class Touch:
    """What an item's actions do to the records of its store: ``erases``, the actions
    that erase a record (an erasure discards every pending batch of the store, which
    may quote it), and ``changes``, those that change the item's own records (a
    batch's change that expects them goes stale)."""

    erases: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()


class ReviewKind:
    """One kind of review item. Subclasses set the class attributes and implement
    :meth:`build`, :meth:`open_ids`, :meth:`find` and :meth:`apply`."""

    kind: ClassVar[Kind]
    #: how the ids of its items begin (disjoint from every other kind's)
    prefixes: ClassVar[tuple[str, ...]]
    #: every action of the kind, in the order the desk shows them (core.review.actions)
    actions: ClassVar[tuple[str, ...]]
    #: the options an approval takes (empty: an approval takes none)
    approve_options: ClassVar[tuple[str, ...]] = ()
    #: whether the queue lists it (a label is a measure's sample, drawn apart)
    in_queue: ClassVar[bool] = True
    #: whether a person may leave it open, recorded as looked at (a deferral)
    deferrable: ClassVar[bool] = False
    #: whether :meth:`apply` checks the option itself (each item has its own options)
    checks_own_options: ClassVar[bool] = False
    #: whether an approval or a rejection may name the files it applies to
    decides_by_file: ClassVar[bool] = False
    #: why an item of it is decided on its own, never in a list (None: a list may hold it)
    decided_alone: ClassVar[str | None] = None
    #: whether the team layer decides it with a signed commit (core.team.untrusted),
    #: which the faces call instead of core.review.decide
    team_commit: ClassVar[bool] = False

    # ---------------------------------------------------------------- the queue
    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        """The open items of ``evidence.store``."""
        raise NotImplementedError

    def open_ids(self, store: Store) -> set[str]:
        """The ids of the open items :meth:`build` would build, none built."""
        raise NotImplementedError

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        """The open item ``item_id`` of ``evidence.store``, built alone (None: not open there)."""
        raise NotImplementedError

    def touches(self, item: Item) -> Touch:
        """What its actions do to the records of its store that a pending consolidation
        batch may hold (core.review.queue.batches_first); the default: nothing."""
        return Touch()

    # -------------------------------------------------------------- the actions
    def applies(self, item: Item, action: str) -> bool:
        """Whether ``action`` is an action of this item at all."""
        return True

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        """What of the item itself refuses ``action`` (who may decide is asked apart)."""
        return None

    def closes_request(self, option: str | None) -> bool:
        """Whether ``option`` closes the item's request unapproved, which its filer may
        do (who may decide is not asked)."""
        return False

    # ------------------------------------------------------------- the decision
    def decide(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        """Check who may decide and the arguments, then decide (:meth:`apply`)."""
        check_may_decide(item, actor, workspace)
        self.check_arguments(item, choice)
        return self.apply(session, workspace, item, choice, actor=actor)

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        """Make the decision in ``session`` (checked already)."""
        raise NotImplementedError

    def preview(
        self, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Preview | None:
        """A preview of its own (None: the decision's dry run is the preview)."""
        return None

    def check_arguments(self, item: Item, choice: Choice) -> None:
        """Contradictory or missing arguments are an error, never a guess: a rejection
        with an option, an approval without one where the kind takes one, an option
        for a kind that takes none, files for a kind not decided by file."""
        if self.checks_own_options:
            return
        allowed = self.approve_options
        listed = ", ".join(allowed)
        if not choice.approve and choice.option not in (None, "defer"):
            raise ValidationError(
                f"a rejection takes no option (rejecting a {item.kind} leaves it "
                f"{'deferred' if allowed else 'as it is'}), and --option {choice.option} picks one",
                field="option",
                where=item.id,
                hint=f"--approve --option {choice.option} to apply it"
                if choice.option in allowed
                else "drop --option",
            )
        if choice.approve and allowed and choice.option not in allowed:
            raise ValidationError(
                f"approving a {item.kind} item needs an option"
                if choice.option is None
                else f"{choice.option!r} is not an option of a {item.kind} item",
                field="option",
                where=item.id,
                hint=f"--option one of: {listed}",
            )
        if choice.approve and not allowed and choice.option is not None:
            raise ValidationError(
                f"a {item.kind} item takes no option",
                field="option",
                where=item.id,
                hint="drop --option",
            )
        if choice.files and not self.decides_by_file:
            raise ValidationError(
                f"{item.id} is a {item.kind} item: deciding by file applies to consolidation "
                f"batches only",
                field="file",
                hint="drop --file",
            )

    # --------------------------------------------------------------- the revert
    def why_not_revertible(self, decision: Decision) -> str | None:
        """Why a decision of this kind cannot be undone, before any rule all share
        (None: the common rules decide)."""
        return None

    def unwrites(self, store: Store, decision: Decision) -> bool:
        """Whether a revert of ``decision`` takes the records it wrote back out of the
        stores (erased as never written: the item waits again as before it) rather
        than keeping them superseded in the store's history."""
        return False

    def revert(
        self, store: Store, decision: Decision, *, actor: str, reason: str
    ) -> Decision | None:
        """Undo ``decision`` its own way (None: restore the records' prior states)."""
        return None
