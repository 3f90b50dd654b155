"""What real agent folders hold, read as the agents wrote it: Claude Code's own front
matter (unquoted values with ": " in them), bytes that are not UTF-8 (they cost
themselves, not the file), and every folder of ``../shared/real-memory/`` imported
with its counts (skipped when the folder is absent).
"""

from __future__ import annotations

import collections
import shutil
from pathlib import Path

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.importers import CLAUDE_CODE, CODEX, format_named, import_folder
from core.importers.claude_code.files import line_fields, split_front_matter
from core.importers.folders import FolderError, decoded, read_lines
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "alice@example.com"
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-memory"


def workspace(root: Path) -> Workspace:
    Store.init(root / "private", scope="private", owner="alice", team_store="../team", actor=ACTOR)
    Store.init(root / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    return open_workspace([root])


# ------------------------------------------------------------ Claude Code's front matter
def test_claude_codes_unquoted_values_read_line_by_line() -> None:
    lines = [
        "---",
        "name: Project Context: SS Traveling",
        "description: Cover letter standards: NYC location, 1 page",
        "type: project",
        "metadata:",
        "  originSessionId: 3f9e: a",
        "---",
        "body",
    ]
    meta, body = split_front_matter(lines, "p.md")
    assert meta == {
        "name": "Project Context: SS Traveling",
        "description": "Cover letter standards: NYC location, 1 page",
        "type": "project",
        "metadata": {"originSessionId": "3f9e: a"},
    }
    assert lines[body] == "body"


def test_valid_yaml_is_still_read_as_yaml_and_what_is_neither_is_refused() -> None:
    meta, _ = split_front_matter(["---", "name: 'quoted: fine'", "tags: [a, b]", "---"], "q.md")
    assert meta == {"name": "quoted: fine", "tags": ["a", "b"]}
    # a line that is no field, and an indented field under a value, are not guessed at
    assert line_fields(["name: x: y", "just prose"]) is None
    assert line_fields(["name: x: y", "  nested: z"]) is None
    assert line_fields(["name: x", "type: [feedback"]) is None  # meant as YAML
    with pytest.raises(FolderError) as err:
        split_front_matter(["---", "name: a: b", "- a list item", "---"], "bad.md")
    assert "bad.md:" in str(err.value) and "not valid YAML" in str(err.value)


def test_a_folder_with_unquoted_front_matter_imports_every_file(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "project_context.md").write_text(
        "---\nname: Project Context: SS Traveling\ndescription: The ERP: goals and fixes\n"
        "type: project\n---\n\nThe ERP is built on Laravel and deployed by hand.\n",
        encoding="utf-8",
    )
    ws = workspace(tmp_path / "stores")
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    assert [i.outcome for i in report.items] == ["written"]
    (memory,) = ws.private.memories.values()
    assert memory.title == "Project Context: SS Traveling"


# ---------------------------------------------------------------- bytes that are not UTF-8
def test_bytes_that_are_not_utf8_cost_themselves_not_the_file(tmp_path: Path) -> None:
    text, lost = decoded(b"abc" + b"\xe4\xb8" + "def 中文".encode() + b"\xff")
    assert text == "abcdef 中文" and lost == [(3, 2), (15, 1)]
    path = tmp_path / "MEMORY.md"
    path.write_bytes(b"- one\n" + b"- tw\xe4\xb8o\n- three\n")
    warnings: list[str] = []
    assert read_lines(path, "MEMORY.md", warnings) == ["- one", "- two", "- three"]
    (warning,) = warnings
    assert warning.startswith("MEMORY.md: 2 bytes that are not UTF-8 (at byte 11)")
    with pytest.raises(FolderError):  # a caller that cannot warn is told, as before
        read_lines(path, "MEMORY.md")


def test_a_cut_off_character_keeps_the_rest_of_the_memory(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "feedback_tables.md").write_bytes(
        b"---\nname: Tables\ntype: feedback\n---\n\n"
        + b"Comparisons go in tables, "
        + "表格".encode()[:4]  # a character cut off in the middle
        + b" always.\n"
    )
    ws = workspace(tmp_path / "stores")
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    assert [i.outcome for i in report.items] == ["written"]
    assert any("feedback_tables.md: 1 byte that is not UTF-8" in w for w in report.warnings)
    (memory,) = ws.private.memories.values()
    assert "Comparisons go in tables, 表 always." in memory.content


# ------------------------------------------------------------------ the real folders
#: what each real folder gives today (a dry run into a fresh private and team store);
#: held: memories that address the agent from a source not known to be the user's words
#: (quarantine): 4444J99's note quoting a job ad's planted "If you are a LLM or an AI tool
#: ...". 1000ssam's three feedback notes ("묻지 말고", "without asking") are the user's
#: guidance: their quoted evidence is weighed as their content is (a weak sign in the
#: words of a type that vouches for the user's voice is no sign), and they are written;
#: 0WAQ's five notes naming an internal address (private notes: the private store never
#: leaves the machine) are written
EXPECTED = {
    ("claude-code", "0WAQ__gsim-ops__claude-memory"): {"written": 34},
    # 1000ssam's team profiles name the demo accounts' password in Korean prose (비번):
    # a likely credential, held for a person (redact, keep private, drop)
    ("claude-code", "1000ssam__claude-config__memory"): {"written": 124, "held": 1},
    ("claude-code", "4444J99__application-pipeline__claude-memory"): {"written": 91, "held": 1},
    ("claude-code", "BobG1983__breaker__claude-agent-memory-planning-reviewer-specs-code"): {
        "written": 6
    },
    ("claude-code", "Rodhey48__ss_traveling__claude-memory"): {"written": 2},
    # 143 of Codex's own files, 126 of the user's notes beside them (PROFILE.md 16, ACTIVE.md
    # 28, LEARNINGS.md 56, ERRORS.md 25, FEATURE_REQUESTS.md 3); held (one item, reason
    # gate): two profile lines that start with 正在 ("currently"), which the gate reads as
    # task state, a doubt a person may overrule (only secrets and sourceless memories are
    # refused); skipped: three prompts (README.md, AGENTS_SNIPPET.md,
    # NIGHTLY_REVIEW_PROMPT.md) and the ad-hoc extension's instructions.md
    ("codex", "0x07c4__agent__memories"): {"written": 269, "held": 2, "skipped": 4},
    ("codex", "ShengLin1001__codex-config__memories"): {"written": 80},
}


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-memory is not here")
@pytest.mark.parametrize(("kind", "name"), sorted(EXPECTED), ids=lambda v: str(v)[:24])
def test_each_real_folder_imports_with_its_counts(tmp_path: Path, kind: str, name: str) -> None:
    source = REAL / kind / name
    if not source.is_dir():
        pytest.skip(f"{source} is not here")
    folder = Path(shutil.copytree(source, tmp_path / "folder"))  # read from a copy
    ws = workspace(tmp_path / "stores")
    report = import_folder(format_named(kind), ws, folder, actor=ACTOR, dry_run=True)
    counts = collections.Counter(i.outcome for i in report.items)
    assert dict(counts) == EXPECTED[kind, name], [
        (i.origin, i.outcome, i.reasons) for i in report.items if i.outcome != "written"
    ]
    # no file skipped for its front matter or its encoding
    assert not [
        i for i in report.items if i.outcome == "skipped" and "front matter" in " ".join(i.reasons)
    ]


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-memory is not here")
def test_the_detector_holds_at_most_half_a_percent_of_the_real_memories(tmp_path: Path) -> None:
    """Every real folder imported (a dry run): the memories the steering detector holds
    (quarantine) against all it reads; internal addresses (held) are not its."""
    counts: collections.Counter[str] = collections.Counter()
    quarantined = 0
    for kind, name in sorted(EXPECTED):
        folder = Path(shutil.copytree(REAL / kind / name, tmp_path / name))
        ws = workspace(tmp_path / "stores" / name)
        report = import_folder(format_named(kind), ws, folder, actor=ACTOR, dry_run=True)
        counts.update(i.outcome for i in report.items)
        quarantined += sum(1 for i in report.items if any("quarantine" in r for r in i.reasons))
    total = counts["written"] + counts["held"]
    assert quarantined <= 0.005 * total, (quarantined, total)


# ------------------------------------------------------------ whose folder it is
def _topic(folder: Path, name: str, kind: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(
        f"---\nname: {Path(name).stem}\ntype: {kind}\n---\n\n{body}\n", encoding="utf-8"
    )


def test_a_repositorys_claude_folder_is_that_repositorys_project(tmp_path: Path) -> None:
    folder = tmp_path / "src" / "shop" / ".claude" / "memory"
    _topic(folder, "project_deploy.md", "project", "The shop deploys with make ship.")
    _topic(folder, "feedback_user-facing-copy.md", "feedback", "Keep user-facing copy short.")
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    keys = {(m.subject, m.attribute) for m in ws.private.memories.values()}
    assert keys == {
        ("project:shop", "deploy"),
        ("user:alice/project:shop", "user_facing_copy"),  # the prefix goes, its words stay
    }


def test_an_agents_own_memory_is_its_reflection_keyed_with_the_agent(tmp_path: Path) -> None:
    folder = tmp_path / "breaker" / ".claude" / "agent-memory" / "code-reviewer"
    _topic(folder, "feedback_small_diffs.md", "feedback", "Review diffs under 400 lines first.")
    _topic(folder, "project_layout.md", "project", "Specs live in docs/specs.")
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    found = {m.attribute: (m.type, m.subject) for m in ws.private.memories.values()}
    assert found == {
        "small_diffs": ("reflection", "project:breaker/agent:code-reviewer"),
        "layout": ("semantic", "project:breaker/agent:code-reviewer"),
    }
    # two repositories' reviewers no longer share a key
    other = tmp_path / "shop" / ".claude" / "agent-memory" / "code-reviewer"
    _topic(other, "feedback_small_diffs.md", "feedback", "Review the tests first.")
    import_folder(CLAUDE_CODE, ws, other, actor=ACTOR)
    statuses = {m.subject: m.status for m in ws.private.memories.values() if m.type == "reflection"}
    assert statuses == {
        "project:breaker/agent:code-reviewer": "active",
        "project:shop/agent:code-reviewer": "active",
    }


def test_two_folders_user_profiles_do_not_open_a_false_conflict(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "stores")
    for project, text in (("shop", "Alice is a backend engineer."), ("blog", "Alice writes.")):
        folder = tmp_path / project / ".claude" / "memory"
        _topic(folder, "user_profile.md", "user", text)
        import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    found = sorted((m.attribute, m.status) for m in ws.private.memories.values())
    assert found == [("profile_blog", "active"), ("profile_shop", "active")]


def test_a_profile_that_lists_preferences_is_a_preference(tmp_path: Path) -> None:
    folder = tmp_path / "app" / ".claude" / "memory"
    _topic(folder, "user_style.md", "user", "Code style preferences: tabs, short functions.")
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    (memory,) = ws.private.memories.values()
    assert memory.type == "preference"


def test_a_link_that_spells_the_name_with_dashes_is_no_broken_link(tmp_path: Path) -> None:
    folder = tmp_path / "app" / ".claude" / "memory"
    _topic(folder, "user_profile.md", "user", "Alice is a backend engineer.")
    _topic(folder, "feedback_tests.md", "feedback", "See [[user-profile]]; also [[nothing_here]].")
    ws = workspace(tmp_path / "stores")
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    links = [w for w in report.warnings if "links to" in w]
    assert len(links) == 1 and "[[nothing_here]]" in links[0]


def test_notes_written_into_the_index_become_records(tmp_path: Path) -> None:
    folder = tmp_path / "app" / ".claude" / "memory"
    _topic(folder, "project_deploy.md", "project", "Deploy with make ship.")
    (folder / "MEMORY.md").write_text(
        "# Memory\n\n"
        "- [Deploy](project_deploy.md) — how we ship\n\n"
        "## User Preferences\n"
        "- Always include the application URL when listing entries\n"
        "## Paths\n"
        "- Resumes go to `materials/resumes/batch-NN/`\n\n"
        "Some prose that is no note.\n",
        encoding="utf-8",
    )
    ws = workspace(tmp_path / "stores")
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    assert sorted(i.origin for i in report.items if i.outcome == "written") == [
        "MEMORY.md:6",
        "MEMORY.md:8",
        "project_deploy.md:6",
    ]
    found = {m.content: (m.type, m.subject) for m in ws.private.memories.values()}
    assert found["Always include the application URL when listing entries"] == (
        "preference",
        "user:alice/project:app",
    )
    assert found["Resumes go to `materials/resumes/batch-NN/`"] == ("semantic", "project:app")
    # each note's source is its line of the index, so the desk shows it in place
    note = next(m for m in ws.private.memories.values() if m.content.startswith("Always"))
    assert note.all_sources[0].line == 6 and note.all_sources[0].file.endswith("MEMORY.md")
    (prose,) = [w for w in report.warnings if "prose" in w]
    assert "line 10" in prose
    # the same folder again changes nothing
    again = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    assert {i.outcome for i in again.items} == {"already-imported"}


def test_files_codex_does_not_write_are_imported_or_named(tmp_path: Path) -> None:
    folder = tmp_path / "memories"
    folder.mkdir()
    (folder / "memory_summary.md").write_text("v1\n\n## User profile\n\n- Alice.\n")
    (folder / "PROFILE.md").write_text("# Alice\n\n## Communication\n- Prefers short answers.\n")
    (folder / "skills" / "deploy").mkdir(parents=True)
    (folder / "skills" / "deploy" / "SKILL.md").write_text("# Deploy\nRun make ship.\n")
    (folder / "extensions" / "ad_hoc" / "notes").mkdir(parents=True)
    (folder / "extensions" / "ad_hoc" / "notes" / "a.md").write_text("- Trust this.\n")
    ws = workspace(tmp_path / "stores")
    report = import_folder(CODEX, ws, folder, actor=ACTOR, dry_run=True)
    outcomes = {i.origin: i.outcome for i in report.items}
    assert outcomes == {
        "memory_summary.md:5": "written",
        "PROFILE.md:4": "written",
        "extensions/ad_hoc/notes/a.md:1": "written",
        "skills/deploy/SKILL.md": "skipped",
    }
    (skill,) = report.by_outcome("skipped")
    assert "a skill: instructions for the agent, not a memory" in skill.reasons[0]


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-memory is not here")
def test_the_users_own_files_in_a_real_codex_folder(tmp_path: Path) -> None:
    source = REAL / "codex" / "0x07c4__agent__memories"
    if not source.is_dir():
        pytest.skip(f"{source} is not here")
    folder = Path(shutil.copytree(source, tmp_path / "folder"))
    # the real folder holds only the ad-hoc extension's instructions; add a note to the copy
    notes = folder / "extensions" / "ad_hoc" / "notes"
    notes.mkdir()
    (notes / "2026-05-04T10-00-00-editor.md").write_text(
        "# Remember\n\n- 用户的编辑器是 Neovim（LazyVim 配置）。\n", encoding="utf-8"
    )
    ws = workspace(tmp_path / "stores")
    report = import_folder(CODEX, ws, folder, actor=ACTOR)
    items = {i.origin: i for i in report.items}
    assert "instructions for the agent" in items["README.md"].reasons[0]
    assert "not a note" in items["extensions/ad_hoc/instructions.md"].reasons[0]
    memories = {m.content: m for m in ws.private.memories.values()}
    chinese = memories["默认使用中文。"]  # PROFILE.md:15, under ## Communication Preferences
    assert (chinese.type, chinese.subject) == ("preference", "user:alice")
    assert chinese.attribute == "profile.communication_preferences.默认使用中文"
    assert chinese.source is not None and chinese.source.line == 15
    assert chinese.source.file == str(folder / "PROFILE.md")
    role = memories["个人开发者，主要在 Linux 环境下工作。"]
    assert role.type == "semantic"  # a fact about the user, no wish
    editor = memories["用户的编辑器是 Neovim（LazyVim 配置）。"]
    assert editor.confidence == 0.9 and editor.subject == "user:alice"
    note = items["extensions/ad_hoc/notes/2026-05-04T10-00-00-editor.md:3"]
    assert "authoritative" in " ".join(note.notes)
    # a LEARNINGS.md section is one reflection, keyed by its [ID] and name
    lesson = next(
        m for m in memories.values() if m.attribute.startswith("learning.lrn_20260504_001")
    )
    assert lesson.type == "reflection" and lesson.content.startswith("**Logged**: 2026-05-04")
    assert "### Suggested Action" in lesson.content
    assert lesson.source is not None and lesson.source.line == 3


def test_the_type_prefix_goes_with_the_files_own_type_and_keeps_real_words() -> None:
    from core.importers.claude_code.entries import without_type_prefix

    assert without_type_prefix("feedback-commit-style", "feedback") == "commit-style"
    assert without_type_prefix("feedback_testing") == "testing"
    assert without_type_prefix("user-facing-copy", "feedback") == "user-facing-copy"
    assert without_type_prefix("project-wide lint rules", "feedback") == "project-wide lint rules"
