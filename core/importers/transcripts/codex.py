"""Codex rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (the session's
id), ``response_item`` (what the model saw and said: ``message`` of role ``user``,
``assistant`` or ``developer``, ``function_call`` / ``custom_tool_call`` /
``local_shell_call`` and their outputs, ``web_search_call``, ``reasoning``),
``event_msg`` (what the interface showed: ``user_message``, ``agent_message``,
``token_count`` ...), ``turn_context`` and ``compacted`` (a summary with the
``replacement_history`` that replaced the context). Older rollouts hold the items
alone, without the wrapper.

The user's typed prompt is in both a ``response_item`` message and an ``event_msg``
``user_message``: the event is logged, its copy is not. The other user-role items
(AGENTS.md instructions, ``<environment_context>``, ``<user_instructions>``) and the
developer messages (permissions, collaboration mode) are ``system``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from core.importers.transcripts.claude_code import tool_role
from core.importers.transcripts.model import Entry, Reading, brief, text_of, when_of

_ITEMS = {
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "web_search_call",
    "reasoning",
}
_CALLS = {"function_call", "custom_tool_call", "local_shell_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
_WRAPPERS = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}


class Codex:
    name = "codex"

    def claims(self, first: dict[str, Any]) -> bool:
        kind = first.get("type")
        return kind in _WRAPPERS or kind in _ITEMS or ("instructions" in first and "id" in first)

    def read(self, lines: list[tuple[int, dict[str, Any]]], reading: Reading) -> None:
        prompts = {
            " ".join(p["message"].split())
            for _, line in lines
            if line.get("type") == "event_msg"
            and isinstance(p := line.get("payload"), dict)
            and p.get("type") == "user_message"
            and isinstance(p.get("message"), str)
        }
        tools: dict[str, str] = {}
        for _number, line in lines:
            when = when_of(line.get("timestamp"))
            kind = line.get("type")
            payload = line.get("payload")
            if kind not in _WRAPPERS and kind in _ITEMS:  # an older rollout: the item alone
                kind, payload = "response_item", line
            if not isinstance(payload, dict):
                if reading.session is None and isinstance(line.get("id"), str):
                    reading.session = line["id"]  # an older rollout's first line
                reading.ignored += 1
                continue
            if kind == "session_meta":
                if reading.session is None and isinstance(payload.get("id"), str):
                    reading.session = payload["id"]
                reading.ignored += 1
            elif kind == "response_item":
                _item(payload, when, prompts, tools, reading)
            elif kind == "event_msg" and payload.get("type") == "user_message":
                text = payload.get("message")
                if isinstance(text, str) and text.strip():
                    reading.entries.append(Entry("user", text, when, "turn"))
                else:
                    reading.ignored += 1
            elif kind == "compacted":
                reading.entries.append(Entry("system", _compaction(payload), when))
            else:
                reading.ignored += 1


def _compaction(payload: dict[str, Any]) -> str:
    said = payload.get("message")
    if isinstance(said, str) and said.strip():
        return "context compacted: " + said
    history = payload.get("replacement_history")
    if isinstance(history, list):
        for item in reversed(history):
            if isinstance(item, dict) and item.get("type") == "message":
                text = text_of(item.get("content"))
                if text.strip():
                    return "context compacted; the summary carried on: " + text
    return "context compacted"


def _instructions(text: str) -> bool:
    head = text.lstrip()[:200]
    return head.startswith(("<", "# AGENTS.md")) or "AGENTS.md instructions" in head


def _item(
    item: dict[str, Any],
    when: Any,
    prompts: set[str],
    tools: dict[str, str],
    reading: Reading,
) -> None:
    kind = item.get("type")
    if kind == "message":
        role, text = item.get("role"), text_of(item.get("content"))
        if not text.strip():
            reading.ignored += 1
        elif role == "assistant":
            reading.entries.append(Entry("assistant", text, when))
        elif role == "user" and " ".join(text.split()) in prompts:
            reading.ignored += 1  # the typed prompt: logged from its event
        elif role == "user" and not prompts and not _instructions(text):
            reading.entries.append(Entry("user", text, when, "turn"))  # no events: an old rollout
        else:  # developer, system, AGENTS.md, environment context, injected notes
            reading.entries.append(Entry("system", text, when))
    elif kind in _CALLS:
        named = item.get("name")
        name = named if isinstance(named, str) else "shell"
        if isinstance(item.get("call_id"), str):
            tools[item["call_id"]] = name
        given = item.get("arguments", item.get("input", item.get("action")))
        if isinstance(given, str) and given.lstrip().startswith("{") and len(given) < 1 << 20:
            with contextlib.suppress(ValueError, RecursionError):
                given = json.loads(given)
        text = f"called {name[:80]}: {brief(given) if not isinstance(given, str) else given[:600]}"
        reading.entries.append(Entry("assistant", text, when, "call"))
    elif kind in _OUTPUTS:
        used = item.get("call_id")
        name = tools.get(used, "") if isinstance(used, str) else ""
        reading.entries.append(Entry(tool_role(name), _output(item.get("output")), when, "result"))
    elif kind == "web_search_call":
        action = item.get("action")
        query = action.get("query") if isinstance(action, dict) else None
        text = f"web search: {query}" if isinstance(query, str) else "web search"
        reading.entries.append(Entry("web", text, when, "call"))
    else:
        reading.ignored += 1


def _output(output: object) -> str:
    """A tool's output: a string (in older rollouts a JSON string with ``output`` and
    ``metadata``), or an object with ``content`` or ``output``."""
    if isinstance(output, str) and output.startswith("{") and len(output) < 1 << 22:
        raw = output
        try:
            output = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    if isinstance(output, dict):
        inner = output.get("output", output.get("content"))
        text = inner if isinstance(inner, str) else text_of(inner)
        code = (
            (output.get("metadata") or {}).get("exit_code")
            if isinstance(output.get("metadata"), dict)
            else None
        )
        return (f"exit {code}: " if isinstance(code, int) else "") + (text or "(empty)")
    if isinstance(output, str):
        return output or "(empty)"
    return text_of(output) or "(empty)"
