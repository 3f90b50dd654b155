"""The review queue end to end: its items, their evidence, requests, and the CLI's
``queue``, ``show``, ``request-delete`` and ``request-promote``.

Most tests run on a copy of the demo (built once for the module: a private store
and a team store, each its own git repository); a few build a small store where
that says more. Decisions and their reverts are in ``test_decisions.py``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import (
    DEMO_TOKEN,
    FIXED_NOW,
    add_memories,
    events,
    git,
    head,
    memory_where,
    tree_state,
)
from support_desk import workspace

from core.demo import OWNER
from core.domain.errors import NotFoundError, ValidationError
from core.domain.record import Memory
from core.review.queue import Item, build_queue, find_item
from core.store import logs
from core.store.requests import file_request, load_requests
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id
from tui.cli import main

ITEM_KEYS = {
    "kind", "id", "title", "opened_at", "store", "scope", "subject", "records", "request",
    "team_records", "secret_scan", "analysis",
}  # fmt: skip
RECORD_KEYS = {
    "id", "store", "status", "type", "scope", "subject", "attribute", "condition", "value",
    "content", "confidence", "created_at", "verified_at", "source_count", "sources", "pointers",
}  # fmt: skip
REQUEST_KEYS = {
    "id", "kind", "memory_id", "reason", "requested_by", "requested_at", "status", "decision",
    "decided_by", "decision_reason",
}  # fmt: skip


# ----------------------------------------------------------------------------- fixtures
def queue(path: Path, *kinds: str) -> list[Item]:
    return build_queue(workspace(path), kinds=kinds or None)


# ------------------------------------------------------------------------- the queue
def test_the_demo_queue_holds_every_kind_oldest_first(demo: Path) -> None:
    items = queue(demo)
    opened = [(i.opened_at, i.id) for i in items]
    assert opened == sorted(opened)
    decidable = [
        (i.kind, i.scope, i.subject) for i in queue(demo, "conflict", "promotion", "deletion")
    ]
    assert decidable == [
        ("conflict", "private", f"user:{OWNER}"),  # Dr. Zhang, 2026-10-27
        ("conflict", "team", "project:liyyro"),  # the deploy command, 2026-11-14
        ("promotion", "private", "project:liyyro"),  # 2026-11-16, both
        ("promotion", "private", "project:liyyro"),
        ("deletion", "private", f"user:{OWNER}"),  # 2026-11-17
    ]
    # --kind narrows, and keeps the order
    assert [i.kind for i in queue(demo, "promotion")] == ["promotion", "promotion"]
    assert [i.id for i in queue(demo, "deletion", "conflict")] == [
        i.id for i in items if i.kind in ("deletion", "conflict")
    ]


def test_conflict_sets_are_grouped_by_key(store: Store, make_memory: Callable[..., Memory]) -> None:
    day = timedelta(days=1)
    fmt = {"subject": "project:demo", "attribute": "output_format", "status": "conflict"}
    deploy = {"subject": "project:demo", "attribute": "deploy_command", "status": "conflict"}
    records = [
        make_memory(id="fmt-a", value="tables", created_at=FIXED_NOW - 9 * day, **fmt),
        make_memory(id="fmt-b", value="lists", created_at=FIXED_NOW - 5 * day, **fmt),
        make_memory(id="fmt-c", value="prose", created_at=FIXED_NOW - 7 * day, **fmt),
        make_memory(id="dep-a", value="npm run deploy", created_at=FIXED_NOW - 8 * day, **deploy),
        make_memory(id="dep-b", value="make ship", created_at=FIXED_NOW - 6 * day, **deploy),
        # same subject and attribute, another condition: another key, active, not in the queue
        make_memory(
            id="dep-prod", value="bash deploy.sh", condition="env=production",
            subject="project:demo", attribute="deploy_command",
        ),
    ]  # fmt: skip
    add_memories(store, *records)
    items = build_queue(Workspace([store]))
    # each set is opened when its newest record arrived: the deploy set (day -6) comes
    # before the format set (day -5), although the format set's oldest record is older
    assert [(i.kind, [r.memory.id for r in i.records]) for i in items] == [
        ("conflict", ["dep-a", "dep-b"]),
        ("conflict", ["fmt-a", "fmt-c", "fmt-b"]),  # oldest record first within a set
    ]
    dep_item, fmt_item = items
    assert fmt_item.id == conflict_item_id(("private", "project:demo", "output_format", None))
    assert fmt_item.opened_at == (FIXED_NOW - 5 * day).isoformat()
    assert fmt_item.title == "project:demo #output_format"
    assert dep_item.analysis["key"] == {
        "scope": "private",
        "subject": "project:demo",
        "attribute": "deploy_command",
        "condition": None,
    }
    assert (dep_item.analysis["newer"], dep_item.analysis["older"]) == ("dep-b", "dep-a")
    assert find_item(Workspace([store]), dep_item.id).records == dep_item.records


def test_every_record_of_a_conflict_carries_its_evidence(demo: Path) -> None:
    team = workspace(demo).team
    assert team is not None
    (item,) = [i for i in queue(demo, "conflict") if i.scope == "team"]
    data = item.to_dict()
    assert set(data) == ITEM_KEYS
    assert [r["value"] for r in data["records"]] == ["npm run deploy", "bash deploy.sh"]
    quotes = {
        "npm run deploy": ("tr_20260818_03", 12, "部署直接跑 npm run deploy 就行"),
        "bash deploy.sh": (
            "tr_20261114_01", 4, "生产环境部署改用 bash deploy.sh,测试环境还是 npm run deploy"
        ),
    }  # fmt: skip
    for record in data["records"]:
        assert set(record) == RECORD_KEYS
        memory = team.get(record["id"])
        assert record["status"] == "conflict"
        assert record["created_at"] == memory.created_at.isoformat()
        assert record["verified_at"] == memory.verified_at.isoformat()
        assert record["confidence"] == memory.confidence
        assert record["source_count"] == len(record["sources"]) == 1
        (source,) = record["sources"]
        task, index, quote = quotes[record["value"]]
        assert (source["task"], source["message_index"], source["evidence"]) == (task, index, quote)
        # the raw daily-log line, resolved, with the lines around it
        assert source["resolves"] is True
        excerpt = source["excerpt"]
        assert excerpt["file"] == source["log"]
        lines = {entry["line"]: entry["text"] for entry in excerpt["lines"]}
        assert lines[excerpt["line"]].endswith(f"user: {quote}")
        assert lines[excerpt["line"]].startswith(f"- [{index}] ")
        assert f"## task {task}" in lines.values()  # context: the task's heading above it
        assert len(lines) >= 3
        log_lines = (team.root / excerpt["file"]).read_text(encoding="utf-8").splitlines()
        assert all(log_lines[n - 1] == text for n, text in lines.items())
    # step 2 and 3 of adjudication: the newer, better-sourced record is favoured, and its
    # evidence names two environments (a hint to read it as "parallel")
    newer = data["records"][1]["id"]
    assert data["analysis"]["favoured"] == newer
    assert "newer" in data["analysis"]["why"]
    assert data["analysis"]["condition_hints"][newer]["parallel"] == ["测试", "生产"]


def test_pointers_name_index_lines_supersedes_links_and_open_requests(
    store: Store, make_memory: Callable[..., Memory]
) -> None:
    old = make_memory(id="fmt-old", content="Use bullet lists.", value="lists")
    new = make_memory(id="fmt-new", content="Use tables.", value="tables", supersedes="fmt-old")
    add_memories(store, old, new)
    with store.transaction(actor="tester@example.com", message="test: supersede") as tx:
        tx.transition("fmt-old", "superseded", action="supersede", reason="test")
    ask_old = file_request(
        store, kind="delete", memory_id="fmt-old", reason="outdated", actor="tester@example.com"
    )
    ask_new = file_request(
        store, kind="delete", memory_id="fmt-new", reason="not true", actor="tester@example.com"
    )
    promote_new = file_request(
        store, kind="promote", memory_id="fmt-new", reason="share", actor="tester@example.com"
    )
    index = (store.root / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(index, start=1) if "(memories/fmt-new.md)" in text)
    items = {i.id: i for i in build_queue(Workspace([store]), kinds=["deletion"])}
    assert set(items) == {ask_old.id, ask_new.id}
    assert items[ask_new.id].records[0].pointers == (
        f"MEMORY.md line {line}",
        "supersedes fmt-old",
        f"delete request {ask_new.id} (open)",
        f"promote request {promote_new.id} (open)",
    )
    # a superseded record has no index line, but the record that replaced it points at it
    assert items[ask_old.id].records[0].pointers == (
        "superseded by fmt-new",
        f"delete request {ask_old.id} (open)",
    )


def test_a_promotion_item_shows_the_scan_and_the_team_records_of_its_key(demo: Path) -> None:
    ws = workspace(demo)
    assert ws.private is not None and ws.team is not None
    mine = memory_where(ws.private, attribute="test_command")
    theirs = memory_where(ws.team, attribute="test_command")
    request = file_request(
        ws.private, kind="promote", memory_id=mine.id, reason="vitest for everyone", actor=OWNER
    )
    item = find_item(workspace(demo), request.id)
    assert (item.kind, item.scope, item.title) == (
        "promotion",
        "private",
        f"promote to team: {mine.display_title}",
    )
    assert [r.memory.id for r in item.records] == [mine.id]
    assert [r.memory.id for r in item.team_records] == [theirs.id]
    assert item.team_records[0].store == str(ws.team.root)
    assert item.scan == () and item.analysis == {"secret_hits": 0}
    assert item.request == request


def test_a_promotion_item_names_the_secret_rule_never_the_value(demo: Path) -> None:
    (item,) = [i for i in queue(demo, "promotion") if i.analysis["secret_hits"]]
    assert item.records[0].memory.attribute == "ci_registry_auth"
    # the record does hold DEMO_TOKEN: every "DEMO_TOKEN not in" check here means something
    assert DEMO_TOKEN in (item.store.root / item.records[0].memory.path).read_text("utf-8")
    assert [hit["rule"] for hit in item.scan] == ["github-pat"]
    assert set(item.scan[0]) == {"rule", "description", "line", "column"}
    assert DEMO_TOKEN not in json.dumps(list(item.scan))


def test_a_deletion_item_says_why_and_who_asked(demo: Path) -> None:
    (item,) = queue(demo, "deletion")
    data = item.to_dict()
    assert set(data["request"]) == REQUEST_KEYS
    assert data["request"]["reason"] == "I do not want my location remembered"
    assert data["request"]["requested_by"] == f"{OWNER}@example.com"
    assert data["request"]["status"] == "open"
    assert data["opened_at"] == data["request"]["requested_at"] == "2026-11-17T09:30:00+08:00"
    (record,) = data["records"]
    assert (record["attribute"], record["value"], record["content"]) == (
        "home_city", "杭州", "用户住在杭州。"
    )  # fmt: skip
    assert record["sources"][0]["evidence"] == "我最近搬到杭州了"
    assert record["pointers"][-1] == f"delete request {item.id} (open)"
    assert record["pointers"][0].startswith("MEMORY.md line ")
    assert data["team_records"] == [] and data["secret_scan"] == []


# ---------------------------------------------------------------------------- requests
def test_filing_a_request_twice_returns_the_open_one(demo: Path) -> None:
    private = workspace(demo).private
    assert private is not None
    city = memory_where(private, attribute="home_city")
    (existing,) = [r for r in load_requests(private) if r.memory_id == city.id]
    before = head(private.root)
    again = file_request(private, kind="delete", memory_id=city.id, reason="again", actor=OWNER)
    assert again == existing
    assert head(private.root) == before  # nothing written, no commit
    assert len(load_requests(private)) == 3


def test_a_request_opens_an_item_with_one_event_and_one_commit(demo: Path) -> None:
    private = workspace(demo).private
    assert private is not None
    doc = memory_where(private, attribute="output_format")
    first = len(events(private.root))
    request = file_request(
        private, kind="delete", memory_id=doc.id, reason=" no longer true ", actor=OWNER
    )
    assert request.reason == "no longer true" and request.requested_by == OWNER
    assert request.path == f"requests/{request.id}.yaml"
    (event,) = events(private.root)[first:]
    assert (event["action"], event["memory_ids"], event["request"], event["actor"]) == (
        "request-delete", [doc.id], request.id, OWNER
    )  # fmt: skip
    assert (
        git(private.root, "log", "-1", "--format=%s|%ae").strip()
        == f"request: delete {doc.id}|{OWNER}@memgov.invalid"
    )
    assert [i.id for i in queue(demo, "deletion")][-1] == request.id


@pytest.mark.parametrize(
    ("kind", "attribute", "reason", "says"),
    [
        ("delete", "home_city", "   ", "a request needs a reason"),
        ("promote", "home_city", "", "a request needs a reason"),
        ("archive", "home_city", "why not", "unknown request kind"),
        ("delete", "doctor", "wrong", "resolve the conflict"),  # a conflict: choose neither
        ("promote", "doctor", "share", "only active private memories can be promoted"),
    ],
)
def test_a_request_is_refused_with_a_clear_reason(
    demo: Path, kind: str, attribute: str, reason: str, says: str
) -> None:
    private = workspace(demo).private
    assert private is not None
    target = next(m for m in private.memories.values() if m.attribute == attribute)
    files = tree_state(private.root)
    with pytest.raises(ValidationError, match=says):
        file_request(private, kind=kind, memory_id=target.id, reason=reason, actor=OWNER)
    assert tree_state(private.root) == files


def test_a_request_for_an_unknown_memory_is_refused(demo: Path) -> None:
    private = workspace(demo).private
    assert private is not None
    with pytest.raises(NotFoundError, match="no memory with id 'nope-1'"):
        file_request(private, kind="delete", memory_id="nope-1", reason="gone", actor=OWNER)


def test_cli_request_delete_and_request_promote(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    private = workspace(demo).private
    assert private is not None
    doc = memory_where(private, attribute="output_format")
    code, out, err = demo_cli(
        "request-delete", doc.id, "--reason", "I changed my mind",
        "--store", str(demo), "--as", OWNER, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    filed = json.loads(out)
    assert set(filed) == REQUEST_KEYS
    assert (filed["kind"], filed["memory_id"], filed["status"]) == ("delete", doc.id, "open")
    assert filed["requested_by"] == OWNER and filed["reason"] == "I changed my mind"
    # filing twice gives the same open request
    code, out, _ = demo_cli(
        "request-delete", doc.id, "--reason", "really", "--store", str(demo), "--as", OWNER
    )
    assert (code, out.strip()) == (0, f"{filed['id']}: delete {doc.id} requested")

    code, out, err = demo_cli(
        "request-promote", doc.id, "--reason", "the team writes docs too",
        "--store", str(demo), "--as", OWNER, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    promoted = json.loads(out)
    assert (promoted["kind"], promoted["memory_id"]) == ("promote", doc.id)
    listed = {i.id: i.kind for i in queue(demo)}
    assert (listed[filed["id"]], listed[promoted["id"]]) == ("deletion", "promotion")


def test_cli_requests_need_a_reason(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    private = workspace(demo).private
    assert private is not None
    doc = memory_where(private, attribute="output_format")
    files = tree_state(private.root)
    with pytest.raises(SystemExit) as exc:  # argparse: --reason is required
        main(["request-promote", doc.id, "--store", str(demo), "--as", OWNER])
    assert exc.value.code == 2
    assert "--reason" in capsys.readouterr().err
    code, out, err = demo_cli(
        "request-delete", doc.id, "--reason", " ", "--store", str(demo), "--as", OWNER
    )
    assert (code, out) == (2, "")
    assert "a request needs a reason" in err
    code, _, err = demo_cli(
        "request-delete", "nope-1", "--reason", "x", "--store", str(demo), "--as", OWNER
    )
    assert code == 2 and "no memory with id 'nope-1'" in err
    assert tree_state(private.root) == files


# ------------------------------------------------------------------ CLI: queue and show
def test_cli_queue_json_is_the_queue_with_secrets_redacted(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = demo_cli("queue", "--store", str(demo), "--json")
    assert (code, err) == (0, "")
    listed = json.loads(out)
    assert [i["id"] for i in listed] == [i.id for i in queue(demo)]
    for item in listed:
        assert set(item) == ITEM_KEYS
        for record in item["records"] + item["team_records"]:
            assert set(record) == RECORD_KEYS
            for source in record["sources"]:
                assert {"task", "message_index", "evidence", "resolves", "excerpt"} <= set(source)
    requests = [item["request"] for item in listed if item["request"] is not None]
    assert requests and all(set(request) == REQUEST_KEYS for request in requests)
    # the hand-written note's token is shown as its rule, never as itself
    assert DEMO_TOKEN not in out
    note = next(i for i in listed if i["secret_scan"])
    assert "[secret: github-pat]" in note["records"][0]["content"]

    code, out, _ = demo_cli(
        "queue", "--store", str(demo), "--kind", "promotion", "--kind", "deletion", "--json"
    )
    assert code == 0
    assert [i["kind"] for i in json.loads(out)] == ["promotion", "promotion", "deletion"]


def test_cli_queue_text_is_one_line_per_item(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, _ = demo_cli("queue", "--store", str(demo), "--kind", "conflict")
    assert code == 0
    lines = out.splitlines()
    items = queue(demo, "conflict")
    assert len(lines) == len(items) == 2
    for line, item in zip(lines, items, strict=True):
        assert line.startswith(item.opened_at[:16])
        assert item.id in line and item.title in line and item.scope in line


def test_cli_queue_says_when_it_is_empty(
    store: Store, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = demo_cli("queue", "--store", str(store.root))
    assert (code, out.strip(), err) == (0, "the queue is empty", "")
    code, out, _ = demo_cli("queue", "--store", str(store.root), "--json")
    assert (code, json.loads(out)) == (0, [])


def test_cli_show_gives_one_item_with_its_evidence(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    (item,) = [i for i in queue(demo, "conflict") if i.scope == "team"]
    code, out, err = demo_cli("show", item.id, "--store", str(demo), "--json")
    assert (code, err) == (0, "")
    shown = json.loads(out)
    assert set(shown) == ITEM_KEYS
    assert shown == json.loads(json.dumps(item.to_dict(), ensure_ascii=False, default=str))

    code, out, _ = demo_cli("show", item.id, "--store", str(demo))
    assert code == 0
    assert out.startswith(f"conflict {item.id}: {item.title}\n")
    for record in item.records:
        assert f"- {record.memory.id} [conflict]" in out
        source = record.sources[0].source
        assert (
            f"source: task {source.task} message {source.message_index}: {source.evidence}" in out
        )
    assert f"sources favour {item.analysis['favoured']}" in out


def test_cli_show_redacts_the_promotion_blocked_by_a_secret(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    (item,) = [i for i in queue(demo, "promotion") if i.scan]
    code, out, _ = demo_cli("show", item.id, "--store", str(demo))
    assert code == 0
    assert "secret scan: github-pat" in out
    assert DEMO_TOKEN not in out and "[secret: github-pat]" in out
    code, out, _ = demo_cli("show", item.id, "--store", str(demo), "--json")
    assert code == 0 and DEMO_TOKEN not in out


def test_cli_show_an_unknown_item_is_an_error(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = demo_cli("show", "conflict-0000000000", "--store", str(demo))
    assert (code, out) == (2, "")
    assert "no open review item 'conflict-0000000000'" in err and "memgov queue" in err


def test_a_decided_request_leaves_the_queue(demo: Path) -> None:
    (item,) = queue(demo, "deletion")
    private = workspace(demo).private
    assert private is not None
    closed = item.request
    assert closed is not None
    private.write_raw(
        closed.path,
        closed.with_changes(status="rejected", decided_by=OWNER).to_yaml(),
        actor=OWNER,
        message="test: close the request by hand",
    )
    assert queue(demo, "deletion") == []
    with pytest.raises(NotFoundError):
        find_item(workspace(demo), item.id)


def _log_lines(store: Store) -> Iterator[str]:
    for path in sorted((store.root / logs.LOG_DIR).rglob("*.md")):
        yield from path.read_text(encoding="utf-8").splitlines()


def test_a_source_that_does_not_resolve_says_so(
    store: Store, make_memory: Callable[..., Memory]
) -> None:
    record = make_memory(id="fmt-1", status="conflict")
    other = make_memory(id="fmt-2", status="conflict", content="Use lists.", value="lists")
    add_memories(store, record, other)
    assert any("use tables" in line for line in _log_lines(store))
    # the daily log is lost: the evidence no longer resolves, and the item says so
    shutil.rmtree(store.root / logs.LOG_DIR)
    (item,) = build_queue(Workspace([store]))
    for rec in item.to_dict()["records"]:
        assert [(s["resolves"], s["excerpt"]) for s in rec["sources"]] == [(False, None)]
