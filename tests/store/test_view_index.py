"""A transaction's view finds a key's records through an index of its local records.

:meth:`core.store.records.View.by_key` reads the local records of one key from an
index kept as records are set, removed and rolled back (a savepoint), instead of
reading every local record: an import of thousands of files asks it once a file.
These tests hold it to what reading every local record gives, in the same order,
through random sets, re-sets under another key, removals, re-adds and rollbacks.
"""

from __future__ import annotations

import random
from dataclasses import replace

from conftest import MakeMemory

from core.domain.record import Memory
from core.store.records import View
from core.store.store import Store
from core.store.transaction import transaction

KEYS = [("private", f"user:alice/project:p{n % 3}", f"attr_{n % 4}", None) for n in range(12)]


def _slow(view: View, key: tuple[str, str, str, str | None]) -> list[Memory]:
    """What by_key gives reading every local record (the path before the index)."""
    base = [m for m in view._checked(lambda: view.base.by_key(key)) if m.id not in view.gone]
    return [
        *(m for m in base if m.id not in view.local),
        *(m for m in view.local.values() if m.key == key),
    ]


def _same(view: View) -> None:
    for key in KEYS:
        assert [m.id for m in view.by_key(key)] == [m.id for m in _slow(view, key)], key
        assert view.by_key(key) == _slow(view, key)


def test_by_key_matches_reading_every_record(store: Store, make_memory: MakeMemory) -> None:
    rng = random.Random(5)
    with transaction(store, actor="a@example.com", message="test") as tx:
        view = tx.view
        made: list[str] = []
        for step in range(600):
            roll = rng.random()
            if roll < 0.45 or not made:  # a new record
                key = rng.choice(KEYS)
                ident = f"mem-{step}"
                view[ident] = make_memory(id=ident, subject=key[1], attribute=key[2])
                made.append(ident)
            elif roll < 0.7:  # set again, maybe under another key
                ident = rng.choice(made)
                if ident in view.local:
                    key = rng.choice(KEYS)
                    view[ident] = replace(view[ident], subject=key[1], attribute=key[2])
            elif roll < 0.85:  # removed, and maybe set again: then it comes last
                ident = rng.choice(made)
                if ident in view:
                    memory = view[ident]
                    del view[ident]
                    if rng.random() < 0.5:
                        view[ident] = memory
            else:  # changes inside a savepoint that fails: rolled back
                try:
                    with tx.savepoint():
                        for _ in range(rng.randint(1, 4)):
                            key = rng.choice(KEYS)
                            ident = f"mem-{step}-sp-{rng.randint(0, 9)}"
                            view[ident] = make_memory(id=ident, subject=key[1], attribute=key[2])
                        _same(view)
                        raise RuntimeError("undo")
                except RuntimeError:
                    pass
            if step % 7 == 0:
                _same(view)
        _same(view)
        assert any(view.by_key(key) for key in KEYS)
        view.local.clear()  # nothing to write: the transaction ends without a change
        view.gone.clear()
