"""Proposals: a contributor's team write is a branch of the remote, reviewed like code.
Real bare remote, real clones, the real review queue and decisions."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fake_token
from support_team import (
    ALICE,
    CAROL,
    contributor,
    git,
    make_team,
    private_record,
    statuses,
    sync,
)

from core.reports.doctor import diagnose
from core.review.decide import decide
from core.review.items import PromotionAnalysis
from core.review.queue import build_queue
from core.store.requests import file_request, get_request
from core.store.workspace import Workspace
from core.team.sync import sync_team


def _proposed(tmp_path: Path, text: str = "Releases are tagged vX.Y.Z.") -> tuple:
    team = make_team(tmp_path)
    carol_team, carol = contributor(tmp_path, team)
    memory_id = private_record(carol, text)
    request = file_request(
        carol, kind="promote", memory_id=memory_id, reason="the team needs it", actor=CAROL
    )
    report = sync_team(carol_team, actor=CAROL, private=carol)
    return team, carol_team, carol, request, report


def test_a_contributor_request_becomes_a_branch_a_maintainer_approves(tmp_path: Path) -> None:
    team, carol_team, carol, request, report = _proposed(tmp_path)
    assert report.proposals is not None and report.proposals.proposed == [request.id]
    branch = f"memgov/proposals/{request.id}"
    files = git(team.remote, "diff", "--name-only", "main", branch).split()
    assert f"proposals/{request.id}.json" in files
    assert any(f.startswith("memories/") for f in files) and any(
        f.startswith("logs/") for f in files
    )
    assert git(carol_team.root, "rev-parse", "HEAD") == git(team.remote, "rev-parse", "main")
    # the maintainer's queue, after a sync
    sync(team.alice, ALICE)
    (item,) = [i for i in build_queue(Workspace([team.alice]), kinds=["promotion"])]
    assert item.id == request.id and item.request.requested_by == CAROL
    analysis = item.analysis_as(PromotionAnalysis)
    assert analysis.proposal is not None and analysis.proposal.branch == branch
    (line,) = analysis.proposal.evidence  # the quoted message, as the branch carries it
    assert line.startswith("- [3] ") and "note: Releases are tagged vX.Y.Z." in line
    assert item.scan == ()
    decide(Workspace([team.alice]), item.id, approve=True, actor=ALICE, reason="good rule")
    assert "release-tags" in " ".join(statuses(team.alice))
    tip = git(team.remote, "rev-parse", branch).strip()
    done = sync(team.alice, ALICE)
    assert done.deleted_branches == [branch]
    # the branch's commit is in main's history now: a forge shows the pull request merged
    git(team.remote, "merge-base", "--is-ancestor", tip, "main")
    assert done.untrusted == [] and sync(team.bob, "bob@example.com").untrusted == []
    assert branch not in git(team.remote, "branch", "--list", "memgov/*")
    # Carol's next sync closes her request with Alice's decision
    back = sync_team(carol_team, actor=CAROL, private=carol)
    assert back.proposals.closed == [request.id]
    closed = get_request(carol, request.id)
    assert closed.status == "approved" and closed.decided_by == ALICE
    assert closed.decision_reason == "good rule"
    team_ids = [m.id for m in carol_team.records.all() if m.attribute == "release_tags"]
    assert len(team_ids) == 1 and carol_team.records[team_ids[0]].scope == "team"
    assert build_queue(Workspace([team.alice]), kinds=["promotion"]) == []


def test_a_rejected_proposal_keeps_its_reason(tmp_path: Path) -> None:
    team, carol_team, carol, request, _report = _proposed(tmp_path)
    sync(team.alice, ALICE)
    decide(Workspace([team.alice]), request.id, approve=False, actor=ALICE, reason="too specific")
    sync(team.alice, ALICE)
    sync_team(carol_team, actor=CAROL, private=carol)
    closed = get_request(carol, request.id)
    assert closed.status == "rejected" and closed.decision_reason == "too specific"
    assert not [m for m in team.alice.records.all() if m.attribute == "release_tags"]


def test_a_secret_never_leaves_as_a_proposal(tmp_path: Path) -> None:
    token = fake_token("ghp_", 36, seed=21)
    team, _carol_team, _carol, _request, report = _proposed(tmp_path, f"CI pushes with {token}")
    assert report.proposals.proposed == []
    (held,) = report.proposals.held_back
    assert "github-pat" in held and token not in held
    assert git(team.remote, "branch", "--list", "memgov/*").strip() == ""
    assert token not in git(team.remote, "log", "--all", "-p")


def test_an_internal_address_stays_private_and_never_leaves_as_a_proposal(
    tmp_path: Path,
) -> None:
    """Carol's private record names the staging host (her store keeps it); proposing it
    would push it to the team's remote: held back, saying why, the address not shown."""
    text = "Staging answers at https://api.staging.internal and on 10.4.0.9."
    team, _carol_team, carol, request, report = _proposed(tmp_path, text)
    assert [m.content for m in carol.records.all() if m.status == "active"] == [text]
    assert report.proposals.proposed == []
    (held,) = report.proposals.held_back
    assert request.id in held and "internal-hostname" in held and "internal-ip-address" in held
    assert "off this machine" in held and "staging.internal" not in held and "10.4.0.9" not in held
    assert git(team.remote, "branch", "--list", "memgov/*").strip() == ""
    assert "10.4.0.9" not in git(team.remote, "log", "--all", "-p")


