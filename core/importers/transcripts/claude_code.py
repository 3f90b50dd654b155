"""Claude Code session transcripts: ``~/.claude/projects/<project>/<session>.jsonl``
and a subagent's ``<session>/subagents/agent-<id>.jsonl`` (every line
``isSidechain: true``).

Each line is one object: ``user`` and ``assistant`` lines carry a ``message`` whose
``content`` is a string or a list of blocks (``text``, ``thinking``, ``tool_use``,
``tool_result``, ``image``); one assistant message may be split over several lines
(one block each), each logged as it comes. ``summary`` lines and ``isCompactSummary``
user lines are compaction summaries; ``isMeta`` user lines are injected by Claude
Code (caveats, skill text); ``system`` lines are its notices. Other lines
(``progress``, ``file-history-snapshot``, ``queue-operation``, ``pr-link`` ...) are no
message.
"""

from __future__ import annotations

import re
from typing import Any

from core.importers.transcripts.model import Entry, Reading, brief, text_of, when_of
from core.writing.hook_events import tool_head

_LINE_TYPES = {"user", "assistant", "summary", "system", "progress", "file-history-snapshot"}
_INJECTED = re.compile(
    r"^\s*(<system-reminder>|<local-command-caveat>|Caveat: The messages below|"
    r"\[Request interrupted|<task-notification>|This session is being continued)"
)
_COMMAND_OUTPUT = re.compile(r"^\s*<(local-command-stdout|local-command-stderr|bash-stdout)")


def tool_role(name: str) -> str:
    """The role of what a tool gave back, by the tool's name."""
    low = name.lower().replace("_", "")
    if "webfetch" in low or "websearch" in low:
        return "web"
    if low == "read" or low.endswith("__read"):
        return "file"
    if low in ("task", "agent"):
        return "agent"
    return "tool"


class ClaudeCode:
    name = "claude-code"

    def claims(self, first: dict[str, Any]) -> bool:
        return "sessionId" in first or first.get("type") in _LINE_TYPES

    def read(self, lines: list[tuple[int, dict[str, Any]]], reading: Reading) -> None:
        tools: dict[str, tuple[str, str]] = {}  # tool_use id -> its name, its hook's head
        for number, line in lines:
            if reading.session is None and isinstance(line.get("sessionId"), str):
                reading.session = line["sessionId"]
            kind = line.get("type")
            when = when_of(line.get("timestamp"))
            side = _side(line)
            if kind == "summary" and isinstance(line.get("summary"), str):
                reading.entries.append(Entry("system", "summary: " + line["summary"], when))
            elif kind == "system" and isinstance(line.get("content"), str) and line["content"]:
                reading.entries.append(Entry("system", line["content"], when))
            elif kind in ("user", "assistant") and not isinstance(line.get("message"), dict):
                reading.skip(number, f"a {kind} line whose message is not an object")
            elif kind == "user":
                _user(number, line, when, side, tools, reading)
            elif kind == "assistant":
                _assistant(number, line["message"].get("content"), when, side, tools, reading)
            else:
                reading.ignored += 1


def _side(line: dict[str, Any]) -> str:
    """A sidechain's own task suffix: ``agent-<id>`` (its messages are the subagent's)."""
    if line.get("isSidechain") is not True:
        return ""
    agent = line.get("agentId")
    return f"agent-{agent}" if isinstance(agent, str) and agent else "agent"


def _said(text: str, line: dict[str, Any], side: str) -> tuple[str, str]:
    """The role of a user line's own words, and whether they count as a turn."""
    if line.get("isMeta") is True or line.get("isCompactSummary") is True:
        return "system", ""
    if _INJECTED.match(text):
        return "system", ""
    if _COMMAND_OUTPUT.match(text):
        return "tool", ""
    if text.lstrip().startswith("<command-name>"):
        return "user", ""  # a slash command the user ran: no prompt to the model
    if side:  # a subagent's prompt: written by the agent that started it
        return "agent", "turn"
    return "user", "turn"


def _user(
    number: int,
    line: dict[str, Any],
    when: Any,
    side: str,
    tools: dict[str, tuple[str, str]],
    reading: Reading,
) -> None:
    """A user line: tool results, each by its tool; the words, each text block by who
    wrote it (a ``<system-reminder>`` beside the typed words is Claude Code's)."""
    content = line["message"].get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        reading.skip(number, "a user message whose content is neither text nor a list")
        return
    said: list[tuple[str, str, str]] = []  # (role, counts as, text), neighbours merged

    def say(text: str) -> None:
        if not text.strip():
            return
        role, counts = _said(text, line, side)
        if said and said[-1][0] == role:
            said[-1] = (role, said[-1][1] or counts, said[-1][2] + "\n" + text)
        else:
            said.append((role, counts, text))

    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            used = block.get("tool_use_id")
            name, head = tools.get(used, ("", "")) if isinstance(used, str) else ("", "")
            text = text_of(block.get("content"))
            if block.get("is_error") is True:
                text, head = "error: " + text, ""
            reading.entries.append(
                Entry(tool_role(name), text or "(empty)", when, "result", side, head)
            )
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            say(block["text"])
        elif isinstance(block.get("type"), str) and said:  # an image beside the words
            said[-1] = (*said[-1][:2], said[-1][2] + f" [{block['type'][:40]}]")
    for role, counts, text in said:
        reading.entries.append(Entry(role, text, when, counts, side))


def _assistant(
    number: int,
    content: object,
    when: Any,
    side: str,
    tools: dict[str, tuple[str, str]],
    reading: Reading,
) -> None:
    role = "agent" if side else "assistant"
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        reading.skip(number, "an assistant message whose content is neither text nor a list")
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            reading.entries.append(Entry(role, block["text"], when, "", side))
        elif kind == "tool_use":
            named = block.get("name")
            name = named if isinstance(named, str) else "?"
            if isinstance(block.get("id"), str):
                tools[block["id"]] = (name, tool_head(name, block.get("input"), redacted=False))
            text = f"called {name[:80]}: {brief(block.get('input'))}"
            reading.entries.append(Entry(role, text, when, "call", side))
