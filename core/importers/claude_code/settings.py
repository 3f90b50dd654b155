"""memgov's entries in Claude Code's settings: the hooks and the MCP server.

Claude Code reads its hooks from a settings file (a project's
``.claude/settings.json``, or ``~/.claude/settings.json`` for every project) and
its MCP servers from a project's ``.mcp.json`` (or, for every project, the
top-level ``mcpServers`` of ``~/.claude.json``). Both are JSON objects the user
and other tools edit too, so memgov's entries are merged in, never written over:

- a hook handler is memgov's when its command runs ``memgov hook ...`` (the
  program's file name is ``memgov``, its first argument ``hook``);
  :func:`merge_hooks` removes every one of them and adds memgov's group for each
  event, unless that group is there already as it would be written (so a second
  run changes nothing, not even the order); another tool's handlers, matchers and
  groups stay as they are;
- the MCP server is the one named ``memgov``.

:func:`remove_hooks` and :func:`remove_server` take out exactly those entries (an
event list, or ``hooks`` itself, that only memgov's entries filled goes too).

The functions here are pure (data in, data out); :func:`read_settings` and
:func:`write_settings` read and write a file: a file that is not a JSON object
is refused with its name, the place of the error and what to do, and is never
written; a write goes to a temporary file beside it, then replaces it.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from core.domain.errors import MemgovError

#: the MCP server's name in ``mcpServers``
SERVER_NAME = "memgov"
#: the tools whose results are evidence from outside (a PostToolUse matcher: a regex)
TOOL_MATCHER = "WebFetch|WebSearch|Read|Bash|Task|Agent|mcp__.*"


@dataclass(frozen=True)
class HookSpec:
    """One event's hook: Claude Code's event name, memgov's name of it, the matcher
    (None: every occurrence) and the timeout in seconds Claude Code gives it."""

    event: str
    name: str
    matcher: str | None
    timeout: int


#: the events memgov hooks into, in the order they are written
HOOKS = (
    HookSpec("SessionStart", "session-start", None, 10),
    HookSpec("UserPromptSubmit", "user-prompt", None, 10),
    HookSpec("PostToolUse", "post-tool", TOOL_MATCHER, 10),
    HookSpec("SessionEnd", "session-end", None, 120),
)


class SettingsError(MemgovError):
    """A settings file memgov will not write: not JSON, or not the shape Claude Code reads."""


def hook_command(program: str, name: str, stores: list[str], actor: str) -> str:
    """The shell command of one hook: ``PROGRAM hook NAME --store S ... --as ACTOR``."""
    parts = [program, "hook", name]
    for store in stores:
        parts += ["--store", store]
    parts += ["--as", actor]
    return " ".join(shlex.quote(part) for part in parts)


def server_entry(program: str, stores: list[str], actor: str) -> dict[str, Any]:
    """The ``mcpServers.memgov`` entry: ``PROGRAM mcp --store S ... --as ACTOR`` over stdio."""
    args = ["mcp"]
    for store in stores:
        args += ["--store", store]
    return {"command": program, "args": [*args, "--as", actor]}


def is_memgov_hook(handler: Any) -> bool:
    """Whether a hook handler is memgov's: a command running ``memgov hook``."""
    if not isinstance(handler, Mapping) or handler.get("type", "command") != "command":
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return len(words) >= 2 and PurePath(words[0]).name == "memgov" and words[1] == "hook"


def memgov_groups(
    program: str, stores: list[str], actor: str, hooks: Sequence[HookSpec] | None = None
) -> dict[str, dict[str, Any]]:
    """memgov's matcher group for each event of ``hooks`` (Claude Code's :data:`HOOKS`
    by default; Codex reads hooks in the same shape)."""
    groups: dict[str, dict[str, Any]] = {}
    for spec in HOOKS if hooks is None else hooks:
        group: dict[str, Any] = {}
        if spec.matcher is not None:
            group["matcher"] = spec.matcher
        group["hooks"] = [
            {
                "type": "command",
                "command": hook_command(program, spec.name, stores, actor),
                "timeout": spec.timeout,
            }
        ]
        groups[spec.event] = group
    return groups


def _hooks_of(settings: Mapping[str, Any], shown: str) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(
            f"{shown}: 'hooks' is not a JSON object; nothing was written: make it an "
            "object of event names (or remove it), then run again"
        )
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise SettingsError(
                f"{shown}: 'hooks.{event}' is not a list of matcher groups; nothing was "
                "written: fix it, then run again"
            )
    return hooks


def _without_memgov(groups: list[Any]) -> list[Any]:
    """The groups with memgov's handlers taken out (a group left with none goes)."""
    kept: list[Any] = []
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(is_memgov_hook(h) for h in handlers):
            kept.append(group)
            continue
        others = [h for h in handlers if not is_memgov_hook(h)]
        if others:
            kept.append({**group, "hooks": others})
    return kept


def _memgov_count(groups: list[Any]) -> int:
    return sum(
        1
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
        if is_memgov_hook(handler)
    )


def merge_hooks(
    settings: Mapping[str, Any], groups: Mapping[str, dict[str, Any]], *, shown: str = "settings"
) -> dict[str, Any]:
    """The settings with memgov's ``groups`` in place of any memgov hook there was
    (see the module's docstring); every other key, event and handler kept."""
    merged = copy.deepcopy(dict(settings))
    hooks = _hooks_of(merged, shown)
    for event, group in groups.items():
        present = hooks.get(event, [])
        if group in present and _memgov_count(present) == len(group["hooks"]):
            continue  # already there, as it would be written
        hooks[event] = [*_without_memgov(present), copy.deepcopy(group)]
    merged["hooks"] = hooks
    return merged


