"""A likely credential (a secret-named value, a password said in words: maybe none) is
never written silently: the write gate refuses it saying how to leave it out, a person
at the terminal may keep it in a private store (``memgov remember --keep-likely``), and
an agent's folder that holds one is held for a person (redact, keep private, drop). A
certain credential is refused whatever anyone says. Real stores, real folders, the real
CLI and queue."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support_agent import ACTOR, init_stores
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.importers import CLAUDE_CODE, import_folder
from core.review.decide import decide
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace
from tests.conftest import every_byte

PASSWORD = "Wq8-zLm3-Tr4x"
SAID = f"the staging db_password = {PASSWORD}, and the host is db-staging"
TOKEN = "ghp_" + "Zx81Qm4Lp0Vt7Nc2Hs9Ra6Kd3Wb5Ye1Gu8Fj"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return open_workspace([init_stores(tmp_path / "stores")])


def _remember(ws: Workspace, content: str, *flags: str) -> subprocess.CompletedProcess[str]:
    root = ws.private.root  # type: ignore[union-attr]
    env = {**os.environ, "MEMGOV_ACTOR": ACTOR}
    cli = [sys.executable, "-m", "tui.cli"]
    logged = subprocess.run(
        [
            *cli,
            "log",
            "--store",
            str(root),
            "--task",
            "t-db",
            "--index",
            "0",
            "--role",
            "user",
            SAID,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert PASSWORD not in logged.stdout
    candidate = {
        "content": content,
        "type": "semantic",
        "scope": "private",
        "subject": "project:shop",
        "attribute": "staging_db",
        "source": {"task": "t-db", "message_index": 0, "evidence": SAID},
        "s1": 0.9,
        "s2": 0.9,
    }
    return subprocess.run(
        [*cli, "remember", "--store", str(root), "--json", *flags, "-"],
        input=json.dumps(candidate),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_gate_refuses_a_likely_credential_and_says_how_to_leave_it_out(
    ws: Workspace,
) -> None:
    run = _remember(ws, f"Staging DB: db_password = {PASSWORD} on db-staging.")
    assert run.returncode == 1, run.stderr
    out = json.loads(run.stdout)
    assert out["outcome"] == "refused"
    said = " ".join(out["reasons"])
    assert "likely a credential" in said and "--keep-likely" in said
    assert PASSWORD not in run.stdout + run.stderr
    assert PASSWORD.encode() not in every_byte(ws.private.root)  # type: ignore[union-attr]


def test_a_person_keeps_a_likely_one_in_a_private_store(ws: Workspace) -> None:
    run = _remember(ws, f"Staging DB: db_password = {PASSWORD} on db-staging.", "--keep-likely")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["outcome"] == "written"
    store = Store(ws.private.root)  # type: ignore[union-attr]
    (kept,) = [m for m in store.memories.values() if m.status == "active"]
    assert PASSWORD in kept.content  # a person said it is none


def test_a_certain_credential_is_refused_whatever_a_person_says(ws: Workspace) -> None:
    run = _remember(ws, f"The CI bot's token is {TOKEN}.", "--keep-likely")
    assert run.returncode == 1
    assert json.loads(run.stdout)["outcome"] == "refused"
    assert TOKEN not in run.stdout + run.stderr


def _folder(tmp_path: Path) -> Path:
    memory = tmp_path / "shop" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- [Staging DB](project_db.md) — how to reach it\n")
    (memory / "project_db.md").write_text(
        "---\nname: Staging DB\ndescription: how to reach it\ntype: project\n---\n\n"
        f"Staging DB is db-staging; db_password: {PASSWORD}\n"
    )
    return memory


def test_an_agents_folder_with_a_likely_one_is_held_never_showing_it(
    ws: Workspace, tmp_path: Path
) -> None:
    report = import_folder(CLAUDE_CODE, ws, _folder(tmp_path), actor=ACTOR)
    item = next(i for i in report.items if i.origin.startswith("project_db.md"))
    assert item.outcome == "held"
    root = ws.private.root  # type: ignore[union-attr]
    (held,) = [yaml.safe_load(p.read_text()) for p in (root / "held").glob("held-*.yaml")]
    assert held["reason"] == "sensitive" and "likely a credential" in held["detail"]
    (queued,) = build_queue(ws, kinds=["held"])
    assert queued.analysis.marked  # type: ignore[union-attr]
    assert PASSWORD.encode() not in every_byte(root)


@pytest.mark.parametrize("option", ["redact", "keep", "drop"])
def test_a_person_redacts_keeps_or_drops_it(ws: Workspace, tmp_path: Path, option: str) -> None:
    folder = _folder(tmp_path)
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    (queued,) = build_queue(ws, kinds=["held"])
    if option == "drop":
        decide(ws, queued.id, approve=False, actor=ACTOR)
    else:
        decide(ws, queued.id, approve=True, option=option, actor=ACTOR, reason="looked at it")
    store = Store(ws.private.root)  # type: ignore[union-attr]
    texts = [m.content for m in store.memories.values() if m.status == "active"]
    staging = [t for t in texts if "db-staging" in t]
    if option == "drop":
        assert staging == []
    elif option == "redact":
        assert len(staging) == 1 and PASSWORD not in staging[0] and "[secret:" in staging[0]
        assert PASSWORD.encode() not in every_byte(store.root)
    else:
        assert len(staging) == 1 and PASSWORD in staging[0]
        assert build_queue(ws, kinds=["secret"]) == []  # a person said it is none


def test_what_a_person_kept_does_not_come_back_as_a_secret_item(ws: Workspace) -> None:
    run = _remember(ws, f"Staging DB: db_password = {PASSWORD} on db-staging.", "--keep-likely")
    assert run.returncode == 0, run.stderr
    assert build_queue(ws, kinds=["secret"]) == []
