"""Open the stores: a workspace of one or more stores, a new store, a store's config.

Opening reads the stores' catalogs and no repository: reading commands pay for
nothing more (``tests/e2e/test_startup.py``). What only some commands use (creating a
store, what an agent's store reaches, a file's secret scan, which loads the scanner)
is imported when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# core.store
from core.store.config import CONFIG_FILE
from core.store.store import Clock, Store
from core.store.workspace import Workspace, default_actor, open_workspace

if TYPE_CHECKING:
    from core.store.creation import create_store
    from core.store.reaching import Reaching
    from core.store.secret_files import scan_file


def __getattr__(name: str) -> object:
    """``create_store``, ``Reaching`` or ``scan_file``, from its module (imported now)."""
    if name == "create_store":
        from core.store import creation

        return _kept(name, creation)
    if name == "Reaching":
        from core.store import reaching

        return _kept(name, reaching)
    if name == "scan_file":
        from core.store import secret_files

        return _kept(name, secret_files)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _kept(name: str, module: object) -> object:
    value: object = getattr(module, name)
    globals()[name] = value  # asked once: the next time it is the module's own
    return value


__all__ = [
    "CONFIG_FILE",
    "Clock",
    "Reaching",
    "Store",
    "Workspace",
    "create_store",
    "default_actor",
    "open_workspace",
    "scan_file",
]
