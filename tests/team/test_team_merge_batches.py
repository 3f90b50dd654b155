"""A batch of decisions made offline meets the remote's decisions.

A batch (``memgov decide -``, the desk's ``D``) is one commit. Sync merges it decision
by decision: the items the remote did not decide land as the batch decided them; each
one the remote decided first is undone on its own, reported with its own reason (the
item, who decided it on the remote and how) and recorded as its own ``sync-undone``
event, and stays as the remote decided it. Real git, a bare remote, two clones.
"""

from __future__ import annotations

import collections
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
import support_team
from support_team import (
    ALICE,
    BOB,
    START,
    Team,
    conflict_id,
    event_lines,
    git,
    make_team,
    statuses,
    sync,
    tree,
)

from core.reports.doctor import diagnose
from core.review.decide import Choice, decide, decide_many
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace

ITEMS = 20
AS_ALICE = {"NAME": "alice", "EMAIL": ALICE}
Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Team:
    monkeypatch.setattr(support_team, "CONFLICTS", ITEMS)
    return make_team(tmp_path)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """``cli(*argv, stdin=...)``: ``memgov`` in process, its clock after the fixtures'."""
    from tui.cli import main

    monkeypatch.setenv("MEMGOV_NOW", (START + timedelta(days=12)).isoformat())

    def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _pair(i: int) -> tuple[str, str]:
    return f"deploy-{i}-0", f"deploy-{i}-1"


def _decided_as(status: dict[str, str], i: int, option: str) -> bool:
    """Item i's two records as ``option`` leaves them (newer: the second wins)."""
    old, new = _pair(i)
    winner, loser = (new, old) if option == "newer" else (old, new)
    return (status[winner], status[loser]) == ("active", "superseded")


def _errors(store: Store) -> list[str]:
    store.forget()
    return [f"{f.path}: {f.reason}" for f in diagnose(store) if f.severity == "error"]


def test_a_batch_lands_but_for_the_items_the_remote_decided(team: Team, cli: Cli) -> None:
    ids = [conflict_id(team.bob, i) for i in range(ITEMS)]
    theirs = list(range(0, ITEMS, 2))  # Alice decides every other item, as one batch too
    alice = decide_many(
        Workspace([team.alice]),
        [(ids[i], Choice(approve=True, option="newer", reason=f"alice {i}")) for i in theirs],
        actor=ALICE,
    )
    assert sync(team.alice, ALICE).pushed == 1
    batch = [
        {"item": ids[i], "approve": True, "option": "older", "reason": f"bob {i}"}
        for i in range(ITEMS)
    ]
    code, out, err = cli("decide", "-", "--store", str(team.bob.root), "--as", BOB, "--json",
                         stdin=json.dumps(batch))  # fmt: skip
    assert code == 0, err
    bobs = {d["item"]: d["id"] for d in json.loads(out)["decisions"]}
    assert len(bobs) == ITEMS

    code, out, err = cli("sync", "--store", str(team.bob.root), "--as", BOB)
    assert code == 0, err
    team.bob.forget()
    status = statuses(team.bob)
    # the ten items Alice decided stay as she decided; the other ten as Bob's batch did
    for i in range(ITEMS):
        assert _decided_as(status, i, "newer" if i in theirs else "older"), i
    # each undone decision is reported on its own line, with its own item and winner
    first = {d.item: d for d in alice}
    undone = [line for line in out.splitlines() if line.strip().startswith("undone:")]
    assert len(undone) == len(theirs)
    for i in theirs:
        (line,) = [x for x in undone if f"your decision {bobs[ids[i]]} on {ids[i]}:" in x]
        winner = first[ids[i]]
        assert f"{ids[i]} was already decided by {ALICE} (newer, decision {winner.id}" in line
    # the merge commit's message lists every one too
    merge = git(team.bob.root, "log", "--merges", "-1", "--format=%B")
    assert f", {len(theirs)} undone" in merge
    for i in theirs:
        assert f"your decision {bobs[ids[i]]} on {ids[i]}: " in merge
    for i in range(ITEMS):
        assert (bobs[ids[i]] in merge) == (i in theirs)
    # the store on disk agrees: decisions, events, doctor
    kept = {bobs[ids[i]] for i in range(ITEMS) if i not in theirs}
    dropped = {bobs[ids[i]] for i in theirs}
    on_disk = {p.stem for p in (team.bob.root / "decisions").glob("*.json")}
    assert kept <= on_disk and not dropped & on_disk
    events = event_lines(team.bob.root)
    assert max(collections.Counter(e["id"] for e in events).values()) == 1
    notes = [e for e in events if e["action"] == "sync-undone"]
    assert sorted(e["decision"] for e in notes) == sorted(dropped)
    for note in notes:
        item = next(i for i in theirs if bobs[ids[i]] == note["decision"])
        assert note["details"]["item"] == ids[item]
        assert note["details"]["first"]["decision"] == first[ids[item]].id
        assert note["details"]["first"]["actor"] == ALICE
        assert sorted(note["memory_ids"]) == sorted(_pair(item))
    landed = {e["decision"] for e in events if e["action"] == "decide" and e["actor"] == BOB}
    assert landed == kept
    assert not [e for e in events if e.get("decision") in dropped and e["action"] != "sync-undone"]
    assert _errors(team.bob) == []
    assert build_queue(Workspace([team.bob]), kinds=["conflict"]) == []
    assert git(team.bob.root, "status", "--porcelain") == ""

    # Alice takes the merge: both clones hold the same tree
    sync(team.alice, ALICE)
    assert tree(team.alice.root) == tree(team.bob.root)
    assert _errors(team.alice) == []

    # a landed decision of the batch is still revertible, and the revert syncs
    landed_one = bobs[ids[1]]
    code, out, err = cli("revert", landed_one, "--store", str(team.bob.root), "--as", BOB)
    assert code == 0, err
    status = statuses(team.bob)
    assert (status["deploy-1-0"], status["deploy-1-1"]) == ("conflict", "conflict")
    assert [q.id for q in build_queue(Workspace([team.bob]), kinds=["conflict"])] == [ids[1]]
    sync(team.bob, BOB)
    sync(team.alice, ALICE)
    assert statuses(team.alice)["deploy-1-0"] == "conflict"
    assert _errors(team.bob) == [] and _errors(team.alice) == []


