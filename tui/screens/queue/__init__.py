"""The queue: every item waiting for a person, by kind, oldest first, filterable.

- :mod:`.screen`: the screen (tabs, search, the window of rows, the preview, keys);
- :mod:`.table`: the table widget (a Line API widget on Textual's public API);
- :mod:`.reading`: the worker that reads the queue and hands it to the desk;
- :mod:`.rows`: what the queue shows of an item (its row, its preview);
- :mod:`.keys`: the screen's keys.
"""

from tui.screens.queue.screen import QueueScreen

__all__ = ["QueueScreen"]
