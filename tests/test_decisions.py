"""Decisions on review items and their reverts, end to end (SPEC sections 3, 6, 8, 10).

Each path is driven through :func:`core.review.decisions.decide` or the CLI on a copy of
the demo (a private store and a team store, each its own git repository; built
once for the module), or on a small store built for the case. After each one the
stores are checked as a whole: the files, the index, the events, git and
``memgov doctor``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    ACTOR,
    DEMO_TOKEN,
    FIXED_NOW,
    add_memories,
    commit_count,
    events,
    fake_token,
    git,
    git_bytes,
    head,
    memory_where,
    tree_state,
)
from conftest import DEMO_MAINTAINER as MAINTAINER
from support_desk import DEMO_NOW as NOW
from support_desk import doctor_errors, workspace

from core.demo import OWNER
from core.domain.errors import (
    AlreadyDecided,
    AuthorizationError,
    NotFoundError,
    SecretBlocked,
    StoreError,
    ValidationError,
)
from core.domain.record import Memory, Source
from core.reports.doctor import diagnose
from core.review.decisions import (
    TEAM_HISTORY_NOTE,
    Decision,
    correct,
    decide,
    load_decision,
    revert,
)
from core.review.queue import Item, build_queue, find_item
from core.store import fsutil, logs
from core.store.gitstore import actor_identity
from core.store.requests import file_request, get_request
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import candidate_from_dict, remember

STRANGER = "dev@example.com"  # neither owner nor maintainer

DECISION_KEYS = {
    "id", "item", "kind", "option", "actor", "reason", "ts", "store", "before", "after",
    "created", "touched", "request", "erased", "reverted_by", "note", "revertible",
}  # fmt: skip


# ----------------------------------------------------------------------------- fixtures
# ------------------------------------------------------------------------------ helpers
def stores(path: Path) -> tuple[Store, Store]:
    ws = workspace(path)
    assert ws.private is not None and ws.team is not None
    return ws.private, ws.team


def the_item(path: Path, kind: str, **where: Any) -> Item:
    found = [
        i
        for i in build_queue(workspace(path), kinds=[kind])
        if all(
            getattr(i, k) == v if k != "attribute" else i.records[0].memory.attribute == v
            for k, v in where.items()
        )
    ]
    assert len(found) == 1, found
    return found[0]


def is_ancestor(root: Path, sha: str) -> bool:
    result = subprocess.run(["git", "merge-base", "--is-ancestor", sha, "HEAD"], cwd=root)
    return result.returncode == 0


def unchanged(*roots: Path) -> Callable[[], None]:
    """Remember each store's HEAD and files; the returned check says nothing changed."""
    saved = [(root, head(root), tree_state(root)) for root in roots]

    def check() -> None:
        for root, sha, files in saved:
            assert head(root) == sha, f"{root.name}: a commit was made"
            assert tree_state(root) == files, f"{root.name}: files changed"

    return check


def fronts(root: Path) -> dict[str, dict[str, Any]]:
    """The front matter and body of every record, read afresh from the files."""
    memories = Store(root).memories
    return {i: {**m.front_matter(), "body": m.content} for i, m in memories.items()}


def index_targets(root: Path) -> list[str]:
    text = (root / "MEMORY.md").read_text(encoding="utf-8")
    return [line.split("](", 1)[1].split(")", 1)[0] for line in text.splitlines() if "](" in line]


def assert_clean(path: Path) -> None:
    """Files, index, events and git agree: doctor finds no error, git status is clean."""
    errors = doctor_errors(path)
    assert errors == [], errors
    for store in workspace(path).stores:
        assert git(store.root, "status", "--porcelain") == "", store.root.name
        active = sorted(m.path for m in store.memories.values() if m.status == "active")
        assert sorted(index_targets(store.root)) == active


def assert_recorded(
    root: Path, decision: Decision, *, actor: str, reason: str, item: str, first_event: int
) -> list[dict[str, Any]]:
    """The decision's record, its events and its commit; returns its events."""
    saved = json.loads((root / f"decisions/{decision.id}.json").read_text(encoding="utf-8"))
    assert set(saved) == DECISION_KEYS - {"revertible"}
    assert saved == {k: v for k, v in decision.to_dict().items() if k != "revertible"}
    assert (saved["actor"], saved["reason"], saved["item"]) == (actor, reason, item)
    new = events(root)[first_event:]
    assert new and all(e["actor"] == actor for e in new)
    # every event about a record names the decision (an erasure that discards a pending
    # consolidation batch adds one event about the batch, not about a record)
    assert [e for e in new if e["memory_ids"] and e.get("decision") != decision.id] == []
    new = [e for e in new if e["memory_ids"]]
    last = new[-1]
    assert (last["action"], last["reason"]) == ("decide", reason)
    assert last["details"] == {"item": item, "kind": decision.kind, "option": decision.option}
    assert git(root, "log", "-1", "--format=%ae").strip() == actor_identity(actor)[1]
    message = git(root, "log", "-1", "--format=%B")
    assert all(e["id"] in message for e in new[:20])
    return new


