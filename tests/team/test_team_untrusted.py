"""Untrusted means untrusted: a commit no listed maintainer signed is in effect
nowhere until a maintainer ratifies or rejects it (core.team.untrusted).

Real ed25519 keys made by ssh-keygen, a bare repository on disk as the remote, Alice's
and Bob's clones signing their commits, and forgeries pushed with plain git from a
third clone: a planted record, a record reusing a trusted record's id, a ``git rm``
with a forged erasure event. Each is checked where an agent or a person would meet
it: the working tree, ``recall``, ``MEMORY.md``, the catalog, and the next commit a
maintainer pushes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support_team import (
    ALICE,
    BOB,
    PLANTED,
    Team,
    decide_conflict,
    every_text,
    forge,
    git,
    plant,
    signed_team,
    signing_keys,
    statuses,
    sync,
)

from core.domain.errors import AuthorizationError, NotFoundError, ValidationError
from core.reports.recall import recall_in
from core.store.store import Store
from core.store.workspace import Workspace
from core.team import signing
from core.team.trust import ratify
from core.team.untrusted import REJECT, resolve

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path)


@pytest.fixture
def team(tmp_path: Path, keys: dict[str, Path]) -> Team:
    return signed_team(tmp_path, keys)


def test_an_untrusted_commit_is_not_taken_and_waits_for_a_maintainer(
    tmp_path: Path, team: Team
) -> None:
    before = git(team.bob.root, "rev-parse", "HEAD").strip()
    sha = forge(tmp_path, team, author=ALICE, key=None, edit=plant, name="plant")

    report = sync(team.bob, BOB)

    assert [w.verdict.commit for w in report.waiting] == [sha]
    assert "not taken" in report.render() and f"ratify|reject {sha[:10]}" in report.render()
    assert git(team.bob.root, "rev-parse", "HEAD").strip() == before  # nothing taken
    bob = Store(team.bob.root)
    assert "planted-0001" not in bob.memories
    assert PLANTED not in every_text(bob)
    recalled = recall_in(Workspace([bob]), subject_prefix=None, attribute=None, actor=BOB, limit=50)
    assert PLANTED not in json.dumps([r.memory.content for r in recalled])
    assert [v.commit for v in signing.untrusted(bob.state_dir)] == [sha]


def test_a_maintainers_own_commits_do_not_launder_it(tmp_path: Path, team: Team) -> None:
    sha = forge(tmp_path, team, author=ALICE, key=None, edit=plant, name="plant")
    sync(team.alice, ALICE)
    decide_conflict(team.alice, 1, "older", ALICE)

    report = sync(team.alice, ALICE)

    assert report.pushed == 0 and "nothing pushed" in report.render()
    remote_main = git(team.remote, "rev-parse", "main").strip()
    assert remote_main == sha  # the remote still ends at the forgery; nothing on top of it
    assert PLANTED not in every_text(Store(team.alice.root))


def test_ratifying_takes_it_in_every_clone(tmp_path: Path, team: Team) -> None:
    sha = forge(tmp_path, team, author=ALICE, key=None, edit=plant, name="plant")
    sync(team.bob, BOB)
    sync(team.alice, ALICE)

    done = ratify(team.bob, sha[:10], actor=BOB, reason="I checked the planted note")

    assert done.commit == sha
    assert "planted-0001" in Store(team.bob.root).memories
    from core.reports.history import history

    marks = history(Store(team.bob.root), "planted-0001").untrusted
    assert marks[sha].startswith("UNTRUSTED (unsigned): ratified by bob@example.com")

    assert "gpgsig -----BEGIN SSH SIGNATURE" in git(team.bob.root, "cat-file", "commit", "HEAD")
    pushed = sync(team.bob, BOB)
    assert pushed.pushed >= 1
    from core.reports.doctor import diagnose

    # the hand commit recorded no event: the ratification records how the record came
    # to be (ratify-record), and the sync lists it in MEMORY.md
    errors = [f for f in diagnose(Store(team.bob.root)) if f.severity == "error"]
    assert errors == [], errors
    report = sync(team.alice, ALICE)
    assert report.waiting == [] and report.untrusted == []
    assert "planted-0001" in Store(team.alice.root).memories
    assert signing.untrusted(team.alice.state_dir) == []


def test_rejecting_undoes_it_in_every_clone_and_the_queue_moves_on(
    tmp_path: Path, team: Team
) -> None:
    sha = forge(tmp_path, team, author=ALICE, key=None, edit=plant, name="plant")
    sync(team.bob, BOB)
    sync(team.alice, ALICE)
    decide_conflict(team.alice, 1, "older", ALICE)  # Alice's own decision waits meanwhile

    done = resolve(team.bob, sha, ratify=False, actor=BOB, reason="planted by someone")

    assert not done.ratified
    assert "planted-0001" not in Store(team.bob.root).memories
    shards = "".join(p.read_text() for p in sorted(team.bob.root.rglob("*.jsonl")))
    assert f'"action":"{REJECT}"' in shards and sha in shards
    sync(team.bob, BOB)
    report = sync(team.alice, ALICE)  # takes the forgery and its rejection at once, pushes
    assert report.waiting == [] and report.pushed >= 1
    alice = Store(team.alice.root)
    assert "planted-0001" not in alice.memories and PLANTED not in every_text(alice)
    assert git(team.remote, "merge-base", "--is-ancestor", sha, "main") == ""  # in history
    sync(team.bob, BOB)
    assert statuses(Store(team.bob.root)) == statuses(alice)  # Alice's decision landed


def test_a_pushed_duplicate_of_a_trusted_id_waits(tmp_path: Path, team: Team) -> None:
    def duplicate(root: Path) -> None:
        source = next((root / "memories").rglob("deploy-1-0.md"))
        copy = root / "memories" / "zz" / "deploy-1-0.md"
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(source.read_text().replace("make deploy", PLANTED))

    forge(tmp_path, team, author=ALICE, key=None, edit=duplicate, name="dup")
    report = sync(team.bob, BOB)

    assert len(report.waiting) == 1
    bob = Store(team.bob.root)
    assert PLANTED not in every_text(bob)
    assert PLANTED not in bob.memories["deploy-1-0"].content


def test_a_pushed_erasure_waits(tmp_path: Path, team: Team) -> None:
    def erase(root: Path) -> None:
        target = next((root / "memories").rglob("deploy-2-0.md"))
        git(root, "rm", "-q", str(target.relative_to(root)))
        shard = sorted((root / "events").glob("*.jsonl"))[-1]
        line = {
            "id": "ev-20260101T000000000000-forged",
            "ts": "2026-01-01T00:00:00+00:00",
            "actor": ALICE,
            "action": "erase",
            "memory_ids": ["deploy-2-0"],
            "from": "conflict",
            "to": "deleted",
            "reason": "forged",
        }
        with shard.open("a") as handle:
            handle.write(json.dumps(line) + "\n")

    forge(tmp_path, team, author=ALICE, key=None, edit=erase, name="erase")
    report = sync(team.bob, BOB)

    assert len(report.waiting) == 1
    assert "deploy-2-0" in Store(team.bob.root).memories  # not erased here


def test_only_a_maintainer_decides_and_only_what_waits(tmp_path: Path, team: Team) -> None:
    sha = forge(tmp_path, team, author=ALICE, key=None, edit=plant, name="plant")
    sync(team.bob, BOB)
    with pytest.raises(AuthorizationError):
        resolve(team.bob, sha, ratify=True, actor="mallory@example.com", reason="me")
    with pytest.raises(NotFoundError) as missing:
        resolve(team.bob, "0" * 40, ratify=True, actor=BOB, reason="x")
    assert "is not an untrusted commit" in str(missing.value)
    with pytest.raises(ValidationError):
        resolve(team.bob, sha, ratify=True, actor=BOB, reason="  ")


# ----------------------------------------------------------------- the queue's item
def run_cli(store: Store, *argv: str) -> tuple[int, str]:
    import contextlib
    import io

    from tui.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--store", str(store.root)])
    return code, out.getvalue()


def test_an_untrusted_change_is_an_item_with_its_diff_and_no_secret(
    tmp_path: Path, team: Team
) -> None:
    from conftest import fake_token

    from core.review.items import UntrustedAnalysis
    from core.review.queue import build_queue

    token = fake_token("ghp_", 36, seed=35)

    def plant_with_token(root: Path) -> None:
        plant(root)
        (root / "notes.md").write_text(f"the deploy token is {token}\n")

    sha = forge(tmp_path, team, author=ALICE, key=None, edit=plant_with_token, name="tok")
    sync(team.bob, BOB)

    (item,) = build_queue(Workspace([Store(team.bob.root)]), kinds=["untrusted"])
    analysis = item.analysis
    assert isinstance(analysis, UntrustedAnalysis)
    assert item.id == f"untrusted-{sha[:12]}" and analysis.first
    assert (analysis.author, analysis.signer, analysis.why) == (ALICE, None, "unsigned")
    changes = {f.path: (f.change, f.record) for f in analysis.files}
    planted = next(p for p in changes if p.endswith("planted-0001.md"))
    assert changes[planted][0] == "added" and "planted-0001" in (changes[planted][1] or "")
    assert changes["notes.md"] == ("added", None)
    assert PLANTED in analysis.diff and token not in analysis.diff
    assert "[secret: github-pat]" in analysis.diff

    code, shown = run_cli(team.bob, "show", item.id, "--as", BOB)
    assert code == 0 and "signed by: nobody" in shown and token not in shown
    code, listed = run_cli(team.bob, "queue", "--kind", "untrusted", "--as", BOB)
    assert item.id in listed

    code, said = run_cli(
        team.bob, "decide", item.id, "--reject", "--reason", "planted", "--as", BOB
    )
    assert code == 0 and "-> reject" in said
    assert build_queue(Workspace([Store(team.bob.root)]), kinds=["untrusted"]) == []
    assert not (team.bob.root / "notes.md").exists()
    sync(team.bob, BOB)
    assert sync(team.alice, ALICE).waiting == []
    assert not (team.alice.root / "notes.md").exists()


def test_an_untrusted_changes_dry_run_and_decision_have_one_shape(
    tmp_path: Path, team: Team
) -> None:
    """``decide --dry-run --json`` and ``decide --json`` of an untrusted change: the same
    keys (docs/cli.md, ``--json``), ``dry_run`` saying which."""
    from core.review.queue import build_queue

    forge(tmp_path, team, author=ALICE, key=None, edit=plant, name="plant")
    sync(team.bob, BOB)
    (item,) = build_queue(Workspace([Store(team.bob.root)]), kinds=["untrusted"])
    argv = ("decide", item.id, "--reject", "--reason", "planted", "--as", BOB, "--json")
    code, dry = run_cli(team.bob, *argv, "--dry-run")
    assert code == 0
    code, made = run_cli(team.bob, *argv)
    assert code == 0
    shown, decided = json.loads(dry), json.loads(made)
    assert list(shown) == list(decided) and "would" not in shown
    assert (shown["dry_run"], decided["dry_run"]) == (True, False)
    same = ("item", "kind", "option", "actor", "reason")
    assert [shown[k] for k in same] == [decided[k] for k in same]
    assert shown["note"] and shown["ts"] is None and decided["ts"]


def test_the_second_untrusted_change_waits_for_the_first(tmp_path: Path, team: Team) -> None:
    from core.review.queue import build_queue
    from core.team.untrusted import decide_item

    first = forge(tmp_path, team, author=ALICE, key=None, name="one")
    second = forge(tmp_path, team, author=ALICE, key=None, name="two")
    sync(team.bob, BOB)
    found = build_queue(Workspace([Store(team.bob.root)]), kinds=["untrusted"])
    items = {i.id: i for i in found}
    one, two = items[f"untrusted-{first[:12]}"], items[f"untrusted-{second[:12]}"]
    assert len(items) == 2 and [one.analysis.first, two.analysis.first] == [True, False]  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match="decide that one first"):
        decide_item(two, True, actor=BOB, reason="later first")
    decide_item(one, True, actor=BOB, reason="fine")
    sync(team.bob, BOB)  # takes nothing past the second: it still waits
    (left,) = build_queue(Workspace([Store(team.bob.root)]), kinds=["untrusted"])
    assert left.id == f"untrusted-{second[:12]}"
    decide_item(left, False, actor=BOB, reason="not this one")
    report = sync(team.bob, BOB)
    assert report.waiting == [] and report.pushed >= 1
