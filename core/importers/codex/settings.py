"""memgov's entries in Codex's configuration: the MCP server and the hooks.

Codex reads its MCP servers from ``config.toml`` (``~/.codex/config.toml``, or
``$CODEX_HOME/config.toml``; a trusted project's ``.codex/config.toml`` too), one
``[mcp_servers.NAME]`` table each, and its hooks from a ``hooks.json`` beside it
(``~/.codex/hooks.json``, a project's ``.codex/hooks.json``), in the shape Claude
Code's settings use (``{"hooks": {"EVENT": [{"matcher": ..., "hooks": [...]}]}}``).
docs/agents.md says where each fact comes from.

- ``hooks.json`` is JSON: memgov's handlers are merged in with the functions
  Claude Code's settings use (:mod:`core.importers.claude_code.settings`): every
  other hook stays, memgov's own is recognised by its command and replaced.
- ``config.toml`` is the user's, with their comments and layout: memgov edits its
  own table alone, as text. The file is parsed first (a file that does not parse
  is refused with its name, line and column, and nothing is written); the table
  ``[mcp_servers.memgov]`` is appended at the end, after a comment that says who
  wrote it, or its lines replaced where it is; ``--remove`` takes out those lines
  (and the comment and the blank line memgov put before them). Every edit is
  checked by parsing the result: it must hold exactly what the file held, with
  ``mcp_servers.memgov`` set (or gone); when it does not (a table memgov does not
  recognise as its own, an entry written another way) nothing is written and the
  message says what to do by hand. Keys of the user's in memgov's table (a
  ``startup_timeout_sec``, an ``[mcp_servers.memgov.env]`` table) stay: then only
  its ``command`` and ``args`` lines are replaced.

A file is written whole to a temporary file beside it and renamed over it; a
link is followed (the file it names is written, the link stays).
"""

from __future__ import annotations

import copy
import json
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.importers.claude_code.settings import (
    MAX_SETTINGS_BYTES,
    HookSpec,
    SettingsError,
    SetupChange,
    memgov_groups,
    merge_hooks,
    remove_hooks,
    render_settings,
)

#: the MCP server's name in ``mcp_servers``
SERVER_NAME = "memgov"
#: the tools whose results are evidence from outside: Codex names its shell tool
#: ``Bash`` in a hook's event (older versions: ``shell``, ``exec_command`` ...), MCP
#: tools ``mcp__SERVER__TOOL``; ``apply_patch`` is the agent's own edit, not matched
TOOL_MATCHER = "Bash|shell|shell_command|exec_command|local_shell|mcp__.*"
#: the comment memgov writes above its table
MARK = "# memgov's MCP server: `memgov setup codex --remove` takes this table out"
_HEADER = re.compile(
    r"""^\s*\[\s*mcp_servers\s*\.\s*(?:memgov|"memgov"|'memgov')\s*\]\s*(?:\#.*)?$"""
)
_ANY_HEADER = re.compile(r"^\s*\[")
_KEY_LINE = re.compile(r"^\s*[^\s#\[]")
_OWN_KEY = re.compile(r"""^\s*(?:command|args|"command"|"args"|'command'|'args')\s*=""")


#: the events memgov hooks into, in the order they are written
HOOKS = (
    HookSpec("SessionStart", "session-start", None, 10),
    HookSpec("UserPromptSubmit", "user-prompt", None, 10),
    HookSpec("PostToolUse", "post-tool", TOOL_MATCHER, 10),
    HookSpec("Stop", "turn-end", None, 60),
)


def codex_home(home: Path) -> Path:
    """Codex's folder: ``$CODEX_HOME`` when it names an absolute path, else ``~/.codex``."""
    named = os.environ.get("CODEX_HOME", "")
    return Path(named) if named and os.path.isabs(named) else home / ".codex"


def setup_paths(project: Path, *, user: bool, home: Path) -> tuple[Path, Path]:
    """(hooks.json, config.toml): the project's ``.codex/`` ones, or the user's."""
    folder = codex_home(home) if user else project / ".codex"
    return folder / "hooks.json", folder / "config.toml"


def server_entry(program: str, stores: list[str], actor: str) -> dict[str, Any]:
    """The ``mcp_servers.memgov`` table: ``PROGRAM mcp --store S ... --as ACTOR``."""
    args = ["mcp"]
    for store in stores:
        args += ["--store", store]
    return {"command": program, "args": [*args, "--as", actor]}


