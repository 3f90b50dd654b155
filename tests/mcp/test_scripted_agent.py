"""A scripted agent over a real stdio MCP session, using only what the server advertises.

The agent knows nothing of memgov but what ``initialize`` and ``tools/list`` give
it: the server's instructions and each tool's input schema. It builds every call
from the schema alone: the arguments the schema requires, filled from what it has
at hand (the memory in words, the user's message it logged, the key it names),
plus the optional arguments it has a value for, each checked against the schema
(a property the tool has, a choice its enum offers). It never sends ``s1`` or
``s2``: the schema does not require them, and the instructions say the gate
settles them.

The session: log the user's messages, remember (no scores), recall, a second
remember that conflicts with the first, a deletion request, and a team write from
someone who is not a maintainer of the team store (held as a promotion request).
Afterwards the stores are read as files: the records, the queue's items, the events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import commit_count, events, tree_state
from support_desk import workspace
from support_mcp import Served, served

from core.domain.record import parse_memory
from core.review.queue import build_queue

#: not a maintainer of the demo's team store (core.demo.cast.MAINTAINERS)
ACTOR = "sam@example.com"
TASK = "t-scripted-1"


class ScriptedAgent:
    """An agent that calls tools as their advertised schemas say, and nothing more."""

    def __init__(self, served: Served, tools: dict[str, dict[str, Any]], instructions: str):
        self.served = served
        self.tools = tools
        self.instructions = instructions
        self.said = 0  # the index of the next message of the task

    def arguments(self, tool: str, have: dict[str, Any]) -> dict[str, Any]:
        """The arguments of ``tool`` from what the agent has: every required one (the
        agent must have it), and the optional ones it has, each checked against the
        schema."""
        schema = self.tools[tool]
        properties = schema["properties"]
        missing = [name for name in schema.get("required", []) if name not in have]
        assert not missing, f"{tool}: the agent lacks what the schema requires: {missing}"
        sent = {}
        for name, value in have.items():
            assert name in properties, f"{tool}: the schema has no argument {name}"
            choices = _choices(properties[name])
            assert not choices or value in choices, f"{tool}: {name} not one of {choices}"
            sent[name] = value
        return sent

    def source(self, task: str, index: int, evidence: str) -> dict[str, Any]:
        """A ``source`` built from the schema's definition of one."""
        source_schema = _resolved(self.tools["remember"], self.tools["remember"]["properties"])
        fields = source_schema["properties"]
        have = {"task": task, "message_index": index, "evidence": evidence}
        assert set(source_schema.get("required", [])) <= set(have)
        assert set(have) <= set(fields), fields
        return have

    async def call(self, tool: str, **have: Any) -> dict[str, Any]:
        return dict(await self.served.call(tool, **self.arguments(tool, have)))

    async def user_says(self, text: str) -> dict[str, Any]:
        """Log the user's message (the instructions: log what matters)."""
        logged = await self.call("log", task=TASK, index=self.said, role="user", text=text)
        logged["index"] = self.said
        self.said += 1
        return logged

    async def remember(self, content: str, *, quote: str, index: int, **key: Any) -> dict[str, Any]:
        """Remember with what it has: the memory, its source, and the key it names."""
        have = {"content": content, "source": self.source(TASK, index, quote), **key}
        return await self.call("remember", **have)


def _choices(prop: dict[str, Any]) -> list[Any]:
    for option in [prop, *prop.get("anyOf", [])]:
        if "enum" in option:
            return list(option["enum"])
    return []


