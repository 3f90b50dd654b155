"""Connect an agent: memgov's hooks and MCP server in Claude Code's settings or Codex's
configuration, merged with what is there, and taken out again."""

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
from core.importers.codex.settings import HOOKS as CODEX_HOOKS
from core.importers.codex.settings import memories_folder as codex_memories
from core.importers.codex.settings import setup_codex
from core.importers.codex.settings import setup_paths as codex_paths

__all__ = [
    "CODEX_HOOKS",
    "HOOKS",
    "SERVER_NAME",
    "SettingsError",
    "SetupChange",
    "codex_memories",
    "codex_paths",
    "memory_folder",
    "setup_claude_code",
    "setup_codex",
    "setup_paths",
]
