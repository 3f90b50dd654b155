"""Verified maintainers: real ssh-keygen keys, commits signed by git, forged ones caught.
Every forged commit is pushed to the real bare remote by plain git."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support_team import (
    ALICE,
    BOB,
    CAROL,
    Team,
    decide_conflict,
    forge,
    git,
    make_team,
    signed_team,
    signer_line,
    signing_keys,
    sync,
)

from core.team import signing
from core.team.trust import ratify

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("ssh-keygen") is None, reason="ssh-keygen is not installed"
)


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path)


@pytest.fixture
def team(tmp_path: Path, keys: dict[str, Path]) -> Team:
    return signed_team(tmp_path, keys)


def test_commits_memgov_makes_are_signed_and_verify(team: Team) -> None:
    decide_conflict(team.alice, 0, "newer", ALICE)
    sync(team.alice, ALICE)
    assert "gpgsig -----BEGIN SSH SIGNATURE" in git(team.alice.root, "cat-file", "commit", "HEAD")
    report = sync(team.bob, BOB)
    assert report.verified == 1 and report.untrusted == []
    assert not report.self_declared
    decide_conflict(team.bob, 1, "older", BOB)
    decide_conflict(team.alice, 2, "older", ALICE)
    sync(team.bob, BOB)
    merged = sync(team.alice, ALICE)  # Bob's decision and Alice's merge commit
    assert merged.integration.kind == "merge" and merged.untrusted == []
    assert sync(team.bob, BOB).untrusted == []  # Alice's merge commit is signed too


@pytest.mark.parametrize(
    ("signed_by", "why"),
    [
        (None, "unsigned"),
        ("carol", "signed by a key the maintainer list does not have"),
        ("bob", "signed by bob@example.com for another author (alice@example.com)"),
    ],
)
def test_a_forged_decision_is_untrusted(
    tmp_path: Path, team: Team, keys: dict[str, Path], signed_by: str | None, why: str
) -> None:
    sha = forge(tmp_path, team, author=ALICE, key=keys[signed_by] if signed_by else None)
    report = sync(team.bob, BOB)
    (bad,) = report.untrusted
    assert bad.commit == sha and bad.author == ALICE and bad.why == why
    assert "in effect nowhere until a maintainer ratifies or rejects it" in report.render()
    assert [v.commit for v in signing.untrusted(team.bob.state_dir)] == [sha]


def test_a_key_removed_from_the_list_no_longer_verifies(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    def drop_bob(root: Path) -> None:
        data = yaml.safe_load((root / "memgov.yaml").read_text())
        data["signers"] = [line for line in data["signers"] if not line.startswith(BOB)]
        (root / "memgov.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    forge(tmp_path, team, author=ALICE, key=keys["alice"], edit=drop_bob, name="drop")
    assert sync(team.bob, BOB).untrusted == []  # Alice signed the change: it holds
    decide_conflict(team.bob, 1, "older", BOB)  # signed with the key just removed
    sync(team.bob, BOB)
    report = sync(team.alice, ALICE)
    (bad,) = report.untrusted
    assert bad.author == BOB and bad.why == "signed by a key the maintainer list does not have"


def test_a_forged_maintainer_cannot_sign_their_way_in(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    def add_carol(root: Path) -> None:
        data = yaml.safe_load((root / "memgov.yaml").read_text())
        data["maintainers"].append(CAROL)
        data["signers"].append(signer_line(CAROL, keys["carol"]))
        (root / "memgov.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    first = forge(tmp_path, team, author=CAROL, key=keys["carol"], edit=add_carol, name="in")
    report = sync(team.bob, BOB)
    assert [v.commit for v in report.untrusted] == [first]
    assert "not have" in report.untrusted[0].why
    # her next commit, signed by the key she listed herself, is still untrusted
    second = forge(tmp_path, team, author=CAROL, key=keys["carol"], name="after")
    report = sync(team.bob, BOB)
    assert [v.commit for v in report.untrusted] == [first, second]
    assert [w.verdict.commit for w in report.waiting] == [first]
    assert {v.commit for v in signing.untrusted(team.bob.state_dir)} == {first, second}


def test_a_maintainer_ratifies_an_untrusted_commit_for_every_clone(
    tmp_path: Path, team: Team
) -> None:
    sha = forge(tmp_path, team, author=ALICE, key=None)
    sync(team.bob, BOB)
    sync(team.alice, ALICE)
    assert [v.commit for v in signing.untrusted(team.alice.state_dir)] == [sha]
    done = ratify(team.bob, sha[:10], actor=BOB, reason="I checked the note: it is right")
    assert done.commit == sha and signing.untrusted(team.bob.state_dir) == []
    sync(team.bob, BOB)
    report = sync(team.alice, ALICE)
    assert report.untrusted == [] and signing.untrusted(team.alice.state_dir) == []


def test_without_keys_identity_is_self_declared(tmp_path: Path) -> None:
    plain = make_team(tmp_path)
    decide_conflict(plain.alice, 0, "newer", ALICE)
    sync(plain.alice, ALICE)
    report = sync(plain.bob, BOB)
    assert report.self_declared and report.untrusted == []
    assert "identity is self-declared" in report.render()


def test_doctor_names_an_untrusted_commit_and_its_files(tmp_path: Path, team: Team) -> None:
    from core.reports.doctor import diagnose

    sha = forge(tmp_path, team, author=ALICE, key=None)
    sync(team.bob, BOB)
    (finding,) = [f for f in diagnose(team.bob) if "untrusted" in f.reason]
    assert finding.severity == "error" and finding.path == "notes.md"
    assert sha[:10] in finding.reason and "unsigned" in finding.reason
    assert f"memgov team ratify|reject {sha[:10]}" in finding.reason


def test_doctor_says_identity_is_self_declared_without_keys(tmp_path: Path) -> None:
    from core.reports.doctor import diagnose

    plain = make_team(tmp_path)
    (finding,) = [f for f in diagnose(plain.bob) if "self-declared" in f.reason]
    assert finding.severity == "warning" and finding.field == "signers"


def test_the_records_an_untrusted_commit_changed_say_so_in_the_desk(
    tmp_path: Path, team: Team
) -> None:
    from core.review.queue import get_item
    from core.store.workspace import Workspace

    def edit_record(root: Path) -> None:
        record = next((root / "memories").rglob("deploy-2-0.md"))
        record.write_text(record.read_text().replace("make deploy", "make deploy-now"))

    sha = forge(tmp_path, team, author=ALICE, key=None, edit=edit_record, name="edit")
    sync(team.bob, BOB)
    from support_team import conflict_id

    item = get_item(Workspace([team.bob]), conflict_id(team.bob, 2))
    (edited,) = [r for r in item.records if r.memory.id == "deploy-2-0"]
    (note,) = [p for p in edited.pointers if p.startswith("UNTRUSTED")]
    assert sha[:10] in note and "unsigned" in note
    (other,) = [r for r in item.records if r.memory.id == "deploy-2-1"]
    assert not [p for p in other.pointers if p.startswith("UNTRUSTED")]


def test_an_approved_proposal_from_a_contributor_without_a_key_verifies(
    tmp_path: Path, team: Team
) -> None:
    from support_team import contributor, private_record

    from core.review.decide import decide
    from core.store.requests import file_request
    from core.store.workspace import Workspace
    from core.team.sync import sync_team

    carol_team, carol = contributor(tmp_path, team)
    memory_id = private_record(carol)
    request = file_request(carol, kind="promote", memory_id=memory_id, reason="r", actor=CAROL)
    sync_team(carol_team, actor=CAROL, private=carol)
    sync(team.alice, ALICE)
    decide(Workspace([team.alice]), request.id, approve=True, actor=ALICE, reason="ok")
    assert "gpgsig" in git(team.alice.root, "cat-file", "commit", "HEAD")  # the merge, signed
    sync(team.alice, ALICE)
    report = sync(team.bob, BOB)
    assert report.untrusted == [] and report.verified >= 1  # Carol's commit is no maintainer's
