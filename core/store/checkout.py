"""Moving a store's working tree, index and branch to another commit, kill-safe.

A team sync that takes the remote's commits (or its own merge) moves the clone from
one commit to another (:func:`checkout`). A journal in local state names every path
that changes before anything moves; a kill at any moment leaves ``HEAD`` at the old
commit or the new one, and :func:`recover_checkout` (run by the next command that
opens the store, :meth:`core.store.store.Store.reread`) puts the working tree and the
index back to what ``HEAD`` is, every path the journal names.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from core.domain.errors import StoreError
from core.store import gitstore
from core.store.fsutil import atomic_write_bytes, confined
from core.store.gitstore.objects import forget_stamp

#: the checkout journal: where a sync's checkout was going (local state, in .git)
CHECKOUT_JOURNAL = "sync-checkout.json"


def journal_path(root: Path) -> Path:
    return root / ".git" / "memgov" / CHECKOUT_JOURNAL


def checkout(root: Path, old: str, new: str) -> list[str]:
    """Move the working tree, the index and ``main`` from ``old`` to ``new``, under a
    journal naming every path that changes; the paths."""
    paths = gitstore.changed_paths(root, old, new)
    journal = journal_path(root)
    for path in paths:
        confined(root, path)  # never through a link someone committed
    atomic_write_bytes(journal, json.dumps({"from": old, "to": new, "paths": paths}).encode())
    gitstore.run(root, "read-tree", "-m", "-u", old, new)
    gitstore.run(root, "update-ref", "-m", "memgov sync", "refs/heads/main", new, old)
    forget_stamp(root)
    journal.unlink()
    return paths


def recover_checkout(root: Path) -> bool:
    """A sync killed during its checkout: the working tree and index back to what
    ``HEAD`` is now (the old commit or the new), every path the journal names."""
    journal = journal_path(root)
    try:
        data = json.loads(journal.read_bytes())
    except (OSError, ValueError):
        journal.unlink(missing_ok=True)
        return False
    lock = root / ".git" / "index.lock"
    lock.unlink(missing_ok=True)
    gitstore.run(root, "read-tree", "--reset", "-u", "HEAD")
    head = gitstore.head(root)
    listing = gitstore.run(root, "ls-tree", "-r", "--name-only", "-z", head)
    present = set(listing.decode("utf-8", "surrogateescape").split("\0"))
    for path in data.get("paths", []):
        if isinstance(path, str) and path not in present:
            with contextlib.suppress(OSError, StoreError):
                os.unlink(confined(root, path))
    forget_stamp(root)
    journal.unlink()
    return True
