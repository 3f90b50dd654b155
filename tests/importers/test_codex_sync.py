"""A Codex folder after a decision in memgov (core.importers.codex.sync, docs/codex.md):
an erased memory leaves the files Codex consolidates from, Codex is told in an ad-hoc
note, a re-import of an unchanged folder holds nothing, and the agent writing the
memory again is held. Real folders and stores in tmp_path, checked on disk.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from core.domain.record import normal_hash
from core.importers import CODEX, import_folder, sync_folder
from core.importers.codex.notes import MEMGOV_NOTE
from core.importers.codex.sync import CodexSync
from core.importers.held import file_hash
from core.review.decide import decide
from core.review.queue import build_queue
from core.store.requests import filed_request
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "me@example.com"
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-memory"
ERASED = "Staging lives at port 8080."

SUMMARY = """v1

## User preferences

- Prefers pnpm.

## General Tips

- Run the tests first.
"""
MEMORY = """# Task Group: shop deploys

scope: deploying the shop
applies_to: cwd=/home/u/src/shop; reuse_rule=this checkout

## Task 1: deploy the shop

### rollout_summary_files

- rollout_summaries/2026-05-01T10-00-00-abcd-deploy.md (cwd=/home/u/src/shop, \
updated_at=2026-05-01T10:00:00Z, thread_id=t1)

### keywords

- deploy

## Reusable knowledge

- Deploys go out from main. [Task 1]
- Staging lives at port 8080. [Task 1]
- Tags are cut by CI. [Task 1]

## Failures and how to do differently

- Symptom: tag missing -> cause: CI skipped -> fix: rerun. [Task 1]
"""
ROLLOUT = """thread_id: t1
updated_at: 2026-05-01T10:00:00Z
cwd: /home/u/src/shop