def remove_hooks(settings: Mapping[str, Any], *, shown: str = "settings") -> dict[str, Any]:
    """The settings without memgov's hook handlers (see the module's docstring)."""
    result = copy.deepcopy(dict(settings))
    if "hooks" not in result:
        return result
    hooks = _hooks_of(result, shown)
    for event in list(hooks):
        if _memgov_count(hooks[event]):
            kept = _without_memgov(hooks[event])
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not hooks and settings.get("hooks"):
        del result["hooks"]
    return result


def _servers_of(config: Mapping[str, Any], shown: str) -> dict[str, Any]:
    servers = config.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise SettingsError(
            f"{shown}: 'mcpServers' is not a JSON object; nothing was written: make it an "
            "object of server names (or remove it), then run again"
        )
    return servers


def merge_server(
    config: Mapping[str, Any], entry: Mapping[str, Any], *, shown: str = ".mcp.json"
) -> dict[str, Any]:
    """The MCP config with ``mcpServers.memgov`` set to ``entry`` (the other servers kept)."""
    merged = copy.deepcopy(dict(config))
    servers = _servers_of(merged, shown)
    if servers.get(SERVER_NAME) != entry:
        servers[SERVER_NAME] = copy.deepcopy(dict(entry))
    merged["mcpServers"] = servers
    return merged


def remove_server(config: Mapping[str, Any], *, shown: str = ".mcp.json") -> dict[str, Any]:
    """The MCP config without ``mcpServers.memgov`` (``mcpServers`` goes if it held only it)."""
    result = copy.deepcopy(dict(config))
    if "mcpServers" not in result:
        return result
    servers = _servers_of(result, shown)
    if SERVER_NAME in servers:
        del servers[SERVER_NAME]
        if not servers:
            del result["mcpServers"]
    return result


# ------------------------------------------------------------------ the files
#: the largest settings file memgov reads (they are a few kilobytes)
MAX_SETTINGS_BYTES = 16 * 1024 * 1024


def read_settings(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, None when there is no file; a file that is not a
    JSON object raises :class:`SettingsError` naming it and what to do."""
    fix = "nothing was written: fix the file (or move it aside), then run again"
    try:
        if path.is_symlink() and not path.exists():
            raise SettingsError(f"{path}: a link to nothing; {fix}")
        if path.exists() and not path.is_file():
            raise SettingsError(f"{path}: not a file; {fix}")
        if path.exists() and path.stat().st_size > MAX_SETTINGS_BYTES:
            raise SettingsError(f"{path}: over {MAX_SETTINGS_BYTES // (1024 * 1024)} MiB; {fix}")
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror}); {fix}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 (byte {exc.start + 1}); {fix}") from None
    if not text.strip():
        return {}
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); {fix}"
        ) from None
    if not isinstance(parsed, dict):
        raise SettingsError(f"{path}: not a JSON object; {fix}")
    return parsed


def render_settings(data: Mapping[str, Any]) -> str:
    """How memgov writes a settings file: two-space indentation, keys in their order."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_settings(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` at once: a temporary file beside it, flushed, then
    renamed over it (a kill leaves the old file or the new, never half of one); the
    file's mode is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(render_settings(data))
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------ setup
@dataclass(frozen=True)
class SetupChange:
    """One file ``memgov setup claude-code`` looked at: its path, what it holds of
    memgov's (``hooks`` or ``mcp``), and whether it was written (False: already so)."""

    path: str
    holds: str
    written: bool

    def line(self, remove: bool) -> str:
        what = "the hooks" if self.holds == "hooks" else "the MCP server"
        if not self.written:
            return f"{self.path}: {what} already {'absent' if remove else 'in place'}"
        return f"{self.path}: {what} {'removed' if remove else 'written'}"


def setup_paths(project: Path, *, user: bool, home: Path) -> tuple[Path, Path]:
    """(the settings file for the hooks, the file for the MCP server): a project's
    ``.claude/settings.json`` and ``.mcp.json``, or with ``user`` the user's
    ``~/.claude/settings.json`` and ``~/.claude.json``."""
    if user:
        return home / ".claude" / "settings.json", home / ".claude.json"
    return project / ".claude" / "settings.json", project / ".mcp.json"


def setup_claude_code(
    project: Path,
    *,
    program: str,
    stores: list[str],
    actor: str,
    user: bool = False,
    remove: bool = False,
    home: Path | None = None,
) -> list[SetupChange]:
    """Write memgov's hooks and MCP server into Claude Code's settings (or, with
    ``remove``, take them out). Both files are read and checked before either is
    written, so a file that is not JSON leaves both as they were; a file whose
    content would not change is not written at all."""
    settings_path, mcp_path = setup_paths(project, user=user, home=home or Path.home())
    settings = read_settings(settings_path)
    config = read_settings(mcp_path)
    if remove:
        new_settings = remove_hooks(settings or {}, shown=str(settings_path))
        new_config = remove_server(config or {}, shown=str(mcp_path))
    else:
        groups = memgov_groups(program, stores, actor)
        new_settings = merge_hooks(settings or {}, groups, shown=str(settings_path))
        new_config = merge_server(
            config or {}, server_entry(program, stores, actor), shown=str(mcp_path)
        )
    changes = []
    for path, old, new, holds in (
        (settings_path, settings, new_settings, "hooks"),
        (mcp_path, config, new_config, "mcp"),
    ):
        changed = new != (old or {}) and not (remove and old is None)
        if changed:
            write_settings(path, new)
        changes.append(SetupChange(str(path), holds, changed))
    return changes


def memory_folder(project: Path, home: Path) -> Path:
    """The Claude Code memory folder of a project: ``~/.claude/projects/<the project's
    path with '-' for every character not a letter or a digit>/memory``."""
    encoded = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(project))
    return home / ".claude" / "projects" / encoded / "memory"
