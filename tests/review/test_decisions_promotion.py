"""Decisions on promotion requests, end to end: the team copy, its sources and
quoted log lines, the fresh secret scan, locks, and rejection.

Each runs on a copy of the demo or on a small store built for the case; after it the
stores are checked as a whole (``support_decisions``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO_MAINTAINER as MAINTAINER
from conftest import DEMO_TOKEN, commit_count, events, fake_token, git, memory_where, tree_state
from support_decisions import assert_clean, assert_recorded, fronts, stores, the_item, unchanged
from support_desk import DEMO_NOW as NOW
from support_desk import workspace

from core.demo import OWNER
from core.domain.errors import (
    AddressBlocked,
    AlreadyDecided,
    AuthorizationError,
    SecretBlocked,
    StoreError,
    ValidationError,
)
from core.review.correct import correct
from core.review.decide import decide
from core.review.queue import build_queue, get_item
from core.store import fsutil, logs
from core.store.requests import get_request, load_requests
from core.store.store import Store
from core.store.transaction import transaction


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
    assert get_item(workspace(demo), item.id).request.status == "open"  # type: ignore[union-attr]


def test_the_scan_is_fresh_at_approval(demo: Path) -> None:
    """The request was filed when the record was clean; a token written into it since
    is caught when the maintainer approves, whatever the queue showed before."""
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    assert item.scan == ()
    token = fake_token("ghp_", 36)
    mine = item.records[0].memory
    with transaction(private, actor=OWNER, message="test: a hand edit") as tx:
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
    with transaction(private, actor=OWNER, message="test: a hand edit") as tx:
        tx.update(mine.id, action="edit", reason="test", value=f"pnpm {token}")
    shown = get_item(workspace(demo), item.id)
    assert [hit.rule for hit in shown.scan] == ["github-pat"]
    assert token not in json.dumps([h.to_dict() for h in shown.scan])
    check = unchanged(private.root, team.root)
    with pytest.raises(SecretBlocked, match=f"promotion of {mine.id}: .*github-pat"):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    check()


def test_an_internal_address_stays_private_and_blocks_its_promotion(demo: Path) -> None:
    """A private record may name an internal address (its store never leaves the
    machine); the team store would take it off the machine: the queue shows it, the
    approval refuses it with what to do, and neither store changes."""
    from core.review.actions import actions_for

    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    mine = item.records[0].memory
    with transaction(private, actor=OWNER, message="test: a hand edit") as tx:
        tx.update(
            mine.id, action="edit", reason="test", content=f"{mine.content} Mirror: 10.8.0.3."
        )
    shown = get_item(workspace(demo), item.id)
    assert [(hit.rule, hit.line) for hit in shown.scan] == [("internal-ip-address", 1)]
    assert "10.8.0.3" not in json.dumps([h.to_dict() for h in shown.scan])
    (approve,) = [a for a in actions_for(shown, OWNER, workspace(demo)) if a.name == "approve"]
    refused = approve.refused
    assert refused is not None
    assert "internal address (internal-ip-address)" in refused and "off this machine" in refused
    check = unchanged(private.root, team.root)
    with pytest.raises(AddressBlocked, match=f"promotion of {mine.id}: .*internal-ip-address"):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    check()
    try:
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    except SecretBlocked as exc:  # a refusal the CLI answers with exit 1, never the address
        assert "keep the memory private" in str(exc) and "10.8.0.3" not in str(exc)


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


def test_a_correction_moves_the_promotion_request_to_the_corrected_record(demo: Path) -> None:
    private, _team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    old = item.records[0].memory
    decision = correct(workspace(demo), old.id, content="只用 pnpm 9。", actor=OWNER)
    ((new_id,),) = [[c["id"] for c in decision.created]]
    # the old request is not left open against the superseded record: it moved
    closed = get_request(Store(private.root), item.id)
    assert closed.status == "rejected" and closed.decision == decision.id
    assert new_id in (closed.decision_reason or "")
    (moved,) = [i for i in build_queue(workspace(demo)) if i.kind == "promotion"
                and i.records[0].memory.id == new_id]  # fmt: skip
    assert moved.request is not None
    assert (moved.request.reason, moved.request.requested_by) == (
        item.request.reason, item.request.requested_by,  # type: ignore[union-attr]
    )  # fmt: skip
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    # the correction says so, as it is made
    (said,) = [c for c in decision.consequences if c.kind == "request-moved"]
    assert said.subject == item.id and moved.id in said.text and new_id in said.text
    # deciding the old request now says who closed it and with which decision
    with pytest.raises(AlreadyDecided, match=decision.id):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    assert_clean(demo)


def reopen_as_before(private: Path, item_id: str, moved_id: str) -> None:
    """A store from before corrections moved requests: the old request still open
    against the superseded record, no request for the correction (files as they were,
    committed by hand)."""
    path = private / "requests" / f"{item_id}.yaml"
    text = path.read_text(encoding="utf-8")
    for key in ("decision", "decided_by", "decision_reason"):
        text = (
            "\n".join(
                f"{key}: null" if line.startswith(f"{key}:") else line for line in text.splitlines()
            )
            + "\n"
        )
    path.write_text(text.replace("status: rejected", "status: open"), encoding="utf-8")
    (private / "requests" / f"{moved_id}.yaml").unlink()
    git(private, "add", "-A")
    git(private, "commit", "-q", "-m", "a store as an older memgov left it")


def test_a_request_left_on_a_replaced_record_is_asked_again_for_its_successor(
    demo: Path,
) -> None:
    private, _team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    old = item.records[0].memory.id
    fixed = correct(workspace(demo), old, content="只用 pnpm 9。", actor=OWNER)
    ((new_id,),) = [[c["id"] for c in fixed.created]]
    said = next(c.text for c in fixed.consequences if c.kind == "request-moved")
    (moved,) = [r.id for r in load_requests(private) if r.id in said and r.id != item.id]
    reopen_as_before(private.root, item.id, moved)
    check = unchanged(private.root, _team.root)
    with pytest.raises(ValidationError, match="is superseded since the promotion was requested"):
        decide(workspace(demo), item.id, approve=True, actor=OWNER)
    check()
    again = decide(workspace(demo), item.id, approve=False, option="rerequest", actor=OWNER)
    assert (again.kind, again.option, again.revertible) == ("promotion", "rerequest", False)
    assert get_request(Store(private.root), item.id).status == "rejected"
    (opened,) = [c for c in again.consequences if c.kind == "request-opened"]
    assert get_request(Store(private.root), opened.subject).memory_id == new_id
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    assert_clean(demo)


def test_a_promotion_request_is_withdrawn_by_who_asked_or_the_owner(demo: Path) -> None:
    private, team = stores(demo)
    item = the_item(demo, "promotion", attribute="package_manager")
    assert item.request is not None and item.request.requested_by == "agent:claude-code"
    check = unchanged(private.root, team.root)
    with pytest.raises(AuthorizationError, match="only who asked for it"):
        decide(workspace(demo), item.id, approve=False, option="withdraw", actor=MAINTAINER)
    with pytest.raises(ValidationError, match="goes with --reject"):
        decide(workspace(demo), item.id, approve=True, option="withdraw", actor=OWNER)
    check()
    first = len(events(private.root))
    done = decide(workspace(demo), item.id, approve=False, option="withdraw", actor=OWNER)
    assert (done.option, done.revertible, done.created) == ("withdraw", True, [])
    assert_recorded(
        private.root, done, actor=OWNER, reason=f"withdrawn by {OWNER}", item=item.id,
        first_event=first,
    )  # fmt: skip
    closed = get_request(Store(private.root), item.id)
    assert (closed.status, closed.decided_by) == ("rejected", OWNER)
    team_unchanged = unchanged(team.root)
    assert item.id not in {i.id for i in build_queue(workspace(demo))}
    team_unchanged()
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
