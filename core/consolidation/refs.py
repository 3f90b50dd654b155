"""The refs consolidation keeps in a store's repository, and what an erasure does to them.

A pending batch is a branch ``refs/heads/memgov/batch/<id>``; baselines are
annotated tags ``baseline/NNNN``. A batch may quote a record being erased, so
importing this module declares the batch branches to the store
(:func:`core.store.discard.discard_on_erasure`): an erasure discards them, with a
``batch-discarded`` event.
"""

from core.store.discard import ErasureDiscard, discard_on_erasure

BATCH_REF = "refs/heads/memgov/batch/"
BASELINE_TAG = "baseline/"

discard_on_erasure(
    ErasureDiscard(
        prefix=BATCH_REF,
        action="batch-discarded",
        reason="an erasure discards the pending consolidation batch, which may hold "
        "the erased content; run 'memgov consolidate' again",
        details_key="batches",
    )
)
