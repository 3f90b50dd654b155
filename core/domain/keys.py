"""The id of a conflict set, from its key: one digest for every face and index.

A conflict item is named by its key (scope, subject, attribute, condition), not
by its records, so the same open set keeps its id however many records join
it. The catalog indexes this digest (an expression index over the key
columns, :mod:`core.store.catalog`), so finding the set of an id is one lookup.
"""

from __future__ import annotations

import functools
import hashlib

MemoryKey = tuple[str, str, str, str | None]


@functools.lru_cache(maxsize=1 << 17)  # the desk names every open set after each decision
def conflict_item_id(key: MemoryKey) -> str:
    digest = hashlib.sha256(repr(key).encode("utf-8")).hexdigest()[:10]
    return f"conflict-{digest}"
