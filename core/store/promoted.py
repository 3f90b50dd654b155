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

from core.store.fsutil import UnsafePath, read_confined
from core.store.store import Store

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
    return copies_by_record(stores).get(memory_id, [])


def copies_by_record(stores: Iterable[Store]) -> dict[str, list[tuple[Store, str]]]:
    """:func:`team_copies` for every promoted private record at once: one read of
    the decision records, for callers that ask about many records (the queue)."""
    stores = list(stores)
    out: dict[str, list[tuple[Store, str]]] = {}
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
            ):
                continue
            entries = [*(record.get("created") or ()), *(record.get("touched") or ())]
            for entry in entries:
                if not isinstance(entry, dict):
                    continue
                team = next((s for s in stores if str(s.root) == entry.get("store")), None)
                copy_id = entry.get("id")
                if team is None or not isinstance(copy_id, str) or copy_id not in team.memories:
                    continue
                for memory_id in before:
                    found = out.setdefault(memory_id, [])
                    if (team, copy_id) not in found:
                        found.append((team, copy_id))
    return out
