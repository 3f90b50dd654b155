"""Connect an agent: memgov's hooks and MCP server in Claude Code's settings, merged
with what is there, and taken out again."""

# core.importers
from core.importers.claude_code.settings import (
    HOOKS,
    SERVER_NAME,
    SettingsError,
    SetupChange,
    memory_folder,
    setup_claude_code,
    setup_paths,
)

__all__ = [
    "HOOKS",
    "SERVER_NAME",
    "SettingsError",
    "SetupChange",
    "memory_folder",
    "setup_claude_code",
    "setup_paths",
]
