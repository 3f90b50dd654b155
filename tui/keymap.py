"""``keymap:`` in a store's ``memgov.yaml``: the desk's keys remapped by binding id.

    keymap:
      conflict.newer: "1"
      conflict.older: "2"
      queue.search: "slash,f"

Each binding of the desk has an id (``<screen>.<action>``; :func:`binding_ids` reads
every id from the screens' ``BINDINGS``, so a new screen's keys need no list). An id
that names no binding (a typo such as ``conflict.nwer``) or a value that is not a key
is not silently ignored: ``memgov doctor`` warns about it with the field, and the
desk says so when it opens. This module does not import Textual: the screens are
imported when a keymap is read, so the doctor pays for the desk only for a store
that remaps keys.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import pkgutil
from collections.abc import Iterable

from core.api.doctor import Finding
from core.api.stores import CONFIG_FILE, Store

#: the modules whose classes bind the desk's keys: every screen, and the app itself
_BINDING_MODULES = ("tui.app",)


@functools.cache
def binding_ids() -> frozenset[str]:
    """Every binding id of the desk, read from the ``BINDINGS`` of each class its
    screens' modules (and the app's) define."""
    from textual.binding import Binding
    from textual.dom import DOMNode

    import tui.screens

    # every module, the queue's package included (its screen lives in a module of it)
    names = [m.name for m in pkgutil.walk_packages(tui.screens.__path__, "tui.screens.")]
    found: set[str] = set()
    for name in [*names, *_BINDING_MODULES]:
        module = importlib.import_module(name)  # by name: the app imports this module
        for cls in vars(module).values():
            if (
                inspect.isclass(cls)
                and issubclass(cls, DOMNode)
                and cls.__module__ == module.__name__
            ):
                bindings = cls.__dict__.get("BINDINGS", [])
                found |= {b.id for b in bindings if isinstance(b, Binding) and b.id}
    return frozenset(found)


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
        if binding not in binding_ids():
            near = difflib.get_close_matches(binding, sorted(binding_ids()), n=1)
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