def test_decide_on_the_command_line_pushes_a_proposal_at_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    team, _carol_team, _carol, request, _report = _proposed(tmp_path)
    sync(team.alice, ALICE)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tui.cli",
            "decide",
            request.id,
            "--approve",
            "--reason",
            "yes",
            "--store",
            str(team.alice.root),
            "--as",
            ALICE,
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert f"proposal branch deleted (decided): memgov/proposals/{request.id}" in done.stderr
    assert git(team.remote, "rev-parse", "main") == git(team.alice.root, "rev-parse", "HEAD")


def test_a_contributor_cannot_push_main_nor_decide(tmp_path: Path) -> None:
    from core.domain.errors import AuthorizationError

    _team, carol_team, _carol, request, _report = _proposed(tmp_path)
    with pytest.raises(AuthorizationError):
        decide(Workspace([carol_team]), request.id, approve=True, actor=CAROL)


def test_a_proposal_branch_that_changes_the_config_is_reported_not_offered(
    tmp_path: Path,
) -> None:
    team = make_team(tmp_path)
    other = tmp_path / "mallory"
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    git(other, "checkout", "-q", "-b", "memgov/proposals/promote-20261101-aaaaaa")
    (other / "memgov.yaml").write_text((other / "memgov.yaml").read_text() + "theta: 0.01\n")
    git(
        other,
        "commit",
        "-qam",
        "lower the gate",
        env={
            "GIT_AUTHOR_NAME": "m",
            "GIT_AUTHOR_EMAIL": "m@x",
            "GIT_COMMITTER_NAME": "m",
            "GIT_COMMITTER_EMAIL": "m@x",
        },
    )
    git(other, "push", "-q", "origin", "HEAD")
    sync(team.alice, ALICE)
    assert build_queue(Workspace([team.alice]), kinds=["promotion"]) == []
    (finding,) = [f for f in diagnose(team.alice) if "proposal branch" in f.reason]
    assert "memgov.yaml" in finding.reason and finding.severity == "error"


def test_a_contributors_config_change_goes_to_a_branch_not_main(tmp_path: Path) -> None:
    team = make_team(tmp_path)
    carol_team, _carol = contributor(tmp_path, team)
    main = git(team.remote, "rev-parse", "main")
    (carol_team.root / "memgov.yaml").write_text(
        (carol_team.root / "memgov.yaml").read_text() + "theta: 0.5\n"
    )
    git(
        carol_team.root,
        "commit",
        "-qam",
        "a lower gate",
        env={
            "GIT_AUTHOR_NAME": "c",
            "GIT_AUTHOR_EMAIL": CAROL,
            "GIT_COMMITTER_NAME": "c",
            "GIT_COMMITTER_EMAIL": CAROL,
        },
    )
    mine = git(carol_team.root, "rev-parse", "HEAD").strip()
    report = sync_team(carol_team, actor=CAROL)
    assert git(team.remote, "rev-parse", "main") == main  # main is the maintainers'
    branch = f"memgov/proposals/change-{mine[:10]}"
    assert git(team.remote, "rev-parse", branch).strip() == mine
    assert "pushed as the branch" in report.render()
    assert git(carol_team.root, "rev-parse", "HEAD") == main  # her clone follows the team
    sync(team.alice, ALICE)
    (finding,) = [f for f in diagnose(team.alice) if "proposal branch" in f.reason]
    assert "memgov.yaml" in finding.reason and "pull request" in finding.reason
