"""``memgov setup claude-code`` / ``memgov setup codex``: memgov's MCP server and hooks
in the agent's settings.

In a project (the current folder, or ``--project DIR``) the server goes into
``.mcp.json`` and the hooks into ``.claude/settings.json``; with ``--user`` into
``~/.claude.json`` and ``~/.claude/settings.json``. What is there is kept; memgov's
own entries are replaced, never doubled; a second run writes nothing; ``--remove``
takes out memgov's entries alone (:mod:`core.importers.claude_code.settings`). For
Codex the hooks go into ``.codex/hooks.json`` and the server into the table
``[mcp_servers.memgov]`` of ``.codex/config.toml`` (``--user``: ``~/.codex/``),
every other line of that file as it was (:mod:`core.importers.codex.settings`).
The commands written name this ``memgov`` by its full path and the stores by
theirs, so the hooks run from any folder and with no environment.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from core.domain.errors import MemgovError
from tui.cli.common import EXIT_OK, actor_from, emit, store_paths


def program() -> str:
    """This ``memgov``'s full path (what the hooks and the MCP server will run)."""
    launched = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if launched is not None and launched.name == "memgov" and launched.exists():
        return os.path.abspath(launched)
    return shutil.which("memgov") or "memgov"


def cmd_setup(args: argparse.Namespace) -> int:
    from core.api.setup import setup_claude_code, setup_codex

    project = Path(args.project or os.getcwd()).expanduser()
    if not project.is_dir():
        raise MemgovError(f"{project}: not a folder; give the project with --project DIR")
    stores: list[str] = []
    if not args.remove:
        stores = [os.path.abspath(Path(p).expanduser()) for p in store_paths(args)]
    actor = "" if args.remove else actor_from(args)
    where = {"user": args.user, "remove": args.remove}
    warning: str | None = None
    if args.agent == "codex":
        changes, warning = setup_codex(
            project.resolve(), program=program(), stores=stores, actor=actor, **where
        )
        after = (
            "Codex reads them at its next session start (a project's .codex/ only when "
            "the project is trusted)"
        )
    else:
        changes = setup_claude_code(
            project.resolve(), program=program(), stores=stores, actor=actor, **where
        )
        after = (
            "Claude Code reads them at its next session start (a project's .mcp.json "
            "server is approved once, in Claude Code)"
        )

    def text() -> str:
        lines = [change.line(args.remove) for change in changes]
        if not args.remove and any(change.written for change in changes):
            lines.append(after)
        if warning and not args.remove:
            lines.append(f"note: {warning}")
        return "\n".join(lines)

    emit(args, {"changes": [vars(change) for change in changes], "warning": warning}, text)
    return EXIT_OK
