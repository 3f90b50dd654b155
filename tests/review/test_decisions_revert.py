"""Reverting decisions, end to end: what a revert restores, who may revert, and what
cannot be reverted.

Each runs on a copy of the demo or on a small store built for the case; after it the
stores are checked as a whole (``support_decisions``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_MAINTAINER as MAINTAINER
from conftest import commit_count, events, git, head, memory_where, record_file
from support_decisions import (
    assert_clean,
    assert_recorded,
    fronts,
    is_ancestor,
    stores,
    the_item,
    unchanged,
)
from support_desk import workspace

from core.demo import OWNER
from core.domain.errors import AlreadyDecided, NotFoundError, ValidationError
from core.review.correct import correct
from core.review.decide import decide
from core.review.queue import build_queue, get_item
from core.review.revert import revert
from core.store.decisions import load_decision
from core.store.requests import file_request, get_request
from core.store.store import Store
from core.writing.pipeline import candidate_from_dict, remember


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
    assert get_item(workspace(demo), item.id).records == item.records
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
    assert not record_file(team.root, created["id"]).exists()
    gone = [e for e in events(team.root) if e.get("decision") == undone.id]
    assert [(e["action"], e["memory_ids"], e["to"]) for e in gone] == [
        ("revert-erase", [created["id"]], "deleted")
    ]
    assert is_ancestor(team.root, promoted_head)  # the team store is never rewritten
    reopened = get_request(Store(private.root), item.id)
    assert (reopened.status, reopened.decision, reopened.decided_by) == ("open", None, None)
    assert get_item(workspace(demo), item.id).kind == "promotion"
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
        assert get_item(workspace(demo), item.id).request.status == "open"  # type: ignore[union-attr]
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
