"""``keymap:`` in a store's ``memgov.yaml``: the desk's keys remapped by binding id.

    keymap:
      conflict.newer: "1"
      conflict.older: "2"
      queue.search: "slash,f"

Each binding of the desk has an id (``<screen>.<action>``; every id is listed in
:data:`BINDING_IDS`, and a test checks the list against the screens). An id that
names no binding (a typo such as ``conflict.nwer``) or a value that is not a key
is not silently ignored: ``memgov doctor`` warns about it with the field, and the
desk says so when it opens. This module does not import Textual: the doctor reads
it without paying for the desk.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from core.api.doctor import Finding
from core.api.stores import CONFIG_FILE, Store

#: every binding id of the desk (tests/test_keymap.py checks it against the screens)
BINDING_IDS = frozenset(
    {
        *("about.back", "about.correct", "about.delete", "about.history"),
        *("app.keys", "app.quit", "app.theme", "app.undo"),
        *("batch.approve", "batch.down", "batch.narrower", "batch.reject"),
        *("batch.toggle", "batch.up", "batch.wider"),
        *("conflict.defer", "conflict.neither", "conflict.newer", "conflict.older"),
        "conflict.parallel",
        *("deletion.approve", "deletion.reject"),
        *("dialog.accept", "dialog.cancel"),
        *("health.back", "health.reload", "health.definitions", "health.labels"),
        *("labels.back", "labels.yes", "labels.no", "labels.expire", "labels.correct"),
        *("labels.skip", "labels.next_measure"),
        "help.close",
        *("history.back", "history.evidence", "history.search"),
        *("item.back", "item.history", "item.next_column"),
        *("problems.back", "problems.reload"),
        *("promotion.approve", "promotion.reject", "promotion.rerequest", "promotion.withdraw"),
        *("queue.about", "queue.clear", "queue.decide_marked", "queue.down", "queue.health"),
        *("queue.history", "queue.mark", "queue.next_kind", "queue.open", "queue.prev_kind"),
        *("queue.problems", "queue.reload", "queue.scope", "queue.search", "queue.up"),
        "queue.sync",
        *("secret.correct", "secret.defer", "secret.erase"),
        *("stale.correct", "stale.expire", "stale.keep"),
        *("held.redact", "held.keep", "held.drop", "held.learn", "held.forget"),
        *("held.agent", "held.memgov"),
        *("quarantine.release", "quarantine.discard", "quarantine.erase"),
        *("quarantine.correct", "quarantine.keep"),
        *("untrusted.ratify", "untrusted.reject"),
    }
)


def read_keymap(store: Store) -> tuple[dict[str, str], list[Finding]]:
    """The store's keymap (the entries that name a binding with a key), and a warning
    for each entry that does not."""
    raw = store.config.extra.get("keymap")
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [
            Finding(
                "warning",
                CONFIG_FILE,
                "not a mapping of binding ids to keys (e.g. 'conflict.newer: \"1\"'); "
                "the desk's keys stay as they are",
                "keymap",
            )
        ]
    keymap: dict[str, str] = {}
    warnings: list[Finding] = []
    for name, keys in raw.items():
        binding = str(name)
        field = f"keymap.{binding}"
        if isinstance(keys, int) and not isinstance(keys, bool):
            keys = str(keys)  # conflict.newer: 1
        if binding not in BINDING_IDS:
            near = difflib.get_close_matches(binding, sorted(BINDING_IDS), n=1)
            hint = f"did you mean '{near[0]}'?" if near else "'memgov review' then ? lists the keys"
            warnings.append(
                Finding("warning", CONFIG_FILE, f"no key of the desk has this id; {hint}", field)
            )
        elif not isinstance(keys, str) or not keys.strip():
            warnings.append(
                Finding(
                    "warning",
                    CONFIG_FILE,
                    'not a key: give one key or several separated by commas (e.g. "1" or "n,1")',
                    field,
                )
            )
        else:
            keymap[binding] = keys.strip()
    return keymap, warnings


def workspace_keymap(stores: Iterable[Store]) -> tuple[dict[str, str], list[str]]:
    """The keymap of every store (later stores win), and each warning as one line
    naming the store's config file and the field."""
    keymap: dict[str, str] = {}
    lines: list[str] = []
    for store in stores:
        found, warnings = read_keymap(store)
        keymap.update(found)
        lines += [f"{store.root / w.path}: field '{w.field}': {w.reason}" for w in warnings]
    return keymap, lines
