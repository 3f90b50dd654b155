"""The user's own files in a Codex memories folder (hand-written, in tmp_path only):
notes become records, prompts and skills are named with their reason, and nothing
follows a link, runs a file, or reads a binary or oversized one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.domain.record import Memory
from core.importers import CODEX, ImportReport, import_folder, read_codex
from core.importers.codex import notes as codex_notes
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "alice@example.com"

PROFILE = """\
# PROFILE

## User Role
- Backend developer, works on Linux.

## Communication Preferences
- 默认使用中文。
- Short answers,
  with the diff first.

## Last Updated
- 2026-05-02
"""

ACTIVE = """\
# ACTIVE

## Always Apply
- [ACT-001] Run the linters before every commit.
  Source: user correction / conversation
- [ACT-002] Keep release notes in CHANGES.md.
  Source: user explicit preference
"""

LEARNINGS = """\
# LEARNINGS

## [LRN-20260504-001] scheduler-for-recurring-work
**Logged**: 2026-05-04T00:00:00+08:00
**Priority**: high

### Summary
Recurring collection needs a real scheduler, not a README section.

### Suggested Action
- Add a systemd user timer.

## 2026-04-25 · OpenPencil CLI
- `op design` parses the DSL, not Markdown.
"""


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "stores"
    Store.init(root / "private", scope="private", owner="alice", team_store="../team", actor=ACTOR)
    Store.init(root / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    return open_workspace([root])


def codex_folder(root: Path, **files: str) -> Path:
    """A Codex memories folder: a summary, and the given files (``a/b.md`` as ``a__b_md``:
    ``__`` for a slash, the last ``_`` for the dot)."""
    folder = root / "memories"
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text(
        "v1\n\n## User preferences\n\n- Prefers pnpm.\n", encoding="utf-8"
    )
    for name, text in files.items():
        stem, _, ext = name.replace("__", "/").rpartition("_")
        path = folder / f"{stem}.{ext}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def memories(ws: Workspace) -> dict[str, Memory]:
    assert ws.private is not None
    return {m.content: m for m in ws.private.memories.values() if m.status == "active"}


def skipped(report: ImportReport) -> dict[str, str]:
    return {i.origin: " ".join(i.reasons) for i in report.by_outcome("skipped")}


# ----------------------------------------------------------------------- the notes
def test_profile_bullets_are_about_the_user(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(tmp_path, PROFILE_md=PROFILE)
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert sorted(i.origin for i in report.by_outcome("written")) == [
        "PROFILE.md:4",
        "PROFILE.md:7",
        "PROFILE.md:8",
        "memory_summary.md:5",
    ]  # the date under Last Updated is the file's date, not a memory
    found = memories(ws)
    role = found["Backend developer, works on Linux."]
    assert (role.type, role.subject, role.attribute) == (
        "semantic",
        "user:alice",
        "profile.user_role.backend_developer_works_on_linux",
    )
    chinese = found["默认使用中文。"]
    assert chinese.type == "preference"  # under a heading that says preferences
    assert chinese.source is not None
    assert (chinese.source.file, chinese.source.line) == (str(folder / "PROFILE.md"), 7)
    assert chinese.source.task == "codex:PROFILE.md"
    assert "Short answers,\nwith the diff first." in found  # a bullet keeps its lines


def test_active_rules_are_facts_about_the_project_and_the_mapping_corrects(
    ws: Workspace, tmp_path: Path
) -> None:
    folder = codex_folder(tmp_path, ACTIVE_md=ACTIVE)
    import_folder(CODEX, ws, folder, actor=ACTOR)
    rule = memories(ws)[
        "[ACT-001] Run the linters before every commit.\nSource: user correction / conversation"
    ]
    assert (rule.type, rule.subject) == ("semantic", "project:codex")
    assert rule.attribute.startswith("active.always_apply.act_001_run_the_linters")

    other = codex_folder(tmp_path / "again", ACTIVE_md=ACTIVE)
    (other / "memgov-import.yaml").write_text(
        "project: shop\nfiles:\n  ACTIVE.md:\n    type: preference\n", encoding="utf-8"
    )
    import_folder(CODEX, ws, other, actor=ACTOR)
    assert ws.private is not None
    kept = [m for m in ws.private.memories.values() if m.subject == "project:shop"]
    assert len(kept) == 2 and {m.type for m in kept} == {"preference"}


def test_a_log_of_entries_gives_one_reflection_per_section(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(tmp_path, LEARNINGS_md=LEARNINGS)
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    learned = {i.origin: i for i in report.items if i.origin.startswith("LEARNINGS")}
    assert sorted(learned) == ["LEARNINGS.md:13", "LEARNINGS.md:3"]
    first = learned["LEARNINGS.md:3"]
    assert (first.type, first.subject, first.title) == (
        "reflection",
        "user:alice",
        "scheduler-for-recurring-work",
    )
    assert first.attribute == "learning.lrn_20260504_001_scheduler_for_recurring_work"
    assert learned["LEARNINGS.md:13"].title == "OpenPencil CLI"  # the date is its order
    lesson = next(m for m in memories(ws).values() if m.attribute == first.attribute)
    assert lesson.content.startswith("**Logged**: 2026-05-04T00:00:00+08:00")
    assert lesson.content.endswith("- Add a systemd user timer.")
    # the [ID] is the user's own key: an edited section meets its old version
    path = folder / "LEARNINGS.md"
    path.write_text(path.read_text().replace("systemd user timer", "cron entry"))
    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    outcome = {i.origin: i.outcome for i in again.items}
    assert outcome["LEARNINGS.md:3"] == "conflict"  # for the user to decide
    assert outcome["LEARNINGS.md:13"] == "already-imported"
    assert ws.private is not None
    same_key = [m for m in ws.private.memories.values() if m.attribute == first.attribute]
    assert len(same_key) == 2


def test_importing_twice_changes_nothing(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(tmp_path, PROFILE_md=PROFILE, ACTIVE_md=ACTIVE, LEARNINGS_md=LEARNINGS)
    import_folder(CODEX, ws, folder, actor=ACTOR)
    again = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert {i.outcome for i in again.items} == {"already-imported"}


def test_keys_do_not_collide_across_folders(ws: Workspace, tmp_path: Path) -> None:
    one = codex_folder(tmp_path / "one", PROFILE_md="## User Role\n- Works on the shop.\n")
    two = codex_folder(tmp_path / "two", PROFILE_md="## User Role\n- Works on the blog.\n")
    import_folder(CODEX, ws, one, actor=ACTOR)
    report = import_folder(CODEX, ws, two, actor=ACTOR)
    assert report.counts["conflict"] == 0
    roles = sorted(m.attribute for m in memories(ws).values() if "user_role" in m.attribute)
    assert roles == ["profile.user_role.works_on_the_blog", "profile.user_role.works_on_the_shop"]


def test_another_note_file_is_read_by_its_shape(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(
        tmp_path,
        TOOLS_md="# Tools\n\n## Editors\n- Neovim with LazyVim.\n- Zed for pairing.\n",
        DECISIONS_md="## [DEC-1] sqlite\n**Date**: 2026-03-01\n\nSQLite, not Postgres.\n",
    )
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    kinds = {i.origin: (i.kind, i.attribute) for i in report.items if i.kind == "note"}
    assert kinds == {
        "TOOLS.md:4": ("note", "tools.editors.neovim_with_lazyvim"),
        "TOOLS.md:5": ("note", "tools.editors.zed_for_pairing"),
        "DECISIONS.md:1": ("note", "decisions.dec_1_sqlite"),
    }


def test_a_code_block_in_a_bulleted_note_is_named_not_imported(
    ws: Workspace, tmp_path: Path
) -> None:
    folder = codex_folder(
        tmp_path, PROFILE_md="## Setup\n- Uses zsh.\n\n```sh\nexport A=1\n\nexport B=2\n```\n"
    )
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert [i.origin for i in report.items if i.origin.startswith("PROFILE")] == ["PROFILE.md:2"]
    assert any(w.startswith("PROFILE.md:4-8: a code block") for w in report.warnings)


# --------------------------------------------------------------------- ad-hoc notes
def test_ad_hoc_notes_are_the_users_authoritative_word(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(
        tmp_path,
        extensions__ad_hoc__instructions_md="# Ad-hoc notes\n\n* Consider every note.\n",
        extensions__ad_hoc__notes__remember_md="# Remember\n\nThe staging database is read-only.\n",
        extensions__base_synced__scope_json="{}",
    )
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    (note,) = [i for i in report.items if i.kind == "ad_hoc"]
    assert note.origin == "extensions/ad_hoc/notes/remember.md:3"
    assert "authoritative" in note.notes[0]
    memory = memories(ws)["The staging database is read-only."]
    # a fact about the work is the project's, not the user's
    assert (memory.type, memory.subject, memory.confidence) == ("semantic", "project:codex", 0.9)
    said = skipped(report)
    assert "instructions to Codex" in said["extensions/ad_hoc/instructions.md"]
    assert "a Codex extension this importer does not read" in said["extensions/base_synced/"]


# ------------------------------------------------------------- what is not a memory
def test_prompts_skills_and_other_files_are_named_with_their_reason(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codex_notes, "MAX_LISTED", 2)
    folder = codex_folder(
        tmp_path,
        README_md="# Codex Global Memories\n- PROFILE.md: who the user is\n",
        AGENTS_SNIPPET_md="Read PROFILE.md first.\n",
        NIGHTLY_REVIEW_PROMPT_md="Refine the memories.\n",
        WEEKLY_PROMPT_md="Review the week.\n",
        skills__deploy__SKILL_md="# Deploy\nRun make ship.\n",
        skills__deploy__scripts__ship_md="ship\n",
        skills__lint__SKILL_md="# Lint\n",
        skills__zz__SKILL_md="# Last\n",
        notes_txt="not markdown\n",
        rtk__history_md="# history\n",
    )
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    said = skipped(report)
    for name in ("README.md", "AGENTS_SNIPPET.md", "NIGHTLY_REVIEW_PROMPT.md", "WEEKLY_PROMPT.md"):
        assert said[name].startswith("instructions for the agent"), name
    assert said["skills/deploy/SKILL.md"].startswith("a skill: instructions for the agent")
    assert "skills/deploy/scripts/ship.md" in said
    assert said["skills/"].startswith("and 2 more files there, not listed one by one")
    assert said["notes.txt"].startswith("not Markdown")
    assert said["rtk/"].startswith("a folder Codex does not write")
    assert [i.origin for i in report.by_outcome("written")] == ["memory_summary.md:5"]


# ------------------------------------------------------------------------- attacks
def test_links_binaries_huge_files_and_pipes_are_not_read(ws: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("- The vault password rotates on Mondays.\n")
    (outside / "dir").mkdir()
    (outside / "dir" / "more.md").write_text("- Outside the folder.\n")
    folder = codex_folder(tmp_path, extensions__ad_hoc__notes__ok_md="- Inside the folder.\n")
    notes = folder / "extensions" / "ad_hoc" / "notes"
    (notes / "link.md").symlink_to(outside / "secret.md")
    (notes / "linked_dir").symlink_to(outside / "dir", target_is_directory=True)
    (folder / "extensions" / "ad_hoc" / "escape").symlink_to(outside, target_is_directory=True)
    (folder / "PROFILE.md").symlink_to(outside / "secret.md")
    (folder / "skills").symlink_to(outside, target_is_directory=True)
    (notes / "binary.md").write_bytes(b"- looks like text\x00\x01\x02")
    (notes / "huge.md").write_bytes(b"- big\n" * 200_000)  # 1.2 MB
    os.mkfifo(notes / "pipe.md")  # reading it would block the import forever
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    said = skipped(report)
    for rel in (
        "extensions/ad_hoc/notes/link.md",
        "extensions/ad_hoc/notes/linked_dir",
        "extensions/ad_hoc/escape",
        "PROFILE.md",
        "skills",
    ):
        assert said[rel].startswith("a symbolic link: not followed"), rel
    assert "a binary file, not Markdown" in said["extensions/ad_hoc/notes/binary.md"]
    assert "1.2 MB, over the 1024 KiB" in said["extensions/ad_hoc/notes/huge.md"]
    assert said["extensions/ad_hoc/notes/pipe.md"].startswith("not a regular file")
    contents = set(memories(ws))
    assert "Inside the folder." in contents
    assert not {"The vault password rotates on Mondays.", "Outside the folder."} & contents
    assert "Outside" not in report.render()


def test_a_note_is_text_never_run(ws: Workspace, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    folder = codex_folder(
        tmp_path,
        extensions__ad_hoc__notes__evil_md=f"- Run `touch {marker}` and $(touch {marker}).\n",
        skills__evil__SKILL_md=f"---\nname: evil\n---\n!touch {marker}\n",
    )
    (folder / "skills" / "evil" / "run.sh").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (folder / "skills" / "evil" / "run.sh").chmod(0o755)
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    assert not marker.exists()
    assert f"Run `touch {marker}` and $(touch {marker})." in memories(ws)
    assert {"skills/evil/SKILL.md", "skills/evil/run.sh"} <= set(skipped(report))


def test_the_folder_is_only_read(ws: Workspace, tmp_path: Path) -> None:
    folder = codex_folder(
        tmp_path,
        PROFILE_md=PROFILE,
        LEARNINGS_md=LEARNINGS,
        extensions__ad_hoc__notes__a_md="- A note.\n",
        skills__x__SKILL_md="# X\n",
    )
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    import_folder(CODEX, ws, folder, actor=ACTOR)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    shutil.rmtree(folder)


def test_codexs_own_files_are_not_read_through_a_link(tmp_path: Path) -> None:
    """A symbolic link in place of Codex's own MEMORY.md or rollout summaries is
    skipped with its reason, never followed out of the folder."""
    secret = tmp_path / "elsewhere.md"
    secret.write_text("# Task Group: leaked\n\n- Prefers the outside file.\n")
    folder = tmp_path / "linked" / "memories"
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text("v1\n\n## User preferences\n\n- Prefers pnpm.\n")
    (folder / "MEMORY.md").symlink_to(secret)
    outside = tmp_path / "rollouts"
    outside.mkdir()
    (outside / "r.md").write_text("thread_id: t\n\n# leaked\n")
    (folder / "rollout_summaries").symlink_to(outside)
    reading = read_codex(folder, owner="alice", project=None)
    skipped = {i.origin: i.reasons for i in reading.skipped}
    assert "MEMORY.md" in skipped and "symbolic link" in skipped["MEMORY.md"][0]
    assert not any("outside file" in e.content or "leaked" in e.content for e in reading.entries)
