"""The ``memgov`` command line, for agents, scripts and CI.

Exit status: 0 success (written, merged, clean), 1 the command found something
or refused (a refused write, a secret, doctor problems), 2 bad input or an
error, 3 a write opened or joined a conflict, 141 the reader of the output
went away (a closed pipe). Under ``--json`` an error is also an object on stdout.

The package: :mod:`tui.cli.common` (options, output, exit codes, the error object of ``--json``),
:mod:`tui.cli.shapes` (a decision's one shape, for a dry run and the decision),
:mod:`tui.cli.arguments` (every command's arguments),
:mod:`tui.cli.parser` (the parser and :func:`main`, the ``memgov`` entry point)
and one module per group of commands, imported only when one of its commands
runs: :mod:`~tui.cli.stores`,
:mod:`~tui.cli.writing`, :mod:`~tui.cli.memories`, :mod:`~tui.cli.review`,
:mod:`~tui.cli.consolidation`, :mod:`~tui.cli.transfer`, :mod:`~tui.cli.desk`,
:mod:`~tui.cli.serve`.
"""

from tui.cli.parser import build_parser, main

__all__ = ["build_parser", "main"]
