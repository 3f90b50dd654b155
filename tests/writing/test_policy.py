"""Authorization, tried as the attacker.

Actors match exactly (core.domain.policy.same_actor); a private store with no owner
refuses every decision; team writes by someone who is not a maintainer become
requests (remember), go to the private store or are refused (log), are refused
(sweep), wait in the batch (consolidate), read only (recall), are skipped
(import). The demo's maintainers are ``liys05`` and ``wang.lead@example.com``;
its private store's owner is ``liys05``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import commit_count, git
from support_desk import DEMO_NOW, workspace

from core.consolidation.consolidate import consolidate
from core.domain import policy
from core.domain.errors import AuthorizationError
from core.domain.record import Memory, Source
from core.importers import CLAUDE_CODE, import_folder
from core.review.batch import pending_items
from core.review.queue import build_queue
from core.store import logs
from core.store.requests import load_requests
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace, open_workspace
from core.writing.candidate import candidate_from_dict
from core.writing.decay import recall, sweep, sweep_workspace
from core.writing.remember import log_in, remember_in

MAINTAINER = "wang.lead@example.com"
OWNER = "liys05"
OUTSIDER = "bob@example.com"
#: the demo's owner and maintainer, on another domain: the old same_person let it in
SPOOF = "liys05@evil.example"
CLAUDE = Path(__file__).parents[1] / "fixtures" / "claude_code" / "liyyro"


# ------------------------------------------------------------------ helpers
def team_of(ws: Workspace) -> Store:
    assert ws.team is not None
    return ws.team


def private_of(ws: Workspace) -> Store:
    assert ws.private is not None
    return ws.private


def tracked(store: Store) -> dict[str, bytes]:
    """Every file of the store outside .git and .memgov, with its bytes."""
    return {
        p.relative_to(store.root).as_posix(): p.read_bytes()
        for p in sorted(store.root.rglob("*"))
        if p.is_file()
        and not p.relative_to(store.root).as_posix().startswith((".git/", ".memgov/"))
    }


def state(store: Store) -> tuple[int, dict[str, bytes]]:
    return commit_count(store.root), tracked(store)


def team_candidate(ws: Workspace, *, actor: str, task: str = "tr_policy") -> dict[str, Any]:
    """A team candidate whose evidence the actor logged (wherever log_in put it)."""
    said = "this repository runs its tests with pnpm vitest"
    logged = log_in(ws, task=task, index=1, role="user", text=said, actor=actor, scope="team")
    return {
        "content": "Tests run with `pnpm vitest`.",
        "type": "semantic",
        "scope": "team",
        "subject": "project:liyyro",
        "attribute": "unit_test_runner",
        "value": "pnpm vitest",
        "s1": 0.9,
        "s2": 0.9,
        "confidence": 0.8,
        "source": {"task": task, "message_index": 1, "evidence": said, "log": logged.log},
    }


def team_record(ident: str, **extra: Any) -> Memory:
    now = DEMO_NOW
    values: dict[str, Any] = {
        "id": ident,
        "type": "semantic",
        "scope": "team",
        "status": "active",
        "subject": "project:liyyro",
        "attribute": "lint_command",
        "value": "pnpm lint",
        "content": "Lint with `pnpm lint`.",
        "confidence": 0.8,
        "created_at": now,
        "verified_at": now,
        "source": Source(
            task=f"tr_{ident}", message_index=1, evidence="pnpm lint", log=logs.log_path(now)
        ),
    }
    values.update(extra)
    return Memory(**values)


def add_team_records(team: Store, *memories: Memory) -> None:
    """Records a maintainer wrote, with the log lines their sources quote."""
    with transaction(team, actor=MAINTAINER, message="test: team records") as tx:
        touched = set()
        for memory in memories:
            source = memory.source
            assert source is not None and source.message_index is not None
            rel, _ = logs.append_message(
                team.root,
                task=source.task,
                index=source.message_index,
                role="user",
                text=source.evidence or "evidence",
                when=DEMO_NOW,
            )
            touched.add(rel)
            tx.create(memory, action="create", reason="test")
        for rel in touched:
            tx.write_file(rel, (team.root / rel).read_text(encoding="utf-8"))


def set_config(store: Store, line: str, *, drop: str | None = None) -> None:
    """Change the store's memgov.yaml (and commit it, as a pushed change would be)."""
    path = store.root / "memgov.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    if drop:
        lines = [x for x in lines if not x.startswith(drop)]
    path.write_text("\n".join([*lines, line]) + "\n", encoding="utf-8")
    git(store.root, "commit", "-q", "-m", "test: config", "memgov.yaml")


