"""A session transcript of real MCP clients talking to ``memgov mcp``.

    .venv/bin/python screenshots/mcp_session.py      # writes screenshots/mcp-session.md

Builds a fresh English demo store in a temporary folder, then:

1. registers the server with Claude Code (``claude mcp add``) and runs its health
   check (``claude mcp list``), which starts the server and connects to it;
2. drives a short agent session with the MCP Inspector's command-line client
   (the protocol's reference client, on the TypeScript SDK): list the tools, log
   the user's message, remember from it, remember a contradicting value (a
   conflict opens), recall, cite what was used, ask for a deletion;
3. prints the desk's queue (``memgov queue``) at the end: the items the session
   left for the user.

Needs ``npx`` (Node.js) and the network to fetch the two clients the first time.
Each Inspector call starts the server anew, as a one-shot client does.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "screenshots" / "mcp-session.md"
MEMGOV = str(Path(sys.executable).parent / "memgov")
ACTOR = "liys05"  # the demo's user


def run(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return done.stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        store = Path(tmp) / "memory"
        env = {**os.environ, "HOME": str(home), "MEMGOV_ACTOR": ACTOR}
        run(
            [
                sys.executable,
                "-m",
                "tui.cli",
                "demo",
                "--lang",
                "en",
                "--store",
                str(store),
                "--no-open",
            ],
            env,
        )
        server = [MEMGOV, "mcp", "--store", str(store)]
        shown_server = ["memgov", "mcp", "--store", "~/memory"]
        out = [
            "# A session with memgov's MCP server",
            "",
            "Made by `screenshots/mcp_session.py` on a fresh demo store (`~/memory`).",
            "",
        ]

        def block(command: list[str], text: str, lang: str = "") -> None:
            out.extend(
                [
                    "```console",
                    "$ " + shlex.join(command),
                    "```",
                    f"```{lang}",
                    text.rstrip(),
                    "```",
                    "",
                ]
            )

        claude = ["npx", "-y", "@anthropic-ai/claude-code"]
        added = run([*claude, "mcp", "add", "memgov", "--", *server], env)
        block(
            ["claude", "mcp", "add", "memgov", "--", *shown_server],
            added.replace(str(store), "~/memory").replace(str(home), "~"),
        )
        listed = run([*claude, "mcp", "list"], env)
        block(["claude", "mcp", "list"], listed.replace(str(store), "~/memory"))

        inspector = ["npx", "-y", "@modelcontextprotocol/inspector", "--cli", *server]

        def call(tool: str, **arguments: object) -> dict[str, object]:
            argv = ["--method", "tools/call", "--tool-name", tool]
            for name, value in arguments.items():
                shown = value if isinstance(value, str) else json.dumps(value)
                argv += ["--tool-arg", f"{name}={shown}"]
            answer = json.loads(run([*inspector, *argv], env))
            text = answer["content"][0]["text"]
            block(
                ["npx", "@modelcontextprotocol/inspector", "--cli", *shown_server, *argv],
                text.replace(str(store), "~/memory"),
            )
            return dict(answer.get("structuredContent") or {})

        tools = json.loads(run([*inspector, "--method", "tools/list"], env))["tools"]
        block(
            [
                "npx",
                "@modelcontextprotocol/inspector",
                "--cli",
                *shown_server,
                "--method",
                "tools/list",
            ],
            "\n".join(f"{t['name']:<16} {t['description'].splitlines()[0]}" for t in tools),
        )
        task = "t-readme"
        call("log", task=task, index=0, role="user", text="We deploy the shop with make ship.")
        call(
            "remember",
            content="Deploy the shop with `make ship`.",
            type="semantic",
            subject="project:shop",
            attribute="deploy_command",
            value="make ship",
            source={"task": task, "message_index": 0, "evidence": "deploy with make ship"},
            s1=0.9,
            s2=0.8,
        )
        call("log", task=task, index=1, role="user", text="Since Monday it is make release.")
        call(
            "remember",
            content="Deploy the shop with `make release`.",
            type="semantic",
            subject="project:shop",
            attribute="deploy_command",
            value="make release",
            source={"task": task, "message_index": 1, "evidence": "it is make release"},
            s1=0.9,
            s2=0.8,
        )
        recalled = call("recall", subject_prefix="user:")
        memories = recalled.get("memories") or []
        if memories and isinstance(memories, list):
            first = memories[0]["id"]
            call("cite", ids=[first], task=task)
            call("request_delete", id=first, reason="The user asked to forget it.")
        queue = run([sys.executable, "-m", "tui.cli", "queue", "--store", str(store)], env)
        block(["memgov", "queue", "--store", "~/memory"], queue.replace(str(store), "~/memory"))
        OUT.write_text("\n".join(out), encoding="utf-8")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
