"""Which store of a workspace tells a memory's history (core.reports.history):
the one holding it, else, once it is erased, the one whose events name it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock, add_memories

from core.domain.errors import NotFoundError
from core.domain.record import Memory
from core.reports.history import history_in, store_of_history
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path, clock: FakeClock, make_memory: Callable[..., Memory]) -> Workspace:
    """An empty team store first, then a private store with ``kept`` and an erased
    ``gone``."""
    team = Store.init(tmp_path / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    private = Store.init(tmp_path / "private", owner=ACTOR, actor=ACTOR, clock=clock)
    add_memories(private, make_memory(id="kept"), make_memory(id="gone", attribute="lang"))
    with transaction(private, actor=ACTOR, message="erase gone") as tx:
        tx.erase("gone", action="erase", reason="user asked")
    return Workspace([team, private])


def test_the_store_holding_the_memory(workspace: Workspace) -> None:
    assert store_of_history(workspace, "kept") is workspace.stores[1]
    assert history_in(workspace, "kept").exists


def test_an_erased_memory_is_found_through_its_events(workspace: Workspace) -> None:
    assert store_of_history(workspace, "gone") is workspace.stores[1]
    result = history_in(workspace, "gone")
    assert not result.exists
    assert [e.action for e in result.events] == ["create", "erase"]


def test_an_unknown_id_is_not_found(workspace: Workspace) -> None:
    with pytest.raises(NotFoundError, match="no memory and no events with id"):
        store_of_history(workspace, "never")


def test_the_commits_of_a_file_are_its_own_and_its_name_is_literal(tmp_path: Path) -> None:
    """``log_for``: one ``git log`` of exactly that path, oldest first; a name with a
    glob character matches only itself (a store's file names are untrusted)."""
    from core.store.gitstore import log_for

    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com"}
    env.update(GIT_COMMITTER_NAME="c", GIT_COMMITTER_EMAIL="c@example.com")
    assert log_for(root, "memories/a*.md") == []  # no commit yet
    for name, text in (("a*.md", "one"), ("ab.md", "two"), ("a*.md", "three")):
        (root / "memories").mkdir(exist_ok=True)
        (root / "memories" / name).write_text(text)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
        subprocess.run(
            ["git", "commit", "-qm", f"{name}: {text}\n\nbody line"], cwd=root, check=True, env=env
        )
    star = log_for(root, "memories/a*.md")
    assert [c.message for c in star] == ["a*.md: one\n\nbody line", "a*.md: three\n\nbody line"]
    assert {c.author for c in star} == {"a@example.com"}
    assert [c.message.split(":")[0] for c in log_for(root, "memories/ab.md")] == ["ab.md"]


def test_the_git_log_runs_while_meanwhile_does_and_is_stopped_when_it_fails(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.store import gitstore
    from core.store.gitstore.run import Started

    logs: list[subprocess.Popen[bytes]] = []
    real = gitstore.log_started

    def started(root: Path, path: str, *, limit: int = 200) -> Started:
        log = real(root, path, limit=limit)
        logs.append(log.process)
        return log

    monkeypatch.setattr(gitstore, "log_started", started)
    calls: list[bool] = []
    told = history_in(workspace, "kept", meanwhile=lambda: calls.append(logs[-1].poll() is None))
    assert told.commits == history_in(workspace, "kept").commits  # as without it
    assert len(calls) == 1 and len(told.commits) >= 1

    def fails() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        history_in(workspace, "kept", meanwhile=fails)
    assert logs[-1].returncode is not None  # killed and reaped, not left behind