# ------------------------------------------------------------------ exact matching
@pytest.mark.parametrize(
    ("actor", "name"),
    [
        (SPOOF, "liys05"),  # the old rule: same part before @, any domain
        ("liys05", SPOOF),
        ("liys05@example.com", "liys05"),  # a name never matches an email, even "ours"
        ("wang.lead", MAINTAINER),
        ("wang.lead@example.com.evil.example", MAINTAINER),
        ("wang.lead@example.co", MAINTAINER),
        ("wang.lead@evil.example", MAINTAINER),
        ("x.wang.lead@example.com", MAINTAINER),
        ("liys05-bot", "liys05"),
        ("liys0", "liys05"),
        ("", ""),
        ("   ", "liys05"),
        ("liys05", ""),
        ("liys05", "   "),
        ("liys05@", "liys05@"),  # not an email: matches nothing, not even itself
        ("@example.com", "@example.com"),
        ("a@b@c", "a@b@c"),
        ("liys\u200b05", "liys05"),  # a zero-width space inside
        ("liys\u200b05", "liys\u200b05"),  # unprintable names match nothing
        ("liys05\u202e", "liys05\u202e"),  # a bidi override
        ("liys05\x00", "liys05"),
        ("\uff4ciys05", "liys05"),  # a full-width l
        ("\u212aate", "kate"),  # the Kelvin sign, which casefold() turns into k
        ("w\u0430ng.lead@example.com", MAINTAINER),  # a Cyrillic a
        ("stra\u00dfe", "strasse"),  # casefold() would make these equal
    ],
)
def test_actors_never_match_loosely(actor: str, name: str) -> None:
    assert not policy.same_actor(actor, name)
    assert not policy.same_actor(name, actor)


@pytest.mark.parametrize(
    ("actor", "name"),
    [
        ("liys05", "liys05"),
        ("LIYS05", "liys05"),
        ("  liys05\n", "liys05"),
        ("Wang.Lead@Example.COM", MAINTAINER),
        ("agent:claude-code", "agent:Claude-Code"),
        ("李雨", "李雨"),
        ("Li Yuan", "li yuan"),
    ],
)
def test_equal_names_and_emails_match_ascii_case_insensitively(actor: str, name: str) -> None:
    assert policy.same_actor(actor, name)
    assert policy.same_actor(name, actor)


def test_maintainers_of_the_demo_team_store(demo: Path) -> None:
    team = team_of(workspace(demo))
    assert policy.is_maintainer(team, "liys05") and policy.is_maintainer(
        team, "WANG.LEAD@example.com"
    )
    for who in (SPOOF, "liys05@example.com", "wang.lead", OUTSIDER, "", "agent:claude-code"):
        assert not policy.is_maintainer(team, who), who
    with pytest.raises(AuthorizationError) as caught:
        policy.check_maintainer(team, SPOOF, "decide team item conflict-x")
    text = str(caught.value)
    assert "only the team store's maintainers" in text and "field 'maintainers'" in text
    assert str(team.root / "memgov.yaml") in text
    policy.check_maintainer(team, MAINTAINER, "decide team item conflict-x")


def test_the_owner_matches_exactly(demo: Path) -> None:
    private = private_of(workspace(demo))
    policy.check_owner(private, "LIYS05", "decide deletion-x")
    for who in (SPOOF, "liys05@example.com", MAINTAINER, ""):
        with pytest.raises(AuthorizationError, match="decided by the store's owner, liys05"):
            policy.check_owner(private, who, "decide deletion-x")


def test_a_private_store_with_no_owner_refuses_every_decision(demo: Path) -> None:
    private = private_of(workspace(demo))
    set_config(private, "owner: null", drop="owner:")
    private = Store(private.root)
    assert private.config.owner is None
    for who in ("liys05", "", MAINTAINER, "anyone"):
        with pytest.raises(AuthorizationError) as caught:
            policy.check_owner(private, who, "decide deletion-x")
        text = str(caught.value)
        assert "this private store has no owner" in text
        assert "memgov init" in text and "`owner: NAME`" in text
        assert str(private.root / "memgov.yaml") in text
    set_config(private, "owner: '   '", drop="owner:")
    with pytest.raises(AuthorizationError, match="has no owner"):
        policy.check_owner(Store(private.root), "   ", "decide deletion-x")


