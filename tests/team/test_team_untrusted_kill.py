"""An untrusted commit's resolution killed at any moment, and raced (the crash and
race loops extended to a sync with untrusted commits).

A real bare remote on disk, Alice's and Bob's clones signing with real ``ssh-keygen``
keys (both listed in ``signers:``), and a record planted by plain git from a third
clone, unsigned: both clones synced and wait before it, each with a decision of its
own not pushed yet. Then, as real processes of the venv (forked from the attack
harness's zygote, :mod:`support_attack`, or started afresh for a kill at a given
moment):

- ``memgov team reject`` and ``memgov team ratify`` on Bob's clone, killed with SIGKILL
  at moments spread over a normal run, and killed right after each of a spread of the
  git commands it runs (the moving of the working tree and of ``main`` among them);
- ``memgov sync`` on Alice's clone once the remote holds the planted commit and Bob's
  resolution, killed the same two ways;
- Alice ratifying while Bob rejects, both at once, then both syncing at once, and each
  order of the two pushes.

After a kill, ``memgov doctor`` (the next command: it finishes a killed checkout) and
``memgov sync`` must find the clone *before* the decision (the planted commit waits,
its file is nowhere in the working tree, ``memgov queue --kind untrusted`` lists it,
the only error doctor reports is that it waits) or *after* it (one resolution event,
the working tree equal to a run that was not killed, nothing waits, doctor clean);
never the planted file without its resolution; git status clean every time. A clone
found before the decision then decides it again, and ends as the run not killed.

``MEMGOV_TEST_KILLS`` sets the kills per test (5), ``MEMGOV_TEST_RACES`` the rounds of
the race run at once (2).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from support_attack import AFTER_NOW, ATTACK_NOW, Gate, Run, Zygote, base_env
from support_team import (
    ALICE,
    BOB,
    decide_conflict,
    event_lines,
    forge,
    git,
    plant,
    signed_team,
    signing_keys,
)
from support_team import sync as sync_in_process

from core.store import team_state
from core.store.checkout import journal_path
from core.team.untrusted import RATIFY, REJECT

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("MEMGOV_TEST_KILLS", "5"))
RACES = int(os.environ.get("MEMGOV_TEST_RACES", "2"))
PLANTED = "planted-0001.md"
WHO = {"alice": ALICE, "bob": BOB}

#: ``memgov ARGV`` that dies (os._exit, as a SIGKILL would leave it) right after the
#: NTH git command it runs returns; with NTH 0 it runs to its end and writes every git
#: command it ran, one a line, to LOG
AFTER_GIT = textwrap.dedent(
    """
    import os, sys
    import core.store.gitstore  # noqa: F401  (its run module is shadowed by its run())
    runner = sys.modules["core.store.gitstore.run"]
    real = runner.subprocess
    nth, log, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    ran = []
    class Counting:
        def __getattr__(self, name):
            return getattr(real, name)
        def run(self, command, *args, **kwargs):
            done = real.run(command, *args, **kwargs)
            ran.append(" ".join(command[command.index("git") + 1 :]))
            if len(ran) == nth:
                os._exit(137)
            return done
    runner.subprocess = Counting()
    from tui.cli import main
    code = main(argv)
    with open(log, "w") as out:
        out.write("".join(line.replace(chr(10), " ") + chr(10) for line in ran))
    sys.exit(code)
    """
)


# ------------------------------------------------------------------------ the world
@dataclass(frozen=True)
class World:
    template: Path  # remote.git, alice/, bob/, keys/ as both clones left them
    sha: str  # the planted commit, unsigned: it waits in both clones
    heads: dict[str, str]  # each clone's main, before anything is decided


@contextlib.contextmanager
def _as_built(root: Path) -> Iterator[None]:
    """No global git config while the template is built (as the subprocesses run)."""
    empty = root / ".gitconfig-empty"
    empty.write_text("")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(root))
        patch.setenv("GIT_CONFIG_GLOBAL", str(empty))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for name in ("MEMGOV_NOW", "MEMGOV_STORE", "MEMGOV_ACTOR"):
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    base = tmp_path_factory.mktemp("untrusted-kill")
    root = base / "team"
    root.mkdir()
    with _as_built(base):
        team = signed_team(root, signing_keys(root))
        sha = forge(root, team, author=ALICE, key=None, edit=plant, name="plant")
        decide_conflict(team.bob, 1, "older", BOB)  # each clone has a decision of its own
        decide_conflict(team.alice, 2, "older", ALICE)
        assert [w.verdict.commit for w in sync_in_process(team.bob, BOB).waiting] == [sha]
        assert [w.verdict.commit for w in sync_in_process(team.alice, ALICE).waiting] == [sha]
        heads = {name: git(root / name, "rev-parse", "HEAD").strip() for name in WHO}
    return World(root, sha, heads)


class Memgov:
    """The real command line: each command forked from the zygote (its imports done),
    or, to die after its n-th git command, a fresh interpreter."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.env = base_env(folder / "home")
        self.slots = folder / "slots"
        self.slots.mkdir(parents=True, exist_ok=True)
        self.zygote = Zygote(self.env, self.slots)

    def run(self, *argv: str, now: datetime = AFTER_NOW) -> Run:
        return self.zygote.run(*argv, now=now, slot=self.slots / "plain")

    def released(self, *commands: list[str], now: datetime) -> list[Any]:
        """Every command forked and waiting at the gate, then released at once."""
        gate = Gate(self.slots)
        started = [
            self.zygote.spawn(argv, now=now, slot=self.slots / f"racer{i}", gated=True)
            for i, argv in enumerate(commands)
        ]
        gate.release(started)
        return started

    def after_git(self, nth: int, *argv: str, now: datetime) -> tuple[int, list[str]]:
        """``memgov ARGV`` killed right after its ``nth`` git command (0: not killed);
        its exit code and the git commands it ran (only when it was not killed)."""
        log = self.slots / "git-commands.txt"
        log.unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, "-c", AFTER_GIT, str(nth), str(log), *argv],
            cwd=self.slots,  # not the repository: the venv's installed memgov
            env={**self.env, "MEMGOV_NOW": now.isoformat()},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        ran = log.read_text().splitlines() if log.exists() else []
        assert nth or done.returncode == 0, done.stderr[-2000:]
        return done.returncode, ran

    def close(self) -> None:
        self.zygote.close()


