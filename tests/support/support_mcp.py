"""The real MCP server in a subprocess, and the SDK's own client talking to it.

``served(*stores)`` starts ``memgov mcp`` (``python -m tui.cli mcp``) over stdio
with the test's isolated git config and the demo's pinned clock, and yields the
connected :class:`mcp.Client`; the server's standard error is kept in a file
(``Served.errors``) so a test can check what it logged.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from support_desk import DEMO_NOW, OWNER

#: every tool the server offers; no other (none decides)
TOOLS = {
    "remember",
    "recall",
    "get",
    "list",
    "history",
    "log",
    "request_delete",
    "request_promote",
    "report_stale",
    "cite",
    "request_status",
}
READ_ONLY = {"recall", "get", "list", "history", "request_status"}


@dataclass
class Served:
    client: Client
    log: Path

    @property
    def errors(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    async def call(self, tool: str, **arguments: Any) -> Any:
        """A tool's structured answer; the call must succeed."""
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
        return result.structured_content

    async def fails(self, tool: str, **arguments: Any) -> str:
        """A tool's error text; the call must fail as a tool error."""
        result = await self.client.call_tool(tool, arguments)
        assert result.is_error, result.structured_content
        return str(result.content[0].text)  # type: ignore[union-attr]


def _environment(now: datetime | None) -> dict[str, str]:
    env = {
        name: os.environ[name]
        for name in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "XDG_CONFIG_HOME", "PATH")
        if name in os.environ
    }
    if now is not None:
        env["MEMGOV_NOW"] = now.isoformat()
    return env


@contextlib.asynccontextmanager
async def served(
    *stores: Path, actor: str = OWNER, now: datetime | None = DEMO_NOW
) -> AsyncIterator[Served]:
    """``memgov mcp --store S... --as ACTOR`` in a subprocess, connected."""
    home = Path(os.environ["HOME"])
    log = home / f"mcp-stderr-{len(list(home.glob('mcp-stderr-*')))}.log"
    args = ["-m", "tui.cli", "mcp", "--as", actor]
    for store in stores:
        args += ["--store", str(store)]
    params = StdioServerParameters(command=sys.executable, args=args, env=_environment(now))
    with log.open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            yield Served(client, log)
