"""Attacks on a team sync, written as tests: what someone with push access
to the remote may try. Each pushes with plain git to a real bare remote."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from conftest import fake_token
from support_team import (
    ALICE,
    BOB,
    CAROL,
    Team,
    contributor,
    decide_conflict,
    forge,
    git,
    signed_team,
    signer_line,
    signing_keys,
    sync,
)

from core.review.queue import build_queue
from core.store.workspace import Workspace
from core.team import signing
from core.team.guard import PushBlocked
from core.team.sync import SyncRefused, sync_team

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("ssh-keygen") is None, reason="ssh-keygen is not installed"
)
AS_CAROL = {
    "GIT_AUTHOR_NAME": "carol",
    "GIT_AUTHOR_EMAIL": CAROL,
    "GIT_COMMITTER_NAME": "carol",
    "GIT_COMMITTER_EMAIL": CAROL,
}


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path)


@pytest.fixture
def team(tmp_path: Path, keys: dict[str, Path]) -> Team:
    return signed_team(tmp_path, keys)


def _add_carol(keys: dict[str, Path]):  # type: ignore[no-untyped-def]
    def edit(root: Path) -> None:
        data = yaml.safe_load((root / "memgov.yaml").read_text())
        data["maintainers"].append(CAROL)
        data["signers"].append(signer_line(CAROL, keys["carol"]))
        (root / "memgov.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    return edit


def test_a_subject_that_imitates_gits_output_forges_nothing(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    other = tmp_path / "forger"
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    _add_carol(keys)(other)
    fake = "\x01" + "f" * 40 + "\x02G\x02" + ALICE + "\x02alice\x02" + ALICE + "\x02fine"
    git(other, "commit", "-qam", "add carol" + fake, env=AS_CAROL)
    git(other, "push", "-q", "origin", "main")
    report = sync(team.bob, BOB)
    (bad,) = report.untrusted
    assert bad.why == "unsigned" and bad.files == ("memgov.yaml",)
    later = forge(tmp_path, team, author=CAROL, key=keys["carol"], name="later")
    again = sync(team.bob, BOB)
    assert [v.commit for v in again.untrusted] == [bad.commit, later]
    assert [w.verdict.commit for w in again.waiting] == [bad.commit]  # nothing of it taken


def test_a_forged_list_stays_untrusted_after_good_commits(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    first = forge(tmp_path, team, author=CAROL, key=keys["carol"], edit=_add_carol(keys), name="in")
    sync(team.bob, BOB)
    decide_conflict(team.alice, 0, "newer", ALICE)  # a good, signed commit: it waits too
    assert "nothing pushed" in sync(team.alice, ALICE).render()
    later = forge(tmp_path, team, author=CAROL, key=keys["carol"], name="later")
    report = sync(team.bob, BOB)
    assert [v.commit for v in report.untrusted] == [first, later]
    assert CAROL not in (team.bob.root / "memgov.yaml").read_text()


def test_a_contributors_sync_verifies_what_it_takes(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    carol_team, _carol = contributor(tmp_path, team)
    (carol_team.root / "notes.md").write_text("mine\n")
    git(carol_team.root, "add", "notes.md")
    git(carol_team.root, "commit", "-qm", "a note", env=AS_CAROL)
    sha = forge(tmp_path, team, author=ALICE, key=None, name="unsigned")
    report = sync_team(carol_team, actor=CAROL)
    assert [v.commit for v in report.untrusted] == [sha]


def test_a_line_that_looks_like_a_diff_header_hides_no_secret(tmp_path: Path, team: Team) -> None:
    token = fake_token("ghp_", 36, seed=31)
    bob = team.bob.root
    (bob / "notes.md").write_text(f"++ /dev/null\nthe token {token}\n")
    git(bob, "add", "notes.md")
    git(bob, "commit", "-qm", "notes", env=AS_CAROL)
    with pytest.raises(PushBlocked, match=r"notes\.md:2: github-pat") as caught:
        sync(team.bob, BOB)
    assert token not in str(caught.value)


def test_a_secret_in_a_commit_message_is_not_pushed(tmp_path: Path, team: Team) -> None:
    token = fake_token("ghp_", 36, seed=32)
    bob = team.bob.root
    (bob / "notes.md").write_text("nothing here\n")
    git(bob, "add", "notes.md")
    git(bob, "commit", "-qm", f"deploy with {token}", env=AS_CAROL)
    before = git(team.remote, "rev-parse", "main")
    with pytest.raises(PushBlocked, match=r"\(commit message\):1: github-pat"):
        sync(team.bob, BOB)
    assert git(team.remote, "rev-parse", "main") == before


@pytest.mark.parametrize("target", ["MEMORY.md", "logs", "notes.md"])
def test_a_link_on_the_remote_is_refused_never_checked_out(
    tmp_path: Path, team: Team, target: str
) -> None:
    other = tmp_path / "linker"
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    path = other / target
    if path.is_dir():
        git(other, "rm", "-rq", target)
    elif path.exists():
        path.unlink()
    os.symlink("/etc/passwd", path)
    git(other, "add", "-A")
    git(other, "commit", "-qm", "a link", env=AS_CAROL)
    git(other, "push", "-q", "origin", "main")
    head = git(team.bob.root, "rev-parse", "HEAD")
    with pytest.raises(SyncRefused, match="is a symbolic link"):
        sync(team.bob, BOB)
    assert git(team.bob.root, "rev-parse", "HEAD") == head
    assert not (team.bob.root / target).is_symlink()


def test_a_proposal_nested_too_deep_is_reported_not_a_crash(tmp_path: Path, team: Team) -> None:
    other = tmp_path / "deep"
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    git(other, "checkout", "-qb", "memgov/proposals/promote-20261101-bbbbbb")
    (other / "proposals").mkdir()
    (other / "proposals" / "promote-20261101-bbbbbb.json").write_text("[" * 100_000)
    git(other, "add", "-A")
    git(other, "commit", "-qm", "deep", env=AS_CAROL)
    git(other, "push", "-q", "origin", "HEAD")
    sync(team.alice, ALICE)
    assert build_queue(Workspace([team.alice]), kinds=["promotion"]) == []


def test_an_undo_event_after_a_torn_last_line_stays_readable(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    """A maintainer's own hand commit (signed, so taken) leaves a torn last line."""
    from core.store.events import read_log

    other = tmp_path / "torn"
    git(tmp_path, "clone", "-q", str(team.remote), str(other))
    decide_conflict(team.alice, 0, "newer", ALICE)
    sync(team.alice, ALICE)
    git(other, "pull", "-q")
    shard = sorted((other / "events").glob("*.jsonl"))[-1]
    shard.write_bytes(shard.read_bytes() + b'{"id": "torn')  # no newline
    as_alice = {
        "GIT_AUTHOR_NAME": "alice",
        "GIT_AUTHOR_EMAIL": ALICE,
        "GIT_COMMITTER_NAME": "alice",
        "GIT_COMMITTER_EMAIL": ALICE,
    }
    sign = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={keys['alice']}"]
    git(other, *sign, "commit", "-S", "-qam", "torn", env=as_alice)
    git(other, "push", "-q", "origin", "main")
    decide_conflict(team.bob, 0, "older", BOB)  # the same item: an undo at merge
    sync(team.bob, BOB)
    events, bad = read_log(team.bob.root)
    assert [e for e in events if e.action == "sync-undone"]
    assert len(bad) == 1  # the torn line alone, reported
    assert signing.untrusted(team.bob.state_dir) == []  # Alice signed her hand commit


