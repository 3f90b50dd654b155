"""A warm MCP server's recall answers what reading every record answers, call after call.

The server (``memgov mcp`` in a subprocess, the SDK's own client over stdio) keeps
its stores open between calls; its recall walks the catalog's rank index
(core.writing.decay.by_rank) and keeps the roles of the messages records cite. Its
answer is checked against one made here from the files with the slow path
(:func:`core.writing.decay.by_reading`, :func:`core.writing.quarantine.provenance`,
:func:`core.store.reaching.vouched`): the same records in the same order, the same
weights, the same withheld items and provenance and review marks. On a store with
hinted, flagged, kept and held records; then again after another process's ``memgov
remember``, a ``git pull`` that brings a record, an edit of a record file behind the
server's back, a keep decided elsewhere and a log rewritten under a cited record.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from conftest import ACTOR, FakeClock, git
from support_mcp import Served, served
from support_recall import plant

from core.domain.provenance import shown as shown_provenance
from core.review.decide import decide
from core.store.reaching import Reaching, vouched
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing import decay
from core.writing.quarantine import provenance

QUERIES: list[dict[str, Any]] = [
    {"subject_prefix": "project:a"},
    {"subject_prefix": "project:", "limit": 25},
    {"subject_prefix": "project:ahead", "limit": 2},
    {"subject_prefix": "project:tie", "limit": 3},
    {"attribute": "attr_5", "limit": 30},
    {"subject_prefix": "user:x", "attribute": "attr_3"},
]


def expected(root: Path, now: datetime, query: dict[str, Any]) -> dict[str, Any]:
    """What the server must answer, made from the files by reading every record."""
    store = Store(root, clock=FakeClock(now))
    ranked, held = decay.by_reading(
        store,
        query.get("subject_prefix"),
        query.get("attribute"),
        now,
        query.get("limit", 10),
        Reaching(store),
    )
    return {
        "memories": [
            {
                "id": r.memory.id,
                "weight": round(r.weight, 4),
                "provenance": {
                    **shown_provenance(r.memory.provenance),
                    "cited": provenance(store, r.memory),
                },
                "reviewed": vouched(store, r.memory),
            }
            for r in ranked
        ],
        "withheld": [f"steering-{i}" for i in held],
    }


def shown(answer: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "weight", "provenance", "reviewed")
    return {
        "memories": [{k: m[k] for k in keys} for m in answer["memories"]],
        "withheld": answer["withheld"],
    }


def flushes(root: Path) -> int:
    """The commits the server's writing of uses made (each flush is one: "recall: ...")."""
    return int(git(root, "rev-list", "--count", "--grep=^recall: ", "HEAD").strip())


class Warm:
    """The served server, and whether the uses of a recall it answered wait to be
    written: it writes them half a second after the last recall, in one commit, on the
    thread every call waits for."""

    def __init__(self, s: Served, root: Path) -> None:
        self.s, self.root = s, root
        self.waiting = False
        self.written = flushes(root)

    async def call(self, tool: str, **arguments: Any) -> Any:
        answer = await self.s.call(tool, **arguments)
        if tool == "recall" and answer["memories"]:
            self.waiting = True  # (the private store's owner: its use is recorded)
        return answer

    async def settled(self) -> None:
        """The uses of the last recalls written: their commit made, then a call that
        waits for the store's thread (so the flush is over). Waits on the commit, not
        on the clock."""
        if self.waiting:
            deadline = time.monotonic() + 120
            while flushes(self.root) == self.written:
                assert time.monotonic() < deadline, "the uses of the last recall never written"
                await asyncio.sleep(0.05)
        await self.s.client.call_tool("request_status", {"request_id": "no-such-request"})
        self.written = flushes(self.root)
        self.waiting = False


async def check_all(s: Warm, root: Path, now: datetime) -> dict[str, list[str]]:
    """Every query asked twice of the warm server; each answer as the slow path's."""
    seen = {}
    for query in QUERIES:
        for _ in range(2):
            await s.settled()
            want = expected(root, now, query)
            got = shown(await s.call("recall", **query))
            assert got == want, query
        seen[json.dumps(query)] = [m["id"] for m in got["memories"]]
    return seen


