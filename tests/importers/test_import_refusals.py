"""An import refuses only what must never be written (a secret, a memory without a
source); what the write gate merely doubts (derivable content, s1/s2 under theta) is
held for a person with the gate's reasons (core.importers.session, held "gate").
Real folders and stores in tmp_path; the real queue and decisions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import fake_token

from core.importers import CLAUDE_CODE, CODEX, import_folder
from core.review.decide import decide
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "me@example.com"
TOKEN = fake_token("ghp_", 36, seed=34)
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-memory"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    Store.init(tmp_path / "private", scope="private", owner=ACTOR, actor=ACTOR)
    return open_workspace([tmp_path])


def codex_folder(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "memory_summary.md").write_text(
        "v1\n\n## User preferences\n\n- Prefers short answers.\n", encoding="utf-8"
    )
    (root / "PROFILE.md").write_text(
        "# Profile\n\n## User role\n\n"
        "- 正在构建 `Solo`，一个面向个人开发的人机协作式 AI 工作台。\n"
        "- currently working on the Solo desktop client\n"
        f"- My GitHub token is {TOKEN}\n"
        "- Works in Shanghai.\n",
        encoding="utf-8",
    )
    return root


def held_files(ws: Workspace) -> list[dict[str, object]]:
    root = ws.private.root  # type: ignore[union-attr]
    return [yaml.safe_load(p.read_text()) for p in sorted((root / "held").glob("held-*.yaml"))]


def contents(ws: Workspace) -> list[str]:
    store = Store(ws.private.root)  # type: ignore[union-attr]
    return sorted(m.content for m in store.memories.values() if m.status == "active")


def outcome(report: object, origin: str) -> str:
    (item,) = [i for i in report.items if i.origin == origin]  # type: ignore[attr-defined]
    return str(item.outcome)


def test_doubted_lines_are_held_a_secret_is_refused(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(tmp_path / "memories")

    report = import_folder(CODEX, ws, folder, actor=ACTOR)

    assert outcome(report, "PROFILE.md:5") == "held"
    assert outcome(report, "PROFILE.md:6") == "held"
    assert outcome(report, "PROFILE.md:7") == "refused"  # a secret: never written
    assert outcome(report, "PROFILE.md:8") == "written"
    assert report.counts["refused"] == 1 and report.counts["held"] == 2
    (held,) = held_files(ws)
    assert held["reason"] == "gate" and held["file"] == "PROFILE.md" and held["line"] == 5
    detail = str(held["detail"])
    assert "line 5: excluded: in-progress task state" in detail
    assert "line 6: excluded: in-progress task state" in detail
    assert "Solo" not in detail and TOKEN not in yaml.safe_dump(held)
    (item,) = build_queue(ws, kinds=["held"])
    assert item.analysis.options == ("keep", "drop")  # type: ignore[union-attr]
    # imported again, unchanged: the same item, nothing new held, the secret still refused
    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert again.counts["held"] == 2 and again.counts["refused"] == 1
    assert len(held_files(ws)) == 1


def test_keep_imports_them_drop_leaves_them_out(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(tmp_path / "memories")
    import_folder(CODEX, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])

    decision = decide(ws, item.id, approve=True, option="keep", actor=ACTOR, reason="mine")

    assert decision.option == "keep" and len(decision.created) == 2
    words = "\n".join(contents(ws))
    assert "正在构建 `Solo`" in words and "currently working on the Solo desktop client" in words
    assert TOKEN not in words
    assert build_queue(ws, kinds=["held"]) == []
    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert again.counts["held"] == 0 and again.counts["written"] == 0


def test_drop_is_a_decision_the_next_import_keeps(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(tmp_path / "memories")
    import_folder(CODEX, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])

    decide(ws, item.id, approve=False, actor=ACTOR, reason="task state")

    assert "Solo" not in "\n".join(contents(ws))
    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert outcome(again, "PROFILE.md:5") == "skipped" and again.counts["held"] == 0
    assert held_files(ws)[0]["status"] == "rejected"


def test_under_theta_is_held_not_refused(ws: Workspace, tmp_path: Path) -> None:
    config = ws.private.root / "memgov.yaml"  # type: ignore[union-attr]
    config.write_text(config.read_text() + "theta: 0.85\n")
    folder = tmp_path / "ops" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [Deploy](project_deploy.md): how we deploy\n")
    (folder / "project_deploy.md").write_text(
        "---\nname: deploy\ndescription: how we deploy\ntype: project\n---\n"
        "Deploys go out on Tuesdays.\n"
    )
    workspace = open_workspace([tmp_path])

    report = import_folder(CLAUDE_CODE, workspace, folder, actor=ACTOR)

    assert report.counts.get("refused", 0) == 0 and report.counts["held"] == 1
    (held,) = held_files(workspace)
    assert held["reason"] == "gate" and "theta 0.85" in str(held["detail"])


@pytest.mark.skipif(not (REAL / "codex").is_dir(), reason="no ../shared/real-memory here")
def test_real_profile_lines_are_held(ws: Workspace, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "memories"
    shutil.copytree(REAL / "codex" / "0x07c4__agent__memories", folder, symlinks=True)

    report = import_folder(CODEX, ws, folder, actor=ACTOR)

    assert report.counts.get("refused", 0) == 0
    held = [i for i in report.items if i.outcome == "held"]
    assert [i.origin for i in held] == ["PROFILE.md:5", "PROFILE.md:6"]
    assert all("in-progress task state" in i.reasons[1] for i in held)
