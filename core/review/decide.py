"""The one path of every decision on a review item, and its preview.

:func:`decide` takes every store's lock (in a fixed order), builds the item
again under them (:func:`core.review.queue.get_item`, that item only), checks
who may decide (core.review.authority), checks the arguments against the
item's kind, and hands it to the module of its kind:

==================  ===========================
kind                module
==================  ===========================
``conflict``        core.review.conflict
``promotion``       core.review.promotion
``deletion``        core.review.deletion
``consolidation``   core.review.batch
``secret``          core.review.secret
==================  ===========================

Each writes one transaction (or a joint one across two stores) with one
decision record (core.store.decisions), or nothing. Exactly once: of two
people deciding one item the second gets :class:`AlreadyDecided` (who, when,
which decision) and nothing changes.

:func:`preview` runs the same path as a dry run (core.review.session): every
check, the same transactions prepared and not applied. The desk's confirmation
and ``memgov decide --dry-run`` show it; neither computes a rule of its own.

To add a kind of item: a member of :class:`core.review.items.Kind`, its
analysis dataclass, how the queue builds it (core.review.queue) and a module
with its ``decide_*`` function, dispatched in :func:`_decide_item`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.domain.errors import AlreadyDecided, NotFoundError, ValidationError
from core.review import conflict, deletion, promotion, secret
from core.review.authority import check_may_decide
from core.review.batch import decide_batch, preview_batch
from core.review.items import Item, Kind
from core.review.preview import Preview, preview_of
from core.review.queue import get_item
from core.review.session import Session
from core.store.decisions import Decision, last_decision_for
from core.store.secret_files import ITEM_PREFIX
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


def decide(
    workspace: Workspace,
    item_id: str,
    *,
    approve: bool,
    actor: str,
    reason: str = "",
    option: str | None = None,
    conditions: dict[str, str] | None = None,
    files: Sequence[str] | None = None,
    content: str | None = None,
) -> Decision:
    """Decide one open item. ``approve`` with ``option`` for conflicts and secrets;
    reject defers a conflict or a secret and rejects a request or a batch.

    ``files`` (consolidation batches only): approve, or reject, just the changes
    that touch these files; the rest of the batch is decided the other way.
    ``content`` (a secret's ``correct`` only): what the corrected record says.
    """
    choice = Choice(approve, reason, option, conditions, files, content)
    with workspace.locked():
        item = _open_item(workspace, item_id)
        return _decide_item(Session(), workspace, item, choice, actor=actor)


def preview(
    workspace: Workspace,
    item_id: str,
    *,
    approve: bool,
    actor: str,
    reason: str = "",
    option: str | None = None,
    conditions: dict[str, str] | None = None,
    files: Sequence[str] | None = None,
    content: str | None = None,
) -> Preview:
    """What :func:`decide` with these arguments would change, written nowhere.

    The same checks refuse the same way (a ValidationError, an AuthorizationError,
    a secret blocked): a preview that returns is a decision that would land."""
    choice = Choice(approve, reason, option, conditions, files, content)
    with workspace.locked():
        item = _open_item(workspace, item_id)
        if item.kind == Kind.CONSOLIDATION:
            check_may_decide(item, actor, workspace)
            _check_arguments(item, choice)
            approved, rejected, paths = preview_batch(item, approve, files)
            return Preview.of_batch(item, approve, approved, rejected, paths)
        session = Session(dry_run=True)
        decision = _decide_item(session, workspace, item, choice, actor=actor)
        return preview_of(item, decision, session.prepared)


def correct_secret(
    workspace: Workspace, item_id: str, *, content: str | None, actor: str, reason: str = ""
) -> Decision:
    """``decide ITEM --approve --option correct`` with the content a person wrote
    (the desk's correction dialog)."""
    if not item_id.startswith(ITEM_PREFIX):
        raise ValidationError(f"{item_id} is not a secret in a record", field="item")
    return decide(
        workspace,
        item_id,
        approve=True,
        actor=actor,
        reason=reason,
        option="correct",
        content=content,
    )


def _open_item(workspace: Workspace, item_id: str) -> Item:
    """The item as it is now (under the locks), or who closed it."""
    try:
        return get_item(workspace, item_id)
    except NotFoundError:
        earlier = last_decision_for(workspace.stores, item_id)
        if earlier is None:
            raise
        raise AlreadyDecided(
            f"{item_id}", actor=earlier.actor, ts=earlier.ts, decision=earlier.id
        ) from None


def _check_arguments(item: Item, choice: Choice) -> None:
    if choice.files and item.kind != Kind.CONSOLIDATION:
        raise ValidationError(
            f"{item.id} is a {item.kind} item: deciding by file applies to consolidation "
            f"batches only",
            field="file",
            hint="drop --file",
        )


def _decide_item(
    session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
) -> Decision:
    check_may_decide(item, actor, workspace)
    _check_arguments(item, choice)
    approve, reason = choice.approve, choice.reason
    if item.kind == Kind.CONFLICT:
        return conflict.decide_conflict(
            session,
            item,
            choice.option if approve else "defer",
            actor=actor,
            reason=reason,
            conditions=choice.conditions or {},
        )
    if item.kind == Kind.PROMOTION:
        return promotion.decide_promotion(
            session, workspace, item, approve, actor=actor, reason=reason
        )
    if item.kind == Kind.DELETION:
        return deletion.decide_deletion(
            session, workspace, item, approve, actor=actor, reason=reason
        )
    if item.kind == Kind.SECRET:
        return secret.decide_secret(
            session,
            workspace,
            item,
            approve,
            actor=actor,
            reason=reason,
            option=choice.option,
            content=choice.content,
        )
    return decide_batch(item, approve, actor=actor, reason=reason, files=choice.files)
