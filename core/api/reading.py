"""Read: recall a subject's memories, list them, a memory's history, and the index
an agent reads at the start of a session (``session_index``: as the SessionStart hook
prints it). Nothing here opens a review item.

Each name is imported from its module when it is first asked for: ``memgov history``
loads the history and not the recall, the briefing or the session's index
(``tests/e2e/test_startup.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # core.reports
    from core.reports.briefing import index_for_agents
    from core.reports.history import history, history_in
    from core.reports.recall import list_in, listed_line, recall_in, recalled_line
    from core.reports.session_start import session_index


def __getattr__(name: str) -> object:
    """A name of ``__all__``, from its module (imported now, once)."""
    if name in ("history", "history_in"):
        from core.reports import history as history_module

        return _kept(name, history_module)
    if name in ("list_in", "listed_line", "recall_in", "recalled_line"):
        from core.reports import recall

        return _kept(name, recall)
    if name == "index_for_agents":
        from core.reports import briefing

        return _kept(name, briefing)
    if name == "session_index":
        from core.reports import session_start

        return _kept(name, session_start)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _kept(name: str, module: object) -> object:
    value: object = getattr(module, name)
    globals()[name] = value  # asked once: the next time it is the module's own
    return value


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
