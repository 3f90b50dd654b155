"""Read: recall a subject's memories, list them, a memory's history, and the index
an agent reads at the start of a session (``session_index``: as the SessionStart hook
prints it). Nothing here opens a review item."""

# core.reports
from core.reports.briefing import index_for_agents
from core.reports.history import history, history_in
from core.reports.recall import list_in, listed_line, recall_in, recalled_line
from core.reports.session_start import session_index

__all__ = [
    "history",
    "history_in",
    "index_for_agents",
    "list_in",
    "listed_line",
    "recall_in",
    "recalled_line",
    "session_index",
]
