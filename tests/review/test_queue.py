"""The review queue end to end: its items, their records and evidence, and how an
item leaves it.

Most tests run on a copy of the demo (a private store and a team store, each its own
git repository); a few build a small store where that says more. Requests are in
``test_queue_requests.py``, the CLI's ``queue`` and ``show`` in ``test_queue_cli.py``,
decisions and their reverts in ``test_decisions*.py``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import DEMO_TOKEN, FIXED_NOW, add_memories, memory_where
from support_desk import workspace
from support_queue import ITEM_KEYS, RECORD_KEYS, REQUEST_KEYS, queue

from core.demo import OWNER
from core.domain.errors import NotFoundError
from core.domain.record import Memory
from core.review.decide import decide
from core.review.items import Item
from core.review.queue import build_queue, get_item, is_outline, open_ids, outline_queue
from core.store import logs
from core.store.layout import memory_path
from core.store.requests import file_request
from core.store.store import Store
from core.store.transaction import transaction, write_raw
from core.store.workspace import Workspace
from core.writing.pipeline import conflict_item_id


# ------------------------------------------------------------------------- the queue
def test_the_demo_queue_holds_every_kind_oldest_first(demo: Path) -> None:
    items = queue(demo)
    # oldest first; the pending batch just before the first item that would discard it
    # (the secret's erase or correction: core.review.losses)
    opened = [(i.opened_at, i.id) for i in items if i.kind != "consolidation"]
    assert opened == sorted(opened)
    assert [i.kind for i in items][:3] == ["conflict", "consolidation", "secret"]
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


def test_the_open_ids_are_the_ids_of_the_items_the_queue_builds(demo: Path) -> None:
    ws = workspace(demo)
    items = build_queue(ws)
    kinds = {"conflict", "promotion", "deletion", "secret", "stale", "held", "quarantine"}
    assert {i.kind for i in items} == kinds | ({"consolidation"} & {i.kind for i in items})
    assert open_ids(ws) == {i.id for i in items}
    for kind in {i.kind for i in items}:
        assert open_ids(ws, kinds=[kind]) == {i.id for i in items if i.kind == kind}
    # one of each decidable kind decided: its id is no longer open
    for kind in ("conflict", "deletion"):
        item = next(i for i in items if i.kind == kind)
        option = "newer" if kind == "conflict" else None
        decide(ws, item.id, approve=True, option=option, actor=OWNER, reason="test")
    ws = workspace(demo)
    assert open_ids(ws) == {i.id for i in build_queue(ws)}


def test_the_outline_is_the_queue_but_secrets_in_its_order_without_records(demo: Path) -> None:
    ws = workspace(demo)
    built = [i for i in build_queue(ws) if i.kind != "secret"]
    outline = outline_queue(ws)

    def shown(item: Item) -> tuple[str, str, str, str, str, str]:
        return (item.kind, item.id, item.title, item.opened_at, item.scope, item.subject)

    # the same, but the pending batch: before the first item there that would discard
    # it (in the outline no secret is read yet: the deletion)
    assert [shown(i) for i in outline if i.kind != "consolidation"] == [
        shown(i) for i in built if i.kind != "consolidation"
    ]
    kinds = [i.kind for i in outline]
    assert kinds.index("consolidation") == kinds.index("deletion") - 1
    conflicts = [i for i in outline if i.kind == "conflict"]
    assert conflicts and all(is_outline(i) and not i.records for i in conflicts)
    assert not any(is_outline(i) for i in built)
    # the requests and batches are built whole
    assert sorted((i for i in outline if i.kind != "conflict"), key=lambda i: i.id) == sorted(
        (i for i in built if i.kind != "conflict"), key=lambda i: i.id
    )


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
    assert dep_item.analysis.to_dict()["key"] == {
        "scope": "private",
        "subject": "project:demo",
        "attribute": "deploy_command",
        "condition": None,
    }
    assert (dep_item.analysis.newer, dep_item.analysis.older) == ("dep-b", "dep-a")
    assert get_item(Workspace([store]), dep_item.id).records == dep_item.records
    # the outline: the same sets, opened at the same time, in the same order, no record
    outline = outline_queue(Workspace([store]))
    assert [(i.id, i.opened_at, i.title, i.records) for i in outline] == [
        (i.id, i.opened_at, i.title, ()) for i in items
    ]


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
    with transaction(store, actor="tester@example.com", message="test: supersede") as tx:
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
    line = next(n for n, text in enumerate(index, start=1) if f"({memory_path('fmt-new')})" in text)
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
    item = get_item(workspace(demo), request.id)
    assert (item.kind, item.scope, item.title) == (
        "promotion",
        "private",
        f"promote to team: {mine.display_title}",
    )
    assert [r.memory.id for r in item.records] == [mine.id]
    assert [r.memory.id for r in item.team_records] == [theirs.id]
    assert item.team_records[0].store == str(ws.team.root)
    assert item.scan == () and item.analysis.secret_hits == 0
    assert item.request == request


def test_a_promotion_item_names_the_secret_rule_never_the_value(demo: Path) -> None:
    (item,) = [i for i in queue(demo, "promotion") if i.analysis.secret_hits]
    assert item.records[0].memory.attribute == "ci_registry_auth"
    # the record does hold DEMO_TOKEN: every "DEMO_TOKEN not in" check here means something
    assert DEMO_TOKEN in (item.store.root / item.records[0].memory.path).read_text("utf-8")
    assert [hit.rule for hit in item.scan] == ["github-pat"]
    assert set(item.scan[0].to_dict()) == {"rule", "description", "line", "column"}
    assert DEMO_TOKEN not in json.dumps([h.to_dict() for h in item.scan])


def test_a_deletion_item_says_why_and_who_asked(demo: Path) -> None:
    (item,) = queue(demo, "deletion")
    data = item.to_dict()
    assert set(data["request"]) == REQUEST_KEYS
    assert data["request"]["reason"] == "I do not want my location remembered"
    assert data["request"]["requested_by"] == OWNER
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


def test_a_decided_request_leaves_the_queue(demo: Path) -> None:
    (item,) = queue(demo, "deletion")
    private = workspace(demo).private
    assert private is not None
    closed = item.request
    assert closed is not None
    write_raw(
        private,
        closed.path,
        closed.with_changes(status="rejected", decided_by=OWNER).to_yaml(),
        actor=OWNER,
        message="test: close the request by hand",
    )
    assert queue(demo, "deletion") == []
    with pytest.raises(NotFoundError):
        get_item(workspace(demo), item.id)


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


# ------------------------------------------------------- what a search looks in
def test_the_conflict_texts_from_the_catalog_are_the_built_items_search_texts(
    demo: Path,
) -> None:
    from core.review import view
    from core.review.queue import conflict_texts

    ws = workspace(demo)
    built = {i.id: view.search_text(i) for i in build_queue(ws) if i.kind == "conflict"}
    assert built and conflict_texts(ws) == built
    texts: dict[str, str] = {}
    outline = outline_queue(ws, texts=texts)
    assert texts == {i.id: view.search_text(i) for i in build_queue(ws, kinds=["promotion",
        "deletion", "stale", "consolidation", "held", "quarantine"])} | built  # fmt: skip
    assert set(texts) == {i.id for i in outline}


def test_a_conflict_record_holding_a_credential_is_searched_redacted(
    store: Store, make_memory: Callable[..., Memory]
) -> None:
    from conftest import fake_token

    from core.review import view
    from core.review.queue import conflict_texts

    token = fake_token("ghp_", 36, seed=11)
    key = {"subject": "project:demo", "attribute": "ci_token", "status": "conflict"}
    add_memories(
        store,
        make_memory(id="tok-a", value="none", content="CI needs no token", **key),
        make_memory(id="tok-b", value=token, content=f"CI uses {token} to pull", **key),
    )
    ws = Workspace([store])
    flags = {row[0]: row[-1] for row in store.memories.catalog.key_rows("conflict")}
    assert flags == {"tok-a": 0, "tok-b": 1}  # the catalog flags the file
    texts = conflict_texts(ws)
    (item,) = build_queue(ws, kinds=["conflict"])
    assert texts == {item.id: view.search_text(item)}
    assert token.casefold() not in texts[item.id] and token[:12].casefold() not in texts[item.id]
    assert "ci uses [secret: github-pat] to pull" in texts[item.id]
