"""A credential in any version of any file of a store's history: doctor names the file,
the rules and the commit, never the value; ``memgov scrub-history`` rewrites a private
store's history without it, with an event; a team store's history is never rewritten."""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from core.api.doctor import diagnose, scrub_history
from core.domain.errors import ValidationError
from core.store.secret_history import CLEAN_FILE, history_hits
from core.store.store import Store
from tests.conftest import ACTOR, git


def _token(seed: int) -> str:
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def _objects(root: Path) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout


def _old_log_with(store: Store, token: str) -> str:
    """A daily log as an older memgov wrote it (the value in the line), committed, then
    the line taken out by hand in a later commit: clean now, not in the history."""
    rel = "logs/2025/01/2025-01-02.md"
    path = store.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# 2025-01-02\n\n## task t\n\n- [0] 10:00 user: token {token}\n", "utf-8")
    git(store.root, "add", rel)
    git(store.root, "commit", "-q", "-m", "an old log")
    path.write_text("# 2025-01-02\n\n## task t\n\n- [0] 10:00 user: token (removed)\n", "utf-8")
    git(store.root, "commit", "-q", "-am", "took the token out by hand")
    return rel


def test_doctor_finds_a_credential_only_the_history_keeps(store: Store) -> None:
    token = _token(1)
    rel = _old_log_with(store, token)
    found = [f for f in diagnose(store) if f.path == rel]
    assert len(found) == 1 and found[0].severity == "error"
    assert "github-pat" in found[0].reason and "earlier version" in found[0].reason
    assert "scrub-history" in found[0].reason
    assert token not in " ".join(f.render() for f in diagnose(store))
    # the blobs found clean are remembered by id: a second look reads only the hit again
    assert (store.state_dir / CLEAN_FILE).read_text("ascii").startswith("rules ")
    assert [h.path for h in history_hits(store)] == [rel]


def test_scrub_history_leaves_no_object_holding_it(store: Store) -> None:
    token = _token(2)
    rel = _old_log_with(store, token)
    commits = git(store.root, "rev-list", "--count", "HEAD").strip()
    assert token.encode() in _objects(store.root)
    env = {**os.environ, "MEMGOV_ACTOR": ACTOR, "MEMGOV_NOW": store.now().isoformat()}
    run = subprocess.run(
        [sys.executable, "-m", "tui.cli", "scrub-history", "--store", str(store.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "github-pat" in run.stdout and token not in run.stdout + run.stderr
    assert token.encode() not in _objects(store.root)
    assert not [f for f in diagnose(store) if f.path == rel]
    assert int(git(store.root, "rev-list", "--count", "HEAD").strip()) == int(commits) + 1
    events = "".join(p.read_text("utf-8") for p in (store.root / "events").glob("*.jsonl"))
    assert '"scrub-history"' in events and token not in events
    assert git(store.root, "status", "--porcelain").strip() == ""
    assert scrub_history(store, actor=ACTOR).versions == 0  # nothing left: nothing done


def test_a_team_stores_history_is_never_rewritten(tmp_path: Path) -> None:
    team = Store.init(tmp_path / "team", scope="team", owner=ACTOR, actor=ACTOR)
    with pytest.raises(ValidationError, match="never rewritten"):
        scrub_history(team, actor=ACTOR)
