"""Importers (SPEC section 12): Claude Code and Codex memory folders in, Claude Code out.

The fixtures under tests/fixtures/ are hand-written folders in both formats.
Tests copy them into tmp_path and add what must not be committed there at
test time: a credential built from a prefix and a random body, a 200+-line
index. HOME, git's global config and the temporary folder all point into
tmp_path.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import string
import subprocess
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from core.domain import secrets
from core.domain.errors import ValidationError
from core.domain.record import Memory, Source
from core.importers import (
    CLAUDE_CODE,
    FolderError,
    ImportReport,
    export_claude_code,
    import_folder,
    read_claude_code,
)
from core.importers.claude_code.reader import project_name
from core.importers.codex.format import CODEX as CODEX_FORMAT
from core.importers.folders import MARKER
from core.store import logs
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace, open_workspace

FIXTURES = Path(__file__).parents[1] / "fixtures"
CLAUDE = FIXTURES / "claude_code" / "liyyro"
CODEX = FIXTURES / "codex" / "memories"
ACTOR = "alice@example.com"
NOW = datetime(2027, 3, 14, 10, 20, tzinfo=timezone(timedelta(hours=8)))


# ----------------------------------------------------------------------- fixtures
@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing of the machine leaks in; nothing is written outside tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # dry runs copy stores here


def make_workspace(
    root: Path, *, team: bool = True, maintainers: tuple[str, ...] = (ACTOR,)
) -> Workspace:
    Store.init(root / "private", scope="private", owner="alice", team_store="../team", actor=ACTOR)
    if team:
        Store.init(root / "team", scope="team", maintainers=maintainers, actor=ACTOR)
    return open_workspace([root], clock=lambda: NOW)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return make_workspace(tmp_path / "stores")


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    return Path(shutil.copytree(CLAUDE, tmp_path / "claude" / "liyyro"))


@pytest.fixture
def codex(tmp_path: Path) -> Path:
    return Path(shutil.copytree(CODEX, tmp_path / "codex" / "memories"))


# ------------------------------------------------------------------------ helpers
def private(ws: Workspace) -> Store:
    assert ws.private is not None
    return ws.private


def team(ws: Workspace) -> Store:
    assert ws.team is not None
    return ws.team


def by_origin(report: ImportReport) -> dict[str, str]:
    """file -> outcome (origins are file:line)."""
    return {item.origin.rpartition(":")[0]: item.outcome for item in report.items}


def keyed(store: Store) -> dict[str, Memory]:
    """attribute -> record (the fixtures' attributes are unique per store)."""
    return {m.attribute: m for m in store.memories.values()}


def commits(store: Store) -> int:
    out = subprocess.run(
        ["git", "-C", str(store.root), "rev-list", "--count", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout)


def state(ws: Workspace) -> list[tuple[int, int, dict[str, bytes]]]:
    """Per store: commits, events, and every tracked file's bytes."""
    out = []
    for store in ws.stores:
        events, _ = store.events()
        files = {
            p.relative_to(store.root).as_posix(): p.read_bytes()
            for p in sorted(store.root.rglob("*"))
            if p.is_file()
            and not p.relative_to(store.root).as_posix().startswith((".git/", ".memgov/"))
        }
        out.append((commits(store), len(events), files))
    return out


def tree(folder: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mtime of every file under folder."""
    return {
        p.relative_to(folder).as_posix(): (
            hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def everything_in(store: Store) -> str:
    """Every file of the store and its whole git history, as text."""
    files = "".join(
        p.read_text(errors="replace")
        for p in store.root.rglob("*")
        if p.is_file() and ".git" not in p.parts
    )
    history = subprocess.run(
        ["git", "-C", str(store.root), "log", "-p", "--all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return files + history


def fake_github_token() -> str:
    """A token the scanner flags, built now from the prefix and a random body."""
    alphabet = string.ascii_letters + string.digits
    while True:
        token = "ghp_" + "".join(random.choice(alphabet) for _ in range(36))
        if [f.rule_id for f in secrets.scan(token)] == ["github-pat"]:
            return token


def active(ws: Workspace) -> set[tuple[str, str, str, str, str]]:
    return {
        (m.scope, m.subject, m.attribute, m.type, m.content)
        for store in ws.stores
        for m in store.memories.values()
        if m.status == "active"
    }


def import_claude(
    ws: Workspace, folder: Path, *, dry_run: bool = False, mapping: dict[str, Any] | None = None
) -> ImportReport:
    return import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR, dry_run=dry_run, mapping=mapping)


# ------------------------------------------------------------- Claude Code: mapping
def test_claude_code_types_subjects_and_attributes(ws: Workspace, claude: Path) -> None:
    report = import_claude(ws, claude)

    assert report.counts["written"] == 9
    assert report.counts["failed"] == report.counts["refused"] == 0
    mine = {a: (m.type, m.subject) for a, m in keyed(private(ws)).items()}
    assert mine == {
        "role": ("semantic", "user:alice"),  # user: a fact about the user
        "回复语言": ("preference", "user:alice"),  # user: states a wish (希望)
        "testing": ("preference", "user:alice/project:liyyro"),  # feedback
        "terse_replies": ("preference", "user:alice/project:liyyro"),
        "lint_before_push": ("preference", "user:alice/project:liyyro"),
        "merge_freeze": ("semantic", "project:liyyro"),  # project
        "release_steps": ("semantic", "project:liyyro"),
        "latency_dashboard": ("semantic", "project:liyyro"),  # reference
    }
    testing = keyed(private(ws))["testing"]
    assert testing.content.startswith("Integration tests must hit a real database, not mocks.")
    assert "**Why:**" in testing.content and "[[project_merge_freeze]]" in testing.content
    assert testing.title == "feedback_testing"
    assert testing.confidence == pytest.approx(0.8)


def test_sources_point_at_the_original_file_and_line(ws: Workspace, claude: Path) -> None:
    import_claude(ws, claude)

    for memory in private(ws).memories.values():
        source = memory.source
        assert source is not None and source.file is not None and source.line is not None
        assert Path(source.file).is_absolute() and Path(source.file).parent == claude
        original = Path(source.file).read_text(encoding="utf-8").splitlines()
        assert source.evidence == original[source.line - 1].strip() != ""
        excerpt = logs.resolve(private(ws).root, source, context=1, outside_ok=True)
        assert excerpt is not None and excerpt.line == source.line
        assert source.evidence in dict(excerpt.lines)[source.line]
    assert keyed(private(ws))["testing"].source == Source(
        task="claude-code:liyyro/feedback_testing.md",
        file=str(claude / "feedback_testing.md"),
        line=8,
        evidence="Integration tests must hit a real database, not mocks.",
    )


def test_metadata_nesting_missing_front_matter_and_chinese(ws: Workspace, claude: Path) -> None:
    report = import_claude(ws, claude)
    records = keyed(private(ws))

    # type and modified under metadata:
    assert records["terse_replies"].type == "preference"
    chinese = records["回复语言"]
    assert chinese.content.startswith("用户希望所有回复和文档都用中文,对比直接上表。")
    assert chinese.title == "回复语言"
    # no front matter: the type comes from the index heading, the title from the heading
    steps = records["release_steps"]
    assert steps.title == "Release steps"
    assert steps.source is not None and steps.source.line == 3
    item = next(i for i in report.items if i.origin == "release_steps.md:3")
    assert item.notes == ("type project from the index heading",)


def test_index_problems_are_warnings_not_failures(ws: Workspace, claude: Path) -> None:
    report = import_claude(ws, claude)

    warnings = "\n".join(report.warnings)
    assert "MEMORY.md:14: [Old tracker] points at old_tracker.md, which does not exist" in warnings
    assert "unlisted_tip.md:8: links to [[ci_pipeline]]" in warnings
    assert "not listed in MEMORY.md (unlisted_tip.md): imported anyway" in warnings
    unlisted = next(i for i in report.items if i.origin.startswith("unlisted_tip.md"))
    assert unlisted.outcome == "written" and "not listed in MEMORY.md" in unlisted.notes


def test_index_past_200_lines_and_25000_bytes(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    index = ["# Index", ""]
    for n in range(230):
        name = f"note_{n:03d}"
        (folder / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: note {n}\ntype: project\n---\n\nFact number {n}.\n"
        )
        index.append(f"- [Note {n}]({name}.md) — fact number {n} " + "x" * 90)
    (folder / "MEMORY.md").write_text("\n".join(index) + "\n")

    reading = read_claude_code(folder, owner="alice", project="big")

    assert len(reading.entries) == 230
    assert any("232 lines" in w and "only the first 200 lines" in w for w in reading.warnings)
    late = {
        e.origin
        for e in reading.entries
        if any("past what Claude Code loads" in n for n in e.notes)
    }
    early = {e.origin for e in reading.entries} - late
    assert "note_000.md:7" in early and "note_229.md:7" in late
    assert 0 < len(early) < 199  # the 25,000-byte cap fires before the 200-line one


# ------------------------------------------------------------------ Claude Code: team
def test_team_files_go_to_the_team_store(ws: Workspace, claude: Path) -> None:
    import_claude(ws, claude)

    assert [(m.scope, m.subject, m.attribute) for m in team(ws).memories.values()] == [
        ("team", "project:liyyro", "deploy_from_main")
    ]
    assert "deploy_from_main" not in keyed(private(ws))


def test_team_files_are_skipped_without_a_team_store(tmp_path: Path, claude: Path) -> None:
    alone = make_workspace(tmp_path / "alone", team=False)

    report = import_claude(alone, claude)

    item = next(i for i in report.items if i.origin.startswith("team/deploy.md"))
    assert item.outcome == "skipped"
    assert item.reasons == (
        "no team store to import into: pass it with --store, or set team_store in the "
        "private store's memgov.yaml",
    )
    assert report.counts["written"] == 8


def test_team_files_need_a_maintainer(tmp_path: Path, claude: Path) -> None:
    other = make_workspace(tmp_path / "other", maintainers=("bob@example.com",))

    report = import_claude(other, claude)

    item = next(i for i in report.items if i.origin.startswith("team/deploy.md"))
    assert item.outcome == "skipped" and "maintainers (bob@example.com)" in item.reasons[0]
    assert team(other).memories == {}


# --------------------------------------------------------------- secrets and refusals
def test_a_token_is_refused_and_never_shown(ws: Workspace, claude: Path) -> None:
    token = fake_github_token()
    (claude / "feedback_deploy_key.md").write_text(
        "---\nname: deploy_key\ndescription: Staging deploy key\ntype: feedback\n---\n\n"
        f"Deploy to staging with the key {token} in the header.\nSee [[vault_setup]].\n"
    )

    report = import_claude(ws, claude)

    item = next(i for i in report.items if i.origin.startswith("feedback_deploy_key.md"))
    assert item.outcome == "refused"
    assert item.secret_rules == ("github-pat",)
    assert any(r.startswith("s4 (authorised): matches github-pat") for r in item.reasons)
    assert (
        item.title
        == item.subject
        == item.attribute
        == "[withheld: matches a secret or sensitive pattern]"
    )
    shown = json.dumps(report.to_dict(), ensure_ascii=False) + report.render()
    assert token not in shown and "Deploy to staging with the key" not in shown
    assert "vault_setup" not in shown
    assert "feedback_deploy_key.md: a warning about this file is withheld (it holds a secret)" in (
        report.warnings
    )
    assert token[4:20] not in shown
    for store in ws.stores:
        assert token not in everything_in(store)
    assert report.render().count("[withheld") == 1
    assert report.counts["written"] == 9


def test_gate_doubts_are_held_with_their_reason(ws: Workspace, claude: Path) -> None:
    (claude / "project_layout.md").write_text(
        "---\nname: layout\ntype: project\n---\nsrc/app/main.py\n"
    )

    report = import_claude(ws, claude)

    # derivable content is a doubt a person may overrule: held, never refused
    item = next(i for i in report.items if i.origin == "project_layout.md:5")
    assert item.outcome == "held"
    assert item.reasons[1] == "line 5: excluded: a bare file path: read the current tree instead"
    assert item.title == "layout"  # no secret: the key is shown


# ------------------------------------------------------------------ repeatable imports
def test_importing_twice_changes_nothing(ws: Workspace, claude: Path) -> None:
    (claude / "feedback_deploy_key.md").write_text(
        f"---\nname: deploy_key\ntype: feedback\n---\n\nUse the key {fake_github_token()}.\n"
    )
    first = import_claude(ws, claude)
    before = state(ws)

    second = import_claude(ws, claude)

    assert state(ws) == before  # no record, event, commit or index change
    assert second.counts["already-imported"] == first.counts["written"] == 9
    assert second.counts["refused"] == 1 and second.counts["written"] == 0
    refused = second.by_outcome("refused")[0]
    assert "refused by an earlier import" in refused.reasons[-1]
    assert refused.secret_rules == ("github-pat",)


def test_an_import_event_records_the_run(ws: Workspace, claude: Path) -> None:
    import_claude(ws, claude)

    events, bad = private(ws).events()
    assert bad == []
    run = [e for e in events if e.action == "import"]
    assert len(run) == 1
    assert run[0].details["format"] == "claude-code"
    assert run[0].details["counts"] == {"written": 8}
    assert set(run[0].memory_ids) == set(private(ws).memories)


def test_a_changed_file_goes_through_the_pipeline_again(ws: Workspace, claude: Path) -> None:
    import_claude(ws, claude)
    path = claude / "feedback_terse.md"
    path.write_text(path.read_text().replace("the user reads the diff", "the user reads the log"))

    report = import_claude(ws, claude)

    assert by_origin(report)["feedback_terse.md"] == "written"
    terse = [m for m in private(ws).memories.values() if m.attribute == "terse_replies"]
    assert sorted(m.status for m in terse) == ["active", "superseded"]  # newer preference wins
    assert report.counts["already-imported"] == 8


def test_a_contradiction_opens_a_conflict_that_export_leaves_out(
    ws: Workspace, claude: Path, tmp_path: Path
) -> None:
    import_claude(ws, claude)
    path = claude / "project_merge_freeze.md"
    path.write_text(path.read_text().replace("from 2026-03-05", "from 2026-03-12"))

    report = import_claude(ws, claude)

    item = next(i for i in report.items if i.origin.startswith("project_merge_freeze.md"))
    assert item.outcome == "conflict" and len(item.memory_ids) == 2
    assert item.reasons[0].startswith("same key, different value: review item conflict-")
    assert {m.status for m in private(ws).memories.values() if m.attribute == "merge_freeze"} == {
        "conflict"
    }
    exported = export_claude_code(ws, tmp_path / "export")
    assert "project_merge_freeze.md" not in exported.files
    assert exported.warnings[0].startswith("2 private records in status conflict were not exported")


def test_an_erased_memory_written_again_is_held_not_imported(ws: Workspace, claude: Path) -> None:
    import_claude(ws, claude)
    store = private(ws)
    doomed = keyed(store)["merge_freeze"]
    with transaction(store, actor=ACTOR, message="test: erase") as tx:
        tx.erase(doomed.id, action="erase", reason="wrong")

    report = import_claude(ws, claude)

    item = next(i for i in report.items if i.origin.startswith("project_merge_freeze.md"))
    assert item.outcome == "held" and "re-learned after deletion" in item.reasons[0]
    assert "merge_freeze" not in keyed(Store(store.root))
    held = list((store.root / "held").glob("held-*.yaml"))
    assert len(held) == 1 and "Non-critical merges" not in held[0].read_text()
    before = state(ws)
    again = import_claude(ws, claude)  # held once: the same bytes are not held again
    assert state(ws) == before
    assert next(i for i in again.items if i.origin.startswith("project_merge")).outcome == "held"


def test_newer_feedback_supersedes_older_for_the_same_name(ws: Workspace, claude: Path) -> None:
    (claude / "feedback_testing_v2.md").write_text(
        "---\nname: feedback_testing\ntype: feedback\nmodified: 2026-03-01\n---\n\n"
        "Integration tests may use the shared staging database.\n"
    )

    import_claude(ws, claude)

    testing = {m.status: m for m in private(ws).memories.values() if m.attribute == "testing"}
    assert set(testing) == {"active", "superseded"}
    assert testing["active"].content.startswith("Integration tests may use the shared staging")
    assert testing["active"].supersedes == testing["superseded"].id


# ------------------------------------------------------------------ mapping and errors
def test_mapping_file_corrects_keys_and_skips_files(ws: Workspace, claude: Path) -> None:
    (claude / "memgov-import.yaml").write_text(
        "project: web\n"
        "owner: alice05\n"
        "files:\n"
        "  feedback_testing.md:\n"
        "    attribute: test_database\n"
        "    subject: project:web/team:backend\n"
        "  release_steps.md:\n"
        "    skip: a checklist, not a memory\n"
        "  gone.md:\n"
        "    skip: true\n"
    )

    report = import_claude(ws, claude)

    records = keyed(private(ws))
    assert records["test_database"].subject == "project:web/team:backend"
    assert records["role"].subject == "user:alice05"
    assert records["merge_freeze"].subject == "project:web"
    assert records["merge_freeze"].source is not None
    assert records["merge_freeze"].source.task == "claude-code:web/project_merge_freeze.md"
    item = next(i for i in report.items if i.origin.startswith("release_steps.md"))
    assert item.outcome == "skipped"
    assert item.reasons == (
        f"skipped by {claude / 'memgov-import.yaml'}: a checklist, not a memory",
    )
    assert f"{claude / 'memgov-import.yaml'}: files.gone.md matches no memory" in "\n".join(
        report.warnings
    )


def test_mapping_argument_replaces_the_file(ws: Workspace, claude: Path) -> None:
    import_claude(ws, claude, mapping={"files": {"user_role.md": {"type": "preference"}}})

    assert keyed(private(ws))["role"].type == "preference"


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("files:\n  a.md:\n    colour: red\n", "files.a.md.colour", "unknown field"),
        ("files:\n  a.md:\n    type: working\n", "files.a.md.type", "unknown type 'working'"),
        ("projekt: web\n", "projekt", "unknown key"),
        ("files: [a.md]\n", "files", "must map file names to fields"),
    ],
)
def test_a_bad_mapping_file_names_the_file_and_the_key(
    ws: Workspace, claude: Path, text: str, field: str, message: str
) -> None:
    (claude / "memgov-import.yaml").write_text(text)

    with pytest.raises(ValidationError) as caught:
        import_claude(ws, claude)

    assert caught.value.path == str(claude / "memgov-import.yaml")
    assert caught.value.field == field and message in caught.value.message


def test_an_unreadable_file_is_skipped_and_a_bad_byte_left_out(ws: Workspace, claude: Path) -> None:
    (claude / "broken.md").write_text("---\nname: broken\ntype: [feedback\n---\nBody.\n")
    (claude / "latin1.md").write_bytes("Caf\xe9 au lait.\n".encode("latin-1"))

    report = import_claude(ws, claude)

    reasons = {i.origin: i.reasons[0] for i in report.by_outcome("skipped")}
    assert reasons["broken.md"].startswith("broken.md:3: the front matter is not valid YAML")
    # a byte that is not UTF-8 costs itself: the rest of the file is read, with a warning
    assert "latin1.md" not in reasons
    assert "latin1.md: 1 byte that is not UTF-8 (at byte 4) left out" in " ".join(report.warnings)
    assert report.counts["written"] == 10


def test_folder_errors_say_what_to_pass(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(FolderError, match="does not exist; pass the Claude Code memory folder"):
        import_claude(ws, tmp_path / "nowhere")
    (tmp_path / "project" / "memory").mkdir(parents=True)
    (tmp_path / "project" / "memory" / "MEMORY.md").write_text("")
    with pytest.raises(FolderError, match=r"did you mean .*project/memory"):
        import_claude(ws, tmp_path / "project")
    with pytest.raises(FolderError, match="not a Codex memories folder"):
        import_folder(CODEX_FORMAT, ws, tmp_path / "project", actor=ACTOR)


def test_project_name_from_claude_codes_folder_names(tmp_path: Path) -> None:
    real = tmp_path / "src" / "my-app"
    real.mkdir(parents=True)
    encoded = re.sub(r"[^A-Za-z0-9]", "-", str(real))
    assert project_name(tmp_path / "projects" / encoded / "memory") == "my-app"
    assert project_name(tmp_path / "projects" / "-nowhere-at-all" / "memory") == "nowhere-at-all"
    assert project_name(tmp_path / "liyyro") == "liyyro"


def test_project_keys_come_from_the_repository(tmp_path: Path) -> None:
    # another machine's folder: the path less its home and checkout folders, never
    # the user's name (project:Users-ssam-src-claude-config)
    projects = tmp_path / ".claude" / "projects"
    assert project_name(projects / "-Users-ssam-src-claude-config" / "memory") == "claude-config"
    assert project_name(projects / "-home-alice-code-shop" / "memory") == "shop"
    assert project_name(projects / "C--Users-bob-repos-api" / "memory") == "api"
    # a repository here: its remote's name, wherever it is checked out
    checkout = tmp_path / "work" / "checkout-2"
    (checkout / ".git").mkdir(parents=True)
    (checkout / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:ssam/claude-config.git\n'
    )
    encoded = re.sub(r"[^A-Za-z0-9]", "-", str(checkout))
    assert project_name(projects / encoded / "memory") == "claude-config"
    assert project_name(checkout / ".claude" / "memory") == "claude-config"
    assert project_name(checkout / "memory") == "claude-config"
    sub = checkout / "packages" / "web"
    sub.mkdir(parents=True)
    assert project_name(projects / re.sub(r"[^A-Za-z0-9]", "-", str(sub)) / "memory") == (
        "claude-config"
    )
    # no remote: the repository's top folder
    (checkout / ".git" / "config").write_text("[core]\n\tbare = false\n")
    assert project_name(checkout / ".claude" / "memory") == "checkout-2"


# ----------------------------------------------------------------------- dry runs
def test_dry_run_writes_nothing_and_predicts_the_real_run(ws: Workspace, claude: Path) -> None:
    before = state(ws)

    dry = import_claude(ws, claude, dry_run=True)

    assert state(ws) == before
    assert list((Path(tempfile.gettempdir())).iterdir()) == []  # the scratch copy is gone
    real = import_claude(ws, claude)
    assert dry.dry_run and not real.dry_run
    assert dry.counts == real.counts
    assert [(i.origin, i.outcome) for i in dry.items] == [(i.origin, i.outcome) for i in real.items]
    assert dict(dry.stores) == {"private": str(private(ws).root), "team": str(team(ws).root)}


def test_a_dry_run_makes_the_ids_a_later_real_run_makes(tmp_path: Path, claude: Path) -> None:
    """The dry run's ids are the real run's, not only under a pinned clock: an imported
    statement is named after its key, content and original file and line."""
    root = tmp_path / "stores"
    make_workspace(root)
    dry = import_claude(open_workspace([root], clock=lambda: NOW), claude, dry_run=True)
    later = open_workspace([root], clock=lambda: NOW + timedelta(hours=5, minutes=7))

    real = import_claude(later, claude)

    assert "ids are those a real run would make" in dry.render()
    made = [(i.origin, i.outcome, i.memory_ids) for i in real.items]
    assert [(i.origin, i.outcome, i.memory_ids) for i in dry.items] == made
    assert sum(len(ids) for _o, _k, ids in made) >= 9
    assert {i for _o, _k, ids in made for i in ids} <= {
        m.id for store in later.stores for m in store.memories.values()
    }


def test_unlisted_files_are_said_imported_only_when_they_were(ws: Workspace, claude: Path) -> None:
    (claude / "another_tip.md").write_text(
        "---\nname: small_commits\ntype: feedback\n---\n\nKeep commits small.\n"
    )

    report = import_claude(ws, claude, mapping={"files": {"unlisted_tip.md": {"skip": True}}})

    assert by_origin(report)["unlisted_tip.md"] == "skipped"
    assert by_origin(report)["another_tip.md"] == "written"
    (warning,) = [w for w in report.warnings if "not listed in MEMORY.md" in w]
    assert warning == (
        "2 files not listed in MEMORY.md (another_tip.md, unlisted_tip.md): imported anyway: "
        "another_tip.md; not imported: unlisted_tip.md; Claude Code finds them only by "
        "searching"
    )
    (claude / "another_tip.md").unlink()
    again = import_folder(
        CLAUDE_CODE,
        make_workspace(claude.parent / "fresh"),
        claude,
        actor=ACTOR,
        mapping={"files": {"unlisted_tip.md": {"skip": True}}},
    )
    (warning,) = [w for w in again.warnings if "not listed in MEMORY.md" in w]
    assert "imported anyway" not in warning
    assert warning.startswith("1 file not listed in MEMORY.md (unlisted_tip.md): not imported")


# ---------------------------------------------------------------- folders stay as they are
def test_imported_folders_are_never_modified(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "stores")
    before = (tree(CLAUDE), tree(CODEX))

    import_claude(workspace, CLAUDE, dry_run=True)
    import_claude(workspace, CLAUDE)
    import_claude(workspace, CLAUDE)
    import_folder(CODEX_FORMAT, workspace, CODEX, actor=ACTOR)
    import_folder(CODEX_FORMAT, workspace, CODEX, actor=ACTOR)
    export_claude_code(workspace, tmp_path / "export")

    assert (tree(CLAUDE), tree(CODEX)) == before


# ------------------------------------------------------------------------- Codex
def test_codex_sections_become_records(ws: Workspace, codex: Path) -> None:
    report = import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)

    assert report.counts == {
        "written": 9,
        "merged": 1,
        "conflict": 0,
        "refused": 0,
        "held": 0,
        "skipped": 0,
        "already-imported": 0,
        "failed": 0,
    }
    kinds = sorted(
        (m.type, m.subject, m.attribute.split(".")[0]) for m in private(ws).memories.values()
    )
    assert kinds == [
        ("preference", "user:alice", "answer_in_chinese_when_the_question_is_in_chines_b1c2ac"),
        ("preference", "user:alice", "use_pnpm_never_npm_in_the_liyyro_repository"),
        (
            "preference",
            "user:alice",
            "when_writing_docs_the_user_asked_以后文档都用中文_对比直接上表_15086d",
        ),
        ("reflection", "project:liyyro", "failure"),
        ("reflection", "user:alice", "tip"),
        ("semantic", "project:liyyro", "knowledge"),
        ("semantic", "project:liyyro", "knowledge"),
        ("semantic", "project:liyyro", "knowledge"),
        ("semantic", "user:alice", "profile"),
    ]
    docs = next(
        m for m in private(ws).memories.values() if m.attribute.startswith("knowledge.api_docs")
    )
    assert docs.content == (
        "API docs are generated from the OpenAPI spec with `pnpm docs:build`,\n"
        "then published by CI on merge."
    )  # continuation line kept, [Task 1] citation dropped
    assert team(ws).memories == {}


def test_codex_sources_point_at_the_rollout_summaries_they_cite(ws: Workspace, codex: Path) -> None:
    report = import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)
    records = list(private(ws).memories.values())
    rollouts = codex / "rollout_summaries"

    chinese = next(m for m in records if m.attribute.startswith("when_writing_docs"))
    assert chinese.source is not None
    assert chinese.source.file == str(rollouts / "2026-03-01T10-00-00-abcd-docs_language.md")
    assert chinese.source.task == "019f0000-aaaa-7000-8000-00000000abcd"
    assert "以后文档都用中文,对比直接上表" in chinese.source.evidence
    # the summary lacks thread_id: recovered from raw_memories.md
    pnpm = next(m for m in records if m.attribute.startswith("use_pnpm"))
    assert {s.task for s in pnpm.all_sources} == {
        "codex:memory_summary.md",
        "019f0000-bbbb-7000-8000-00000000efgh",
    }
    # a failure shield citing two tasks keeps both rollouts
    failure = next(m for m in records if m.attribute.startswith("failure."))
    assert sorted(Path(s.file or "").name[:10] for s in failure.all_sources) == [
        "2026-03-01",
        "2026-03-05",
    ]
    assert failure.confidence == pytest.approx(0.84)  # two threads: 1 - 0.4 * 0.4
    # the missing summary falls back to its thread in raw_memories.md
    staging = next(m for m in records if m.attribute.startswith("knowledge.staging"))
    assert staging.source is not None and staging.source.file == str(codex / "raw_memories.md")
    assert staging.source.evidence.startswith("- Staging deploys run `make deploy ENV=staging`")
    assert any("staging_deploy.md, which is missing" in w for w in report.warnings)
    for memory in records:
        for source in memory.all_sources:
            excerpt = logs.resolve(private(ws).root, source, context=0, outside_ok=True)
            assert excerpt is not None and source.evidence in excerpt.lines[0][1]


def test_codex_reports_what_it_did_not_import(ws: Workspace, codex: Path) -> None:
    summary = codex / "memory_summary.md"
    summary.write_text(summary.read_text().replace("v1\n", "", 1))

    report = import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)

    warnings = "\n".join(report.warnings)
    assert "memory_summary.md:1: does not start with 'v1'" in warnings
    assert "1 thread not consolidated into MEMORY.md yet (019f0000-eeee" in warnings
    # a summary no memory cites is evidence, not memory (counted in words)
    (codex / "rollout_summaries" / "2026-03-09T08-00-00-zzzz-unused.md").write_text(
        "thread_id: 019f0000-zzzz\nupdated_at: 2026-03-09T08:00:00Z\n\n# Unused\n\nNothing.\n"
    )
    warnings = "\n".join(import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR).warnings)
    assert "rollout_summaries/: 1 summary file cited by no memory (2026-03-09T08-00-00" in warnings


def test_codex_subsections_stay_in_their_section(ws: Workspace, codex: Path) -> None:
    summary = codex / "memory_summary.md"
    summary.write_text(
        summary.read_text().replace(
            "## General Tips\n",
            "## General Tips\n\n### Verification\n\n- Read the CI log before rerunning a job.\n",
        )
    )

    import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)

    tips = sorted(
        m.content for m in private(ws).memories.values() if m.attribute.startswith("tip.")
    )
    assert tips[0] == "Read the CI log before rerunning a job."
    assert len(tips) == 2


def test_codex_import_twice_changes_nothing(ws: Workspace, codex: Path) -> None:
    import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)
    before = state(ws)

    second = import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)

    assert state(ws) == before
    assert second.counts["already-imported"] == 10


# ------------------------------------------------------------------------ export
def test_export_gives_an_imported_folder_back_byte_for_byte(
    ws: Workspace, claude: Path, tmp_path: Path
) -> None:
    import_claude(ws, claude)
    out = tmp_path / "export"

    report = export_claude_code(ws, out)

    assert len(report.files) == 9 and report.not_indexed == ()
    for rel in report.files:  # each under its own name, as the agent wrote it
        assert (out / rel).read_bytes() == (claude / rel).read_bytes(), rel
    assert (out / "MEMORY.md").read_bytes() == (claude / "MEMORY.md").read_bytes()
    marker = json.loads((out / MARKER).read_text())
    assert marker["format"] == "memgov-export"
    assert marker["records"]["team/deploy.md"]["subject"] == "project:liyyro"


def test_export_writes_a_record_memgov_made_as_a_claude_code_file(
    ws: Workspace, claude: Path, codex: Path, tmp_path: Path
) -> None:
    """Records no folder gave (here: Codex's) get Claude Code's file names, front
    matter with memgov's block, and index lines after the folder's own."""
    import_claude(ws, claude)
    import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)
    out = tmp_path / "export"

    report = export_claude_code(ws, out)

    fresh = [rel for rel in report.files if not (claude / rel).is_file()]
    assert fresh and all(re.match(r"(team/)?(user|feedback|project|reference)_", r) for r in fresh)
    topic = (out / fresh[0]).read_text()
    assert topic.startswith("---\nname: ") and "\nmemgov:\n  id: " in topic
    index = (out / "MEMORY.md").read_text()
    assert index.startswith((claude / "MEMORY.md").read_text())
    assert f"]({fresh[0]})" in index.removeprefix((claude / "MEMORY.md").read_text())


def test_export_counts_in_words(ws: Workspace, tmp_path: Path) -> None:
    folder = tmp_path / "one" / "memory"
    folder.mkdir(parents=True)
    (folder / "feedback_small.md").write_text(
        "---\nname: small_commits\ntype: feedback\n---\n\nKeep commits small.\n"
    )
    import_claude(ws, folder)

    report = export_claude_code(ws, tmp_path / "export")

    assert report.render().splitlines()[0] == (
        f"exported to {tmp_path / 'export'}: 1 memory file; MEMORY.md lists 1 in 2 lines, "
        f"{report.index_bytes:,} bytes"
    )


def test_round_trip_gives_the_same_records(
    ws: Workspace, claude: Path, codex: Path, tmp_path: Path
) -> None:
    import_claude(ws, claude)
    import_folder(CODEX_FORMAT, ws, codex, actor=ACTOR)
    export_claude_code(ws, tmp_path / "export")
    fresh = make_workspace(tmp_path / "fresh")

    report = import_claude(fresh, tmp_path / "export")

    assert report.counts["written"] == len(active(ws)) == 18
    assert active(fresh) == active(ws)
    # the original index as it was: its line to a file it never had, and no line for
    # the file it did not list
    assert [w for w in report.warnings if "[[ci_pipeline]]" not in w] == [
        "MEMORY.md:14: [Old tracker] points at old_tracker.md, which does not exist; "
        "nothing imported for it",
        "1 file not listed in MEMORY.md (unlisted_tip.md): imported anyway; Claude Code "
        "finds them only by searching",
    ]


def test_reimporting_an_export_into_its_own_store_changes_nothing(
    ws: Workspace, claude: Path, tmp_path: Path
) -> None:
    import_claude(ws, claude)
    export_claude_code(ws, tmp_path / "export")
    before = state(ws)

    report = import_claude(ws, tmp_path / "export")

    assert report.counts["already-imported"] == 9
    assert state(ws) == before


def test_export_refuses_a_folder_it_did_not_write(ws: Workspace, claude: Path) -> None:
    before = tree(claude)

    with pytest.raises(FolderError, match="not empty, and not a previous memgov export"):
        export_claude_code(ws, claude)

    assert tree(claude) == before


def test_export_replaces_its_own_export_unless_it_changed(
    ws: Workspace, claude: Path, tmp_path: Path
) -> None:
    import_claude(ws, claude)
    out = tmp_path / "export"
    export_claude_code(ws, out)

    again = export_claude_code(ws, out)
    assert again.replaced_previous
    (out / "feedback_new_rule.md").write_text("---\nname: new\ntype: feedback\n---\nA new rule.\n")
    with pytest.raises(
        FolderError, match=r"changed since memgov exported it \(new: feedback_new_rule.md\)"
    ):
        export_claude_code(ws, out)
    (out / "feedback_new_rule.md").unlink()
    (out / "user_role.md").write_text("edited by the agent\n")
    with pytest.raises(FolderError, match=r"\(changed: user_role.md\). Import it first"):
        export_claude_code(ws, out)
    assert (out / "user_role.md").read_text() == "edited by the agent\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".export")] == []


def test_export_refuses_a_folder_inside_a_store(ws: Workspace) -> None:
    with pytest.raises(FolderError, match="inside the memgov store"):
        export_claude_code(ws, private(ws).root / "export")


def test_export_keeps_the_index_within_claude_codes_limits(ws: Workspace, tmp_path: Path) -> None:
    store = private(ws)
    with transaction(store, actor=ACTOR, message="test: many records") as tx:
        for n in range(260):
            tx.create(
                Memory(
                    id=f"fact-{n:03d}",
                    type="semantic",
                    scope="private",
                    status="active",
                    subject="project:big",
                    attribute=f"fact_{n:03d}",
                    title=f"A rather long title for fact number {n} " + "t" * 40,
                    content=f"Fact {n} is a long statement " + "word " * 60,
                    confidence=0.5 + (n % 5) / 10,
                    created_at=NOW,
                    verified_at=NOW,
                ),
                action="create",
                reason="test",
            )
    out = tmp_path / "export"

    report = export_claude_code(store, out)

    index = (out / "MEMORY.md").read_text()
    lines = index.splitlines()
    assert len(lines) <= 200 and len(index.encode()) <= 25_000
    assert max(len(line) for line in lines) <= 150
    assert len(report.files) == 260 == len(report.indexed) + len(report.not_indexed)
    assert report.not_indexed and all((out / rel).is_file() for rel in report.not_indexed)
    confidence = {
        rel: int(re.findall(r"id: fact-(\d+)", (out / rel).read_text())[0]) % 5
        for rel in report.files
    }
    assert min(confidence[r] for r in report.indexed) >= max(
        confidence[r] for r in report.not_indexed
    )
    assert not any("lines" in w for w in read_claude_code(out, owner="a", project="b").warnings)


def test_reports_are_stable_json_and_readable(ws: Workspace, claude: Path) -> None:
    report = import_claude(ws, claude)

    data = report.to_dict()
    assert list(data) == ["format", "folder", "dry_run", "items", "warnings", "stores", "counts"]
    assert list(data["items"][0]) == [
        "origin",
        "kind",
        "scope",
        "outcome",
        "reasons",
        "memory_ids",
        "title",
        "type",
        "subject",
        "attribute",
        "sources",
        "secret_rules",
        "notes",
    ]
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data
    text = report.render()
    assert text.startswith(f"claude-code import from {claude}\n")
    assert "9 written, 0 merged" in text and "\nwarnings:\n" in text


# ------------------------------------------------------------- one commit per store
def test_an_import_is_one_commit_per_store_it_changes(ws: Workspace, claude: Path) -> None:
    before = [commits(s) for s in ws.stores]
    report = import_claude(ws, claude)
    assert report.counts["written"] == 9
    changed = [s for s in ws.stores if any(m.scope == s.config.scope for m in keyed(s).values())]
    assert changed
    for store, was in zip(ws.stores, before, strict=True):
        assert commits(store) == was + (1 if store in changed else 0)
        # the import event is in that same commit, with every create of the run
        last = subprocess.run(
            ["git", "-C", str(store.root), "log", "-1", "--format=%s"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        assert last.startswith("import: ") or store not in changed
    # a second run of the unchanged folder: no commit at all
    again = [commits(s) for s in ws.stores]
    import_claude(ws, claude)
    assert [commits(s) for s in ws.stores] == again
