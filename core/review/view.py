"""Views of the review queue: filter, search and count a list of items.

Pure functions over a list of :class:`~core.review.items.Item` (no store is read):
the desk calls them on every keystroke, so each costs one pass over the list and
builds no item. What a search looks in is each item's text (:func:`joined_text`),
prepared once: for the conflict sets from the catalog's rows
(:func:`core.review.queue.outline_queue`), no record built.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from core.domain.secrets import redact
from core.review.items import KINDS, Item
from core.review.losses import batches_first

ALL = "all"


@lru_cache(maxsize=200_000)
def redacted(text: str) -> str:
    """``text`` with every secret replaced by its rule id, remembered per text."""
    return redact(text)


def joined_text(
    item_id: str, title: str, subject: str, records: Iterable[tuple[str, str, str]]
) -> str:
    """What a search looks in, casefolded: an item's id, title and subject, then each
    record's (id, content, value) as shown (every secret replaced by its rule id)."""
    words = [item_id, title, subject]
    for memory_id, content, value in records:
        words += [memory_id, content, value]
    return " ".join(words).casefold()


def search_text(item: Item) -> str:
    """What a search looks in for a built item (:func:`joined_text`): its records'
    contents and values redacted (a search never matches a credential's characters).
    Redaction is remembered per text, so the same records searched again after a
    change cost a lookup."""
    records = [
        (r.memory.id, redacted(r.memory.content), redacted(r.memory.value or ""))
        for r in item.records
    ]
    text = getattr(item.analysis, "text", None)  # a held candidate is no record yet
    if not records and isinstance(text, str) and text:
        records.append((item.id, redacted(text), ""))
    return joined_text(item.id, item.title, item.subject, records)


def quick_text(item: Item) -> str:
    """What a search looks in before :func:`search_text` is ready: ids, title and
    subject only (no record content, so no redaction to pay for)."""
    return " ".join((item.id, item.title, item.subject)).casefold()


def matches(item: Item, *, kind: str = ALL, scope: str = ALL) -> bool:
    return (kind == ALL or item.kind == kind) and (scope == ALL or item.scope == scope)


def select(
    items: Sequence[Item],
    *,
    kind: str = ALL,
    scope: str = ALL,
    needle: str = "",
    texts: Mapping[str, str] | None = None,
) -> list[Item]:
    """The items of ``kind`` and ``scope`` (``"all"``: any) whose search text holds
    ``needle`` (casefolded), in their order. ``texts`` maps item ids to their
    :func:`search_text`; an item missing there is searched by :func:`quick_text`."""
    needle = needle.casefold()
    texts = texts or {}
    chosen = list(items)
    if kind != ALL:  # the comparisons inline: the desk filters 20,000 items a key
        chosen = [i for i in chosen if i.kind == kind]
    if scope != ALL:
        chosen = [i for i in chosen if i.scope == scope]
    if not needle:
        return chosen
    text = texts.get
    return [i for i in chosen if needle in (text(i.id) or quick_text(i))]


def count_by_kind(items: Iterable[Item]) -> dict[str, int]:
    """How many items of each kind, and ``"all"``: every kind named, zeros included."""
    counted = Counter(i.kind for i in items)  # a kind is a str: counted as itself
    counts = {str(kind): counted.get(kind, 0) for kind in KINDS}
    counts[ALL] = sum(counted.values())
    return counts


def order_key(item: Item) -> tuple[str, str]:
    """The queue's order: oldest first, then by id."""
    return (item.opened_at, item.id)


def merge(items: Sequence[Item], changed: Mapping[str, Item | None]) -> list[Item]:
    """``items`` with the items ``changed`` names replaced, removed (None) or, when new,
    inserted in queue order (``items`` is in queue order); what each would do to a
    pending batch said again (core.review.losses: a batch decided loses nothing more)."""
    kept = [changed.get(i.id, i) for i in items]
    result = [i for i in kept if i is not None]
    present = {i.id for i in items}
    new = [i for i in changed.values() if i is not None and i.id not in present]
    for item in sorted(new, key=order_key):
        result.insert(_bisect(result, order_key(item)), item)
    return batches_first(result)


def _bisect(items: Sequence[Item], key: tuple[str, str]) -> int:
    low, high = 0, len(items)
    while low < high:
        middle = (low + high) // 2
        if order_key(items[middle]) < key:
            low = middle + 1
        else:
            high = middle
    return low


def memory_ids(item: Item) -> set[str]:
    """The records an item shows (its own and, for a promotion, the team's)."""
    return {r.memory.id for r in (*item.records, *item.team_records)}
