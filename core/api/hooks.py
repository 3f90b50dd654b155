"""An agent's hooks: what a SessionStart hook prints (the governed index, by type),
and what the other hooks log (the user's words, what came from outside) into the
daily log. The SessionEnd hook's sync is :mod:`core.api.transfer`'s.

Nothing here loads the importers or the review: a hook costs the store and the log."""

# core.reports
from core.reports.session_start import MAX_BYTES, MAX_HOOK_CHARS, MAX_LINES, session_index

# core.writing
from core.writing.hook_events import (
    Said,
    log_said,
    prompt_said,
    task_of,
    text_field,
    tool_said,
)

__all__ = [
    "MAX_BYTES",
    "MAX_HOOK_CHARS",
    "MAX_LINES",
    "Said",
    "log_said",
    "prompt_said",
    "session_index",
    "task_of",
    "text_field",
    "tool_said",
]
