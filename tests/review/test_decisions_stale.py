"""Stale reports, end to end: the user says a memory is wrong or out of date, an agent
or a person files the report, and a person expires the record, corrects it, or keeps
it (verified now). Each decision is recorded, revertible, and leaves the stores whole.

The demo holds one report (the merge freeze the user says was called off); the
stores are checked as a whole after each case (``support_decisions``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import events, git
from support_decisions import assert_clean, assert_recorded, stores, the_item, transitions
from support_desk import DEMO_NOW, workspace

from core.demo import AGENT, OWNER
from core.domain.errors import AlreadyDecided, AuthorizationError, ValidationError
from core.reports.recall import recall
from core.review.actions import actions_for
from core.review.correct import correct
from core.review.decide import decide, preview
from core.review.items import Item, Kind, StaleAnalysis
from core.review.queue import build_queue
from core.review.revert import revert
from core.store.requests import filed_request, get_request
from core.store.store import Store
from core.store.transaction import transaction
from core.writing.decay import sweep

CORRECTED = "The code freeze was called off: merges go ahead as usual."


def freeze_item(demo: Path) -> Item:
    return the_item(demo, "stale")


def fresh(demo: Path) -> Store:
    """The private store read afresh, as the next command sees it."""
    store = workspace(demo).private
    assert store is not None
    return store


def test_the_demo_report_is_an_item_with_the_users_words(demo: Path) -> None:
    item = freeze_item(demo)
    memory = item.records[0].memory
    assert item.kind == Kind.STALE and item.id.startswith("stale-")
    assert memory.attribute == "merge_freeze" and memory.status == "active"
    assert item.request is not None and item.request.requested_by == AGENT
    assert "代码冻结取消了" in item.request.reason  # the user's words are the evidence
    assert item.title.endswith(memory.display_title)
    analysis = item.analysis_as(StaleAnalysis)
    assert analysis.verified_days == (DEMO_NOW - memory.verified_at).days
    assert [a.name for a in actions_for(item, OWNER, workspace(demo))] == [
        "expire",
        "correct",
        "keep",
    ]
    assert all(a.allowed for a in actions_for(item, OWNER, workspace(demo)))
    # the record's evidence names the report pointing at it
    assert any("stale report" in p for p in item.records[0].pointers)


def test_expire_takes_the_record_out_of_use_and_a_revert_puts_it_back(demo: Path) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    memory = item.records[0].memory
    first = len(events(private.root))

    decision = decide(workspace(demo), item.id, approve=True, option="expire", actor=OWNER)

    reason = "reported out of date, and it is: expired"
    new = assert_recorded(
        private.root, decision, actor=OWNER, reason=reason, item=item.id, first_event=first
    )
    assert (decision.kind, decision.option) == ("stale", "expire")
    assert transitions(new) == [(memory.id, "active", "expired")]
    assert fresh(demo).get(memory.id).status == "expired"
    closed = get_request(fresh(demo), item.id)
    assert (closed.status, closed.decision, closed.decided_by) == ("approved", decision.id, OWNER)
    assert memory.id not in (private.root / "MEMORY.md").read_text(encoding="utf-8")
    hits = recall(fresh(demo), subject_prefix=memory.subject, attribute=None, actor=OWNER)
    assert memory.id not in {r.memory.id for r in hits}
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)

    back = revert(workspace(demo), decision.id, actor=OWNER)
    assert back.option == "revert"
    assert fresh(demo).get(memory.id).status == "active"
    reopened = get_request(fresh(demo), item.id)
    assert reopened.status == "open" and reopened.decision is None
    assert item.id in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_keep_verifies_the_record_now_and_closes_the_report(demo: Path) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    memory = item.records[0].memory
    assert memory.verified_at < DEMO_NOW

    decision = decide(workspace(demo), item.id, approve=False, actor=OWNER)

    assert (decision.kind, decision.option) == ("stale", "keep")
    kept = fresh(demo).get(memory.id)
    assert kept.status == "active" and kept.verified_at == DEMO_NOW
    assert kept.content == memory.content
    verify = [e for e in events(private.root) if e["action"] == "verify"]
    assert [(e["memory_ids"], e["from"], e["to"], e["request"]) for e in verify] == [
        ([memory.id], "active", "active", item.id)
    ]
    assert get_request(fresh(demo), item.id).status == "rejected"
    assert_clean(demo)

    revert(workspace(demo), decision.id, actor=OWNER)
    again = fresh(demo).get(memory.id)
    assert again.verified_at == memory.verified_at  # the exact prior state
    assert_clean(demo)


def test_correct_supersedes_the_record_with_what_the_person_wrote(demo: Path) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    old = item.records[0].memory

    decision = decide(
        workspace(demo), item.id, approve=True, option="correct", content=CORRECTED, actor=OWNER
    )

    (created,) = decision.created
    store = fresh(demo)
    new = store.get(created["id"])
    assert (new.status, new.content, new.supersedes) == ("active", CORRECTED, old.id)
    assert new.verified_at == DEMO_NOW and new.attribute == old.attribute
    assert store.get(old.id).status == "superseded"
    assert get_request(store, item.id).status == "approved"
    index = (private.root / "MEMORY.md").read_text(encoding="utf-8")
    assert new.path in index and old.path not in index
    assert_clean(demo)

    revert(workspace(demo), decision.id, actor=OWNER)
    store = fresh(demo)
    assert store.get(old.id).status == "active"
    assert store.get(new.id).status == "superseded"  # kept, never rewritten out of history
    assert_clean(demo)


@pytest.mark.parametrize(
    ("approve", "option", "content", "field"),
    [
        (True, None, None, "option"),  # approving says how
        (True, "erase", None, "option"),  # not an option of a report
        (False, "expire", None, "option"),  # a rejection keeps: it takes no option
        (True, "correct", None, "content"),  # a correction needs its text
        (True, "correct", "   ", "content"),
        (True, "expire", CORRECTED, "content"),  # a content goes with correct only
    ],
)
def test_wrong_arguments_name_the_field_and_change_nothing(
    demo: Path, approve: bool, option: str | None, content: str | None, field: str
) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    before = len(events(private.root))
    with pytest.raises(ValidationError) as err:
        decide(
            workspace(demo),
            item.id,
            approve=approve,
            option=option,
            content=content,
            actor=OWNER,
        )
    assert err.value.field == field
    assert len(events(private.root)) == before
    assert get_request(fresh(demo), item.id).status == "open"


def test_only_the_owner_decides_and_a_report_is_decided_once(demo: Path) -> None:
    item = freeze_item(demo)
    with pytest.raises(AuthorizationError):
        decide(workspace(demo), item.id, approve=True, option="expire", actor=AGENT)
    assert not any(a.allowed for a in actions_for(item, AGENT, workspace(demo)))
    first = decide(workspace(demo), item.id, approve=True, option="expire", actor=OWNER)
    with pytest.raises(AlreadyDecided) as err:
        decide(workspace(demo), item.id, approve=False, actor=OWNER)
    assert err.value.decision == first.id


def test_preview_writes_nothing_and_says_what_would_change(demo: Path) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    before = len(events(private.root))
    shown = preview(workspace(demo), item.id, approve=True, option="expire", actor=OWNER)
    assert any("active -> expired" in line for line in shown.lines())
    assert len(events(private.root)) == before


def test_filing_a_report(demo: Path) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    memory = item.records[0].memory
    # the same report again files nothing: the open one is returned
    again, filed = filed_request(
        private, kind="stale", memory_id=memory.id, reason="still stale", actor=AGENT
    )
    assert (again.id, filed) == (item.id, False)
    # only an active record is used as current, so only one can be reported
    expired = next(m for m in private.memories.values() if m.status == "expired")
    with pytest.raises(ValidationError) as err:
        filed_request(private, kind="stale", memory_id=expired.id, reason="old", actor=AGENT)
    assert err.value.field == "memory" and "only an active memory" in err.value.message
    with pytest.raises(ValidationError) as err:
        filed_request(private, kind="stale", memory_id=memory.id, reason="  ", actor=AGENT)
    assert err.value.field == "reason"


def test_a_correction_closes_the_report(
    demo: Path,
) -> None:
    item = freeze_item(demo)
    memory = item.records[0].memory
    decision = correct(workspace(demo), memory.id, content=CORRECTED, actor=OWNER)
    report = get_request(fresh(demo), item.id)
    assert (report.status, report.decision) == ("approved", decision.id)
    assert any(c.kind == "request-closed" for c in decision.consequences)
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_a_record_no_longer_active_since_the_report_can_only_be_closed(demo: Path) -> None:
    private, _team = stores(demo)
    item = freeze_item(demo)
    memory = item.records[0].memory
    # the record expires by policy before anyone looks at the report
    with transaction(private, actor="memgov-sweep", message="expire by hand") as tx:
        tx.transition(memory.id, "expired", action="expire", reason="past its date")
    item = freeze_item(demo)
    refused = {a.name: a.refused for a in actions_for(item, OWNER, workspace(demo))}
    assert refused["keep"] is None
    assert "no longer used as current" in (refused["expire"] or "")
    assert "no longer used as current" in (refused["correct"] or "")
    with pytest.raises(ValidationError):
        decide(workspace(demo), item.id, approve=True, option="expire", actor=OWNER)
    decision = decide(workspace(demo), item.id, approve=False, actor=OWNER)
    assert decision.option == "close"
    after = fresh(demo).get(memory.id)
    assert after.status == "expired" and after.verified_at == memory.verified_at
    assert get_request(fresh(demo), item.id).status == "rejected"
    assert_clean(demo)


def test_erasing_the_record_closes_its_report(demo: Path) -> None:
    item = freeze_item(demo)
    memory = item.records[0].memory
    private, _team = stores(demo)
    delete, _ = filed_request(
        private, kind="delete", memory_id=memory.id, reason="forget it", actor=OWNER
    )
    decide(workspace(demo), delete.id, approve=True, actor=OWNER)
    report = get_request(fresh(demo), item.id)
    assert report.status == "approved" and "was erased" in (report.decision_reason or "")
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_sweep_is_unrelated_to_reports(demo: Path) -> None:
    """A sweep expires by policy (dates, tool versions); it leaves reports to people."""
    item = freeze_item(demo)
    sweep(fresh(demo), actor="memgov-sweep")
    assert item.id in {i.id for i in build_queue(workspace(demo))}


def test_reverting_the_correction_reopens_the_report_it_closed(demo: Path) -> None:
    item = freeze_item(demo)
    memory = item.records[0].memory
    decision = correct(workspace(demo), memory.id, content=CORRECTED, actor=OWNER)
    assert get_request(fresh(demo), item.id).status == "approved"
    back = revert(workspace(demo), decision.id, actor=OWNER)
    assert get_request(fresh(demo), item.id).status == "open"
    assert any(c.subject == item.id for c in back.consequences)
    assert fresh(demo).get(memory.id).status == "active"
    assert item.id in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_several_reports_are_decided_in_one_commit(demo: Path) -> None:
    from core.review.decide import Choice, decide_many

    private, _team = stores(demo)
    first = freeze_item(demo)
    other = next(
        m
        for m in private.memories.values()
        if m.status == "active" and m.id != first.records[0].memory.id
    )
    second, _ = filed_request(
        private, kind="stale", memory_id=other.id, reason="no longer true", actor=AGENT
    )
    commits = git(private.root, "rev-list", "--count", "HEAD")
    decisions = decide_many(
        workspace(demo),
        [(first.id, Choice(True, option="expire")), (second.id, Choice(False))],
        actor=OWNER,
    )
    assert [(d.kind, d.option) for d in decisions] == [("stale", "expire"), ("stale", "keep")]
    assert int(git(private.root, "rev-list", "--count", "HEAD")) == int(commits) + 1
    assert fresh(demo).get(first.records[0].memory.id).status == "expired"
    assert fresh(demo).get(other.id).verified_at == DEMO_NOW
    assert_clean(demo)
