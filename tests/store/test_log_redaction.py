"""A credential said in a task never reaches the disk: ``memgov log`` (and the MCP tool,
through the same door) writes each one as ``[secret: <rule> #<salted hash>]``; the
daily log, the git objects and the store's files never hold the value, and a memory
that quotes the message still finds its line."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

from core.domain.record import Source
from core.store import logs
from core.store.store import Store
from core.writing.pipeline import Candidate, remember
from tests.conftest import ACTOR, FakeClock, every_byte


def _token(seed: int) -> str:
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def test_memgov_log_writes_a_mark_never_the_value(store: Store, tmp_path: Path) -> None:
    token = _token(1)
    password = "Tr0ub4dor&3-staging"
    env = {**os.environ, "MEMGOV_ACTOR": ACTOR, "MEMGOV_NOW": store.now().isoformat()}
    for index, text in enumerate(
        (
            f"my token is {token}, keep it handy",
            f"the same token again: {token}",
            f"DATABASE_URL=postgres://admin:{password}@db.example.net:5432/app",
        )
    ):
        run = subprocess.run(
            [
                *(sys.executable, "-m", "tui.cli", "log", "--store", str(store.root)),
                *("--task", "t-1", "--index", str(index), "--role", "user", text),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        assert token not in run.stdout + run.stderr and password not in run.stdout + run.stderr
    lines = (store.root / logs.log_path(store.now())).read_text("utf-8").splitlines()
    marks = [line[line.index("[secret:") :].split("]")[0] for line in lines if "[secret:" in line]
    assert marks[0] == marks[1] and marks[0].startswith("[secret: github-pat #")
    assert marks[2].startswith("[secret: url-password #") and marks[2] != marks[0]
    everything = every_byte(store.root)
    assert token.encode() not in everything and password.encode() not in everything
    salt = store.state_dir / logs.SALT_FILE
    assert salt.stat().st_mode & 0o777 == 0o600
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=store.root, capture_output=True, text=True, check=True
    ).stdout
    assert logs.SALT_FILE not in tracked


def test_a_quote_of_the_message_still_finds_its_line(store: Store, clock: FakeClock) -> None:
    token = _token(2)
    said = f"deploys use the bot account; its token is {token} for now"
    rel, _line = store.log_message(task="t-2", index=1, role="user", text=said, actor=ACTOR)
    assert token not in (store.root / rel).read_text("utf-8")
    done = remember(
        store,
        Candidate(
            content="Deploys run under the bot account.",
            type="semantic",
            scope="private",
            subject="project:demo",
            attribute="deploy_account",
            source=Source(task="t-2", message_index=1, evidence=said, log=rel),
            s1=0.9,
            s2=0.9,
        ),
        actor=ACTOR,
    )
    shown = json.dumps(done.to_dict() if hasattr(done, "to_dict") else str(done))
    assert token not in shown
    # the quote resolves (no "quote not found"): what stops the write is the credential
    assert done.kind == "refused"
    reasons = " ".join(done.reasons)
    assert "github-pat" in reasons and "not found" not in reasons
    assert token.encode() not in every_byte(store.root)


def test_two_stores_mark_the_same_secret_differently(tmp_path: Path, clock: FakeClock) -> None:
    token = _token(3)
    marks = []
    for name in ("a", "b"):
        store = Store.init(tmp_path / name, owner=ACTOR, actor=ACTOR, clock=clock)
        marks.append(logs.redacted(store.state_dir, f"t {token}"))
    assert marks[0] != marks[1] and token not in marks[0] + marks[1]