def test_a_team_store_has_no_owner_but_its_maintainers(demo: Path) -> None:
    team = team_of(workspace(demo))
    policy.check_owner(team, MAINTAINER, "decide conflict-x")
    with pytest.raises(AuthorizationError, match="maintainers"):
        policy.check_owner(team, OUTSIDER, "decide conflict-x")


# ------------------------------------------------------- who decides: the one rule
@dataclass(frozen=True)
class PlainConfig:
    scope: str = "private"
    owner: str | None = None
    maintainers: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlainStore:
    """Not a Store: the rules only read a root and a config."""

    config: PlainConfig
    root: Path = Path("/stores/plain")


PLAIN_STORES = {
    "team": PlainStore(PlainConfig(scope="team", owner=OWNER, maintainers=(MAINTAINER, OWNER))),
    "team-of-nobody": PlainStore(PlainConfig(scope="team")),
    "private": PlainStore(PlainConfig(owner=OWNER, maintainers=(MAINTAINER,))),
    "private-no-owner": PlainStore(PlainConfig(owner="  ", maintainers=(MAINTAINER,))),
}
ACTORS = (OWNER, "LIYS05", MAINTAINER, OUTSIDER, SPOOF, "", "agent:claude-code")


@pytest.mark.parametrize("name", sorted(PLAIN_STORES))
@pytest.mark.parametrize("actor", ACTORS)
def test_may_decide_is_check_decider(name: str, actor: str) -> None:
    store = PLAIN_STORES[name]
    try:
        policy.check_decider(store, actor, "decide x")
    except AuthorizationError:
        allowed = False
    else:
        allowed = True
    assert policy.may_decide(store, actor) is allowed


def test_a_team_store_is_decided_by_its_maintainers_a_private_one_by_its_owner() -> None:
    team, private = PLAIN_STORES["team"], PLAIN_STORES["private"]
    assert policy.may_decide(team, MAINTAINER) and policy.may_decide(team, OWNER)
    assert not policy.may_decide(team, OUTSIDER) and not policy.may_decide(team, SPOOF)
    assert policy.may_decide(private, "LIYS05")
    assert not policy.may_decide(private, MAINTAINER)  # a maintainer, not the owner
    assert not any(policy.may_decide(PLAIN_STORES["team-of-nobody"], a) for a in ACTORS)
    assert not any(policy.may_decide(PLAIN_STORES["private-no-owner"], a) for a in ACTORS)
    with pytest.raises(AuthorizationError, match="only the team store's maintainers"):
        policy.check_decider(team, OUTSIDER, "decide team item x")
    with pytest.raises(AuthorizationError, match="decided by the store's owner, liys05"):
        policy.check_decider(private, MAINTAINER, "decide x")
    with pytest.raises(AuthorizationError, match="this private store has no owner"):
        policy.check_decider(PLAIN_STORES["private-no-owner"], OWNER, "decide x")
    with pytest.raises(AuthorizationError) as caught:
        policy.check_decider(private, OUTSIDER, "decide x")
    assert str(Path("/stores/plain/memgov.yaml")) in str(caught.value)


def test_check_decider_says_what_the_queue_decision_says(demo: Path) -> None:
    """The rule core.review.authority applies to an item's store, word for word."""
    from core.review.authority import check_may_decide

    ws = workspace(demo)
    for item in build_queue(ws):
        if item.kind == "promotion":
            continue  # decided in the team store, not the item's own
        what = f"decide team item {item.id}" if item.scope == "team" else f"decide {item.id}"
        for actor in ACTORS:
            try:
                check_may_decide(item, actor, ws)
            except AuthorizationError as exc:
                with pytest.raises(AuthorizationError) as caught:
                    policy.check_decider(item.store, actor, what)
                assert str(caught.value) == str(exc)
                assert not policy.may_decide(item.store, actor)
            else:
                policy.check_decider(item.store, actor, what)
                assert policy.may_decide(item.store, actor)


def test_the_config_file_is_the_stores() -> None:
    from core.store.config import CONFIG_FILE

    assert policy.CONFIG_FILE == CONFIG_FILE


def test_a_credential_given_as_actor_is_never_echoed(demo: Path) -> None:
    team = team_of(workspace(demo))
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    for actor in (token, "x" * 500, "liys\u202e05"):
        with pytest.raises(AuthorizationError) as caught:
            policy.check_maintainer(team, actor, "sweep the team store")
        assert actor not in str(caught.value) and "not shown" in str(caught.value)