# Deploy
Deploys go out from main.
Staging lives at port 8080.
Tags are cut by CI; when a tag is missing, CI skipped: rerun.
"""


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    Store.init(tmp_path / "stores" / "private", scope="private", owner=ACTOR, actor=ACTOR)
    return open_workspace([tmp_path / "stores"])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "codex" / "memories"
    (root / "rollout_summaries").mkdir(parents=True)
    (root / "memory_summary.md").write_text(SUMMARY, encoding="utf-8")
    (root / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (root / "rollout_summaries" / "2026-05-01T10-00-00-abcd-deploy.md").write_text(ROLLOUT)
    (root / "raw_memories.md").write_text("# Raw Memories\n\nNo raw memories yet.\n")
    return root


def private(ws: Workspace) -> Store:
    return Store(ws.private.root)  # type: ignore[union-attr]


def erase(ws: Workspace, content: str) -> str:
    store = private(ws)
    (memory,) = [m for m in store.memories.values() if m.content == content]
    request, _ = filed_request(
        store, kind="delete", memory_id=memory.id, reason="wrong", actor=ACTOR
    )
    decide(ws, request.id, approve=True, actor=ACTOR, reason="wrong")
    assert memory.id not in private(ws).memories
    return memory.id


def held_files(ws: Workspace) -> list[dict[str, object]]:
    root = ws.private.root  # type: ignore[union-attr]
    return [yaml.safe_load(p.read_text()) for p in sorted((root / "held").glob("held-*.yaml"))]


def notes(folder: Path) -> list[Path]:
    return sorted((folder / "extensions" / "ad_hoc" / "notes").glob("*.md"))


def commits(ws: Workspace) -> int:
    import subprocess

    root = ws.private.root  # type: ignore[union-attr]
    out = subprocess.run(
        ["git", "-C", str(root), "rev-list", "--count", "HEAD"], capture_output=True, text=True
    )
    return int(out.stdout.strip())


def test_an_unchanged_folder_after_a_deletion_holds_nothing(ws: Workspace, folder: Path) -> None:
    import_folder(CODEX, ws, folder, actor=ACTOR)
    erase(ws, ERASED)

    again = import_folder(CODEX, ws, folder, actor=ACTOR)  # the import alone: reads, never writes

    assert again.counts.get("held", 0) == 0 and held_files(ws) == []
    (item,) = [i for i in again.items if i.origin == "MEMORY.md:19"]
    assert item.outcome == "skipped" and "did not write it again" in item.reasons[0]
    assert (folder / "MEMORY.md").read_text() == MEMORY  # an import never writes


def test_sync_takes_the_erased_lines_out_and_tells_codex(ws: Workspace, folder: Path) -> None:
    import_folder(CODEX, ws, folder, actor=ACTOR)
    rollout = (folder / "rollout_summaries").iterdir().__next__().read_bytes()
    erase(ws, ERASED)

    report = sync_folder(CODEX, ws, folder, actor=ACTOR)

    assert report.imported.counts.get("held", 0) == 0 and held_files(ws) == []
    assert (folder / "MEMORY.md").read_text() == MEMORY.replace(f"- {ERASED} [Task 1]\n", "")
    assert (folder / "memory_summary.md").read_text() == SUMMARY
    # Codex's evidence is its own (rebuilt from its database): never touched
    assert (folder / "rollout_summaries").iterdir().__next__().read_bytes() == rollout
    (note,) = notes(folder)
    assert report.written == ("MEMORY.md", str(note.relative_to(folder)))
    text = note.read_text()
    assert text.splitlines()[0] == MEMGOV_NOTE
    assert "- MEMORY.md, line 19 (under 'Task Group: shop deploys / Reusable knowledge')" in text
    assert "rollout_summaries/2026-05-01T10-00-00-abcd-deploy.md" in text
    assert "8080" not in text and "Staging" not in text  # places, never the words
    assert not list(note.parent.glob(".*"))  # no temporary file left
    # the state keeps hashes, never words; the erased words are no longer in it
    state = (ws.private.root / "sync").glob("codex-*.json")  # type: ignore[union-attr]
    (state_file,) = list(state)
    assert "8080" not in state_file.read_text()
    assert normal_hash(ERASED) not in state_file.read_text()

    # an unchanged folder gives an idle sync: nothing read, written, held or committed
    before = commits(ws)
    idle = sync_folder(CODEX, ws, folder, actor=ACTOR)
    assert idle.written == () and idle.imported.items == () and commits(ws) == before
    assert "nothing to change" in idle.render()
    # memgov's own note is not a memory: a re-import skips it and holds nothing
    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert again.counts.get("held", 0) == 0 and again.counts.get("written", 0) == 0
    assert again.counts.get("merged", 0) == 0
    (own,) = [i for i in again.items if i.origin.startswith("extensions/")]
    assert own.outcome == "skipped" and "memgov's own note" in own.reasons[0]


def test_codex_rewriting_the_file_keeps_the_deletion(ws: Workspace, folder: Path) -> None:
    import_folder(CODEX, ws, folder, actor=ACTOR)
    erase(ws, ERASED)
    # Codex consolidates before the next sync: a new bullet, the erased one still there
    grown = MEMORY.replace(
        "- Tags are cut by CI.", "- Releases wait for QA. [Task 1]\n- Tags are cut by CI."
    )
    (folder / "MEMORY.md").write_text(grown)

    report = sync_folder(CODEX, ws, folder, actor=ACTOR)

    assert held_files(ws) == []  # it was there before: not written again
    assert ERASED not in (folder / "MEMORY.md").read_text()
    assert "- Releases wait for QA. [Task 1]" in (folder / "MEMORY.md").read_text()
    assert report.imported.counts["written"] == 1  # the new bullet came in
    assert any(m.content == "Releases wait for QA." for m in private(ws).memories.values())


def test_the_agent_writing_it_again_is_held_and_forget_takes_it_out(
    ws: Workspace, folder: Path
) -> None:
    import_folder(CODEX, ws, folder, actor=ACTOR)
    erase(ws, ERASED)
    sync_folder(CODEX, ws, folder, actor=ACTOR)
    (folder / "MEMORY.md").write_text(MEMORY)  # the agent writes the erased memory again

    report = sync_folder(CODEX, ws, folder, actor=ACTOR)

    assert report.imported.counts["held"] == 1 and report.written == ()
    (held,) = held_files(ws)
    assert held["reason"] == "relearned" and held["file"] == "MEMORY.md"
    assert ERASED in (folder / "MEMORY.md").read_text()  # a person decides first
    (item,) = build_queue(ws, kinds=["held"])
    decide(ws, item.id, approve=False, actor=ACTOR, reason="keep it forgotten")

    after = sync_folder(CODEX, ws, folder, actor=ACTOR)

    assert ERASED not in (folder / "MEMORY.md").read_text()
    assert "MEMORY.md" in after.written and len(notes(folder)) == 2
    assert ERASED not in "\n".join(m.content for m in private(ws).memories.values())
    idle = sync_folder(CODEX, ws, folder, actor=ACTOR)
    assert idle.written == () and idle.imported.items == ()


def test_learn_brings_it_back_and_the_sync_leaves_it(ws: Workspace, folder: Path) -> None:
    import_folder(CODEX, ws, folder, actor=ACTOR)
    erase(ws, ERASED)
    sync_folder(CODEX, ws, folder, actor=ACTOR)
    (folder / "MEMORY.md").write_text(MEMORY)
    sync_folder(CODEX, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])

    decide(ws, item.id, approve=True, option="learn", actor=ACTOR, reason="true after all")
    after = sync_folder(CODEX, ws, folder, actor=ACTOR)

    assert ERASED in (folder / "MEMORY.md").read_text() and after.written == ()
    assert any(m.content == ERASED for m in private(ws).memories.values())


def test_nothing_is_written_through_a_link_or_over_changed_bytes(
    ws: Workspace, folder: Path, tmp_path: Path
) -> None:
    import_folder(CODEX, ws, folder, actor=ACTOR)
    erase(ws, ERASED)
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "extensions" / "ad_hoc").mkdir(parents=True)
    os.symlink(outside, folder / "extensions" / "ad_hoc" / "notes")

    report = sync_folder(CODEX, ws, folder, actor=ACTOR)

    assert list(outside.iterdir()) == []  # the note is not written through the link
    assert report.written == ("MEMORY.md",)
    assert any("symbolic link" in n for n in report.notes)
    # a file whose bytes changed since the sync read them is left as it is
    run = CodexSync(ws, private(ws), folder, ACTOR)
    path = folder / "memory_summary.md"
    assert not run.write("memory_summary.md", b"v1\n", file_hash(b"other bytes"))
    assert path.read_text() == SUMMARY and "changed while the sync ran" in run.notes[-1]


def test_ad_hoc_notes_file_project_facts_under_the_project(ws: Workspace, folder: Path) -> None:
    notes_dir = folder / "extensions" / "ad_hoc" / "notes"
    notes_dir.mkdir(parents=True)
    (notes_dir / "2026-05-02T10-00-00-shop.md").write_text(
        "- The shop's API runs on port 3000.\n"
        "- The user is a data engineer.\n"
        "- Always answer in English.\n"
    )

    report = import_folder(CODEX, ws, folder, actor=ACTOR, dry_run=True)

    subjects = {i.title: i.subject for i in report.items if i.origin.startswith("extensions/")}
    assert subjects["The shop's API runs on port 3000."] == "project:codex"
    assert subjects["The user is a data engineer."] == f"user:{ACTOR}"
    assert subjects["Always answer in English."] == f"user:{ACTOR}"


@pytest.mark.skipif(not (REAL / "codex").is_dir(), reason="no ../shared/real-memory here")
def test_a_real_folder_after_a_deletion(ws: Workspace, tmp_path: Path) -> None:
    source = REAL / "codex" / "ShengLin1001__codex-config__memories"
    if not source.is_dir():
        pytest.skip(f"{source} is not here")
    folder = Path(shutil.copytree(source, tmp_path / "real" / "memories"))
    import_folder(CODEX, ws, folder, actor=ACTOR)
    store = private(ws)
    memory = min(
        (m for m in store.memories.values() if m.attribute.startswith("knowledge.")),
        key=lambda m: m.id,
    )
    before = (folder / "MEMORY.md").read_text().splitlines()
    erase(ws, memory.content)

    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert again.counts.get("held", 0) == 0 and held_files(ws) == []
    report = sync_folder(CODEX, ws, folder, actor=ACTOR)

    after = (folder / "MEMORY.md").read_text().splitlines()
    assert len(after) == len(before) - 1 and report.imported.counts.get("held", 0) == 0
    assert next(line for line in before if line not in after).startswith("- ")
    assert len(notes(folder)) == 1
    idle = sync_folder(CODEX, ws, folder, actor=ACTOR)
    assert idle.written == () and idle.imported.items == () and held_files(ws) == []
