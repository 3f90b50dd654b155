"""One change across two stores (a promotion: private and team): both or neither.

The participant's journal is written first and goes first; the coordinator's
reaching its events phase is the commit point of both (:mod:`core.store.recovery`
decides an interrupted one by it). Locks are taken in a fixed order, by path.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.store.journal import write_journal
from core.store.transaction import Transaction

if TYPE_CHECKING:
    from core.store.store import Store


@contextlib.contextmanager
def joint_transaction(
    coordinator: Store, participant: Store, *, actor: str, message: str, dry_run: bool = False
) -> Iterator[tuple[Transaction, Transaction]]:
    """One change across two stores (a promotion: private and team): both or neither,
    whatever moment it is killed. Locks are taken in a fixed order (by path), so two
    such changes never wait on each other; each store is recovered and re-read under
    its lock, so what the caller checks inside is the stores as they are now.
    ``dry_run``: both are prepared (``tx.prepared``), nothing is written."""
    first, second = sorted((coordinator, participant), key=lambda s: str(s.root))
    with first.locked(), second.locked():
        for store in (first, second):
            store.reread()
        tx_c = Transaction(coordinator, actor=actor, message=message)
        tx_p = Transaction(participant, actor=actor, message=message)
        yield tx_c, tx_p
        prep_p = tx_p.prepare()
        prep_c = tx_c.prepare()
        if dry_run:
            tx_p.prepared, tx_c.prepared = prep_p, prep_c
            return
        if prep_c is None and prep_p is None:
            return
        if prep_c is None or prep_p is None:  # one store only: an ordinary transaction
            tx, prep = (tx_c, prep_c) if prep_c is not None else (tx_p, prep_p)
            assert prep is not None
            tx.apply_prepared(prep)
            return
        txn = hashlib.sha256(f"{message}|{tx_c.now.isoformat()}|{os.getpid()}".encode()).hexdigest()
        j_p = prep_p.journal(
            peer={"role": "participant", "root": str(coordinator.root), "txn": txn}
        )
        j_c = prep_c.journal(
            peer={"role": "coordinator", "root": str(participant.root), "txn": txn}
        )
        write_journal(participant, j_p)
        write_journal(coordinator, j_c)
        tx_p.write(prep_p)
        j_p["phase"] = "events"
        write_journal(participant, j_p)
        tx_c.write(prep_c)
        j_c["phase"] = "events"  # the commit point: from here on, recovery finishes both
        write_journal(coordinator, j_c)
        tx_p.commit(prep_p)
        tx_c.commit(prep_c)
        tx_p.finish(prep_p, j_p)  # the participant's journal goes first
        tx_c.finish(prep_c, j_c)
