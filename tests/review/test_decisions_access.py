"""Who may decide, enforced in core, and what crosses from the private store to the
team store: nothing but an approved promotion.

Each runs on a copy of the demo or on a small store built for the case; after it the
stores are checked as a whole (``support_decisions``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import DEMO_MAINTAINER as MAINTAINER
from conftest import git, head, memory_where, tree_state
from support_decisions import STRANGER, all_text, assert_clean, stores, the_item, unchanged
from support_desk import workspace

from core.demo import OWNER
from core.domain.errors import AuthorizationError, SecretBlocked
from core.domain.record import Source
from core.review.decide import decide
from core.review.revert import revert
from core.store.decisions import load_decision
from core.store.layout import memory_path
from core.store.requests import file_request, get_request
from core.store.store import Store
from core.store.transaction import transaction


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


def test_cli_refuses_a_decision_with_exit_1(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "conflict", scope="team")
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli(
        "decide", item.id, "--approve", "--option", "newer", "--store", str(demo),
        "--as", STRANGER,
    )  # fmt: skip
    assert (code, out) == (1, "")  # a refusal: exit 1, as a refused write
    assert err.startswith(f"memgov: {STRANGER} may not decide team item {item.id}")
    check()
    decision = decide(workspace(demo), item.id, approve=True, option="newer", actor=MAINTAINER)
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli("revert", decision.id, "--store", str(demo), "--as", STRANGER)
    assert (code, out) == (1, "") and "may not decide" in err
    check()


@pytest.mark.parametrize(("email", "code"), [(MAINTAINER, 0), (STRANGER, 1)])
def test_cli_takes_the_actor_from_git_user_email(
    demo: Path,
    demo_cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    email: str,
    code: int,
) -> None:
    for store in stores(demo):  # a store of one's own names no default actor (the demo's does)
        settings = store.root / "memgov.yaml"
        kept = [x for x in settings.read_text().splitlines() if not x.startswith("default_actor")]
        settings.write_text("\n".join(kept) + "\n")
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
    assert changed - {"MEMORY.md", "events/000001.jsonl"} == {memory_path(created["id"])} | {
        s.log for s in Store(team.root).get(created["id"]).all_sources if s.log
    }
    everything = all_text(team.root)
    assert [t for t in texts if t.encode() in everything] == []
    assert pnpm.content.encode() in everything
    assert_clean(demo)


def test_the_promotion_preview_is_the_rule_that_decides(demo: Path) -> None:
    """The desk's preview asks core.review.promotion.promotion_outcome, which uses the same
    rule as the promotion itself: a team record whose value differs only in case and
    final punctuation is the same value, so approving merges, as the preview says."""
    from core.review.promotion import promotion_outcome

    item = the_item(demo, "promotion", attribute="package_manager")
    private_memory = item.records[0].memory
    team = Store(demo / "team")
    with transaction(team, actor=MAINTAINER, message="test: the team's own wording") as tx:
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