def test_a_batch_with_no_collision_lands_whole(team: Team) -> None:
    ids = [conflict_id(team.bob, i) for i in range(ITEMS)]
    decide_many(
        Workspace([team.alice]),
        [(ids[0], Choice(approve=True, option="newer"))],
        actor=ALICE,
    )
    sync(team.alice, ALICE)
    decide_many(
        Workspace([team.bob]),
        [(ids[i], Choice(approve=True, option="older")) for i in range(1, ITEMS)],
        actor=BOB,
    )
    report = sync(team.bob, BOB)
    assert report.integration is not None and report.integration.kind == "merge"
    assert report.integration.undone == []
    status = statuses(team.bob)
    assert _decided_as(status, 0, "newer")
    assert all(_decided_as(status, i, "older") for i in range(1, ITEMS))
    assert _errors(team.bob) == []


def test_an_item_the_remote_decided_and_reverted_takes_the_batchs_decision(
    team: Team,
) -> None:
    """The remote's decision was reverted there: the item is open on the remote, so the
    batch's decision of it lands."""
    ids = [conflict_id(team.bob, i) for i in range(4)]
    first = decide(Workspace([team.alice]), ids[0], approve=True, option="newer", actor=ALICE)
    from core.review.revert import revert

    revert(Workspace([team.alice]), first.id, actor=ALICE, reason="too soon")
    sync(team.alice, ALICE)
    decide_many(
        Workspace([team.bob]),
        [(ids[i], Choice(approve=True, option="older")) for i in range(4)],
        actor=BOB,
    )
    report = sync(team.bob, BOB)
    assert report.integration is not None and report.integration.kind == "merge"
    assert report.integration.undone == []  # the revert left the records as they were
    status = statuses(team.bob)
    assert all(_decided_as(status, i, "older") for i in range(4))
    assert "already decided" not in report.render()
    assert _errors(team.bob) == []


def test_a_later_commit_on_an_undone_decision_is_undone_with_it(team: Team) -> None:
    """Bob's batch, then his revert of one of its decisions the remote overrules: the
    revert goes with the decision (reported, its reason naming the file), the rest of
    the batch lands."""
    from core.review.revert import revert

    ids = [conflict_id(team.bob, i) for i in range(4)]
    decide(Workspace([team.alice]), ids[0], approve=True, option="newer", actor=ALICE)
    sync(team.alice, ALICE)
    mine = decide_many(
        Workspace([team.bob]),
        [(ids[i], Choice(approve=True, option="older")) for i in range(4)],
        actor=BOB,
    )
    team.bob.forget()
    revert(Workspace([team.bob]), mine[0].id, actor=BOB, reason="changed my mind")
    report = sync(team.bob, BOB)
    assert report.integration is not None
    undone = report.integration.undone
    assert [u.decision for u in undone if u.winner is not None] == [mine[0].id]
    later = [u for u in undone if u.winner is None]
    assert len(later) == 1 and "a change that was undone" in later[0].why
    assert len(report.render().splitlines()) >= 2
    status = statuses(team.bob)
    assert _decided_as(status, 0, "newer")
    assert all(_decided_as(status, i, "older") for i in range(1, 4))
    events = event_lines(team.bob.root)
    assert len([e for e in events if e["action"] == "sync-undone"]) == 2
    assert _errors(team.bob) == []
    sync(team.alice, ALICE)
    assert tree(team.alice.root) == tree(team.bob.root)


# ---------------------------------------------------------------- killed mid-merge
KILLS = int(os.environ.get("MEMGOV_TEST_KILLS", "5"))
KILL_ITEMS = 8