def _resolved(schema: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    """The object schema of ``source``, following its ``$ref`` into ``$defs``."""
    for option in properties["source"].get("anyOf", [properties["source"]]):
        ref = option.get("$ref")
        if ref:
            name = ref.rsplit("/", 1)[-1]
            found: dict[str, Any] = schema["$defs"][name]
            return found
    raise AssertionError("the remember schema does not say what a source is")


async def connect(s: Served) -> ScriptedAgent:
    listed = (await s.client.list_tools()).tools
    tools = {t.name: t.input_schema for t in listed}
    agent = ScriptedAgent(s, tools, s.client.instructions or "")
    # what the advertised schema and instructions tell the agent
    remember = tools["remember"]
    assert "s1" not in remember["required"] and "s2" not in remember["required"]
    assert "source" in remember["properties"]
    for word in ("`log`", "`remember`", "`recall`", "`request_delete`", "`evidence`"):
        assert word in agent.instructions, word
    assert "Left out, the gate settles them" in agent.instructions
    assert "stable" in remember["properties"]["s1"]["description"]
    assert "reusable" in remember["properties"]["s2"]["description"]
    return agent


async def test_a_scripted_agent_completes_a_session_from_the_schema_alone(demo: Path) -> None:
    team_before = tree_state(demo / "team"), commit_count(demo / "team")
    async with served(demo, actor=ACTOR) as s:
        agent = await connect(s)

        # the user states a fact: logged, then remembered with no scores
        said = await agent.user_says("for the kiosk project we use pnpm, always")
        assert said["store"] == "private"
        first = await agent.remember(
            "The kiosk project uses pnpm as its package manager.",
            quote="we use pnpm",
            index=said["index"],
            type="semantic",
            subject="project:kiosk",
            attribute="package_manager",
            value="pnpm",
        )
        assert first["outcome"] == "written", first["reasons"]
        s1, s2 = first["gate"]["criteria"][:2]
        assert (s1["settled"], s2["settled"]) == ("type-default", "type-default")
        assert any("s1 settled by the gate" in r for r in first["reasons"])
        (pnpm_id,) = first["memory_ids"]

        # a preference, to forget later
        said = await agent.user_says("please answer me in French from now on")
        french = await agent.remember(
            "The user wants answers in French.",
            quote="answer me in French",
            index=said["index"],
            type="preference",
            subject="user:sam",
            attribute="answer_language",
            value="French",
        )
        assert french["outcome"] == "written", french["reasons"]
        (french_id,) = french["memory_ids"]

        # recall at the start of the next task
        recalled = await agent.call("recall", subject_prefix="project:kiosk")
        assert [m["id"] for m in recalled["memories"]] == [pnpm_id]
        assert recalled["memories"][0]["provenance"]["cited"] == "user"

        # the user contradicts the first memory: a conflict for a person
        said = await agent.user_says("no, the kiosk project moved to yarn")
        second = await agent.remember(
            "The kiosk project uses yarn as its package manager.",
            quote="moved to yarn",
            index=said["index"],
            type="semantic",
            subject="project:kiosk",
            attribute="package_manager",
            value="yarn",
        )
        assert second["outcome"] == "conflict", second["reasons"]
        conflict_item = second["item"]
        assert pnpm_id in second["memory_ids"] and conflict_item.startswith("conflict-")

        # the user asks to forget the preference
        said = await agent.user_says("forget that I want French answers")
        deletion = await agent.call(
            "request_delete", id=french_id, reason="forget that I want French answers"
        )
        assert deletion["filed"] is True and deletion["kind"] == "delete"

        # a team memory, from someone who is not a maintainer: held for review
        said = await agent.user_says("tell the team: the kiosk deploys on Thursdays")
        team = await agent.remember(
            "The kiosk project deploys on Thursdays.",
            quote="the kiosk deploys on Thursdays",
            index=said["index"],
            type="semantic",
            subject="project:kiosk",
            attribute="deploy_day",
            value="thursday",
            scope="team",
        )
        assert team["outcome"] == "held", team["reasons"]
        promotion = team["held_for_review"]
        assert promotion and team["store"] == "private"
        status = await agent.call("request_status", request_id=promotion)
        assert (status["kind"], status["status"]) == ("promote", "open")
    assert "Traceback" not in s.errors

    # the records, as files
    private = demo / "private"
    records = {
        m.id: m
        for m in (
            parse_memory(p.read_text(encoding="utf-8"), path=p)
            for p in (private / "memories").rglob("*.md")
        )
        if m.subject in ("project:kiosk", "user:sam")
    }
    assert records[pnpm_id].status == "conflict"
    (yarn_id,) = [i for i in second["memory_ids"] if i != pnpm_id]
    assert (records[yarn_id].status, records[yarn_id].value) == ("conflict", "yarn")
    assert records[french_id].status == "active"  # a person decides the deletion
    (held,) = [m for m in records.values() if m.attribute == "deploy_day"]
    assert (held.scope, held.status) == ("private", "active")
    # the team store: untouched
    assert (tree_state(demo / "team"), commit_count(demo / "team")) == team_before

    # the queue a person opens
    items = {i.id: i for i in build_queue(workspace(demo))}
    assert items[conflict_item].kind == "conflict"
    kinds = {(i.kind, i.request.id) for i in items.values() if i.request is not None}
    assert ("deletion", deletion["id"]) in kinds
    assert ("promotion", promotion) in kinds

    # the events: each write by the agent's actor, each settled score with its rule
    mine = [e for e in events(private) if e.get("actor") == ACTOR]
    # a write's event keeps the gate's score (a conflict's other record moves without one)
    created = [e for e in mine if e["action"] in ("create", "conflict") and "gate" in e["details"]]
    assert {m for e in created for m in e["memory_ids"]} >= {pnpm_id, french_id, yarn_id, held.id}
    for event in created:
        assert event["details"]["settled"]["s1"]["rule"] == "type-default", event
        assert event["details"]["settled"]["s2"]["rule"] == "type-default", event
    assert any(e["action"] == "conflict-opened" for e in mine)
    assert not [e for e in mine if e["action"] == "refuse"]
