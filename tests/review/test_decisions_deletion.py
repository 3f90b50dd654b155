"""Decisions on deletion requests, end to end: an approved deletion erases the record
from the files and (a private store) from git, and scrubs earlier decision files.

Each runs on a copy of the demo or on a small store built for the case; after it the
stores are checked as a whole (``support_decisions``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, FIXED_NOW, add_memories, events, git, git_bytes, record_file
from support_decisions import (
    all_text,
    assert_clean,
    assert_recorded,
    fronts,
    stores,
    the_item,
    transitions,
    unchanged,
)
from support_desk import workspace

from core.demo import OWNER
from core.domain.errors import ValidationError
from core.domain.record import Memory, Source, normal_hash
from core.reports.doctor import diagnose
from core.review.decide import decide
from core.review.queue import build_queue
from core.review.revert import revert
from core.store import logs
from core.store.layout import memory_path
from core.store.requests import Request, file_request, get_request
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing.pipeline import candidate_from_dict, remember


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
        "normal_hash": normal_hash(city.content),  # the agent writing it again is seen
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
    kept_file = record_file(store, "deploy-ops").read_bytes()
    index = (store.root / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    request = file_request(store, kind="delete", memory_id=gone.id, reason="wrong", actor=ACTOR)

    decision = decide(Workspace([store]), request.id, approve=True, actor=ACTOR)

    assert decision.erased == [gone.id]
    assert record_file(store, "deploy-ops").read_bytes() == kept_file
    assert (store.root / "MEMORY.md").read_text(encoding="utf-8").splitlines() == [
        line for line in index if "deploy-weekdays" not in line
    ]
    assert git(store.root, "status", "--porcelain") == ""
    assert git_bytes(store.root, "show", f"HEAD:{memory_path('deploy-ops')}") == kept_file
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


def test_an_erasure_closes_the_other_requests_for_the_record(demo: Path) -> None:
    """A promotion requested for a record that is then erased is closed with the
    erasure (an event says so), not left open on disk; doctor reports one left open."""
    private, _team = stores(demo)
    item = the_item(demo, "deletion")
    city = item.records[0].memory
    promotion = file_request(
        private, kind="promote", memory_id=city.id, reason="the team should know", actor=OWNER
    )
    assert get_request(Store(private.root), promotion.id).status == "open"

    decision = decide(workspace(demo), item.id, approve=True, actor=OWNER)

    closed = get_request(Store(private.root), promotion.id)
    assert (closed.status, closed.decision, closed.decided_by) == ("rejected", decision.id, OWNER)
    assert closed.decision_reason and "erased" in closed.decision_reason
    assert get_request(Store(private.root), item.id).status == "approved"  # the one decided
    closing = [e for e in events(private.root) if e["action"] == "request-closed"]
    assert [(e["request"], e["decision"], e["memory_ids"]) for e in closing] == [
        (promotion.id, decision.id, [city.id])
    ]
    assert not [i for i in build_queue(workspace(demo)) if i.id == promotion.id]
    assert_clean(demo)


def test_doctor_reports_an_open_request_for_an_erased_record(demo: Path) -> None:
    private, _team = stores(demo)
    item = the_item(demo, "deletion")
    city = item.records[0].memory
    decide(workspace(demo), item.id, approve=True, actor=OWNER)
    # a request file for the erased id, as a hand edit or an old clone would leave it
    stale = Request(
        id="promote-20261101-abcdef",
        kind="promote",
        memory_id=city.id,
        reason="the team should know",
        requested_by=OWNER,
        requested_at="2026-11-01T09:00:00+08:00",
    )
    (private.root / stale.path).write_text(stale.to_yaml(), "utf-8")
    git(private.root, "add", stale.path)
    git(private.root, "commit", "-q", "-m", "a stale request")
    found = [f for f in diagnose(Store(private.root)) if f.path == stale.path]
    assert [(f.severity, f.field) for f in found] == [("warning", "memory_id")]
    assert "no record in this store" in found[0].reason
