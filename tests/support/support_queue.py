"""Shared by the queue tests (``test_queue*.py``): the keys an item, a record and a
request have in their JSON, and the demo's queue (``queue(path, *kinds)``).
"""

from __future__ import annotations

from pathlib import Path

from support_desk import workspace

from core.review.items import Item
from core.review.queue import build_queue

ITEM_KEYS = {
    "kind", "id", "title", "opened_at", "store", "scope", "subject", "records", "request",
    "team_records", "secret_scan", "analysis", "deferred", "discards",
}  # fmt: skip
RECORD_KEYS = {
    "id", "store", "status", "type", "scope", "subject", "attribute", "condition", "value",
    "content", "confidence", "created_at", "verified_at", "source_count", "sources", "pointers",
}  # fmt: skip
REQUEST_KEYS = {
    "id", "kind", "memory_id", "reason", "requested_by", "requested_at", "status", "decision",
    "decided_by", "decision_reason",
}  # fmt: skip


def queue(path: Path, *kinds: str) -> list[Item]:
    return build_queue(workspace(path), kinds=kinds or None)
