"""Open the stores: a workspace of one or more stores, a new store, a store's config.

Opening reads the stores' catalogs and no repository: reading commands pay for
nothing more (``tests/e2e/test_startup.py``).
"""

# core.store
from core.store.config import CONFIG_FILE
from core.store.creation import create_store
from core.store.reaching import Reaching
from core.store.secret_files import scan_file
from core.store.store import Clock, Store
from core.store.workspace import Workspace, default_actor, open_workspace

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