# --------------------------------------------------------- decisions (core.review.decide)
def test_a_cross_domain_actor_cannot_approve_an_erasure(demo: Path) -> None:
    from core.review.decide import decide

    ws = workspace(demo)
    deletion = next(i for i in build_queue(ws) if i.kind == "deletion")
    before = state(private_of(ws))
    with pytest.raises(AuthorizationError):
        decide(ws, deletion.id, approve=True, actor=SPOOF)
    assert state(private_of(workspace(demo))) == before


def test_nobody_approves_an_erasure_in_a_store_with_no_owner(demo: Path) -> None:
    from core.review.decide import decide

    set_config(private_of(workspace(demo)), "owner: null", drop="owner:")
    ws = workspace(demo)
    deletion = next(i for i in build_queue(ws) if i.kind == "deletion")
    before = state(private_of(ws))
    with pytest.raises(AuthorizationError, match="has no owner"):
        decide(ws, deletion.id, approve=True, actor="anyone")
    assert state(private_of(workspace(demo))) == before


# ------------------------------------------------------------------ remember
@pytest.mark.parametrize("actor", [OUTSIDER, SPOOF, "wang.lead", "agent:claude-code"])
def test_a_non_maintainer_team_memory_is_held_for_review(demo: Path, actor: str) -> None:
    ws = workspace(demo)
    team_before = state(team_of(ws))
    data = team_candidate(ws, actor=actor)

    outcome = remember_in(ws, candidate_from_dict(data), actor=actor)

    assert outcome.kind == "written" and outcome.held_for_review
    assert outcome.store == str(private_of(ws).root)
    assert state(team_of(workspace(demo))) == team_before  # not one byte in the team store
    private = Store(private_of(ws).root)
    memory = private.memories[outcome.memory_ids[0]]
    assert (memory.scope, memory.status, memory.subject) == ("private", "active", "project:liyyro")
    request = next(r for r in load_requests(private) if r.id == outcome.held_for_review)
    assert (request.kind, request.memory_id, request.status) == ("promote", memory.id, "open")
    assert request.requested_by == actor
    assert any("not a maintainer" in r for r in outcome.reasons)
    queue = build_queue(workspace(demo), kinds=["promotion"])
    assert outcome.held_for_review in {i.id for i in queue}  # a maintainer sees it


def test_a_list_holds_a_team_memory_and_writes_a_private_one_in_one_commit(demo: Path) -> None:
    from core.writing.remember import remember_many_in

    ws = workspace(demo)
    team_before = state(team_of(ws))
    data = team_candidate(ws, actor=OUTSIDER)
    mine = {**data, "scope": "private", "attribute": "own_note", "value": "mine"}
    private_commits = commit_count(private_of(ws).root)

    held, written = remember_many_in(
        ws, [candidate_from_dict(data), candidate_from_dict(mine)], actor=OUTSIDER
    )

    assert held.kind == written.kind == "written"
    assert held.held_for_review and written.held_for_review is None
    assert held.store == written.store == str(private_of(ws).root)
    assert state(team_of(workspace(demo))) == team_before
    # one commit for the two memories, one for the promotion request it files
    assert commit_count(private_of(ws).root) == private_commits + 2


def test_a_maintainer_writes_the_team_memory_directly(demo: Path) -> None:
    ws = workspace(demo)
    data = team_candidate(ws, actor=MAINTAINER)
    assert data["source"]["log"]  # logged into the team store: a maintainer may
    outcome = remember_in(ws, candidate_from_dict(data), actor=MAINTAINER)
    assert outcome.kind == "written" and outcome.held_for_review is None
    assert outcome.store == str(team_of(ws).root)
    assert Store(team_of(ws).root).memories[outcome.memory_ids[0]].scope == "team"


def test_the_same_team_memory_twice_files_one_request(demo: Path) -> None:
    ws = workspace(demo)
    data = team_candidate(ws, actor=OUTSIDER)
    first = remember_in(ws, candidate_from_dict(data), actor=OUTSIDER)
    again = remember_in(workspace(demo), candidate_from_dict(data), actor=OUTSIDER)
    assert again.kind == "merged" and again.held_for_review == first.held_for_review
    requests = [r for r in load_requests(private_of(workspace(demo))) if r.kind == "promote"]
    assert [r.id for r in requests].count(first.held_for_review) == 1