def test_a_forged_list_does_not_decide_who_decides_here(
    tmp_path: Path, team: Team, keys: dict[str, Path]
) -> None:
    """Carol lists herself and drops Bob, unsigned: on Bob's clone Bob still decides and
    Carol does not, until a maintainer ratifies the change."""
    from support_team import conflict_id

    from core.domain.errors import AuthorizationError
    from core.review.decide import decide
    from core.store.store import Store
    from core.team.trust import ratify

    def swap(root: Path) -> None:
        data = yaml.safe_load((root / "memgov.yaml").read_text())
        data["maintainers"] = [ALICE, CAROL]
        (root / "memgov.yaml").write_text(yaml.safe_dump(data, sort_keys=False))

    sha = forge(tmp_path, team, author=CAROL, key=None, edit=swap, name="swap")
    sync(team.bob, BOB)
    bob = Store(team.bob.root)
    assert CAROL not in (team.bob.root / "memgov.yaml").read_text()  # not taken: it waits
    assert bob.config.maintainers == (ALICE, BOB)  # who decides: the trusted list
    with pytest.raises(AuthorizationError):
        decide(Workspace([bob]), conflict_id(bob, 3), approve=True, option="newer", actor=CAROL)
    decide_conflict(bob, 1, "newer", BOB)
    ratify(bob, sha, actor=BOB, reason="we agreed to swap")
    assert Store(team.bob.root).config.maintainers == (ALICE, CAROL)
