"""memgov's terminal faces: the ``memgov`` command line and the Textual review desk.

Importing this package does not import Textual; only the desk (``tui.app``) does.
"""
