"""Many decisions at once (``decide_many``, ``memgov decide -``): one transaction and one
commit, every decision recorded as if made alone, all or nothing, and the lists it
refuses (named by entry and field, nothing written)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import DEMO_MAINTAINER, commit_count, events, git_status
from support_conflicts import OWNER, conflict_store
from support_decisions import assert_clean, the_item, unchanged
from support_desk import workspace

from core.demo import OWNER as DEMO_OWNER
from core.domain.errors import ValidationError
from core.review.decide import Choice, choices_from_data, decide, decide_many, preview_many
from core.review.queue import build_queue
from core.store.decisions import DECISION_DIR
from core.store.store import Store
from core.store.workspace import open_workspace

PAIRS = 6


@pytest.fixture
def conflicts(tmp_path: Path) -> Path:
    """A private store with PAIRS open conflicts (npm, then pnpm, for each project)."""
    return conflict_store(tmp_path / "store", PAIRS)


def _items(root: Path) -> list[str]:
    """The open conflicts' ids, by project (the n-th is project n's)."""
    queue = build_queue(open_workspace([root]), kinds=["conflict"])
    return [i.id for i in sorted(queue, key=lambda i: i.subject)]


def _statuses(root: Path) -> dict[str, str]:
    return {m.id: m.status for m in Store(root).memories.values()}


def test_a_list_is_one_commit_and_each_decision_is_recorded_as_alone(conflicts: Path) -> None:
    ids = _items(conflicts)
    commits, logged = commit_count(conflicts), len(events(conflicts))
    choices = [
        (ids[0], Choice(approve=True, option="newer", reason="pnpm since May")),
        (ids[1], Choice(approve=True, option="older")),
        (ids[2], Choice(approve=False, reason="ask the team")),
    ]
    decisions = decide_many(open_workspace([conflicts]), choices, actor=OWNER)

    assert [d.item for d in decisions] == ids[:3]
    assert [d.option for d in decisions] == ["newer", "older", "defer"]
    assert commit_count(conflicts) == commits + 1
    assert git_status(conflicts) == []
    status = _statuses(conflicts)
    assert (status["tool-0000-0"], status["tool-0000-1"]) == ("superseded", "active")
    assert (status["tool-0001-0"], status["tool-0001-1"]) == ("active", "superseded")
    assert (status["tool-0002-0"], status["tool-0002-1"]) == ("conflict", "conflict")
    # each decision has its record, its decide event, and the reason given
    for decision in decisions:
        saved = json.loads((conflicts / DECISION_DIR / f"{decision.id}.json").read_text())
        assert (saved["item"], saved["option"], saved["actor"]) == (
            decision.item,
            decision.option,
            OWNER,
        )
    new = events(conflicts)[logged:]
    decided = [e for e in new if e["action"] == "decide"]
    assert [e["decision"] for e in decided] == [d.id for d in decisions]
    assert decided[0]["reason"] == "pnpm since May"
    assert all(e["actor"] == OWNER for e in new)
    # the decided items left the queue; the deferred one and the rest are still open
    assert _items(conflicts) == [ids[2], *ids[3:]]
    assert _head_message(conflicts).startswith("decide 3 items: ")


def _head_message(root: Path) -> str:
    from conftest import git

    return git(root, "log", "-1", "--format=%s")


def test_one_refusal_writes_nothing(conflicts: Path) -> None:
    ids = _items(conflicts)
    check = unchanged(conflicts)
    choices = [
        (ids[0], Choice(approve=True, option="newer")),
        (ids[1], Choice(approve=True, option="sideways")),
    ]
    with pytest.raises(ValidationError) as caught:
        decide_many(open_workspace([conflicts]), choices, actor=OWNER)
    assert f"item 2 of 2 ({ids[1]})" in str(caught.value)
    assert "nothing was decided" in str(caught.value)
    check()
    assert _items(conflicts) == ids


def test_an_item_twice_or_already_decided_is_refused(conflicts: Path) -> None:
    ids = _items(conflicts)
    ws = open_workspace([conflicts])
    check = unchanged(conflicts)
    twice = [(ids[0], Choice(approve=False)), (ids[0], Choice(approve=True, option="newer"))]
    with pytest.raises(ValidationError, match="in the list twice"):
        decide_many(ws, twice, actor=OWNER)
    check()
    decide(ws, ids[0], approve=True, option="newer", actor=OWNER)
    check = unchanged(conflicts)
    from core.domain.errors import AlreadyDecided

    with pytest.raises(AlreadyDecided):
        decide_many(
            open_workspace([conflicts]),
            [(ids[1], Choice(approve=False)), (ids[0], Choice(approve=True, option="older"))],
            actor=OWNER,
        )
    check()


def test_a_list_across_stores_or_with_a_promotion_is_refused(demo: Path) -> None:
    ws = workspace(demo)
    team_conflict = the_item(demo, "conflict", scope="team")
    private_conflicts = [i for i in build_queue(ws, kinds=["conflict"]) if i.scope == "private"]
    promotion = next(i for i in build_queue(ws, kinds=["promotion"]) if not i.scan)
    check = unchanged(*(s.root for s in ws.stores))
    if private_conflicts:
        with pytest.raises(ValidationError, match="writes one store"):
            decide_many(
                ws,
                [
                    (team_conflict.id, Choice(approve=False)),
                    (private_conflicts[0].id, Choice(approve=False)),
                ],
                actor=DEMO_MAINTAINER,
            )
    with pytest.raises(ValidationError, match="two stores"):
        decide_many(ws, [(promotion.id, Choice(approve=True))], actor=DEMO_OWNER)
    check()
    assert_clean(demo)


@pytest.mark.parametrize(
    ("data", "where", "field"),
    [
        ({}, "the list", None),
        ([], "the list", None),
        (["conflict-1"], "the list[0]", None),
        ([{"approve": True}], "the list[0]", "item"),
        ([{"item": "x"}], "the list[0]", "approve"),
        ([{"item": "x", "approve": True, "reject": True}], "the list[0]", "approve"),
        ([{"item": "x", "approve": "yes"}], "the list[0]", "approve"),
        ([{"item": "x", "reject": True, "colour": "red"}], "the list[0]", "colour"),
        ([{"item": "x", "approve": True, "conditions": {"a": 1}}], "the list[0]", "conditions"),
        (
            [{"item": "x", "reject": True}, {"item": "y", "approve": True, "option": 3}],
            "the list[1]",
            "option",
        ),
    ],
)
def test_a_malformed_list_names_the_entry_and_the_field(
    data: object, where: str, field: str | None
) -> None:
    with pytest.raises(ValidationError) as caught:
        choices_from_data(data)
    assert caught.value.path == where
    assert caught.value.field == field


def test_the_cli_reads_a_list_from_stdin(
    conflicts: Path,
    demo_cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = _items(conflicts)
    listing = [
        {"item": ids[3], "approve": True, "option": "newer", "reason": "pnpm now"},
        {"item": ids[4], "reject": True},
    ]
    commits = commit_count(conflicts)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(listing)))
    code, out, err = demo_cli("decide", "-", "--store", str(conflicts), "--as", OWNER, "--json")
    assert (code, err) == (0, "")
    shown = json.loads(out)["decisions"]
    assert [(d["item"], d["option"]) for d in shown] == [(ids[3], "newer"), (ids[4], "defer")]
    assert commit_count(conflicts) == commits + 1

    # flags beside '-' are an error: each decision's options are in its entry
    check = unchanged(conflicts)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(listing)))
    code, out, err = demo_cli("decide", "-", "--approve", "--store", str(conflicts), "--as", OWNER)
    assert code != 0 and "--approve belongs in the entries" in err
    monkeypatch.setattr("sys.stdin", io.StringIO("[{"))
    code, out, err = demo_cli("decide", "-", "--store", str(conflicts), "--as", OWNER)
    assert code != 0 and "stdin: not JSON" in err
    check()


def test_a_list_preview_writes_nothing_and_names_every_transition(conflicts: Path) -> None:
    ids = _items(conflicts)
    check = unchanged(conflicts)
    choices = [(ids[0], Choice(approve=True, option="newer")), (ids[1], Choice(approve=False))]
    shown = preview_many(open_workspace([conflicts]), choices, actor=OWNER)
    check()
    assert (shown.item, shown.kind, shown.option) == ("2 items", "conflict", "defer, newer")
    (store,) = shown.stores
    moves = {(t.memory_id, t.before, t.after) for t in store.transitions}
    # as one decision alone: the loser leaves the conflict, then is superseded
    assert moves == {
        ("tool-0000-0", "conflict", "active"),
        ("tool-0000-0", "active", "superseded"),
        ("tool-0000-1", "conflict", "active"),
    }
    # two decision records, the index and the event log; what the real list then writes
    assert len([w for w in store.writes if w.startswith(f"{DECISION_DIR}/")]) == 2
    decide_many(open_workspace([conflicts]), choices, actor=OWNER)
    status = _statuses(conflicts)
    assert (status["tool-0000-0"], status["tool-0000-1"]) == ("superseded", "active")
