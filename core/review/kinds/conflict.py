"""Conflict sets: the records of one key in conflict, decided by which holds
(core.review.conflict)."""

from __future__ import annotations

from typing import ClassVar

from core.domain.record import Memory
from core.review import conflict
from core.review.evidence import Evidence, weigh
from core.review.items import CONFLICT_OPTIONS, Item, Key, Kind
from core.review.kinds.base import Choice, ReviewKind, Touch
from core.review.session import Session
from core.store.decisions import Decision
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id

MemoryKey = tuple[str, str, str, str | None]


class ConflictKind(ReviewKind):
    kind = Kind.CONFLICT
    prefixes = ("conflict-",)
    actions = CONFLICT_OPTIONS

    def touches(self, item: Item) -> Touch:
        return Touch(erases=("neither",), changes=("newer", "older", "parallel"))

    approve_options: ClassVar[tuple[str, ...]] = tuple(o for o in CONFLICT_OPTIONS if o != "defer")
    deferrable = True

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        return [conflict_item(evidence, key, members) for key, members in sets(evidence.store)]

    def open_ids(self, store: Store) -> set[str]:
        return {
            conflict_item_id(key) for key in store.memories.catalog.keys_with_status("conflict")
        }

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        store = evidence.store
        # the id is a digest of the key: the catalog indexes it, then only its records built
        key = store.memories.catalog.conflict_key(item_id)
        if key is None:
            return None
        members = [m for m in store.memories.by_key(key) if m.status == "conflict"]
        if not members:
            return None
        members.sort(key=lambda m: m.created_at)
        return conflict_item(evidence, key, members)

    def check_arguments(self, item: Item, choice: Choice) -> None:
        if choice.approve and choice.option == "defer":
            return  # an approved defer is a defer, as the desk's "defer" sends it
        super().check_arguments(item, choice)

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        return conflict.decide_conflict(
            session,
            item,
            choice.option if choice.approve else "defer",
            actor=actor,
            reason=choice.reason,
            conditions=choice.conditions or {},
        )


def sets(store: Store) -> list[tuple[MemoryKey, list[Memory]]]:
    """The store's conflict sets: records in conflict, by key, oldest first."""
    groups: dict[MemoryKey, list[Memory]] = {}
    for memory in store.memories.with_status("conflict"):
        groups.setdefault(memory.key, []).append(memory)
    for members in groups.values():
        members.sort(key=lambda m: m.created_at)
    return list(groups.items())


def conflict_title(key: MemoryKey) -> str:
    _scope, subject, attribute, condition = key
    return f"{subject} #{attribute}" + (f" [{condition}]" if condition else "")


def conflict_item(evidence: Evidence, key: MemoryKey, members: list[Memory]) -> Item:
    records = tuple(evidence.of(m) for m in members)
    scope, subject, attribute, condition = key
    return Item(
        kind=Kind.CONFLICT,
        id=conflict_item_id(key),
        title=conflict_title(key),
        opened_at=max(m.created_at for m in members).isoformat(),
        store=evidence.store,
        scope=scope,
        subject=subject,
        records=records,
        analysis=weigh(Key(scope, subject, attribute, condition), records),
    )


KIND = ConflictKind()
