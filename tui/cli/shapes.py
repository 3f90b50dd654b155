"""The shapes ``--json`` prints for a decision: one for a decision made and its dry run.

``memgov decide ITEM --json`` and ``memgov decide ITEM --dry-run --json`` print one
object with the same keys (:data:`DECISION_RESULT_KEYS`); ``dry_run`` says which it is,
and a key the one does not know is null (a dry run has no ``ts`` nor ``before``, a
decision made has no per-store ``stores`` of a preview). ``memgov revert --json``
prints the same object (a revert is a decision). ``memgov decide - --json`` prints
:func:`decision_list_result`: the same keys whether it ran or was a dry run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.domain.data import to_data

if TYPE_CHECKING:
    from core.api.review import Decision, Preview

#: every key of a decision's result, a dry run's and a decision's alike, in order
DECISION_RESULT_KEYS = (
    "dry_run",
    "id",
    "item",
    "kind",
    "option",
    "actor",
    "reason",
    "ts",
    "store",
    "before",
    "after",
    "created",
    "touched",
    "request",
    "erased",
    "reverted_by",
    "note",
    "notes",
    "consequences",
    "revertible",
    "stores",
    "approved",
    "rejected",
)

#: the keys of ``decide -``'s result
DECISION_LIST_KEYS = ("dry_run", "items", "decisions", "preview")


def _shaped(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every key of a decision's result, in order, null when absent."""
    return {key: data.get(key) for key in DECISION_RESULT_KEYS}


def decision_result(decision: Decision) -> dict[str, Any]:
    """A decision made (or a revert), as ``--json`` prints it."""
    data = to_data(decision)
    data.update(dry_run=False, notes=[decision.note] if decision.note else [])
    return _shaped(data)


def preview_result(preview: Preview, *, actor: str, reason: str | None) -> dict[str, Any]:
    """A dry run's preview in a decision's shape: what it knows (the item, the option,
    who and why, what each store would go through, what it would create and erase,
    what else it discards) and null for what only the decision knows (its time, the
    records before and after, whether it can be reverted, the reason its kind gives
    when none is given). ``id`` is the id the preview names."""
    data = to_data(preview)
    stores = data.get("stores") or []
    saved = f"decisions/{preview.decision}.json"
    data.update(
        dry_run=True,
        id=preview.decision,
        # the store the decision would be saved in
        store=next((s["store"] for s in stores if saved in s.get("writes", [])), None),
        actor=actor,
        reason=reason,
        created=[{"store": s["store"], "id": i} for s in stores for i in s.get("created", [])],
        erased=[i for s in stores for i in s.get("erased", [])],
        note=(data.get("notes") or [None])[0],
    )
    return _shaped(data)


def plan_result(
    *, item: str, kind: str, option: str, actor: str, reason: str | None, meaning: str
) -> dict[str, Any]:
    """A dry run that prepares no transaction (an untrusted change: the team's signed
    commit), in a decision's shape: what it would do is its note."""
    return _shaped(
        {
            "dry_run": True,
            "item": item,
            "kind": kind,
            "option": option,
            "actor": actor,
            "reason": reason,
            "note": meaning,
            "notes": [meaning],
            "consequences": [],
        }
    )


def decision_list_result(
    items: list[str],
    *,
    decisions: list[Decision] | None = None,
    preview: Preview | None = None,
    actor: str = "",
) -> dict[str, Any]:
    """``memgov decide -``: the items in order, and either the decisions made (one
    result each) or the dry run's one preview of the whole list (one transaction);
    the other is null."""
    return {
        "dry_run": decisions is None,
        "items": items,
        "decisions": None if decisions is None else [decision_result(d) for d in decisions],
        "preview": None if preview is None else preview_result(preview, actor=actor, reason=None),
    }
