"""How a decision writes: for real, or as a preview that writes nothing.

Every decision kind opens its transactions through a :class:`Session`. A real
session is the store's own transaction (or a joint one across two stores). A
dry-run session runs the very same code through the same transactions
(``dry_run=True``: the same locks and re-reads), which *prepare* each
change (every check, the secret guard of a team store, what an erasure would
scrub and discard) and keep it instead of applying it: the
preview (core.review.preview) is what the decision would write, not a second
description of the rules.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from core.domain.errors import ValidationError
from core.store.joint import joint_transaction
from core.store.prepared import Prepared
from core.store.store import Store
from core.store.transaction import Transaction, transaction


@dataclass
class Session:
    dry_run: bool = False
    #: a dry run's transactions, each with what it would write (None: nothing)
    prepared: list[tuple[Transaction, Prepared | None]] = field(default_factory=list)
    #: every transaction the session ran (applied, or a dry run's), in order: what it
    #: wrote, its events above all, says what else the decision changed
    #: (core.review.consequences)
    ran: list[Transaction] = field(default_factory=list)
    #: the one open transaction every decision of a list writes into
    #: (core.review.decide.decide_many): one commit for all of them
    shared: Transaction | None = None

    @contextlib.contextmanager
    def transaction(self, store: Store, *, actor: str, message: str) -> Iterator[Transaction]:
        if self.shared is not None:
            if self.shared.store is not store:
                raise ValidationError(
                    f"a list of decisions writes one store ({self.shared.store.root}); "
                    f"this item is in {store.root}",
                    field="item",
                    hint="decide each store's items in a list of their own",
                )
            yield self.shared
            return
        with transaction(store, actor=actor, message=message, dry_run=self.dry_run) as tx:
            yield tx
        self.ran.append(tx)
        if self.dry_run:
            self.prepared.append((tx, tx.prepared))

    @contextlib.contextmanager
    def joint(
        self, coordinator: Store, participant: Store, *, actor: str, message: str
    ) -> Iterator[tuple[Transaction, Transaction]]:
        """One change across two stores (both or neither; core.store.joint)."""
        if self.shared is not None:
            raise ValidationError(
                "this decision writes two stores (a promotion, or an erasure with a team "
                "copy): it cannot share a list's single transaction",
                field="item",
                hint="decide it on its own (memgov decide ITEM ...)",
            )
        with joint_transaction(
            coordinator, participant, actor=actor, message=message, dry_run=self.dry_run
        ) as pair:
            yield pair
        self.ran += list(reversed(pair))
        if self.dry_run:
            self.prepared += [(tx, tx.prepared) for tx in reversed(pair)]
