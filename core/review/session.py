"""How a decision writes: for real, or as a preview that writes nothing.

Every decision kind opens its transactions through a :class:`Session`. A real
session is the store's own transaction (or a joint one across two stores). A
dry-run session runs the very same code under the same locks, then *prepares*
each transaction (every check, the secret guard of a team store, what an
erasure would scrub and discard) and keeps it instead of applying it: the
preview (core.review.preview) is what the decision would write, not a second
description of the rules.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from core.store.joint import joint_transaction
from core.store.prepared import Prepared
from core.store.store import Store
from core.store.transaction import Transaction


@dataclass
class Session:
    dry_run: bool = False
    #: a dry run's transactions, each with what it would write (None: nothing)
    prepared: list[tuple[Transaction, Prepared | None]] = field(default_factory=list)

    @contextlib.contextmanager
    def transaction(self, store: Store, *, actor: str, message: str) -> Iterator[Transaction]:
        if not self.dry_run:
            with store.transaction(actor=actor, message=message) as tx:
                yield tx
            return
        with store.locked():
            store.reread()
            tx = Transaction(store, actor=actor, message=message)
            yield tx
            self.prepared.append((tx, tx.prepare()))

    @contextlib.contextmanager
    def joint(
        self, coordinator: Store, participant: Store, *, actor: str, message: str
    ) -> Iterator[tuple[Transaction, Transaction]]:
        """One change across two stores (both or neither; core.store.store)."""
        if not self.dry_run:
            with joint_transaction(coordinator, participant, actor=actor, message=message) as pair:
                yield pair
            return
        first, second = sorted((coordinator, participant), key=lambda s: str(s.root))
        with first.locked(), second.locked():
            for store in (first, second):
                store.reread()
            pair = (
                Transaction(coordinator, actor=actor, message=message),
                Transaction(participant, actor=actor, message=message),
            )
            yield pair
            for tx in reversed(pair):
                self.prepared.append((tx, tx.prepare()))