@pytest.fixture(scope="module")
def memgov(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memgov]:
    runner = Memgov(tmp_path_factory.mktemp("untrusted-kill-memgov"))
    yield runner
    runner.close()


def fresh(world: World | Path, target: Path) -> Path:
    source = world.template if isinstance(world, World) else world
    shutil.copytree(source, target, symlinks=True)
    for clone in WHO:
        git(target / clone, "remote", "set-url", "origin", str(target / "remote.git"))
    return target


def store_args(clone: Path) -> list[str]:
    return ["--store", str(clone), "--as", WHO[clone.name]]


def sync_run(memgov: Memgov, clone: Path, now: datetime = AFTER_NOW) -> Run:
    """``memgov sync``: exit 0, or 1 when an untrusted change waits (and it says so)."""
    run = memgov.run("sync", *store_args(clone), now=now)
    waits = run.code == 1 and "untrusted, waiting" in run.out and not run.traceback
    assert run.code == 0 or waits, f"memgov sync: exit {run.code}\n{run.out}\n{run.err}"
    return run


def ok(run: Run) -> Run:
    assert run.code == 0, f"memgov {' '.join(run.argv)}: exit {run.code}\n{run.out}\n{run.err}"
    return run


# ------------------------------------------------------------------------ the checks
def planted_files(clone: Path) -> list[str]:
    return sorted(p.relative_to(clone).as_posix() for p in clone.rglob(PLANTED))


def resolutions(clone: Path, sha: str) -> list[str]:
    """The ratify and reject-commit events naming the planted commit, in the working tree."""
    return [
        str(e["action"])
        for e in event_lines(clone)
        if e["action"] in (RATIFY, REJECT) and (e.get("details") or {}).get("commit") == sha
    ]


def doctor_errors(memgov: Memgov, clone: Path) -> list[str]:
    run = memgov.run("doctor", "--json", *store_args(clone))
    assert run.code in (0, 1) and not run.traceback, run.err
    (found,) = json.loads(run.out)["stores"]
    return [f"{f['path']}: {f['reason']}" for f in found["findings"] if f["severity"] == "error"]


def waiting(clone: Path) -> list[str]:
    return [str(row["commit"]) for row in team_state.untrusted_rows(clone / ".git" / "memgov")]


def whole(clone: Path) -> None:
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == "", clone
    assert not journal_path(clone).exists(), clone


@dataclass(frozen=True)
class After:
    """A clone after the decision, as a run that was not killed left it."""

    tree: str
    errors: tuple[str, ...] = ()  # doctor's errors then (a ratified record has no event)