def transitions(new_events: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return [(e["memory_ids"][0], e["from"], e["to"]) for e in new_events if e["to"]]


def all_text(root: Path) -> bytes:
    """Everything readable in a store: its files, every commit's diff, and (a private
    store) every object git holds, reachable or not."""
    files = b"\n".join(
        p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    )
    history = git_bytes(root, "log", "-p", "--all", "--format=%H %B")
    objects = git_bytes(root, "cat-file", "--batch-all-objects", "--batch")
    return b"\n".join((files, history, objects))


# -------------------------------------------------------------------- conflict decisions
@pytest.mark.parametrize("option", ["newer", "older"])
def test_one_record_wins_a_conflict(demo: Path, option: str) -> None:
    private, team = stores(demo)
    item = the_item(demo, "conflict", scope="team")
    older, newer = (r.memory for r in item.records)  # oldest first
    winner, loser = (newer, older) if option == "newer" else (older, newer)
    first, count = len(events(team.root)), commit_count(team.root)
    private_unchanged = unchanged(private.root)

    reason = "production moved to deploy.sh" if option == "newer" else "deploy.sh was a test"
    decision = decide(
        workspace(demo), item.id, approve=True, option=option, actor=MAINTAINER, reason=reason
    )

    assert (decision.kind, decision.option, decision.erased) == ("conflict", option, [])
    assert decision.revertible and decision.note is None
    new = assert_recorded(
        team.root, decision, actor=MAINTAINER, reason=reason, item=item.id, first_event=first
    )
    # the loser is adjudicated first (conflict -> active), then replaced: never
    # conflict -> superseded directly
    assert transitions(new) == [
        (winner.id, "conflict", "active"),
        (loser.id, "conflict", "active"),
        (loser.id, "active", "superseded"),
    ]
    assert all(e["request"] == item.id for e in new[:-1])
    records = Store(team.root).memories
    assert records[winner.id].status == "active"
    assert records[winner.id].supersedes == loser.id
    assert records[winner.id].verified_at == NOW
    assert records[loser.id].status == "superseded"
    assert set(decision.before) == set(decision.after) == {winner.id, loser.id}
    assert decision.before[loser.id]["status"] == "conflict"
    assert decision.after[loser.id]["status"] == "superseded"
    assert commit_count(team.root) == count + 1
    assert index_targets(team.root).count(records[winner.id].path) == 1
    assert records[loser.id].path not in index_targets(team.root)
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    private_unchanged()
    assert_clean(demo)


def test_parallel_gives_each_record_its_condition(demo: Path) -> None:
    _, team = stores(demo)
    item = the_item(demo, "conflict", scope="team")
    older, newer = (r.memory for r in item.records)
    first = len(events(team.root))
    # the newer source says so: production uses deploy.sh, testing still npm run deploy
    conditions = {older.id: "env=testing", newer.id: " env=production "}
    decision = decide(
        workspace(demo), item.id, approve=True, option="parallel", actor=MAINTAINER,
        conditions=conditions,
    )  # fmt: skip
    new = assert_recorded(
        team.root,
        decision,
        actor=MAINTAINER,
        reason="both hold, under different conditions",  # the default reason
        item=item.id,
        first_event=first,
    )
    assert transitions(new) == [(older.id, "conflict", "active"), (newer.id, "conflict", "active")]
    assert [e["details"]["condition"] for e in new[:2]] == ["env=testing", "env=production"]
    records = Store(team.root).memories
    assert (records[older.id].status, records[older.id].condition) == ("active", "env=testing")
    assert (records[newer.id].status, records[newer.id].condition) == ("active", "env=production")
    assert {records[older.id].path, records[newer.id].path} <= set(index_targets(team.root))
    assert [i.scope for i in build_queue(workspace(demo), kinds=["conflict"])] == ["private"]
    assert_clean(demo)


@pytest.fixture
def clashing(store: Store, make_memory: Callable[..., Memory]) -> Store:
    """A private store with one conflict set (a, b) and an active record of the same
    subject and attribute under the condition env=production."""
    key = {"subject": "project:demo", "attribute": "deploy_command"}
    add_memories(
        store,
        make_memory(id="deploy-a", status="conflict", value="npm run deploy", **key),
        make_memory(id="deploy-b", status="conflict", value="make ship", **key),
        make_memory(id="deploy-prod", value="bash deploy.sh", condition="env=production", **key),
    )
    return store


@pytest.mark.parametrize(
    ("conditions", "says"),
    [
        ({"deploy-a": "env=dev"}, "missing for deploy-b"),
        ({"deploy-a": "env=dev", "deploy-b": "  "}, "missing for deploy-b"),
        ({"deploy-a": "env=dev", "deploy-b": "env=dev"}, "conditions must differ"),
        # the second record's condition clashes with an active record: raised after the
        # first record's transition was made in the transaction, and still nothing lands
        ({"deploy-a": "env=dev", "deploy-b": "env=production"}, "clashes with deploy-prod"),
    ],
)
def test_parallel_refused_before_any_change(
    clashing: Store, conditions: dict[str, str], says: str
) -> None:
    ws = Workspace([clashing])
    (item,) = build_queue(ws, kinds=["conflict"])
    check = unchanged(clashing.root)
    with pytest.raises(ValidationError, match=says):
        decide(ws, item.id, approve=True, option="parallel", actor=ACTOR, conditions=conditions)
    check()
    assert [i.id for i in build_queue(Workspace([Store(clashing.root)]))] == [item.id]
    assert {m.status for m in Store(clashing.root).memories.values()} == {"conflict", "active"}


def test_neither_erases_both_records_of_a_private_conflict(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "conflict", scope="private")
    records = [r.memory for r in item.records]
    first = len(events(private.root))
    team_unchanged = unchanged(team.root)
    decision = decide(
        workspace(demo), item.id, approve=True, option="neither", actor=OWNER,
        reason="both are about someone else",
    )  # fmt: skip
    assert decision.erased == [m.id for m in records]
    assert not decision.revertible and decision.note is None  # a private store is rewritten
    new = assert_recorded(
        private.root, decision, actor=OWNER, reason="both are about someone else",
        item=item.id, first_event=first,
    )  # fmt: skip
    assert transitions(new) == [(m.id, "conflict", "deleted") for m in records]
    for memory, event in zip(records, new[:2], strict=True):
        assert event["action"] == "erase"
        assert event["details"] == {
            "key": {
                "scope": "private",
                "subject": memory.subject,
                "attribute": memory.attribute,
                "condition": None,
            },
            "content_hash": memory.content_hash,
        }
        # the decision keeps the key, never the content
        assert set(decision.before[memory.id]) <= {
            "id", "scope", "subject", "attribute", "condition", "status"
        }  # fmt: skip
        assert not (private.root / memory.path).exists()
    text = all_text(private.root)
    for memory in records:
        assert memory.content.encode() not in text
        assert memory.all_sources[0].evidence.encode() not in text
    assert build_queue(workspace(demo), kinds=["conflict"])[0].scope == "team"
    team_unchanged()
    assert_clean(demo)


def test_neither_in_the_team_store_says_pushed_clones_keep_history(demo: Path) -> None:
    _, team = stores(demo)
    item = the_item(demo, "conflict", scope="team")
    old_head = head(team.root)
    decision = decide(workspace(demo), item.id, approve=True, option="neither", actor=MAINTAINER)
    assert decision.note == TEAM_HISTORY_NOTE
    assert decision.erased == [r.memory.id for r in item.records]
    for record in item.records:
        assert not (team.root / record.memory.path).exists()
        assert record.memory.path not in index_targets(team.root)
    assert is_ancestor(team.root, old_head)  # a team store is never rewritten
    assert_clean(demo)


def test_defer_changes_no_record_and_keeps_the_item_open(demo: Path) -> None:
    _, team = stores(demo)
    item = the_item(demo, "conflict", scope="team")
    before = fronts(team.root)
    first, count = len(events(team.root)), commit_count(team.root)
    decision = decide(workspace(demo), item.id, approve=False, actor=MAINTAINER)
    assert (decision.option, decision.reason) == ("defer", "deferred: needs more evidence")
    new = assert_recorded(
        team.root, decision, actor=MAINTAINER, reason=decision.reason, item=item.id,
        first_event=first,
    )  # fmt: skip
    assert transitions(new) == []
    assert fronts(team.root) == before
    assert commit_count(team.root) == count + 1
    assert find_item(workspace(demo), item.id).records == item.records
    assert not decision.revertible
    with pytest.raises(ValidationError, match="deferral: it changed nothing"):
        revert(workspace(demo), decision.id, actor=MAINTAINER)
    assert_clean(demo)


def test_a_conflict_needs_a_known_option(demo: Path) -> None:
    item = the_item(demo, "conflict", scope="team")
    check = unchanged(item.store.root)
    for option in (None, "both"):
        with pytest.raises(ValidationError, match="unknown option"):
            decide(workspace(demo), item.id, approve=True, option=option, actor=MAINTAINER)
    check()


def test_a_conflict_set_left_with_one_record_can_still_be_decided(
    store: Store, make_memory: Callable[..., Memory]
) -> None:
    """Its other record was erased since (by hand, a consolidation): the one left wins
    without replacing anything (this crashed with a ValueError)."""
    add_memories(store, make_memory(id="fmt-lone", status="conflict"))
    ws = Workspace([store])
    (item,) = build_queue(ws)
    decision = decide(ws, item.id, approve=True, option="newer", actor=ACTOR)
    lone = Store(store.root).get("fmt-lone")
    assert (lone.status, lone.supersedes) == ("active", None)
    assert decision.after["fmt-lone"]["status"] == "active"


# ------------------------------------------------------------------- promotion decisions
def test_approving_a_promotion_creates_the_team_record(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    mine = item.records[0].memory
    private_before = fronts(private.root)
    team_logs = {p: t for p, t in tree_state(team.root).items() if p.startswith("logs/")}
    first_private, first_team = len(events(private.root)), len(events(team.root))
    counts = commit_count(private.root), commit_count(team.root)

    decision = decide(
        workspace(demo), item.id, approve=True, actor=OWNER, reason="the whole team uses pnpm"
    )

    # the team record: a new id, scope team, every source kept, resolving in the team store
    copy = memory_where(Store(team.root), attribute="package_manager")
    assert decision.created == [{"store": str(team.root), "id": copy.id}]
    assert decision.touched == []
    assert copy.id != mine.id
    assert (copy.scope, copy.status, copy.content) == ("team", "active", mine.content)
    assert (copy.created_at, copy.verified_at, copy.usage_count) == (NOW, NOW, 0)
    assert [(s.task, s.message_index, s.evidence) for s in copy.all_sources] == [
        (s.task, s.message_index, s.evidence) for s in mine.all_sources
    ]
    assert len(copy.all_sources) == 3
    for source in copy.all_sources:
        excerpt = logs.resolve(team.root, source)
        assert excerpt is not None
        assert dict(excerpt.lines)[excerpt.line].endswith(source.evidence)
    # only the quoted message lines travelled into the team's daily logs
    added = [
        line
        for rel, data in tree_state(team.root).items()
        if rel.startswith("logs/")
        for line in data.decode().splitlines()
        if line.startswith("- [") and line.encode() not in team_logs.get(rel, b"")
    ]
    assert sorted(added) == sorted(
        logs.resolve(private.root, s, context=0).lines[0][1]  # type: ignore[union-attr]
        for s in mine.all_sources
    )
    team_events = events(team.root)[first_team:]
    assert [(e["action"], e["from"], e["to"]) for e in team_events] == [("promote", None, "active")]
    assert team_events[0]["decision"] == decision.id
    assert team_events[0]["request"] == item.id
    assert team_events[0]["details"]["promoted_from"] == mine.id
    assert git(team.root, "log", "-1", "--format=%ae").strip() == f"{OWNER}@memgov.invalid"
    # the private side: the request is closed, the record itself unchanged
    assert_recorded(
        private.root, decision, actor=OWNER, reason="the whole team uses pnpm", item=item.id,
        first_event=first_private,
    )  # fmt: skip
    closed = get_request(Store(private.root), item.id)
    assert (closed.status, closed.decision, closed.decided_by, closed.decision_reason) == (
        "approved", decision.id, OWNER, "the whole team uses pnpm"
    )  # fmt: skip
    assert fronts(private.root) == private_before
    assert (commit_count(private.root), commit_count(team.root)) == (counts[0] + 1, counts[1] + 1)
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_a_secret_blocks_a_promotion_and_changes_neither_store(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="ci_registry_auth")
    check = unchanged(private.root, team.root)
    with pytest.raises(SecretBlocked) as caught:
        decide(workspace(demo), item.id, approve=True, actor=MAINTAINER, reason="share it")
    assert caught.value.rules == ["github-pat"]
    assert "github-pat" in str(caught.value)
    assert DEMO_TOKEN not in str(caught.value) and DEMO_TOKEN[4:] not in str(caught.value)
    check()
    assert find_item(workspace(demo), item.id).request.status == "open"  # type: ignore[union-attr]


def test_the_scan_is_fresh_at_approval(demo: Path) -> None:
    """The request was filed when the record was clean; a token written into it since
    is caught when the maintainer approves, whatever the queue showed before."""
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    assert item.scan == ()
    token = fake_token("ghp_", 36)
    mine = item.records[0].memory
    with private.transaction(actor=OWNER, message="test: a hand edit") as tx:
        tx.update(mine.id, action="edit", reason="test", content=f"{mine.content} {token}")
    check = unchanged(private.root, team.root)
    with pytest.raises(SecretBlocked) as caught:
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    assert caught.value.rules == ["github-pat"] and token not in str(caught.value)
    check()


def test_a_secret_in_the_value_shows_in_the_queue_and_blocks_the_promotion(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    mine = item.records[0].memory
    token = fake_token("ghp_", 36)
    with private.transaction(actor=OWNER, message="test: a hand edit") as tx:
        tx.update(mine.id, action="edit", reason="test", value=f"pnpm {token}")
    shown = find_item(workspace(demo), item.id)
    assert [hit["rule"] for hit in shown.scan] == ["github-pat"]
    assert token not in json.dumps(list(shown.scan))
    check = unchanged(private.root, team.root)
    with pytest.raises(SecretBlocked, match=f"promotion of {mine.id}: .*github-pat"):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    check()


def test_a_busy_private_store_leaves_the_team_store_unchanged(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the private store's lock: the promotion fails before the
    team copy is written (not after, with the request left open)."""
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    # wait 0.2 s for the lock, not 30 (file_lock's default, read when it is called)
    defaults = fsutil.file_lock.__wrapped__.__kwdefaults__  # type: ignore[attr-defined]
    monkeypatch.setitem(defaults, "timeout", 0.2)
    check = unchanged(private.root, team.root)
    lock = Store(private.root).state_dir / "lock"
    holder = subprocess.Popen(  # another process: flock excludes processes
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match="holds the store lock"):
            decide(workspace(demo), item.id, approve=True, actor=OWNER)
    finally:
        holder.kill()
        holder.wait()
    check()
    assert_clean(demo)


def test_a_record_replaced_since_the_request_is_not_promoted(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    correct(workspace(demo), item.records[0].memory.id, content="只用 pnpm 9。", actor=OWNER)
    check = unchanged(private.root, team.root)
    with pytest.raises(ValidationError, match="is superseded since the promotion was requested"):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    check()
    rejected = decide(workspace(demo), item.id, approve=False, actor=OWNER, reason="replaced")
    assert (rejected.kind, rejected.option, rejected.created) == ("promotion", "reject", [])
    assert get_request(Store(private.root), item.id).status == "rejected"
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_rejecting_a_promotion_closes_the_request_with_its_reason(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="ci_registry_auth")
    team_unchanged = unchanged(team.root)
    before = fronts(private.root)
    first = len(events(private.root))
    decision = decide(
        workspace(demo), item.id, approve=False, actor=OWNER, reason="rotate the token first"
    )
    assert (decision.option, decision.created, decision.revertible) == ("reject", [], True)
    assert_recorded(
        private.root, decision, actor=OWNER, reason="rotate the token first", item=item.id,
        first_event=first,
    )  # fmt: skip
    closed = get_request(Store(private.root), item.id)
    assert (closed.status, closed.decided_by, closed.decision_reason) == (
        "rejected", OWNER, "rotate the token first"
    )  # fmt: skip
    assert fronts(private.root) == before
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    team_unchanged()
    assert_clean(demo)


# --------------------------------------------------------------------- deletion decisions
def test_approving_a_deletion_erases_the_record(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "deletion")
    city = item.records[0].memory
    quote = city.all_sources[0].evidence
    assert city.content.encode() in all_text(private.root)  # there to begin with
    first = len(events(private.root))
    team_unchanged = unchanged(team.root)

    decision = decide(workspace(demo), item.id, approve=True, actor=OWNER)

    reason = "deletion approved: I do not want my location remembered"
    new = assert_recorded(
        private.root, decision, actor=OWNER, reason=reason, item=item.id, first_event=first
    )
    assert decision.erased == [city.id] and not decision.revertible
    assert transitions(new) == [(city.id, "active", "deleted")]
    erase = new[0]
    assert (erase["action"], erase["memory_ids"], erase["request"]) == (
        "erase", [city.id], item.id
    )  # fmt: skip
    assert erase["details"] == {
        "key": {
            "scope": "private",
            "subject": city.subject,
            "attribute": city.attribute,
            "condition": None,
        },
        "content_hash": city.content_hash,
    }
    assert not (private.root / city.path).exists()
    assert city.path not in (private.root / "MEMORY.md").read_text(encoding="utf-8")
    assert city.id not in Store(private.root).memories
    # gone from the files, the events, every commit and every object git holds
    text = all_text(private.root)
    assert city.content.encode() not in text
    assert quote.encode() not in text
    assert get_request(Store(private.root), item.id).status == "approved"
    with pytest.raises(ValidationError, match="an erasure cannot be reverted"):
        revert(workspace(demo), decision.id, actor=OWNER)
    team_unchanged()
    assert_clean(demo)


def test_a_record_in_conflict_since_the_request_is_not_erased_alone(demo: Path) -> None:
    """Erasing one record of a conflict set would leave the other in conflict alone;
    the person resolves the conflict instead ('neither' erases both)."""
    private, team = stores(demo)
    item = the_item(demo, "deletion")
    city = item.records[0].memory
    log, _ = private.log_message(
        task="tr_city_2", index=1, role="user", text="其实我一直住在上海", actor="agent:test"
    )
    outcome = remember(
        private,
        candidate_from_dict(
            {
                "content": "用户住在上海。", "type": "semantic", "scope": "private",
                "subject": city.subject, "attribute": "home_city", "value": "上海",
                "s1": 0.9, "s2": 0.9,
                "source": {"task": "tr_city_2", "message_index": 1,
                           "evidence": "其实我一直住在上海", "log": log},
            }
        ),
        actor="agent:test",
    )  # fmt: skip
    assert outcome.kind == "conflict"
    check = unchanged(private.root, team.root)
    with pytest.raises(ValidationError, match="resolve the conflict first"):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    check()
    conflict = the_item(demo, "conflict", title=f"{city.subject} #home_city")
    decision = decide(workspace(demo), conflict.id, approve=True, option="neither", actor=OWNER)
    assert set(decision.erased) == {city.id, *outcome.memory_ids}
    assert build_queue(workspace(demo), kinds=["deletion"]) == []  # its record is gone
    assert_clean(demo)


def test_rejecting_a_deletion_keeps_the_record(demo: Path) -> None:
    private, _ = stores(demo)
    item = the_item(demo, "deletion")
    before = fronts(private.root)
    first = len(events(private.root))
    decision = decide(workspace(demo), item.id, approve=False, actor=OWNER, reason="keep it")
    new = assert_recorded(
        private.root, decision, actor=OWNER, reason="keep it", item=item.id, first_event=first
    )
    assert transitions(new) == [] and decision.erased == []
    assert fronts(private.root) == before
    closed = get_request(Store(private.root), item.id)
    assert (closed.status, closed.decision_reason) == ("rejected", "keep it")
    assert build_queue(workspace(demo), kinds=["deletion"]) == []
    assert_clean(demo)


def test_erasing_one_of_two_records_that_share_a_line_keeps_the_other(
    store: Store, make_memory: Callable[..., Memory]
) -> None:
    """The bug fixed in Transaction.erase: the shared line was scrubbed from the other
    record's file in every commit, so the working tree no longer matched HEAD."""
    shared = "Deploy with `bash deploy.sh` from the repository root."
    gone = make_memory(
        id="deploy-weekdays",
        attribute="deploy_days",
        content=f"{shared}\nOnly on weekdays, never on a Friday.",
        source=Source(
            task="tr_days", message_index=1, evidence="only weekdays", log=logs.log_path(FIXED_NOW)
        ),
    )
    kept = make_memory(
        id="deploy-ops",
        attribute="deploy_ask",
        content=f"{shared}\nAsk in the ops channel before the first run.",
    )
    add_memories(store, gone, kept)
    kept_file = (store.root / "memories/deploy-ops.md").read_bytes()
    index = (store.root / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    request = file_request(store, kind="delete", memory_id=gone.id, reason="wrong", actor=ACTOR)

    decision = decide(Workspace([store]), request.id, approve=True, actor=ACTOR)

    assert decision.erased == [gone.id]
    assert (store.root / "memories/deploy-ops.md").read_bytes() == kept_file
    assert (store.root / "MEMORY.md").read_text(encoding="utf-8").splitlines() == [
        line for line in index if "deploy-weekdays" not in line
    ]
    assert git(store.root, "status", "--porcelain") == ""
    assert git_bytes(store.root, "show", "HEAD:memories/deploy-ops.md") == kept_file
    text = all_text(store.root)
    assert b"Only on weekdays, never on a Friday." not in text
    assert b"only weekdays" not in text
    assert shared.encode() in text
    assert [f.render() for f in diagnose(Store(store.root)) if f.severity == "error"] == []


def test_an_erasure_also_clears_the_record_from_earlier_decisions(demo: Path) -> None:
    """A decision record keeps the front matter of the records it changed (title,
    value, source quote). Erasing such a record later must not leave them there, nor
    leave the working tree differing from the rewritten history."""
    private, _ = stores(demo)
    conflict = the_item(demo, "conflict", scope="private")
    first = decide(workspace(demo), conflict.id, approve=True, option="newer", actor=OWNER)
    winner = Store(private.root).get(conflict.records[-1].memory.id)
    quote = winner.all_sources[0].evidence
    assert quote in (private.root / first.path).read_text(encoding="utf-8")

    request = file_request(
        Store(private.root), kind="delete", memory_id=winner.id, reason="not mine", actor=OWNER
    )
    decide(workspace(demo), request.id, approve=True, actor=OWNER)

    earlier = json.loads((private.root / first.path).read_text(encoding="utf-8"))
    for side in ("before", "after"):
        assert set(earlier[side][winner.id]) <= {
            "id", "scope", "subject", "attribute", "condition", "status"
        }  # fmt: skip
    text = all_text(private.root)
    for needle in (winner.content, quote, winner.value):
        assert needle is not None and needle.encode() not in text
    with pytest.raises(ValidationError, match=f"{winner.id} no longer exists"):
        revert(workspace(demo), first.id, actor=OWNER)
    assert_clean(demo)


# ------------------------------------------------------------------------------ reverts
@pytest.mark.parametrize(
    ("scope", "option", "actor"),
    [
        ("team", "newer", MAINTAINER),
        ("team", "older", MAINTAINER),
        ("team", "parallel", MAINTAINER),
        ("private", "newer", OWNER),
    ],
)
def test_a_revert_restores_the_exact_prior_states(
    demo: Path, scope: str, option: str, actor: str
) -> None:
    item = the_item(demo, "conflict", scope=scope)
    root = item.store.root
    before = fronts(root)
    conditions = {r.memory.id: f"env=e{n}" for n, r in enumerate(item.records)}
    decision = decide(
        workspace(demo), item.id, approve=True, option=option, actor=actor, conditions=conditions
    )
    decided_head, count = head(root), commit_count(root)
    first = len(events(root))
    assert fronts(root) != before

    undone = revert(workspace(demo), decision.id, actor=actor, reason="read the sources again")

    assert fronts(root) == before
    assert (undone.option, undone.kind, undone.item) == ("revert", "conflict", item.id)
    assert (undone.before, undone.after) == (decision.after, decision.before)
    assert undone.note == f"reverts {decision.id}" and not undone.revertible
    new = assert_recorded(
        root, undone, actor=actor, reason="read the sources again", item=item.id,
        first_event=first,
    )  # fmt: skip
    restores = [e for e in new if e["action"] == "revert"]
    assert {(e["memory_ids"][0], e["to"]) for e in restores} == {
        (r.memory.id, "conflict") for r in item.records
    }
    assert all(e["details"]["reverts"] == decision.id for e in restores)
    # a new commit on top: history is not rewritten
    assert commit_count(root) == count + 1 and is_ancestor(root, decided_head)
    assert load_decision(Store(root), decision.id).reverted_by == undone.id
    assert find_item(workspace(demo), item.id).records == item.records
    # twice is refused, and so is reverting the revert
    check = unchanged(root)
    with pytest.raises(AlreadyDecided, match=rf"already decided by .*\(decision {undone.id}\)"):
        revert(workspace(demo), decision.id, actor=actor)
    with pytest.raises(ValidationError, match="is itself a revert"):
        revert(workspace(demo), undone.id, actor=actor)
    check()
    assert_clean(demo)


def test_reverting_a_promotion_removes_the_team_copy_and_reopens_the_request(
    demo: Path,
) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    private_before, team_before = fronts(private.root), fronts(team.root)
    decision = decide(workspace(demo), item.id, approve=True, actor=MAINTAINER)
    (created,) = decision.created
    promoted_head = head(team.root)

    undone = revert(workspace(demo), decision.id, actor=MAINTAINER)

    assert fronts(team.root) == team_before
    assert fronts(private.root) == private_before
    assert not (team.root / f"memories/{created['id']}.md").exists()
    gone = [e for e in events(team.root) if e.get("decision") == undone.id]
    assert [(e["action"], e["memory_ids"], e["to"]) for e in gone] == [
        ("revert-erase", [created["id"]], "deleted")
    ]
    assert is_ancestor(team.root, promoted_head)  # the team store is never rewritten
    reopened = get_request(Store(private.root), item.id)
    assert (reopened.status, reopened.decision, reopened.decided_by) == ("open", None, None)
    assert find_item(workspace(demo), item.id).kind == "promotion"
    with pytest.raises(AlreadyDecided, match="already decided by"):
        revert(workspace(demo), decision.id, actor=MAINTAINER)
    assert_clean(demo)


def test_reverting_a_promotion_that_opened_a_team_conflict_restores_the_team_record(
    demo: Path,
) -> None:
    private, team = stores(demo)
    mine = memory_where(private, attribute="test_command")
    theirs = memory_where(team, attribute="test_command")
    request = file_request(private, kind="promote", memory_id=mine.id, reason="vitest", actor=OWNER)
    team_before = fronts(team.root)
    decision = decide(workspace(demo), request.id, approve=True, actor=MAINTAINER)
    records = Store(team.root).memories
    (created,) = decision.created
    assert (records[created["id"]].status, records[theirs.id].status) == ("conflict", "conflict")
    assert [t["id"] for t in decision.touched] == [theirs.id]
    conflict = the_item(demo, "conflict", title="project:liyyro #test_command")
    assert {r.memory.id for r in conflict.records} == {created["id"], theirs.id}

    revert(workspace(demo), decision.id, actor=MAINTAINER)

    assert fronts(team.root) == team_before
    assert conflict.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_reverting_a_promotion_merged_into_a_team_record_keeps_that_record(
    demo: Path,
) -> None:
    private, team = stores(demo)
    log, _ = team.log_message(
        task="tr_team_07", index=3, role="user", text="we all use pnpm", actor=MAINTAINER
    )
    written = remember(
        team,
        candidate_from_dict(
            {
                "content": "团队统一用 pnpm。", "type": "semantic", "scope": "team",
                "subject": "project:liyyro", "attribute": "package_manager", "value": "pnpm",
                "s1": 0.9, "s2": 0.9,
                "source": {"task": "tr_team_07", "message_index": 3,
                           "evidence": "we all use pnpm", "log": log},
            }
        ),
        actor=MAINTAINER,
    )  # fmt: skip
    (theirs,) = written.memory_ids
    item = the_item(demo, "promotion", attribute="package_manager")
    team_before = fronts(team.root)
    decision = decide(workspace(demo), item.id, approve=True, actor=MAINTAINER)
    assert decision.created == []  # same value: merged into the team's record
    assert [t["id"] for t in decision.touched] == [theirs]
    assert len(Store(team.root).get(theirs).all_sources) == 4

    revert(workspace(demo), decision.id, actor=MAINTAINER)

    assert fronts(team.root) == team_before  # the team's own record is still there, as it was
    assert get_request(Store(private.root), item.id).status == "open"
    assert_clean(demo)


def test_a_refused_revert_of_a_promotion_changes_neither_store(demo: Path) -> None:
    """The private record was replaced since the promotion: the revert is refused before
    the team copy is touched (it used to be erased first, the refusal coming after)."""
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    decision = decide(workspace(demo), item.id, approve=True, actor=OWNER)
    correct(workspace(demo), item.records[0].memory.id, content="只用 pnpm 9。", actor=OWNER)
    check = unchanged(private.root, team.root)
    with pytest.raises(ValidationError, match=r"changed since .*revert the later decision first"):
        revert(workspace(demo), decision.id, actor=OWNER)
    check()
    assert decision.created[0]["id"] in Store(team.root).memories
    assert_clean(demo)


def test_reverting_a_rejection_reopens_the_request(demo: Path) -> None:
    private, _ = stores(demo)
    for kind, attribute in (("deletion", "home_city"), ("promotion", "ci_registry_auth")):
        item = the_item(demo, kind, attribute=attribute)
        before = fronts(private.root)
        decision = decide(workspace(demo), item.id, approve=False, actor=OWNER, reason="no")
        assert decision.revertible
        revert(workspace(demo), decision.id, actor=OWNER)
        assert get_request(Store(private.root), item.id).status == "open"
        assert fronts(private.root) == before
        assert find_item(workspace(demo), item.id).request.status == "open"  # type: ignore[union-attr]
    assert_clean(demo)


def test_reverting_a_correction_is_one_commit_and_keeps_history(demo: Path) -> None:
    """The corrected record comes back exactly; the correction stays, superseded, in
    the store and its history: a revert never rewrites history."""
    private, _ = stores(demo)
    doc = memory_where(private, attribute="output_format")
    before = fronts(private.root)
    decision = correct(workspace(demo), doc.id, content="对比用表格,最多五列。", actor=OWNER)
    (created,) = decision.created
    count = commit_count(private.root)
    old_head = head(private.root)
    revert(workspace(demo), decision.id, actor=OWNER)
    after = fronts(private.root)
    assert after[doc.id] == before[doc.id]
    assert {k: v for k, v in after.items() if k != created["id"]} == before
    assert Store(private.root).memories[created["id"]].status == "superseded"
    assert commit_count(private.root) == count + 1
    assert git(private.root, "merge-base", "--is-ancestor", old_head, "HEAD") == ""
    assert_clean(demo)


def test_an_unknown_decision_cannot_be_reverted(demo: Path) -> None:
    with pytest.raises(NotFoundError, match="no decision 'dec-20990101T000000-abcdef'"):
        revert(workspace(demo), "dec-20990101T000000-abcdef", actor=OWNER)
    with pytest.raises(ValidationError, match="not a decision id"):
        revert(workspace(demo), "dec-nope", actor=OWNER)


# ------------------------------------------------------------------------ who may decide
@pytest.mark.parametrize(
    ("kind", "where", "actor", "says"),
    [
        ("conflict", {"scope": "team"}, STRANGER, "only the team store's maintainers may"),
        ("conflict", {"scope": "team"}, OWNER + "-bot", "only the team store's maintainers"),
        ("conflict", {"scope": "private"}, MAINTAINER, "decided by the store's owner, liys05"),
        ("deletion", {}, MAINTAINER, "decided by the store's owner, liys05"),
        ("promotion", {"attribute": "package_manager"}, STRANGER, "maintainers may"),
    ],
)
def test_who_may_decide_is_enforced_in_core(
    demo: Path, kind: str, where: dict[str, str], actor: str, says: str
) -> None:
    item = the_item(demo, kind, **where)
    check = unchanged(*(s.root for s in stores(demo)))
    with pytest.raises(AuthorizationError, match=says) as caught:
        decide(workspace(demo), item.id, approve=True, option="newer", actor=actor)
    assert actor in str(caught.value) and item.id in str(caught.value)
    check()


def test_maintainers_and_owner_match_exactly(demo: Path) -> None:
    deletion = the_item(demo, "deletion")
    check = unchanged(*(s.root for s in stores(demo)))
    for spoof in (f"{OWNER}@example.com", f"{OWNER}@evil.example", f" {OWNER.upper()}x"):
        with pytest.raises(AuthorizationError, match="match exactly"):
            decide(workspace(demo), deletion.id, approve=False, actor=spoof)
    check()
    kept = decide(workspace(demo), deletion.id, approve=False, actor=f" {OWNER.upper()} ")
    assert kept.option == "reject"  # outer spaces and ASCII case do not matter
    conflict = the_item(demo, "conflict", scope="team")
    with pytest.raises(AuthorizationError, match="only the team store's maintainers"):
        decide(workspace(demo), conflict.id, approve=True, option="newer", actor="wang.lead")
    decision = decide(workspace(demo), conflict.id, approve=True, option="newer", actor=MAINTAINER)
    assert decision.actor == MAINTAINER
    assert_clean(demo)


def test_only_who_may_decide_may_revert(demo: Path) -> None:
    item = the_item(demo, "conflict", scope="team")
    decision = decide(workspace(demo), item.id, approve=True, option="newer", actor=MAINTAINER)
    check = unchanged(*(s.root for s in stores(demo)))
    with pytest.raises(AuthorizationError, match="only the team store's maintainers"):
        revert(workspace(demo), decision.id, actor=STRANGER)
    check()
    assert load_decision(Store(item.store.root), decision.id).reverted_by is None


def test_cli_refuses_a_decision_with_exit_2(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "conflict", scope="team")
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli(
        "decide", item.id, "--approve", "--option", "newer", "--store", str(demo),
        "--as", STRANGER,
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err.startswith(f"memgov: {STRANGER} may not decide team item {item.id}")
    check()
    decision = decide(workspace(demo), item.id, approve=True, option="newer", actor=MAINTAINER)
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli("revert", decision.id, "--store", str(demo), "--as", STRANGER)
    assert (code, out) == (2, "") and "may not decide" in err
    check()


@pytest.mark.parametrize(("email", "code"), [(MAINTAINER, 0), (STRANGER, 2)])
def test_cli_takes_the_actor_from_git_user_email(
    demo: Path,
    demo_cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    email: str,
    code: int,
) -> None:
    config = tmp_path / "gitconfig-user"
    config.write_text(f"[user]\n\temail = {email}\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.chdir(tmp_path)
    item = the_item(demo, "conflict", scope="team")
    got, out, err = demo_cli(
        "decide", item.id, "--approve", "--option", "older", "--store", str(demo), "--json"
    )
    assert got == code
    if code == 0:
        assert json.loads(out)["actor"] == email
        assert git(item.store.root, "log", "-1", "--format=%ae").strip() == email
    else:
        assert f"{email} may not decide" in err


# --------------------------------------------------------------------- CLI decide/revert
def test_cli_decide_and_revert_json(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "conflict", scope="team")
    older, newer = (r.memory.id for r in item.records)
    before = fronts(item.store.root)
    code, out, err = demo_cli(
        "decide", item.id, "--approve", "--option", "parallel",
        "--condition", f"{older}=env=testing", "--condition", f"{newer}=env=production",
        "--reason", "the source names both", "--store", str(demo), "--as", MAINTAINER, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    decided = json.loads(out)
    assert set(decided) == DECISION_KEYS
    assert (decided["kind"], decided["option"], decided["item"]) == (
        "conflict",
        "parallel",
        item.id,
    )
    assert (decided["actor"], decided["reason"]) == (MAINTAINER, "the source names both")
    assert decided["after"][older]["condition"] == "env=testing"
    assert decided["revertible"] is True and decided["erased"] == []
    assert decided["store"] == str(item.store.root)

    code, out, err = demo_cli(
        "revert", decided["id"], "--store", str(demo), "--as", MAINTAINER, "--json"
    )
    assert (code, err) == (0, "")
    undone = json.loads(out)
    assert set(undone) == DECISION_KEYS
    assert (undone["option"], undone["note"]) == ("revert", f"reverts {decided['id']}")
    assert undone["revertible"] is False
    assert fronts(item.store.root) == before
    assert_clean(demo)


def test_cli_decide_text_says_how_to_undo(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "deletion")
    code, out, _ = demo_cli(
        "decide", item.id, "--reject", "--reason", "keep", "--store", str(demo), "--as", OWNER
    )
    assert code == 0
    decision_id = out.split(":", 1)[0]
    assert out == (
        f"{decision_id}: deletion {item.id} -> reject (keep)\n"
        f"  undo with: memgov revert {decision_id}\n"
    )
    code, out, _ = demo_cli("revert", decision_id, "--store", str(demo), "--as", OWNER)
    assert code == 0 and out.endswith(f": reverted {decision_id}\n")


def test_cli_erasure_and_its_refused_revert(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "deletion")
    code, out, err = demo_cli(
        "decide", item.id, "--approve", "--store", str(demo), "--as", OWNER, "--json"
    )
    assert (code, err) == (0, "")
    decided = json.loads(out)
    assert decided["erased"] == [item.records[0].memory.id] and decided["revertible"] is False
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli("revert", decided["id"], "--store", str(demo), "--as", OWNER)
    assert (code, out) == (2, "")
    assert "an erasure cannot be reverted, its content is gone" in err
    check()
    assert_clean(demo)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "say --approve or --reject"),
        (["--approve", "--reject"], "say --approve or --reject"),
        (["--approve"], "field 'option': unknown option"),
        (["--approve", "--option", "parallel"], "parallel needs a condition"),
        (["--approve", "--option", "parallel", "--condition", "nope"], "ID=CONDITION"),
    ],
)
def test_cli_decide_bad_input(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]], args: list[str], says: str
) -> None:
    item = the_item(demo, "conflict", scope="team")
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli("decide", item.id, *args, "--store", str(demo), "--as", MAINTAINER)
    assert (code, out) == (2, "") and says in err
    check()


# ------------------------------------------------------------------------ two stores
def _private_texts(private: Store, skip: str) -> Iterator[str]:
    """Everything the private store says, but the one record that is promoted."""
    for memory in private.memories.values():
        if memory.id == skip:
            continue
        yield memory.content
        yield from (s.evidence for s in memory.all_sources if len(s.evidence.encode()) >= 12)
    yield (private.root / "notes/ci.md").read_text(encoding="utf-8").splitlines()[-1]


def test_nothing_private_enters_the_team_store_but_an_approved_promotion(demo: Path) -> None:
    private, team = stores(demo)
    pnpm = memory_where(private, attribute="package_manager")
    texts = list(_private_texts(private, skip=pnpm.id))
    assert texts and not any(t.encode() in all_text(team.root) for t in texts)
    team_head = head(team.root)
    team_files = tree_state(team.root)

    # every other kind of decision in the private store: none reaches the team store
    doctor = the_item(demo, "conflict", scope="private")
    decided = [decide(workspace(demo), doctor.id, approve=True, option="newer", actor=OWNER)]
    kept = the_item(demo, "deletion")
    decided.append(decide(workspace(demo), kept.id, approve=False, actor=OWNER))
    note = the_item(demo, "promotion", attribute="ci_registry_auth")
    with pytest.raises(SecretBlocked):
        decide(workspace(demo), note.id, approve=True, actor=OWNER)
    decided.append(
        decide(workspace(demo), note.id, approve=False, actor=OWNER, reason="holds a token")
    )
    doc = memory_where(Store(private.root), attribute="doc_language", status="active")
    asked = file_request(
        Store(private.root), kind="delete", memory_id=doc.id, reason="x", actor=OWNER
    )
    decided.append(decide(workspace(demo), asked.id, approve=True, actor=OWNER))
    assert [(d.kind, d.option, d.store) for d in decided] == [
        ("conflict", "newer", str(private.root)),
        ("deletion", "reject", str(private.root)),
        ("promotion", "reject", str(private.root)),
        ("deletion", "approve", str(private.root)),
    ]
    after = Store(private.root)
    assert {r.memory.id: after.memories[r.memory.id].status for r in doctor.records} == {
        doctor.records[0].memory.id: "superseded",
        doctor.records[1].memory.id: "active",
    }
    assert kept.records[0].memory.id in after.memories and doc.id not in after.memories
    assert [get_request(after, i).status for i in (kept.id, note.id, asked.id)] == [
        "rejected", "rejected", "approved"
    ]  # fmt: skip
    assert head(team.root) == team_head and tree_state(team.root) == team_files

    promotion = the_item(demo, "promotion", attribute="package_manager")
    decision = decide(workspace(demo), promotion.id, approve=True, actor=OWNER)

    # one commit in the team store: the promotion, with the record and its quoted lines
    assert git(team.root, "rev-list", f"{team_head}..HEAD").split() == [head(team.root)]
    (created,) = decision.created
    changed = {rel for rel, data in tree_state(team.root).items() if team_files.get(rel) != data}
    assert changed - {"MEMORY.md", "events.jsonl"} == {f"memories/{created['id']}.md"} | {
        s.log for s in Store(team.root).get(created["id"]).all_sources if s.log
    }
    everything = all_text(team.root)
    assert [t for t in texts if t.encode() in everything] == []
    assert pnpm.content.encode() in everything
    assert_clean(demo)


def test_the_promotion_preview_is_the_rule_that_decides(demo: Path) -> None:
    """The desk's preview asks core.review.decisions.promotion_outcome, which uses the same
    rule as the promotion itself: a team record whose value differs only in case and
    final punctuation is the same value, so approving merges, as the preview says."""
    from core.domain.record import Source
    from core.review.decisions import promotion_outcome

    item = the_item(demo, "promotion", attribute="package_manager")
    private_memory = item.records[0].memory
    team = Store(demo / "team")
    with team.transaction(actor=MAINTAINER, message="test: the team's own wording") as tx:
        tx.create(
            private_memory.with_changes(
                id="package-manager-team0001",
                scope="team",
                path="",
                value="PNPM.",
                source=Source(task="tr_team", evidence="the team uses PNPM."),
                sources=(),
            ),
            action="create",
            reason="test",
        )
    ws = workspace(demo)
    assert promotion_outcome(ws.team, private_memory) == "merges into package-manager-team0001"
    before = set(Store(demo / "team").memories)
    decide(ws, item.id, approve=True, actor=OWNER)
    assert set(Store(demo / "team").memories) == before  # merged, no new record
