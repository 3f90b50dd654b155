"""An agent's hooks: what they log (the user's words, what came from outside) into
the daily log. What the SessionStart hook prints is :mod:`core.api.reading`'s
(``session_index``), the SessionEnd hook's sync :mod:`core.api.transfer`'s.

Nothing here loads the importers, the review or the index: a hook that logs costs
the store and the log."""

# core.writing
from core.writing.hook_events import (
    Said,
    log_redactor,
    log_said,
    prompt_said,
    task_of,
    text_field,
    tool_said,
)

__all__ = [
    "Said",
    "log_redactor",
    "log_said",
    "prompt_said",
    "task_of",
    "text_field",
    "tool_said",
]