def state(
    memgov: Memgov,
    clone: Path,
    world: World,
    expected: After,
    *,
    synced: bool,
    reindexed: bool = True,
) -> str:
    """``before`` or ``after`` the decision, with everything each means checked;
    ``expected``: the clone after it. ``synced``: a sync ran since. ``reindexed``:
    false after a sync killed between its merge and its reindex (the next sync
    writes ``MEMORY.md``): then the tree is not the run's yet, nor its index."""
    errors = doctor_errors(memgov, clone)  # the first command after a kill: it recovers
    whole(clone)
    head = git(clone, "rev-parse", "HEAD").strip()
    taken = git(clone, "merge-base", "--is-ancestor", world.sha, "HEAD", check=False) == ""
    in_tree = git(clone, "ls-tree", "-r", "--name-only", "HEAD").split()
    if not resolutions(clone, world.sha):  # before: nothing of it anywhere here
        assert head == world.heads[clone.name], "moved without deciding"
        assert planted_files(clone) == [] and not [p for p in in_tree if p.endswith(PLANTED)]
        if synced:  # the sync recorded it again, if a kill left it unrecorded
            assert waiting(clone) == [world.sha]
        assert set(waiting(clone)) <= {world.sha}
        short = world.sha[:10]
        assert all(f"commit {short}" in e and "untrusted" in e for e in errors), errors
        if waiting(clone):
            listed = ok(memgov.run("queue", "--kind", "untrusted", *store_args(clone))).out
            assert f"untrusted-{world.sha[:12]}" in listed, listed
        return "before"
    assert len(resolutions(clone, world.sha)) == 1, resolutions(clone, world.sha)
    assert taken, "a resolution event without the planted commit in main's history"
    assert waiting(clone) == [], "decided, yet still listed as waiting"
    if not reindexed:
        errors = [e for e in errors if not e.startswith("MEMORY.md: ")]
        assert set(errors) <= set(expected.errors), errors
        return "after"
    assert git(clone, "rev-parse", "HEAD^{tree}").strip() == expected.tree, "not the run's tree"
    assert tuple(errors) == expected.errors, errors
    listed = ok(memgov.run("queue", "--kind", "untrusted", *store_args(clone))).out
    assert "untrusted-" not in listed, listed
    return "after"


