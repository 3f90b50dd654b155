"""What an agent's hooks log: the user's words and what came from outside.

Claude Code runs a hook with the event's JSON on standard input (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, and the event's own fields:
``prompt`` for UserPromptSubmit, ``tool_name``, ``tool_input`` and
``tool_response`` for PostToolUse). The event is untrusted input: every field is
read by type, and one of another type counts as absent.

- :func:`prompt_said`: a prompt is the user's message (role ``user``);
- :func:`tool_said`: a tool's result is evidence from outside, with a role that
  says where it came from: ``web`` (WebFetch, WebSearch), ``file`` (Read of a file
  outside the project; one inside is the project's own, not logged), ``tool`` (an
  MCP tool, Bash's output) and ``agent`` (a subagent's result: Task, Agent).
  Codex's events have the same fields: its shell tool is ``Bash`` there (older
  versions: ``shell``, ``shell_command``, ``exec_command``, ``local_shell``, whose
  ``command`` may be a list of words), its result a string; ``apply_patch`` is the
  agent's own edit and is not logged.
  memgov's own MCP tools are not logged (what they answer is the store's already).

The text logged is redacted first, as the store's log writes a credential: ``[secret:
<rule> #<salted hash>]`` (:func:`log_redactor`, :func:`core.store.logs.redacted`): no
credential is written, and a memory's quote of the message still finds its line. A
long text is logged as an excerpt with the length and the SHA-256 of the whole
(redacted) text. :func:`log_said` appends it to the daily log under the task (the
session's id) at the task's next message index.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.domain.errors import ValidationError
from core.store.logs import MESSAGE_RE, TASK_RE, excerpt_line, excerpt_of, log_path
from core.store.workspace import Workspace
from core.writing.remember import Logged, log_in

#: the most characters of a text logged whole; a longer one is an excerpt with its hash
EXCERPT_CHARS = 2_000
#: the most characters of a target (a URL, a path, a command) shown in a line
TARGET_CHARS = 300
_TASK_BAD = re.compile(r"[^A-Za-z0-9._:-]+")
#: memgov's own MCP tools, as Claude Code and Codex name them (mcp__<server>__<tool>)
OWN_TOOLS = "mcp__memgov__"
#: the shell tools whose output is logged as ``tool``: Claude Code's, and Codex's by
#: the names its versions gave them
SHELL_TOOLS = frozenset({"Bash", "shell", "shell_command", "exec_command", "local_shell"})


#: what redacts a text before it is logged (:func:`log_redactor`)
Redactor = Callable[[str], str]


def plain(text: str) -> str:
    """A credential as ``[secret: <rule>]`` (no store at hand to salt a mark)."""
    from core.domain.secrets import redact

    return redact(text)


def log_redactor(workspace: Workspace) -> Redactor:
    """The redaction of the store :func:`log_in` writes to: each credential as the
    store's log marks it, with its salted hash (the same secret, the same mark)."""
    from core.store.logs import redacted

    store = workspace.private or (workspace.stores[0] if workspace.stores else None)
    if store is None:
        return plain
    state_dir = store.state_dir
    return lambda text: redacted(state_dir, text)


@dataclass(frozen=True)
class Said:
    """A message for the daily log: who said it (its role) and the text."""

    role: str
    text: str


def text_field(event: Mapping[str, Any], name: str) -> str:
    """A string field of the event ('' when it is absent or not a string)."""
    value = event.get(name)
    return value if isinstance(value, str) else ""


def task_of(event: Mapping[str, Any]) -> str:
    """The task the session's messages are logged under: its session id, made one word."""
    task = _TASK_BAD.sub("-", text_field(event, "session_id")).strip("-")[:128]
    return task or "claude-session"


def said_key(role: str, text: str, redact: Redactor = plain) -> tuple[str, str]:
    """What identifies a message the hooks logged, whatever its length: its role and the
    SHA-256 of its redacted words on one line (the hash an excerpt keeps). A transcript
    read at the session's end skips what the hooks logged live (core.importers.transcripts)."""
    shown = " ".join(redact(text).split())
    return role, hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()


def said_keys(
    role: str, text: str, head: str = "", redact: Redactor = plain
) -> set[tuple[str, str]]:
    """The keys a message of a transcript would have had, logged by the hooks: its own
    (:func:`said_key`) and, for a tool's result, that of the line the post-tool hook
    writes (``head`` the call's :func:`tool_head`: ``head: result``)."""
    keys = {said_key(role, text, redact)}
    if head:
        keys.add(said_key(role, f"{head}: {text}", redact))
    return keys


def logged_key(role: str, body: str) -> tuple[str, str]:
    """:func:`said_key` of a line as the hooks wrote it (an excerpt names its hash)."""
    cut = excerpt_of(body)
    if cut is not None:
        return role, cut.sha256
    return role, hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def excerpt(text: str, redact: Redactor = plain) -> str:
    """The text, redacted, on one line; past :data:`EXCERPT_CHARS` its start, with the
    whole's length and SHA-256 (:func:`core.store.logs.excerpt_line`)."""
    return excerpt_line(redact(text), EXCERPT_CHARS)


