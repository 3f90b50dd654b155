"""The parts of consolidation; the public entry points are in :mod:`core.consolidation.consolidate`.

model (the engine interface), dates (relative -> absolute), engine (the
deterministic engine), gather (orient, gather, prune), batch (plans, the batch
branch, diffs), apply (decisions, baselines), rollback, refs (its branches and tags in
git, which every git call reaches through core.store.gitstore).
"""