# ------------------------------------------------------------------ config.toml
def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def table_lines(entry: Mapping[str, Any]) -> list[str]:
    """The lines of memgov's table, as memgov writes it."""
    args = ", ".join(_toml_string(str(a)) for a in entry["args"])
    return [
        f"[mcp_servers.{SERVER_NAME}]",
        f"command = {_toml_string(str(entry['command']))}",
        f"args = [{args}]",
    ]


def parse_toml(text: str, shown: str) -> dict[str, Any]:
    """The TOML document, or :class:`SettingsError` naming the file and the place."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(
            f"{shown}: not valid TOML ({exc}); nothing was written: fix the file (Codex "
            "does not read it either), then run again"
        ) from None


def _span(lines: list[str]) -> tuple[int, int] | None:
    """Where memgov's table is: (its header's index, one past its last key line)."""
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if start is None:
        return None
    end = start + 1
    for i in range(start + 1, len(lines)):
        if _ANY_HEADER.match(lines[i]):
            break
        if _KEY_LINE.match(lines[i]):
            end = i + 1
    return start, end


def _expected(doc: Mapping[str, Any], entry: Mapping[str, Any] | None) -> dict[str, Any]:
    result = copy.deepcopy(dict(doc))
    servers = dict(result.get("mcp_servers", {}))
    if entry is None:
        servers.pop(SERVER_NAME, None)
    else:
        servers[SERVER_NAME] = copy.deepcopy(dict(entry))
    if servers:
        result["mcp_servers"] = servers
    else:
        result.pop("mcp_servers", None)
    return result


def _by_hand(shown: str, what: str) -> SettingsError:
    return SettingsError(
        f"{shown}: {what}; nothing was written: memgov edits only a "
        f"[mcp_servers.{SERVER_NAME}] table of its own; edit or remove that entry by hand "
        "(docs/agents.md shows the table), then run again"
    )


def edit_config(text: str, entry: Mapping[str, Any] | None, *, shown: str) -> str:
    """``config.toml``'s text with memgov's table set to ``entry`` (None: taken out),
    every other line as it was (see the module's docstring)."""
    doc = parse_toml(text, shown)
    servers = doc.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise _by_hand(shown, "'mcp_servers' is not a table")
    present = servers.get(SERVER_NAME)
    if present is not None and not isinstance(present, dict):
        raise _by_hand(shown, f"mcp_servers.{SERVER_NAME} is not a table")
    others = bool(entry is not None and present and set(present) - {"command", "args"})
    if others and present is not None:  # keys of theirs (a timeout, an env table) stay
        entry = {**present, **dict(entry or {})}
    if present is not None and present == entry:
        return text
    if present is None and entry is None:
        return text
    lines = text.splitlines(keepends=True)
    span = _span([line.rstrip("\r\n") for line in lines])
    if present is not None and span is None:
        raise _by_hand(shown, f"mcp_servers.{SERVER_NAME} is written in another form")
    new_text = _edited(lines, span, entry, keep=others)
    if parse_toml_checked(new_text, shown) != _expected(doc, entry):
        raise _by_hand(shown, f"the [mcp_servers.{SERVER_NAME}] table holds more than memgov's")
    return new_text


def parse_toml_checked(text: str, shown: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise _by_hand(shown, "the edit would not parse") from None


def _edited(
    lines: list[str],
    span: tuple[int, int] | None,
    entry: Mapping[str, Any] | None,
    *,
    keep: bool = False,
) -> str:
    """The lines with memgov's table (``span``) replaced by ``entry``'s, or taken out
    (None), or appended; ``keep``: only its ``command`` and ``args`` lines replaced."""
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    ours = [line + newline for line in table_lines(entry)] if entry is not None else []
    if span is not None and keep:
        start, end = span
        body = [line for line in lines[start + 1 : end] if not _OWN_KEY.match(line)]
        return "".join(lines[: start + 1] + ours[1:] + body + lines[end:])
    if span is not None:
        start, end = span
        # taken out: the comment and the blank line memgov wrote before it go too
        if entry is None and start > 0 and lines[start - 1].rstrip("\r\n") == MARK:
            start -= 1
            if start > 0 and not lines[start - 1].strip():
                start -= 1
        return "".join(lines[:start] + ours + lines[end:])
    text = "".join(lines)
    if text and not text.endswith("\n"):
        text += newline
    if text.strip():
        text += newline
    return text + MARK + newline + "".join(ours)


# ------------------------------------------------------------------ the files
def _target(path: Path) -> Path:
    """The file a write goes to: ``path``, or the file a link there names."""
    if path.is_symlink():
        resolved = path.resolve(strict=False)
        if not resolved.exists():
            raise SettingsError(
                f"{path}: a link to {resolved}, which does not exist; nothing was written: "
                "fix the link (or remove it), then run again"
            )
        return resolved
    return path


def read_text(path: Path) -> str | None:
    """The file's text (None: no file); a file memgov will not read raises
    :class:`SettingsError` naming it and what to do."""
    fix = "nothing was written: fix the file (or move it aside), then run again"
    try:
        target = _target(path)
        if target.exists() and not target.is_file():
            raise SettingsError(f"{path}: not a file; {fix}")
        if target.exists() and target.stat().st_size > MAX_SETTINGS_BYTES:
            raise SettingsError(f"{path}: over {MAX_SETTINGS_BYTES // (1024 * 1024)} MiB; {fix}")
        data = target.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror}); {fix}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 (byte {exc.start + 1}); {fix}") from None


