"""memgov core: the memory store, its lifecycle, event log and write pipeline.

This package never imports Textual or the ``tui`` package (a test enforces it),
so agents, scripts and CI can use it headless.
"""

__version__ = "0.1.0"
