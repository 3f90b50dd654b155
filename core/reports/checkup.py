"""The doctor's verdict over a workspace: each store's findings and size, and
whether the run fails.

The contract: every store is diagnosed (:func:`core.reports.doctor.diagnose`,
read-only), in the order given. The run fails when any finding is an error, or,
``strict``, when there is any finding at all. A store whose records cannot be
read counts 0 memories (why is among its findings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.domain.data import AsData, shown_as
from core.domain.errors import MemgovError
from core.reports.doctor import Finding, diagnose
from core.store.store import Store
from core.store.workspace import Workspace


@dataclass(frozen=True)
class StoreCheck(AsData):
    store: Store = field(metadata=shown_as(convert=lambda s: s.root))
    findings: tuple[Finding, ...]
    memories: int


@dataclass(frozen=True)
class Checkup(AsData):
    stores: tuple[StoreCheck, ...]
    failing: bool = field(metadata=shown_as(skip=True))

    DATA_PROPERTIES = ("clean",)

    @property
    def clean(self) -> bool:
        return not self.failing


def counted(store: Store) -> int:
    """How many records the store holds, 0 when they cannot be read."""
    try:
        return len(store.memories)
    except MemgovError:  # e.g. a crash journal that cannot be used: one of the findings
        return 0


def check_workspace(
    workspace: Workspace,
    *,
    strict: bool = False,
    more: Callable[[Store], list[Finding]] | None = None,
) -> Checkup:
    """``more``: a face's own checks of a store (the desk's keymap), after the core's."""
    checks: list[StoreCheck] = []
    failing = False
    for store in workspace.stores:
        findings = tuple(diagnose(store) + (more(store) if more else []))
        failing |= any(f.severity == "error" or strict for f in findings)
        checks.append(StoreCheck(store, findings, counted(store)))
    return Checkup(tuple(checks), failing)
