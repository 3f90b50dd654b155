"""Work kept in git refs beside the store's branch, which an erasure discards.

A layer above may keep work that quotes records in refs of the store's own
repository (:mod:`core.consolidation` keeps a pending batch on a branch). An
erasure cannot leave the erased content there: before anything is written, the
transaction lists the refs under each declared prefix and records an event
saying they are discarded; after its commit they are deleted (and recovery
deletes them too: the crash journal names them). The store names no such ref
itself: the layer that writes them declares them, when it is imported, with
:func:`discard_on_erasure`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from core.domain.errors import StoreError
from core.store import gitstore


@dataclass(frozen=True)
class ErasureDiscard:
    """The refs under ``prefix``, and the event an erasure that discards them records:
    ``action``, ``reason``, and ``{details_key: [their names under prefix]}``."""

    prefix: str
    action: str
    reason: str
    details_key: str


_DECLARED: dict[str, ErasureDiscard] = {}


def discard_on_erasure(rule: ErasureDiscard) -> None:
    """Every later erasure in this process discards the refs under ``rule.prefix``."""
    _DECLARED[rule.prefix] = rule


def declared() -> list[ErasureDiscard]:
    return list(_DECLARED.values())


def pending(root: Path, rule: ErasureDiscard) -> list[str]:
    """The names (under the prefix) of the refs ``rule`` covers, sorted."""
    return [name for name, _commit in gitstore.refs(root, rule.prefix)]


def delete_refs(root: Path, refs: list[str]) -> None:
    """Delete each ref; one already gone is no error (this runs again after a crash)."""
    for ref in refs:
        with contextlib.suppress(StoreError):
            gitstore.delete_ref(root, ref)