def spread(count: int, total: int, must: list[int]) -> list[int]:
    """``count`` moments among 1..total, evenly apart, with the ``must`` ones among them."""
    picks = {1 + (total - 1) * i // max(1, count - 1) for i in range(count)}
    return sorted(picks | set(must))


# -------------------------------------------------- ratify and reject, killed
VERBS = {"reject": False, "ratify": True}


def _decide(clone: Path, verb: str, sha: str) -> list[str]:
    return ["team", verb, sha, "--reason", f"{verb}: checked by hand", *store_args(clone)]


@dataclass
class Control:
    decided: After  # right after the decision
    synced: After  # and after the sync that pushes it
    seconds: float  # how long the decision ran (from its release)
    git_commands: list[str]


def control(memgov: Memgov, world: World, folder: Path, verb: str) -> Control:
    work = fresh(world, folder / f"control-{verb}")
    bob = work / "bob"
    (started,) = memgov.released(_decide(bob, verb, world.sha), now=ATTACK_NOW)
    run = ok(started.finish())
    decided = After(git(bob, "rev-parse", "HEAD^{tree}").strip(), tuple(doctor_errors(memgov, bob)))
    assert state(memgov, bob, world, decided, synced=False) == "after"
    assert bool(planted_files(bob)) == VERBS[verb]
    sync_run(memgov, bob)
    synced = After(git(bob, "rev-parse", "HEAD^{tree}").strip(), tuple(doctor_errors(memgov, bob)))
    if not VERBS[verb]:  # rejected: nothing of it is anywhere, doctor is clean
        assert decided.errors == synced.errors == ()
    assert git(work / "remote.git", "rev-parse", "main") == git(bob, "rev-parse", "HEAD")
    again = fresh(world, folder / f"control-{verb}-git")
    _code, commands = memgov.after_git(0, *_decide(again / "bob", verb, world.sha), now=ATTACK_NOW)
    assert git(again / "bob", "rev-parse", "HEAD^{tree}").strip() == decided.tree  # same bytes
    return Control(decided, synced, run.seconds, commands)


def finish_round(memgov: Memgov, work: Path, world: World, verb: str, want: Control) -> str:
    """After a kill: doctor, sync, and (before the decision) the decision again."""
    bob = work / "bob"
    first = state(memgov, bob, world, want.decided, synced=False)
    sync_run(memgov, bob)
    second = state(memgov, bob, world, want.synced, synced=True)
    assert (first, second) in (("before", "before"), ("after", "after")), (first, second)
    if second == "before":
        assert git(work / "remote.git", "rev-parse", "main").strip() == world.sha  # nothing sent
        ok(memgov.run(*_decide(bob, verb, world.sha), now=ATTACK_NOW))
        assert state(memgov, bob, world, want.decided, synced=False) == "after"
        sync_run(memgov, bob)
        assert state(memgov, bob, world, want.synced, synced=True) == "after"
    assert git(work / "remote.git", "rev-parse", "main") == git(bob, "rev-parse", "HEAD")
    assert bool(planted_files(bob)) == VERBS[verb]
    return first


@pytest.mark.parametrize("verb", list(VERBS))
def test_a_decision_killed_after_any_git_command_is_whole_before_or_after(
    memgov: Memgov, world: World, tmp_path: Path, verb: str
) -> None:
    want = control(memgov, world, tmp_path, verb)
    commands = want.git_commands
    moving = [
        i + 1 for i, c in enumerate(commands) if c.startswith(("read-tree -m", "update-ref -m"))
    ]
    assert len(moving) == 2, commands  # the working tree, then main
    seen = {}
    for nth in spread(max(2, KILLS - len(moving)), len(commands), moving):
        work = fresh(world, tmp_path / f"after-git-{nth}")
        code, _ran = memgov.after_git(nth, *_decide(work / "bob", verb, world.sha), now=ATTACK_NOW)
        assert code == 137, (nth, code)
        seen[nth] = finish_round(memgov, work, world, verb, want)
    # killed after the working tree moved, the decision is undone; after main moved, done
    assert seen[moving[0]] == "before" and seen[moving[1]] == "after", seen
    assert seen[min(seen)] == "before" and seen[max(seen)] == "after", seen


@pytest.mark.parametrize("verb", list(VERBS))
def test_a_decision_killed_at_spread_moments_is_whole_before_or_after(
    memgov: Memgov, world: World, tmp_path: Path, verb: str
) -> None:
    want = control(memgov, world, tmp_path, verb)
    killed, seen = 0, []
    for round_ in range(KILLS):
        work = fresh(world, tmp_path / f"round{round_}")
        (proc,) = memgov.released(_decide(work / "bob", verb, world.sha), now=ATTACK_NOW)
        end = proc.released_at + want.seconds * (round_ + 0.5) / KILLS
        while time.monotonic() < end and proc.poll() is None:
            time.sleep(0.001)
        killed += proc.kill() if proc.poll() is None else False
        proc.finish()
        seen.append(finish_round(memgov, work, world, verb, want))
    assert killed >= KILLS // 2, f"only {killed} of {KILLS} runs were killed before they ended"


# -------------------------------------------------- a sync that takes a resolution, killed
def test_a_sync_taking_a_resolution_killed_at_any_moment_is_whole_before_or_after(
    memgov: Memgov, world: World, tmp_path: Path
) -> None:
    """Bob ratified the planted commit and pushed; Alice's sync takes both (and merges
    her own decision), killed at spread moments and right after it moves the working
    tree and main; the next doctor and sync leave her clone before it or after it."""
    resolved = fresh(world, tmp_path / "resolved")
    ok(memgov.run(*_decide(resolved / "bob", "ratify", world.sha), now=ATTACK_NOW))
    sync_run(memgov, resolved / "bob")
    work = fresh(resolved, tmp_path / "control")
    alice = work / "alice"
    (started,) = memgov.released(["sync", *store_args(alice)], now=ATTACK_NOW)
    seconds = ok(started.finish()).seconds
    want = After(
        git(alice, "rev-parse", "HEAD^{tree}").strip(), tuple(doctor_errors(memgov, alice))
    )
    assert planted_files(alice) and resolutions(alice, world.sha) == [RATIFY]
    _code, commands = memgov.after_git(
        0, "sync", *store_args(fresh(resolved, tmp_path / "count") / "alice"), now=ATTACK_NOW
    )
    moving = [
        i + 1 for i, c in enumerate(commands) if c.startswith(("read-tree -m", "update-ref -m"))
    ]
    assert len(moving) == 2, commands

    def settle(work: Path) -> str:
        alice = work / "alice"
        first = state(memgov, alice, world, want, synced=False, reindexed=False)
        sync_run(memgov, alice, now=ATTACK_NOW)  # the killed run's clock: the same bytes
        assert state(memgov, alice, world, want, synced=True) == "after"
        assert git(work / "remote.git", "rev-parse", "main") == git(alice, "rev-parse", "HEAD")
        return first

    seen = []
    for nth in moving:
        work = fresh(resolved, tmp_path / f"after-git-{nth}")
        code, _ran = memgov.after_git(nth, "sync", *store_args(work / "alice"), now=ATTACK_NOW)
        assert code == 137, (nth, code)
        seen.append(settle(work))
    assert seen == ["before", "after"], seen  # undone before main moved, kept after
    killed = 0
    rounds = max(2, KILLS - len(moving))  # the kills of this test: KILLS in all
    for round_ in range(rounds):
        work = fresh(resolved, tmp_path / f"round{round_}")
        (proc,) = memgov.released(["sync", *store_args(work / "alice")], now=ATTACK_NOW)
        end = proc.released_at + seconds * (round_ + 0.5) / rounds
        while time.monotonic() < end and proc.poll() is None:
            time.sleep(0.001)
        killed += proc.kill() if proc.poll() is None else False
        proc.finish()
        settle(work)
    assert killed >= rounds // 2, f"only {killed} of {rounds} runs were killed before they ended"


# -------------------------------------------------- ratified and rejected at once
def _first_parents(repo: Path) -> list[str]:
    return git(repo, "rev-list", "--first-parent", "main").split()


def _race_round(memgov: Memgov, world: World, work: Path, order: str | None) -> str:
    """Alice ratifies while Bob rejects, then both sync (at once when ``order`` is None,
    else one after the other); the verb whose commit is on the remote main's first
    parents (it was pushed first)."""
    alice, bob = work / "alice", work / "bob"
    racers = [_decide(alice, "ratify", world.sha), _decide(bob, "reject", world.sha)]
    for proc in memgov.released(*racers, now=ATTACK_NOW):
        ok(proc.finish())  # two clones: neither waits for the other
    if order is None:
        for proc in memgov.released(
            ["sync", *store_args(alice)], ["sync", *store_args(bob)], now=AFTER_NOW
        ):
            run = proc.finish()
            assert run.code == 0, (run.argv, run.out, run.err)
    else:
        first, second = (alice, bob) if order == "ratify" else (bob, alice)
        ok(sync_run(memgov, first))
        ok(sync_run(memgov, second))
    for clone in (alice, bob):  # each takes what the other pushed last
        ok(sync_run(memgov, clone))
    heads = {git(c, "rev-parse", "HEAD").strip() for c in (alice, bob, work / "remote.git")}
    assert len(heads) == 1, "the remote and the clones differ"
    winner = ""
    for commit in _first_parents(work / "remote.git"):
        subject = git(work / "remote.git", "log", "-1", "--format=%s", commit)
        if subject.startswith(("ratify:", "reject:")) and world.sha[:10] in subject:
            winner = subject.split(":")[0]  # the one pushed first: the other merged it
    for clone in (alice, bob):
        errors = doctor_errors(memgov, clone)
        whole(clone)
        assert errors == [] and waiting(clone) == [], (clone.name, errors)
        # both decisions are in the history, each once; the rejection holds either way:
        # memgov's merge of the two takes back what only the ratification kept
        assert sorted(resolutions(clone, world.sha)) == sorted([RATIFY, REJECT])
        assert planted_files(clone) == [], clone.name
        listed = ok(memgov.run("queue", "--kind", "untrusted", *store_args(clone))).out
        assert "untrusted-" not in listed, listed
    assert winner in ("ratify", "reject"), winner
    return winner


def test_a_ratification_and_a_rejection_at_once_end_the_same_everywhere(
    memgov: Memgov, world: World, tmp_path: Path
) -> None:
    won = {
        order: _race_round(memgov, world, fresh(world, tmp_path / f"{order}-first"), order)
        for order in ("ratify", "reject")
    }
    assert won == {"ratify": "ratify", "reject": "reject"}, won
    for round_ in range(RACES):
        _race_round(memgov, world, fresh(world, tmp_path / f"race{round_}"), None)


def test_a_decision_refuses_hand_edits_and_keeps_them(
    memgov: Memgov, world: World, tmp_path: Path
) -> None:
    """As a sync does: the checkout would fail on them, and its recovery discard them."""
    bob = fresh(world, tmp_path / "edited") / "bob"
    shard = sorted((bob / "events").glob("*.jsonl"))[-1]
    shard.write_text(shard.read_text() + "\n")
    run = memgov.run(*_decide(bob, "reject", world.sha), now=ATTACK_NOW)
    assert run.code != 0 and "changed by hand" in run.err + run.out, run
    assert shard.read_text().endswith("\n\n") and not journal_path(bob).exists()
    assert waiting(bob) == [world.sha] and resolutions(bob, world.sha) == []