def prompt_said(event: Mapping[str, Any], redact: Redactor = plain) -> Said | None:
    """The user's prompt as the user's message (None: no prompt)."""
    prompt = text_field(event, "prompt")
    return Said("user", excerpt(prompt, redact)) if prompt.strip() else None


def response_text(response: Any) -> str:
    """The text of a tool's response, whatever its shape: a string, content blocks
    (``[{"type": "text", "text": ...}]``), or an object whose text is in ``stdout`` and
    ``stderr`` (Bash), ``file.content`` (Read), ``result`` (WebFetch), ``content`` or
    ``results``; anything else as JSON."""
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        texts = [
            b["text"] for b in response if isinstance(b, dict) and isinstance(b.get("text"), str)
        ]
        if texts:
            return "\n".join(texts)
    if isinstance(response, dict):
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return str(file["content"])
        if isinstance(response.get("stdout"), str) or isinstance(response.get("stderr"), str):
            parts = [response.get("stdout"), response.get("stderr")]
            return "\n".join(p for p in parts if isinstance(p, str) and p)
        for key in ("result", "content", "results", "output", "text"):
            if key in response:
                return response_text(response[key])
    try:
        return json.dumps(response, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return ""


def _outside(path_text: str, project: Path) -> bool:
    """Whether a path read lies outside the project folder."""
    try:
        path = Path(path_text)
        if not path.is_absolute():
            path = project / path
        path = path.resolve(strict=False)
        path.relative_to(project.resolve(strict=False))
    except (ValueError, OSError, RuntimeError):
        return True
    return False


def _target(tool_input: Any, *keys: str) -> str:
    if not isinstance(tool_input, dict):
        return ""
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
            value = " ".join(value)  # a command as its words (Codex's older shell tools)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:TARGET_CHARS]
    return ""


def tool_role(tool: str, tool_input: Any, project: Path) -> str | None:
    """The role a tool's result is logged with (None: not logged)."""
    if tool in ("WebFetch", "WebSearch"):
        return "web"
    if tool == "Read":
        path = _target(tool_input, "file_path", "path")
        return "file" if path and _outside(path, project) else None
    if tool.startswith(OWN_TOOLS):
        return None
    if tool.startswith("mcp__") or tool in SHELL_TOOLS:
        return "tool"
    if tool in ("Task", "Agent"):
        return "agent"
    return None


def tool_said(event: Mapping[str, Any], project: Path, redact: Redactor = plain) -> Said | None:
    """A tool's result as evidence from outside (None: a tool whose result is not logged)."""
    tool = text_field(event, "tool_name")
    tool_input = event.get("tool_input")
    role = tool_role(tool, tool_input, project)
    if role is None:
        return None
    body = excerpt(response_text(event.get("tool_response")), redact)
    head = tool_head(tool, tool_input, redact=redact)
    return Said(role, f"{head}: {body}" if body else head)


def tool_head(
    tool: str, tool_input: Any, *, redacted: bool = True, redact: Redactor = plain
) -> str:
    """What a logged tool result starts with: the tool and its target (the URL, the
    query, the path or the command), redacted; ``head: result`` is the line's text.
    ``redacted=False``: as the call gave it, for a key (:func:`said_keys` redacts the
    whole line, and skips the credential scan of every call of a transcript)."""
    target = _target(
        tool_input,
        *("url", "query", "file_path", "path", "command", "cmd", "description", "prompt"),
    )
    if redacted:
        target = redact(target)
    return f"{tool} {target}".strip()


def next_index(workspace: Workspace, task: str) -> int:
    """The task's next message index in today's log of the store :func:`log_in` writes
    to (0 for a task not logged today)."""
    store = workspace.private or (workspace.stores[0] if workspace.stores else None)
    if store is None:
        return 0
    try:
        text = (store.root / log_path(store.now())).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    highest, inside = -1, False
    for line in text.splitlines():
        header = TASK_RE.match(line)
        if header:
            inside = header["task"] == task
            continue
        found = MESSAGE_RE.match(line) if inside else None
        if found:
            highest = max(highest, int(found["index"]))
    return highest + 1


def log_said(workspace: Workspace, *, task: str, said: Said, actor: str) -> Logged:
    """Append the message to the daily log at the task's next index. Another hook of
    the same session may take that index first (Claude Code runs hooks side by
    side): then the next one is tried, a few times."""
    index = next_index(workspace, task)
    for attempt in range(8):
        try:
            return log_in(
                workspace, task=task, index=index, role=said.role, text=said.text, actor=actor
            )
        except ValidationError as exc:
            if exc.field != "index" or attempt == 7:
                raise
            index = max(index + 1, next_index(workspace, task))
    raise AssertionError("unreachable")  # pragma: no cover
