"""What a person was shown, as a hash: every decision is bound to it.

A review item carries its content and its evidence: the records with their words
and front matter, their sources resolved in the logs, the analysis, the team
records beside them, the secret scan. :func:`shown_hash` is the SHA-256 of all of
it as plain data, less what only says when the item was looked at. The desk sends
the hash of the item on screen with the decision, ``memgov show`` prints it and
``memgov decide --shown`` takes it; :func:`core.review.decide.decide` builds the item
again under the store locks and applies the decision only when the hash is the
same. Otherwise it is refused with :class:`~core.domain.errors.ItemChanged`, and
:func:`changes_between` says what changed (the desk shows the item again with it):
a record swapped between review and write is never what a person approved.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from core.domain.data import to_data
from core.review.items import Item

#: what changes without the item changing: when someone looked at it, and what the
#: queue says deciding it would do to a pending batch (read from the batch)
_VOLATILE = frozenset({"deferred", "discards"})


def shown_data(item: Item) -> dict[str, Any]:
    data = to_data(item)
    assert isinstance(data, dict)
    return {k: v for k, v in data.items() if k not in _VOLATILE}


def shown_hash(item: Item) -> str:
    """The hash of what the item shows (64 hexadecimal digits)."""
    text = json.dumps(shown_data(item), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def changes_between(old: Item, new: Item) -> tuple[str, ...]:
    """What differs between the item as shown and as it is now, in words: each record
    added, gone, or with a field changed, and the other parts of the item."""
    found: list[str] = []
    before = {r.memory.id: to_data(r) for r in (*old.records, *old.team_records)}
    after = {r.memory.id: to_data(r) for r in (*new.records, *new.team_records)}
    for memory_id in sorted(set(before) | set(after)):
        was, now = before.get(memory_id), after.get(memory_id)
        if was is None:
            found.append(f"record {memory_id} was added")
        elif now is None:
            found.append(f"record {memory_id} is gone")
        elif was != now:
            fields = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
            found.append(f"record {memory_id}: {', '.join(fields)} changed")
    was_data, now_data = shown_data(old), shown_data(new)
    for part in sorted(set(was_data) | set(now_data)):
        if part in ("records", "team_records"):
            continue
        if was_data.get(part) != now_data.get(part):
            if isinstance(was_data.get(part), dict) and isinstance(now_data.get(part), dict):
                inner = sorted(
                    k
                    for k in set(was_data[part]) | set(now_data[part])
                    if was_data[part].get(k) != now_data[part].get(k)
                )
                found.append(f"{part}: {', '.join(inner)} changed")
            else:
                found.append(f"{part} changed")
    return tuple(found)