def test_without_a_private_store_a_non_maintainer_team_write_is_refused(demo: Path) -> None:
    ws = open_workspace([demo / "team"], clock=lambda: DEMO_NOW)
    maintainer_ws = workspace(demo)
    data = team_candidate(maintainer_ws, actor=MAINTAINER)
    before = state(team_of(ws))
    with pytest.raises(AuthorizationError) as caught:
        remember_in(ws, candidate_from_dict(data), actor=SPOOF)
    assert "no private store was given" in str(caught.value)
    assert "field 'maintainers'" in str(caught.value)
    assert state(team_of(open_workspace([demo / "team"]))) == before


def test_a_private_candidate_is_not_rerouted(demo: Path) -> None:
    ws = workspace(demo)
    data = team_candidate(ws, actor=OUTSIDER)
    data.update(scope="private", subject="user:liys05/project:liyyro")
    outcome = remember_in(ws, candidate_from_dict(data), actor="agent:claude-code")
    assert outcome.kind == "written" and outcome.held_for_review is None


def test_cli_remember_says_the_team_memory_is_held(
    demo: Path, demo_cli: Callable[..., Any]
) -> None:
    ws = workspace(demo)
    data = team_candidate(ws, actor=OUTSIDER)
    path = demo / "candidate.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    team_before = state(team_of(ws))

    code, out, _ = demo_cli("remember", str(path), "--store", str(demo), "--as", SPOOF, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["outcome"] == "written" and result["held_for_review"].startswith("promote-")
    assert result["store"] == str(private_of(ws).root)

    code, out, _ = demo_cli("remember", str(path), "--store", str(demo), "--as", SPOOF)
    assert code == 0 and "held for review: promote-" in out
    assert state(team_of(workspace(demo))) == team_before


# ------------------------------------------------------------------ log
def test_a_non_maintainer_cannot_write_the_team_log(
    demo: Path, demo_cli: Callable[..., Any]
) -> None:
    team = team_of(workspace(demo))
    before = state(team)
    code, _, err = demo_cli(
        "log", "--task", "tr_x", "--index", "1", "we deploy on fridays",
        "--store", str(demo / "team"), "--as", SPOOF,
    )  # fmt: skip
    assert code == 1  # refused, not an error
    assert "may not write to the team store's daily log" in err
    assert "arrives with an approved promotion" in err
    assert state(team) == before
    ws = open_workspace([demo / "team"])
    with pytest.raises(AuthorizationError):
        log_in(ws, task="tr_x", index=1, role="user", text="hello", actor=OUTSIDER)
    assert state(team) == before


def test_a_non_maintainer_team_log_goes_to_the_private_store(demo: Path) -> None:
    ws = workspace(demo)
    team_before = state(team_of(ws))
    logged = log_in(
        ws, task="tr_x", index=1, role="user", text="we deploy on fridays", actor=OUTSIDER,
        scope="team",
    )  # fmt: skip
    assert logged.store == str(private_of(ws).root) and logged.note
    assert "not a maintainer" in logged.note and "approved promotion" in logged.note
    assert "we deploy on fridays" in (private_of(ws).root / logged.log).read_text("utf-8")
    assert state(team_of(ws)) == team_before


def test_a_maintainer_writes_the_team_log(demo: Path, demo_cli: Callable[..., Any]) -> None:
    team = team_of(workspace(demo))
    before = commit_count(team.root)
    code, out, _ = demo_cli(
        "log", "--task", "tr_x", "--index", "1", "we deploy on fridays",
        "--store", str(demo / "team"), "--as", MAINTAINER, "--json",
    )  # fmt: skip
    assert code == 0 and json.loads(out)["note"] is None
    assert commit_count(team.root) == before + 1


def test_cli_log_with_both_stores_goes_private(demo: Path, demo_cli: Callable[..., Any]) -> None:
    code, out, _ = demo_cli(
        "log", "--task", "tr_x", "--index", "1", "hello", "--store", str(demo), "--as", OUTSIDER,
        "--json",
    )  # fmt: skip
    assert code == 0
    assert json.loads(out)["store"] == str((demo / "private").resolve())


# ------------------------------------------------------------------ sweep
def expiring_team(demo: Path) -> Store:
    team = team_of(workspace(demo))
    add_team_records(team, team_record("freeze", expires_at=DEMO_NOW - timedelta(days=1)))
    return Store(team.root, clock=lambda: DEMO_NOW)


def test_a_non_maintainer_cannot_sweep_the_team_store(
    demo: Path, demo_cli: Callable[..., Any]
) -> None:
    team = expiring_team(demo)
    private = private_of(workspace(demo))
    before, private_before = state(team), state(private)
    with pytest.raises(AuthorizationError, match="may not sweep the team store"):
        sweep(team, actor=SPOOF)
    code, _, err = demo_cli("sweep", "--store", str(demo), "--as", OUTSIDER)
    assert code == 1 and "Nothing was swept" in err and "--dry-run" in err
    assert state(team) == before
    assert state(private) == private_before  # all or nothing: the private store waits too
    # a dry run is open to everyone
    assert sweep(team, actor=SPOOF, dry_run=True).expired[0][0] == "freeze"
    code, out, _ = demo_cli("sweep", "--store", str(demo), "--as", OUTSIDER, "--dry-run")
    assert code == 0 and "would expire freeze" in out.replace(":", "")
    assert state(team) == before


def test_a_maintainer_sweeps_the_team_store(demo: Path) -> None:
    expiring_team(demo)
    reports = sweep_workspace(workspace(demo), actor="LIYS05")
    assert [i for _s, r in reports for i, _why in r.expired] == ["freeze"]
    assert Store(demo / "team").memories["freeze"].status == "expired"


# ------------------------------------------------------------------ consolidate
def duplicated_team(demo: Path) -> Store:
    team = team_of(workspace(demo))
    add_team_records(team, team_record("lint-1"), team_record("lint-2"))
    set_config(team, "consolidation_auto_apply: true")
    return Store(team.root, clock=lambda: DEMO_NOW)


def statuses(store: Store) -> dict[str, str]:
    return {m.id: m.status for m in Store(store.root).memories.values()}


@pytest.mark.parametrize("actor", [OUTSIDER, SPOOF, "agent:claude-code"])
def test_a_non_maintainer_consolidation_applies_nothing(demo: Path, actor: str) -> None:
    team = duplicated_team(demo)
    before = statuses(team)

    report = consolidate(team, actor=actor)

    assert report.status == "pending" and report.applied is None
    assert report.auto_apply_held and "not a maintainer" in report.auto_apply_held
    assert "not applied by policy" in report.render()
    assert statuses(team) == before  # nothing applied on main
    automatic = [c for c in report.changes if c["automatic"]]
    assert automatic  # the automatic changes wait in the batch, for a maintainer
    batch = next(pending_items(team))
    assert {c["id"] for c in batch.analysis.to_dict()["changes"]} >= {c["id"] for c in automatic}


def test_a_maintainer_consolidation_applies_by_policy(demo: Path) -> None:
    team = duplicated_team(demo)
    report = consolidate(team, actor=MAINTAINER)
    assert report.applied and report.auto_apply_held is None
    assert "superseded" in statuses(team).values()


def test_an_explicit_auto_apply_is_held_too(demo: Path) -> None:
    team = duplicated_team(demo)
    before = statuses(team)
    report = consolidate(team, actor=OUTSIDER, auto_apply=True)
    assert report.applied is None and report.auto_apply_held
    assert statuses(team) == before


def test_cli_consolidate_says_why_nothing_applied(demo: Path, demo_cli: Callable[..., Any]) -> None:
    duplicated_team(demo)
    code, out, _ = demo_cli("consolidate", "--store", str(demo / "team"), "--as", OUTSIDER)
    assert code == 0 and "not applied by policy" in out and "not a maintainer" in out


# ------------------------------------------------------------------ recall
def test_a_non_maintainer_recall_in_the_team_store_reads_only(
    demo: Path, demo_cli: Callable[..., Any]
) -> None:
    team = team_of(workspace(demo))
    before = state(team)
    found = recall(team, subject_prefix="project:liyyro", attribute=None, actor=SPOOF)
    assert found  # it reads
    assert state(team) == before  # and writes nothing
    code, out, err = demo_cli(
        "recall", "project:liyyro#test_command", "--store", str(demo / "team"), "--as", OUTSIDER
    )
    assert code == 0 and "test_command" in out and "use not recorded" in err
    assert state(team) == before
    recall(team, subject_prefix="project:liyyro", attribute=None, actor=MAINTAINER)
    assert commit_count(team.root) == before[0] + 1


# ------------------------------------------------------------------ importers
def test_a_cross_domain_actor_imports_no_team_file(demo: Path, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(CLAUDE, tmp_path / "claude" / "liyyro"))
    ws = workspace(demo)
    before = state(team_of(ws))
    report = import_folder(CLAUDE_CODE, ws, folder, actor=SPOOF)
    item = next(i for i in report.items if i.origin.startswith("team/"))
    assert item.outcome == "skipped" and "maintainers" in item.reasons[0]
    assert state(team_of(workspace(demo))) == before