def read_hooks(path: Path) -> dict[str, Any] | None:
    """``hooks.json``'s JSON object (None: no file)."""
    text = read_text(path)
    if text is None:
        return None
    if not text.strip():
        return {}
    try:
        parsed = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "nothing was written: fix the file (or move it aside), then run again"
        ) from None
    if not isinstance(parsed, dict):
        raise SettingsError(
            f"{path}: not a JSON object; nothing was written: fix it, then run again"
        )
    return parsed


def write_text(path: Path, text: str | None) -> None:
    """Write ``text`` to the file (through a link) at once: a temporary file beside it,
    flushed, renamed over it; its mode kept. None: the file is removed."""
    target = _target(path)
    if text is None:
        target.unlink(missing_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def hooks_off(text: str | None) -> str | None:
    """Why Codex would not run the hooks, read from ``config.toml``'s ``[features]``
    (``hooks = false``, or the older ``codex_hooks = false``); None: nothing says so."""
    if not text:
        return None
    try:
        features = tomllib.loads(text).get("features", {})
    except tomllib.TOMLDecodeError:
        return None
    if not isinstance(features, dict):
        return None
    for key in ("hooks", "codex_hooks"):
        if features.get(key) is False:
            return f"[features] {key} = false: Codex runs no hooks until it is true"
    return None


def setup_codex(
    project: Path,
    *,
    program: str,
    stores: list[str],
    actor: str,
    user: bool = False,
    remove: bool = False,
    home: Path | None = None,
) -> tuple[list[SetupChange], str | None]:
    """Write memgov's hooks (``hooks.json``) and MCP server (``config.toml``) for
    Codex, or with ``remove`` take them out. Both files are read and checked before
    either is written; a file whose content would not change is not written.
    Returns the changes and, when ``config.toml`` switches hooks off, why."""
    hooks_path, config_path = setup_paths(project, user=user, home=home or Path.home())
    hooks = read_hooks(hooks_path)
    config = read_text(config_path)
    if remove:
        new_hooks = remove_hooks(hooks or {}, shown=str(hooks_path))
        new_config = edit_config(config or "", None, shown=str(config_path))
    else:
        groups = memgov_groups(program, stores, actor, HOOKS)
        new_hooks = merge_hooks(hooks or {}, groups, shown=str(hooks_path))
        entry = server_entry(program, stores, actor)
        new_config = edit_config(config or "", entry, shown=str(config_path))
    changes = []
    hooks_changed = new_hooks != (hooks or {}) and not (remove and hooks is None)
    if hooks_changed:
        write_text(hooks_path, render_settings(new_hooks))
    changes.append(SetupChange(str(hooks_path), "hooks", hooks_changed))
    config_changed = new_config != (config or "")
    if config_changed:
        # a file that held only memgov's table goes (a link keeps its file, emptied)
        gone = remove and not new_config and not config_path.is_symlink()
        write_text(config_path, None if gone else new_config)
    changes.append(SetupChange(str(config_path), "mcp", config_changed))
    return changes, hooks_off(new_config)


def memories_folder(home: Path) -> Path:
    """Codex's memories folder: ``~/.codex/memories`` (``$CODEX_HOME/memories``)."""
    return codex_home(home) / "memories"