def cli(root: Path, now: datetime, *argv: str, stdin: str = "") -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv, "--store", str(root), "--as", ACTOR],
        input=stdin,
        capture_output=True,
        text=True,
        env={**_env(), "MEMGOV_NOW": now.isoformat()},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr + done.stdout


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("MEMGOV_")}


def remembered(root: Path, now: datetime, subject: str, attribute: str, text: str) -> None:
    """``memgov log`` then ``memgov remember`` of its words, each its own process."""
    task = f"t-{attribute}"
    cli(root, now, "log", "--task", task, "--index", "0", text)
    cli(root, now, "remember", stdin=candidate(subject, attribute, text, task))


def candidate(subject: str, attribute: str, text: str, task: str) -> str:
    return json.dumps(
        {
            "source": {"task": task, "message_index": 0, "evidence": text},
            "content": text,
            "type": "semantic",
            "scope": "private",
            "subject": subject,
            "attribute": attribute,
            "confidence": 1.0,
            "s1": 0.95,
            "s2": 0.95,
        }
    )


async def test_a_warm_server_recalls_as_reading_every_record(
    stored: Callable[[Callable[[Store, FakeClock], None]], Store], clock: FakeClock
) -> None:
    clock.advance(days=1)
    store = stored(plant)
    root, now = store.root, clock.now
    async with served(root, actor=ACTOR, now=now) as server:
        s = Warm(server, root)
        first = await check_all(s, root, now)
        assert any(
            "steering-" in w
            for w in (await s.call("recall", subject_prefix="p", limit=100))["withheld"]
        )

        # another process's memgov remember: the new record is recalled first
        remembered(root, now, "project:a", "fresh", "Deploys go out at noon.")
        seen = await check_all(s, root, now)
        assert seen != first
        top = seen[json.dumps(QUERIES[0])][0]
        assert Store(root).memories[top].attribute == "fresh"

        # a git pull brings a record written in another clone
        await s.settled()  # no use waits to be written: the pull fast-forwards
        other = root.parent / "other"
        git(root.parent, "clone", "-q", str(root), str(other))
        remembered(other, now, "project:ab", "pulled", "Releases are tagged on Fridays.")
        git(root, "pull", "-q", "--ff-only", str(other), "HEAD")
        await check_all(s, root, now)
        pulled = await s.call("recall", subject_prefix="project:ab", attribute="pulled")
        assert [m["subject"] for m in pulled["memories"]] == ["project:ab"]

        # an edit of a record file behind the server's back (an editor's rename)
        path = root / Store(root).memories[top].path
        text = path.read_text(encoding="utf-8").replace("confidence: 1.0", "confidence: 0.01")
        temp = root / "edited.tmp"
        temp.write_text(text, encoding="utf-8")
        temp.replace(path)
        seen = await check_all(s, root, now)
        assert seen[json.dumps(QUERIES[0])][0] != top

        # a keep decided elsewhere: the kept record reaches the agent, marked reviewed
        decide(
            Workspace([Store(root)]), "steering-m-031", approve=False, actor=ACTOR, reason="mine"
        )
        await check_all(s, root, now)
        answer = await s.call("recall", subject_prefix="project:a/api", limit=100)
        kept = [m for m in answer["memories"] if m["id"] == "m-031"]
        assert kept and kept[0]["reviewed"] is True

        # the log a record cites rewritten: its message's role is read again
        log = root / Store(root).memories["m-000"].source.log  # type: ignore[union-attr, operator]
        before = log.read_text(encoding="utf-8")
        log.write_text(before.replace(" user: ", " tool: "), encoding="utf-8")
        assert log.read_text(encoding="utf-8") != before
        await check_all(s, root, now)
        answer = await s.call("recall", subject_prefix="project:", limit=100)
        assert any(m["provenance"]["cited"] == "tool" for m in answer["memories"])
