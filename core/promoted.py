"""Where a private record went when it was promoted: its team copies.

Erasing a private record leaves the team copy an approved promotion made (or the
team record it merged into): the owner's erasure does not reach into the team
store, whose maintainers decide. The deletion names those copies, and opens a
deletion request for each in the team store. This module only reads the private
store's decision records (``decisions/*.json``), through the same confinement as
every store read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from core.fsutil import UnsafePath, read_confined
from core.store import Store

DECISION_DIR = "decisions"
_MAX_BYTES = 4 * 1024 * 1024


def _decision_records(store: Store) -> Iterator[dict[str, Any]]:
    folder = store.root / DECISION_DIR
    if not folder.is_dir() or folder.is_symlink():
        return
    for path in sorted(folder.glob("*.json")):
        try:
            data = read_confined(store.root, f"{DECISION_DIR}/{path.name}", limit=_MAX_BYTES)
            record = json.loads(data or b"null")
        except (UnsafePath, ValueError, RecursionError):
            continue  # doctor reports unreadable decision records
        if isinstance(record, dict):
            yield record


def team_copies(stores: Iterable[Store], memory_id: str) -> list[tuple[Store, str]]:
    """(team store, record id) for each team record an approved, unreverted promotion
    of ``memory_id`` created or merged into, that still exists in a given store."""
    stores = list(stores)
    out: list[tuple[Store, str]] = []
    for store in stores:
        if store.config.scope != "private":
            continue
        for record in _decision_records(store):
            before = record.get("before")
            if (
                record.get("kind") != "promotion"
                or record.get("option") != "approve"
                or record.get("reverted_by")
                or not isinstance(before, dict)
                or memory_id not in before
            ):
                continue
            entries = [*(record.get("created") or ()), *(record.get("touched") or ())]
            for entry in entries:
                if not isinstance(entry, dict):
                    continue
                team = next((s for s in stores if str(s.root) == entry.get("store")), None)
                copy_id = entry.get("id")
                if (
                    team is not None
                    and isinstance(copy_id, str)
                    and copy_id in team.memories
                    and (team, copy_id) not in out
                ):
                    out.append((team, copy_id))
    return out
