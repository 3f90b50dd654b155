"""``memgov mcp``: the stores, served to an agent over the Model Context Protocol
(stdio). The SDK is imported only here (:mod:`tui.mcp.server`), so no other
command's start-up pays for it. Standard output is the protocol's: everything
memgov has to say goes to standard error.
"""

from __future__ import annotations

import argparse

from tui.cli.common import EXIT_OK, actor_from, workspace


def cmd_mcp(args: argparse.Namespace) -> int:
    from tui.mcp.server import serve

    serve(workspace(args), actor_from(args))
    return EXIT_OK
