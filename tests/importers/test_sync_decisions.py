"""Two ways means two ways: each kind of decision reaches the agent's folder at the next
sync, and the sync after that is idle (core.importers.claude_code.sync).

Each test has a real private store (and, for a promotion, a team store) in the test's
folder and a real Claude Code folder beside it; the agent's edits are written as the
agent would, every decision is made through ``memgov`` itself (``request-delete``,
``report-stale``, ``request-promote``, ``decide``, ``revert``), and both sides are
checked on disk: the agent's files and ``MEMORY.md``, and the store's records. An
idle sync writes nothing, holds nothing, merges nothing, makes no commit and says
"nothing to change".
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.domain.record import Memory
from core.importers import CLAUDE_CODE, sync_folder
from core.importers.held import load_held
from core.importers.report import SyncReport
from core.review.correct import correct
from core.review.queue import build_queue
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace
from tui.cli import main

ACTOR = "alice@example.com"
STYLE = "---\nname: Style\ndescription: terse answers\ntype: feedback\n---\n\nAnswer tersely.\n"
DEPLOY = (
    "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\n\n"
    "Deploys go out from main after CI is green.\n"
)
INDEX = (
    "# Index\n\n## Feedback\n- [Style](feedback_style.md) — terse answers\n\n"
    "## Project\n- [Deploy](project_deploy.md) — how we deploy\n- Ship Tue.\n"
    "- Rules: see [the rules](../../CLAUDE.md)\n- Use uv.\n"
)
SHIP = "- Ship Tue.\n"


@pytest.fixture
def stores(tmp_path: Path) -> Path:
    root = tmp_path / "stores"
    Store.init(root / "private", scope="private", owner=ACTOR, actor=ACTOR)
    return root


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    memory = tmp_path / "liyyro" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "feedback_style.md").write_text(STYLE)
    (memory / "project_deploy.md").write_text(DEPLOY)
    return memory


def ws(stores: Path) -> Workspace:
    return open_workspace([stores])


def sync(stores: Path, folder: Path) -> SyncReport:
    return sync_folder(CLAUDE_CODE, ws(stores), folder, actor=ACTOR)


def memgov(stores: Path, *argv: str) -> dict[str, object] | list[object]:
    """Run the command line as a person would; its JSON answer."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*argv, "--store", str(stores), "--as", ACTOR, "--json"])
    assert code in (0, 3), (argv, code, out.getvalue())
    data: dict[str, object] | list[object] = json.loads(out.getvalue() or "{}")
    return data


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def heads(stores: Path) -> list[str]:
    return [
        subprocess.run(
            ["git", "-C", str(s.root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for s in ws(stores).stores
    ]


def records(stores: Path, **fields: str) -> list[Memory]:
    found = []
    for store in ws(stores).stores:
        for memory in store.memories.values():
            if all(getattr(memory, k) == v for k, v in fields.items()):
                found.append(memory)
    return found


def one(stores: Path, attribute: str, status: str = "active") -> str:
    (memory,) = records(stores, attribute=attribute, status=status)
    return memory.id


def item_of(stores: Path, kind: str) -> str:
    (item,) = build_queue(ws(stores), kinds=[kind])
    return item.id


def assert_idle(stores: Path, folder: Path) -> None:
    """A sync of the unchanged folder: nothing written either way, held, merged or
    committed, and it says so."""
    before, commits = tree(folder), heads(stores)
    held = load_held(ws(stores).private)[0]
    report = sync(stores, folder)
    counts = report.imported.counts
    assert not any(counts.get(k) for k in ("written", "merged", "conflict", "held")), counts
    assert report.written == report.deleted == report.held == report.asked == ()
    assert "to the agent: nothing to change" in report.render()
    assert tree(folder) == before
    assert heads(stores) == commits  # no state written, no event: no commit
    assert load_held(ws(stores).private)[0] == held


def without(text: str, line: str) -> str:
    assert line in text
    return text.replace(line, "", 1)


# ------------------------------------------------------------------ a conflict
def test_a_conflict_keeps_the_files_line_and_deciding_newer_keeps_the_agents_file(
    stores: Path, folder: Path
) -> None:
    sync(stores, folder)
    agent = DEPLOY + "Staging goes first since May.\n"  # the agent appends to the file
    (folder / "project_deploy.md").write_text(agent)

    report = sync(stores, folder)

    assert report.imported.counts["conflict"] == 1
    assert (folder / "MEMORY.md").read_text() == INDEX  # nobody decided: the line stays
    assert (folder / "project_deploy.md").read_text() == agent
    assert {m.status for m in records(stores, attribute="deploy")} == {"conflict"}
    assert_idle(stores, folder)

    memgov(stores, "decide", item_of(stores, "conflict"), "--approve", "--option", "newer")
    after = sync(stores, folder)

    assert after.written == after.deleted == ()
    assert (folder / "MEMORY.md").read_text() == INDEX
    assert (folder / "project_deploy.md").read_text() == agent
    (active,) = records(stores, attribute="deploy", status="active")
    assert "Staging goes first" in active.content
    assert len(records(stores, attribute="deploy", status="superseded")) == 1
    assert_idle(stores, folder)


def test_deciding_a_conflict_older_writes_the_older_file_back(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    (folder / "project_deploy.md").write_text(DEPLOY.replace("main", "trunk"))
    sync(stores, folder)

    memgov(stores, "decide", item_of(stores, "conflict"), "--approve", "--option", "older")
    report = sync(stores, folder)

    assert report.written == ("project_deploy.md",)
    assert (folder / "project_deploy.md").read_text() == DEPLOY  # byte for byte
    assert (folder / "MEMORY.md").read_text() == INDEX
    (active,) = records(stores, attribute="deploy", status="active")
    assert "from main" in active.content
    assert_idle(stores, folder)


def test_a_line_the_agent_had_lost_to_an_older_sync_comes_back_once_decided(
    stores: Path, folder: Path
) -> None:
    """A state an older memgov left: the conflict's line taken out of MEMORY.md (its
    template keeps the place as hidden); deciding the conflict puts it back there."""
    sync(stores, folder)
    (folder / "project_deploy.md").write_text(DEPLOY.replace("main", "trunk"))
    sync(stores, folder)
    line = "- [Deploy](project_deploy.md) — how we deploy\n"
    (folder / "MEMORY.md").write_text(without(INDEX, line))
    root = stores / "private"
    (state,) = (root / "sync").glob("claude-code-*.json")
    data = json.loads(state.read_text())
    data["files"]["MEMORY.md"]["agent"] = data["files"]["MEMORY.md"]["memgov"] = (
        "sha256:" + __import__("hashlib").sha256((folder / "MEMORY.md").read_bytes()).hexdigest()
    )
    lines = data["index"]["MEMORY.md"]["lines"]
    data["index"]["MEMORY.md"]["lines"] = [
        {"hidden": x["slot"]} if x.get("slot") == "project_deploy.md" else x for x in lines
    ]
    state.write_text(json.dumps(data))
    subprocess.run(
        [
            *("git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"),
            *("commit", "-qam", "test: an older state"),
        ],
        check=True,
    )

    memgov(stores, "decide", item_of(stores, "conflict"), "--approve", "--option", "newer")
    report = sync(stores, folder)

    assert report.written == ("MEMORY.md",)
    assert (folder / "MEMORY.md").read_text() == INDEX
    assert_idle(stores, folder)


# ------------------------------------------------------------------ a deletion
def test_a_deletion_deletes_the_file_and_its_line(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    request = memgov(stores, "request-delete", one(stores, "deploy"), "--reason", "wrong")
    assert isinstance(request, dict)

    memgov(stores, "decide", item_of(stores, "deletion"), "--approve")
    report = sync(stores, folder)

    assert report.deleted == ("project_deploy.md",)
    assert not (folder / "project_deploy.md").exists()
    assert (folder / "MEMORY.md").read_text() == without(
        INDEX, "- [Deploy](project_deploy.md) — how we deploy\n"
    )
    assert (folder / "feedback_style.md").read_text() == STYLE
    assert records(stores, attribute="deploy") == []
    assert_idle(stores, folder)


def test_erasing_what_replaced_an_earlier_version_takes_the_file(
    stores: Path, folder: Path
) -> None:
    """The agent edits a file, the conflict is decided for its new version, then that
    version is erased: the earlier one (superseded by what is now erased) is no memory
    the agent should read again, so the file and its line go."""
    sync(stores, folder)
    (folder / "project_deploy.md").write_text(DEPLOY + "Staging goes first since May.\n")
    sync(stores, folder)
    memgov(stores, "decide", item_of(stores, "conflict"), "--approve", "--option", "newer")
    sync(stores, folder)
    memgov(stores, "request-delete", one(stores, "deploy"), "--reason", "all wrong")
    memgov(stores, "decide", item_of(stores, "deletion"), "--approve")

    report = sync(stores, folder)

    assert report.deleted == ("project_deploy.md",)
    assert not (folder / "project_deploy.md").exists()
    assert "project_deploy.md" not in (folder / "MEMORY.md").read_text()
    assert [m.status for m in records(stores, attribute="deploy")] == ["superseded"]
    assert_idle(stores, folder)


# ------------------------------------------------------------------ a correction
def test_a_correction_rewrites_the_file_and_a_notes_line(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    fixed = folder.parent / "fixed.txt"
    fixed.write_text("Deploys go out from the release branch.\n")
    memgov(stores, "report-stale", one(stores, "deploy"), "--reason", "we use a branch now")
    memgov(
        stores,
        "decide",
        item_of(stores, "stale"),
        "--approve",
        "--option",
        "correct",
        "--content",
        str(fixed),
    )
    (note,) = [m for m in records(stores, status="active") if m.content == "Ship Tue."]
    correct(ws(stores), note.id, content="Ship on Wed.", actor=ACTOR)

    report = sync(stores, folder)

    assert set(report.written) == {"project_deploy.md", "MEMORY.md"}
    assert (folder / "project_deploy.md").read_text() == DEPLOY.replace(
        "Deploys go out from main after CI is green.", "Deploys go out from the release branch."
    )
    assert (folder / "MEMORY.md").read_text() == INDEX.replace(SHIP, "- Ship on Wed.\n")
    assert (folder / "feedback_style.md").read_text() == STYLE
    (deploy,) = records(stores, attribute="deploy", status="active")
    assert deploy.content == "Deploys go out from the release branch."
    assert_idle(stores, folder)


# ------------------------------------------------------------------ an expiry
def test_an_expiry_takes_the_line_out_and_a_revert_puts_it_back(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    memgov(stores, "report-stale", one(stores, "deploy"), "--reason", "no longer true")
    decision = memgov(stores, "decide", item_of(stores, "stale"), "--approve", "--option", "expire")

    report = sync(stores, folder)

    assert report.written == ("MEMORY.md",)
    line = "- [Deploy](project_deploy.md) — how we deploy\n"
    assert (folder / "MEMORY.md").read_text() == without(INDEX, line)
    assert (folder / "project_deploy.md").read_text() == DEPLOY  # the file stays as it was
    assert [m.status for m in records(stores, attribute="deploy")] == ["expired"]
    assert_idle(stores, folder)

    assert isinstance(decision, dict)
    memgov(stores, "revert", str(decision["id"]), "--reason", "it still holds")
    back = sync(stores, folder)

    assert back.written == ("MEMORY.md",)
    assert (folder / "MEMORY.md").read_text() == INDEX  # at its place again
    assert [m.status for m in records(stores, attribute="deploy")] == ["active"]
    assert_idle(stores, folder)


def test_a_hidden_line_keeps_its_place_while_the_agent_edits_the_index(
    stores: Path, folder: Path
) -> None:
    sync(stores, folder)
    memgov(stores, "report-stale", one(stores, "deploy"), "--reason", "no longer true")
    decision = memgov(stores, "decide", item_of(stores, "stale"), "--approve", "--option", "expire")
    sync(stores, folder)
    edited = (folder / "MEMORY.md").read_text().replace("# Index\n", "# Index\n\nRead me.\n")
    (folder / "MEMORY.md").write_text(edited)
    sync(stores, folder)
    assert isinstance(decision, dict)
    memgov(stores, "revert", str(decision["id"]), "--reason", "it still holds")

    sync(stores, folder)

    assert (folder / "MEMORY.md").read_text() == INDEX.replace("# Index\n", "# Index\n\nRead me.\n")
    assert_idle(stores, folder)


# ------------------------------------------------------------------ a promotion
def test_a_promotion_leaves_the_private_file_and_writes_nothing_of_the_team(
    stores: Path, folder: Path
) -> None:
    """A promoted record stays private and active (the file is the private record's;
    the team copy has no file here): the agent's folder stays as it was."""
    Store.init(stores / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    sync(stores, folder)
    before = tree(folder)
    memgov(stores, "request-promote", one(stores, "deploy"), "--reason", "the team needs it")

    memgov(stores, "decide", item_of(stores, "promotion"), "--approve")
    report = sync(stores, folder)

    assert report.written == report.deleted == ()
    assert tree(folder) == before
    (team,) = [m for m in records(stores, attribute="deploy") if m.scope == "team"]
    assert team.status == "active" and team.origin is None
    assert [m.status for m in records(stores, attribute="deploy", scope="private")] == ["active"]
    assert_idle(stores, folder)


# ------------------------------------------------------------ an index note erased
def test_erasing_a_note_of_the_index_takes_its_line_out(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    (note,) = [m for m in records(stores, status="active") if m.content == "Ship Tue."]
    memgov(stores, "request-delete", note.id, "--reason", "not a rule")
    memgov(stores, "decide", item_of(stores, "deletion"), "--approve")

    report = sync(stores, folder)

    assert report.written == ("MEMORY.md",)
    assert (folder / "MEMORY.md").read_text() == without(INDEX, SHIP)
    assert not [m for m in records(stores) if m.content == "Ship Tue."]
    assert_idle(stores, folder)


def test_an_erased_notes_line_goes_while_the_agent_adds_another(stores: Path, folder: Path) -> None:
    """The agent edited MEMORY.md in the same session: the erased note's line, still
    where it stood, goes (not held as re-learned); the agent's new line comes in."""
    sync(stores, folder)
    (note,) = [m for m in records(stores, status="active") if m.content == "Ship Tue."]
    memgov(stores, "request-delete", note.id, "--reason", "not a rule")
    memgov(stores, "decide", item_of(stores, "deletion"), "--approve")
    agent = INDEX.replace("## Project\n", "## Project\n- Lint with ruff.\n")
    (folder / "MEMORY.md").write_text(agent)

    report = sync(stores, folder)

    assert report.imported.counts["written"] == 1 and not report.imported.counts.get("held")
    assert (folder / "MEMORY.md").read_text() == without(agent, SHIP)
    assert [m.status for m in records(stores) if m.content == "Lint with ruff."] == ["active"]
    assert_idle(stores, folder)


def test_an_erased_note_written_again_elsewhere_is_held(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    (note,) = [m for m in records(stores, status="active") if m.content == "Ship Tue."]
    memgov(stores, "request-delete", note.id, "--reason", "not a rule")
    memgov(stores, "decide", item_of(stores, "deletion"), "--approve")
    sync(stores, folder)
    (folder / "MEMORY.md").write_text((folder / "MEMORY.md").read_text() + SHIP)

    report = sync(stores, folder)

    assert report.imported.counts["held"] == 1
    assert (folder / "MEMORY.md").read_text().endswith(SHIP)  # a person decides
    assert not [m for m in records(stores) if m.content == "Ship Tue."]


# ------------------------------------------------------- the agent's own edits
def test_notes_the_agent_moves_are_not_imported_again(stores: Path, folder: Path) -> None:
    sync(stores, folder)
    moved = INDEX.replace(SHIP, "").replace("## Feedback\n", "## Feedback\n" + SHIP)
    moved = moved.replace("# Index\n", "# Index\nRead me.\n")
    (folder / "MEMORY.md").write_text(moved)
    count = len(records(stores))

    report = sync(stores, folder)

    counts = report.imported.counts
    assert not counts.get("merged") and not counts.get("written"), counts
    assert report.written == () and (folder / "MEMORY.md").read_text() == moved
    assert len(records(stores)) == count
    assert_idle(stores, folder)
    # the moved note is still the same record: a correction reaches its new line
    (note,) = [m for m in records(stores, status="active") if m.content == "Ship Tue."]
    correct(ws(stores), note.id, content="Ship on Wed.", actor=ACTOR)
    sync(stores, folder)
    assert (folder / "MEMORY.md").read_text() == moved.replace(SHIP, "- Ship on Wed.\n")
    assert_idle(stores, folder)


def test_a_bullet_linking_outside_the_folder_is_skipped_with_its_reason(
    stores: Path, folder: Path
) -> None:
    report = sync(stores, folder)

    (item,) = [i for i in report.imported.items if i.outcome == "skipped"]
    assert item.origin == "MEMORY.md:9"
    assert "links outside the folder (../../CLAUDE.md)" in item.reasons[0]
    assert not [m for m in records(stores) if "CLAUDE" in m.content]
    assert "skipped: MEMORY.md:9" in report.render()
    assert (folder / "MEMORY.md").read_text() == INDEX
    assert_idle(stores, folder)


# ------------------------------------------------------------------ the export
def test_an_export_lists_a_decided_conflict_and_a_reverted_expiry_where_they_stood(
    stores: Path, folder: Path, tmp_path: Path
) -> None:
    sync(stores, folder)
    (folder / "feedback_style.md").write_text(STYLE + "No emoji.\n")
    (folder / "project_deploy.md").write_text(DEPLOY.replace("main", "trunk"))
    sync(stores, folder)  # the style preference superseded, the deploy fact in conflict
    memgov(stores, "decide", item_of(stores, "conflict"), "--approve", "--option", "newer")
    (style,) = records(stores, attribute="style", status="active")
    memgov(stores, "report-stale", style.id, "--reason", "no longer true")
    decision = memgov(stores, "decide", item_of(stores, "stale"), "--approve", "--option", "expire")
    sync(stores, folder)
    assert "feedback_style.md" not in (folder / "MEMORY.md").read_text()
    assert isinstance(decision, dict)
    memgov(stores, "revert", str(decision["id"]), "--reason", "it still holds")

    memgov(stores, "export", "claude-code", str(tmp_path / "out"))

    assert (tmp_path / "out" / "MEMORY.md").read_text() == INDEX
