"""Which store of a workspace a command writes to when it takes a single store.

The contract: the private store when the workspace holds one (a user's own memories
and logs go there first), else the first store given. A workspace with no store
is refused (:class:`StoreError`), never an index error.
"""

from __future__ import annotations

from core.domain.errors import StoreError
from core.store.store import Store
from core.store.workspace import Workspace


def home_store(workspace: Workspace) -> Store:
    """The store a single-store command (e.g. ``rollback``) works on."""
    if not workspace.stores:
        raise StoreError("no store given: pass --store PATH")
    return workspace.private or workspace.stores[0]
