"""A session transcript of real MCP clients talking to ``memgov mcp``.

    .venv/bin/python screenshots/mcp_session.py      # writes screenshots/mcp-session.md

Builds a fresh English demo store in a temporary home folder (``~/memory``), then:

1. registers the server with Claude Code (``claude mcp add``, run in a project
   folder under that home) and runs its health check (``claude mcp list``), which
   starts the server and connects to it;
2. drives a short agent session with the MCP Inspector's command-line client
   (the protocol's reference client, on the TypeScript SDK): list the tools, log
   the user's message, remember from it, log and remember a contradicting value (a
   conflict opens), recall the key (nothing: both are in conflict), get one of the
   records (not current), recall what is known about the user, cite what was used,
   ask for a deletion, report another memory out of date, and send a bad argument
   (a tool error naming it);
3. prints the desk's queue (``memgov queue``) at the end: the items the session
   left for the user.

The server runs as plain ``memgov`` (this environment's ``bin`` folder first on
``PATH``), and every output is written as printed, the temporary home shown as
``~``. Needs ``npx`` (Node.js) and the network to fetch the two clients the first
time. Each Inspector call starts the server anew, as a one-shot client does.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots" / "mcp-session.md"
BIN = str(Path(sys.executable).parent)  # where this environment's ``memgov`` is
ACTOR = "liys05"  # the demo's user
TASK = "t-readme"


def run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=300, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return done.stdout


def fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text`` (a recall answer
    holds fences of its own)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = home / "shop"  # the folder Claude Code is started in
        project.mkdir(parents=True)
        store = home / "memory"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGOV_")}
        env.update(HOME=str(home), PATH=BIN + os.pathsep + env.get("PATH", ""))

        def shown(text: str) -> str:
            """What a user would see: their own home, not this run's temporary one."""
            return text.replace(str(store), "~/memory").replace(str(home), "~")

        run(["memgov", "demo", "--lang", "en", "--store", str(store), "--no-open"], env)
        server = ["memgov", "mcp", "--store", str(store), "--as", ACTOR]
        out = [
            "# A session with memgov's MCP server",
            "",
            "Made by `screenshots/mcp_session.py`: a fresh English demo store in `~/memory`",
            "(`memgov demo --lang en`), Claude Code registering the server and checking it,",
            "then the MCP Inspector's command-line client calling the tools one by one, as",
            "an agent would. Each Inspector call starts the server anew. Shown is each call's",
            "text content (a structured answer's is its JSON) and `isError: true` for a tool",
            "error; the outputs are as printed, the temporary home folder written as `~`.",
            "",
        ]

        def block(note: str, command: list[str], text: str, lang: str = "") -> None:
            text = shown(text).rstrip()
            mark = fence(text)
            out.extend(
                [
                    note,
                    "",
                    "```console",
                    "$ " + shown(shlex.join(command)),
                    "```",
                    f"{mark}{lang}",
                    text,
                    mark,
                    "",
                ]
            )

        claude = ["npx", "-y", "@anthropic-ai/claude-code"]
        added = run([*claude, "mcp", "add", "memgov", "--", *server], env, cwd=project)
        block(
            "Register the server with Claude Code (in the project's folder):",
            ["claude", "mcp", "add", "memgov", "--", *server],
            added,
        )
        listed = run([*claude, "mcp", "list"], env, cwd=project)
        block(
            "Claude Code's health check starts the server and connects to it:",
            ["claude", "mcp", "list"],
            listed,
        )

        inspector = ["npx", "-y", "@modelcontextprotocol/inspector", "--cli", *server]
        shown_inspector = ["npx", "@modelcontextprotocol/inspector", "--cli", *server]

        def call(note: str, tool: str, **arguments: object) -> dict[str, object]:
            argv = ["--method", "tools/call", "--tool-name", tool]
            for name, value in arguments.items():
                arg = value if isinstance(value, str) else json.dumps(value)
                argv += ["--tool-arg", f"{name}={arg}"]
            answer = json.loads(run([*inspector, *argv], env))
            text = "\n".join(c["text"] for c in answer["content"] if c.get("type") == "text")
            if answer.get("isError"):
                text = "isError: true\n" + text
            block(note, [*shown_inspector, *argv], text)
            return dict(answer.get("structuredContent") or {})

        def first_sentence(text: str) -> str:
            flat = " ".join(text.split())
            return flat.split(". ")[0].rstrip(".") + "."

        def access(tool: dict[str, Any]) -> str:
            hints = tool.get("annotations") or {}
            return "read-only" if hints.get("readOnlyHint") else "writes"

        tools = json.loads(run([*inspector, "--method", "tools/list"], env))["tools"]
        block(
            "The tools (a read-only tool is annotated `readOnlyHint`); none of them decides:",
            [*shown_inspector, "--method", "tools/list"],
            "\n".join(
                f"{t['name']:<16} {access(t):<10}{first_sentence(t['description'])}" for t in tools
            ),
        )
        call(
            "The user says how the shop deploys; the agent logs the message first:",
            "log",
            task=TASK,
            index=0,
            role="user",
            text="We deploy the shop with make ship.",
        )
        first = call(
            "and remembers it, its source pointing at that message and quoting it:",
            "remember",
            content="Deploy the shop with `make ship`.",
            type="semantic",
            subject="project:shop",
            attribute="deploy_command",
            value="make ship",
            source={"task": TASK, "message_index": 0, "evidence": "deploy the shop with make ship"},
            s1=0.9,
            s2=0.8,
        )
        call(
            "Later the user says something else:",
            "log",
            task=TASK,
            index=1,
            role="user",
            text="Since Monday it is make release.",
        )
        call(
            "Same key, another value: both records go to conflict, for a person to decide:",
            "remember",
            content="Deploy the shop with `make release`.",
            type="semantic",
            subject="project:shop",
            attribute="deploy_command",
            value="make release",
            source={"task": TASK, "message_index": 1, "evidence": "it is make release"},
            s1=0.9,
            s2=0.8,
        )
        call(
            "A record in conflict is not recalled:",
            "recall",
            subject_prefix="project:shop",
        )
        ids = first.get("memory_ids") or []
        if isinstance(ids, list) and ids:
            call(
                "and read by id it says it is not current:",
                "get",
                id=ids[0],
            )
        recalled = call(
            "What is remembered about the user, fenced and marked as data:",
            "recall",
            subject_prefix=f"user:{ACTOR}",
            limit=2,
        )
        memories = recalled.get("memories") or []
        if memories and isinstance(memories, list):
            used = memories[0]["id"]
            call("The agent says which memory it used:", "cite", ids=[used], task=TASK)
            call(
                "The user asks to forget it: a request, which a person decides in the desk:",
                "request_delete",
                id=used,
                reason="The user asked to forget it.",
            )
        if memories and isinstance(memories, list) and len(memories) > 1:
            call(
                "The user says another is out of date: a stale report, with their words as "
                "evidence, for a person to expire, correct or keep:",
                "report_stale",
                id=memories[1]["id"],
                reason="The user: that changed last month.",
            )
        call(
            "A bad argument is a tool error naming the argument, never its value; "
            "nothing is written:",
            "recall",
            subject_prefix="project:shop",
            limit=500,
        )
        queue = run(["memgov", "queue", "--store", str(store), "--as", ACTOR], env)
        block(
            "What the session left for the user in the review desk (the conflict, the "
            "deletion request and the stale report are the last three):",
            ["memgov", "queue", "--store", str(store), "--as", ACTOR],
            queue,
        )
        OUT.write_text("\n".join(out), encoding="utf-8")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
