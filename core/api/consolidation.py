"""Consolidation: merge a store's records in batches a person reviews, a batch's
file diffs, and the rollback to a baseline."""

# core.consolidation
from core.consolidation.consolidate import baselines, consolidate, file_diff, rollback

__all__ = ["baselines", "consolidate", "file_diff", "rollback"]
