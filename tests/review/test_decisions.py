"""Decisions on conflicts, end to end (SPEC sections 3, 6, 8, 10): one record wins,
parallel conditions, neither (an erasure), defer.

Each runs on a copy of the demo or on a small store built for the case; after it the
stores are checked as a whole (``support_decisions``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, add_memories, commit_count, events, head
from conftest import DEMO_MAINTAINER as MAINTAINER
from support_decisions import (
    all_text,
    assert_clean,
    assert_recorded,
    fronts,
    index_targets,
    is_ancestor,
    stores,
    the_item,
    transitions,
    unchanged,
)
from support_desk import DEMO_NOW as NOW
from support_desk import workspace

from core.demo import OWNER
from core.domain.errors import ValidationError
from core.domain.record import Memory, normal_hash
from core.review.decide import decide
from core.review.queue import build_queue, get_item
from core.review.revert import revert
from core.store.decisions import TEAM_HISTORY_NOTE
from core.store.store import Store
from core.store.workspace import Workspace


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
            "normal_hash": normal_hash(memory.content),
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
    assert get_item(workspace(demo), item.id).records == item.records
    assert not decision.revertible
    with pytest.raises(ValidationError, match="deferral: it changed nothing"):
        revert(workspace(demo), decision.id, actor=MAINTAINER)
    assert_clean(demo)


def test_a_conflict_needs_a_known_option(demo: Path) -> None:
    item = the_item(demo, "conflict", scope="team")
    check = unchanged(item.store.root)
    for option, says in ((None, "needs an option"), ("both", "'both' is not an option")):
        with pytest.raises(ValidationError, match=says):
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
