"""A store's problems: what ``memgov doctor`` and the desk's problems screen find,
and the index (``MEMORY.md``) written again from the records."""

# core.reports
from core.reports.checkup import check_workspace
from core.reports.doctor import Finding, diagnose
from core.reports.reindex import reindex_workspace

# core.store
from core.store.secret_history import Scrubbed, scrub_history

__all__ = [
    "Finding",
    "Scrubbed",
    "check_workspace",
    "diagnose",
    "reindex_workspace",
    "scrub_history",
]