def _memgov_sync(store: Path, actor: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "sync", "--store", str(store), "--as", actor],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # a pinned clock: every run writes the same bytes, so the trees compare
        env={**os.environ, "MEMGOV_NOW": "2026-11-20T10:00:00+01:00"},
    )


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Alice decided half the items (one batch) and pushed; Bob decided all of them
    offline, the other way, in one batch."""
    root = tmp_path_factory.mktemp("batch-kill") / "team"
    root.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(support_team, "CONFLICTS", KILL_ITEMS)
        team = make_team(root)
    ids = [conflict_id(team.bob, i) for i in range(KILL_ITEMS)]
    decide_many(
        Workspace([team.alice]),
        [(ids[i], Choice(approve=True, option="newer")) for i in range(0, KILL_ITEMS, 2)],
        actor=ALICE,
    )
    sync(team.alice, ALICE)
    decide_many(
        Workspace([team.bob]),
        [(i, Choice(approve=True, option="older")) for i in ids],
        actor=BOB,
    )
    return root


def _fresh(template: Path, target: Path) -> Path:
    shutil.copytree(template, target, symlinks=True)
    for clone in ("alice", "bob"):
        git(target / clone, "remote", "set-url", "origin", str(target / "remote.git"))
    return target


def test_a_batch_merge_killed_at_any_moment_is_finished_by_the_next_sync(
    batches: Path, tmp_path: Path
) -> None:
    control = _fresh(batches, tmp_path / "control")
    started = time.monotonic()
    done = _memgov_sync(control / "bob", BOB)
    assert done.wait(60) == 0, done.stderr.read() if done.stderr else ""
    duration = time.monotonic() - started
    expected = tree(control / "bob")
    status = statuses(Store(control / "bob"))
    for i in range(KILL_ITEMS):
        assert _decided_as(status, i, "older" if i % 2 else "newer"), i
    killed = 0
    for round_ in range(KILLS):
        work = _fresh(batches, tmp_path / f"round{round_}")
        proc = _memgov_sync(work / "bob", BOB)
        time.sleep(duration * (round_ + 0.5) / KILLS)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait(30)
        again = _memgov_sync(work / "bob", BOB)
        assert again.wait(60) == 0, (round_, again.stderr.read() if again.stderr else "")
        assert tree(work / "bob") == expected, round_
        assert git(work / "bob", "status", "--porcelain") == "", round_
        assert not list((work / "bob" / ".git" / "memgov").glob("*journal*")), round_
        assert git(work / "remote.git", "rev-parse", "main") == git(
            work / "bob", "rev-parse", "HEAD"
        )
        events = event_lines(work / "bob")
        assert max(collections.Counter(e["id"] for e in events).values()) == 1, round_
        notes = [e for e in events if e["action"] == "sync-undone"]
        assert len(notes) == KILL_ITEMS // 2, round_
        assert _errors(Store(work / "bob")) == [], round_
    assert killed >= KILLS // 2, f"only {killed} of {KILLS} runs were killed before they ended"


def test_a_record_the_remote_changed_keeps_its_item_open_as_the_remote_has_it(
    team: Team,
) -> None:
    """No remote decision, but a remote change of one item's record (a maintainer's hand
    edit): that item's decision is undone, named with the file, the item stays open
    with the remote's record; the batch's other decisions land."""
    ids = [conflict_id(team.bob, i) for i in range(4)]
    (path,) = (team.alice.root / "memories").glob("*/deploy-2-0.md")
    path.write_text(path.read_text().replace("confidence: 0.8", "confidence: 0.9"))
    rel = path.relative_to(team.alice.root).as_posix()
    who = {f"GIT_{w}_{k}": v for w in ("AUTHOR", "COMMITTER") for k, v in AS_ALICE.items()}
    git(team.alice.root, "commit", "-qm", "hand edit: confidence", "--", rel, env=who)
    sync(team.alice, ALICE)
    mine = decide_many(
        Workspace([team.bob]),
        [(ids[i], Choice(approve=True, option="older")) for i in range(4)],
        actor=BOB,
    )
    report = sync(team.bob, BOB)
    assert report.integration is not None
    (undone,) = report.integration.undone
    assert (undone.decision, undone.item, undone.winner) == (mine[2].id, ids[2], None)
    assert f"the remote changed {rel} first; {ids[2]} stays as the remote has it" in undone.why
    assert f"your decision {mine[2].id} on {ids[2]}: " in report.render()
    status = statuses(team.bob)
    assert (status["deploy-2-0"], status["deploy-2-1"]) == ("conflict", "conflict")
    still = {q.id for q in build_queue(Workspace([team.bob]), kinds=["conflict"])}
    assert ids[2] in still and not still & {ids[0], ids[1], ids[3]}
    assert all(_decided_as(status, i, "older") for i in (0, 1, 3))
    assert "confidence: 0.9" in (team.bob.root / rel).read_text()
    assert _errors(team.bob) == []
