"""``memgov sync claude-code``: a real folder, edited from both sides
(core.importers.claude_code.sync).

The agent's side is a real Claude Code folder in a temporary directory that the
tests write into as the agent would; memgov's side is a real private store whose
records people correct and erase through the core's own decisions.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.importers import CLAUDE_CODE, CODEX, sync_folder
from core.importers.held import load_held
from core.review.correct import correct
from core.review.decide import decide
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace, open_workspace

ACTOR = "alice@example.com"
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-memory"
STYLE = (
    "---\nname: Answer style\ndescription: terse answers\ntype: feedback\n"
    "metadata:\n  originSessionId: 3f9e-11\n---\n\nAnswer tersely; no closing summary.\n"
)
DEPLOY = (
    "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\n\n"
    "Deploys go out from main after CI is green.\n\n**Why:** hotfix deploys broke prod.\n"
)
INDEX = (
    "# Index\n\n## Feedback\n- [Answer style](feedback_style.md) — terse answers\n\n"
    "## Project\n- [Deploy](project_deploy.md) — how we deploy\n- Releases go out on Tuesdays.\n"
)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    Store.init(tmp_path / "stores" / "private", scope="private", owner=ACTOR, actor=ACTOR)
    return open_workspace([tmp_path / "stores"])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    memory = tmp_path / "liyyro" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(INDEX)
    (memory / "feedback_style.md").write_text(STYLE)
    (memory / "project_deploy.md").write_text(DEPLOY)
    return memory


def fresh(ws: Workspace) -> Workspace:
    return Workspace(stores=[Store(s.root) for s in ws.stores])


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def head(ws: Workspace) -> str:
    root = ws.private.root  # type: ignore[union-attr]
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout


def record(ws: Workspace, attribute: str, status: str = "active") -> str:
    store = Store(ws.private.root)  # type: ignore[union-attr]
    (memory,) = [
        m for m in store.memories.values() if m.attribute == attribute and m.status == status
    ]
    return memory.id


def sync(ws: Workspace, folder: Path):  # type: ignore[no-untyped-def]
    return sync_folder(CLAUDE_CODE, fresh(ws), folder, actor=ACTOR)


def test_the_first_sync_imports_and_leaves_the_folder_as_it_is(ws: Workspace, folder: Path) -> None:
    before = tree(folder)

    report = sync(ws, folder)

    assert report.imported.counts["written"] == 3  # two files and a note of MEMORY.md
    assert report.written == report.deleted == report.held == ()
    assert tree(folder) == before
    again = head(ws)
    second = sync(ws, folder)  # repeatable: nothing changed, nothing written, no commit
    assert second.imported.counts["written"] == 0 and second.written == ()
    assert head(ws) == again and tree(folder) == before


def test_what_the_agent_adds_or_changes_comes_in_as_evidence(ws: Workspace, folder: Path) -> None:
    sync(ws, folder)
    (folder / "feedback_style.md").write_text(STYLE.replace("tersely", "in one line"))
    (folder / "user_role.md").write_text(
        "---\nname: Role\ndescription: the user\ntype: user\n---\n\nThe user is a data engineer.\n"
    )
    before = tree(folder)

    report = sync(ws, folder)

    assert report.imported.counts["written"] == 2 and report.written == ()
    assert tree(folder) == before  # the agent's words stay as it wrote them
    store = Store(ws.private.root)  # type: ignore[union-attr]
    styles = {m.status: m for m in store.memories.values() if m.attribute == "answer_style"}
    assert set(styles) == {"active", "superseded"}  # a newer preference supersedes
    assert "in one line" in styles["active"].content


def test_a_correction_goes_back_to_the_file_and_its_index_line(ws: Workspace, folder: Path) -> None:
    sync(ws, folder)
    correct(
        fresh(ws),
        record(ws, "deploy"),
        content="Deploys go out from the release branch after CI is green.",
        actor=ACTOR,
    )

    report = sync(ws, folder)

    assert report.written == ("project_deploy.md",)
    text = (folder / "project_deploy.md").read_text()
    # the agent's front matter kept, the statement corrected
    assert text == (
        "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\n\n"
        "Deploys go out from the release branch after CI is green.\n"
    )
    assert (folder / "feedback_style.md").read_text() == STYLE
    assert (folder / "MEMORY.md").read_text() == INDEX  # what it shows did not change
    assert sync(ws, folder).written == ()  # in agreement now


def test_an_erasure_deletes_the_file_and_sticks_when_the_agent_relearns_it(
    ws: Workspace, folder: Path
) -> None:
    sync(ws, folder)
    store = Store(ws.private.root)  # type: ignore[union-attr]
    with transaction(store, actor=ACTOR, message="test: erase") as tx:
        tx.erase(record(ws, "answer_style"), action="erase", reason="not wanted")

    report = sync(ws, folder)

    assert report.deleted == ("feedback_style.md",)
    assert not (folder / "feedback_style.md").exists()
    assert "feedback_style.md" not in (folder / "MEMORY.md").read_text()
    assert "[Deploy](project_deploy.md)" in (folder / "MEMORY.md").read_text()

    # the agent learns it again in its next session
    (folder / "feedback_style.md").write_text(STYLE)
    relearned = sync(ws, folder)
    (item,) = [i for i in relearned.imported.items if i.outcome == "held"]
    assert "re-learned after deletion" in item.reasons[0]
    assert not [m for m in Store(store.root).memories.values() if m.attribute == "answer_style"]
    assert (folder / "feedback_style.md").read_text() == STYLE  # held: nothing deleted yet

    (held,) = [h for h in load_held(Store(store.root))[0] if h.reason == "relearned"]
    decide(fresh(ws), held.id, approve=False, actor=ACTOR)  # forget
    assert sync(ws, folder).deleted == ("feedback_style.md",)
    assert not (folder / "feedback_style.md").exists()


def test_a_file_changed_on_both_sides_is_held_until_a_person_decides(
    ws: Workspace, folder: Path
) -> None:
    sync(ws, folder)
    correct(fresh(ws), record(ws, "deploy"), content="Deploys go out on Fridays.", actor=ACTOR)
    agent = DEPLOY.replace("from main", "from main or a release tag")
    (folder / "project_deploy.md").write_text(agent)

    report = sync(ws, folder)

    (held,) = report.held
    assert held.startswith("project_deploy.md: held-")
    assert (folder / "project_deploy.md").read_text() == agent  # no silent overwrite
    assert sync(ws, folder).held == report.held  # held once

    items = [h for h in load_held(Store(ws.private.root))[0] if h.reason == "both-changed"]  # type: ignore[union-attr]
    decide(fresh(ws), items[0].id, approve=False, actor=ACTOR)  # keep memgov's
    after = sync(ws, folder)
    assert after.written == ("project_deploy.md",)
    assert "Deploys go out on Fridays." in (folder / "project_deploy.md").read_text()


def test_taking_the_agents_version_imports_it(ws: Workspace, folder: Path) -> None:
    sync(ws, folder)
    correct(fresh(ws), record(ws, "deploy"), content="Deploys go out on Fridays.", actor=ACTOR)
    agent = DEPLOY.replace("from main", "from main or a release tag")
    (folder / "project_deploy.md").write_text(agent)
    sync(ws, folder)
    (item,) = [h for h in load_held(Store(ws.private.root))[0] if h.reason == "both-changed"]  # type: ignore[union-attr]

    decide(fresh(ws), item.id, approve=True, option="agent", actor=ACTOR)

    store = Store(ws.private.root)  # type: ignore[union-attr]
    deploys = [m for m in store.memories.values() if m.attribute == "deploy"]
    assert any("release tag" in m.content for m in deploys)
    final = sync(ws, folder)
    assert final.held == () and (folder / "project_deploy.md").read_text() == agent


def test_a_sync_killed_before_its_state_is_committed_finds_agreement(
    ws: Workspace, folder: Path
) -> None:
    """The files are written first, the state last: a file whose bytes are what memgov
    would write is in sync, whatever the state says."""
    sync(ws, folder)
    root = ws.private.root  # type: ignore[union-attr]
    (state,) = (root / "sync").glob("claude-code-*.json")
    old = state.read_text()
    correct(fresh(ws), record(ws, "deploy"), content="Deploys go out on Fridays.", actor=ACTOR)
    sync(ws, folder)
    state.write_text(old)  # as if the sync died after writing the file

    report = sync(ws, folder)

    assert report.held == () and report.written == ()
    assert "Fridays" in (folder / "project_deploy.md").read_text()


def test_a_link_in_the_folder_is_never_followed_or_written(
    ws: Workspace, folder: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: x\ntype: user\n---\n\nThe user likes tea.\n")
    (folder / "user_tea.md").symlink_to(outside)
    sync(ws, folder)
    correct(fresh(ws), record(ws, "deploy"), content="Deploys go out on Fridays.", actor=ACTOR)

    sync(ws, folder)

    assert outside.read_text().endswith("The user likes tea.\n")
    assert (folder / "user_tea.md").is_symlink()


def test_a_tampered_state_is_reported_not_trusted(ws: Workspace, folder: Path) -> None:
    sync(ws, folder)
    root = ws.private.root  # type: ignore[union-attr]
    (state,) = (root / "sync").glob("claude-code-*.json")
    state.write_text('{"format": "claude-code", "files": {"../../etc/passwd": {"agent": "x"}}}')

    report = sync(ws, folder)

    assert any("outside the folder" in n for n in report.notes)
    assert report.deleted == () and report.written == ()


def test_a_codex_sync_imports_and_leaves_an_unchanged_folder_as_it_is(
    ws: Workspace, tmp_path: Path
) -> None:
    """Nothing erased: a Codex sync imports and writes nothing into the folder (what an
    erasure does there: tests/importers/test_codex_sync.py)."""
    codex = Path(
        shutil.copytree(
            Path(__file__).parents[1] / "fixtures" / "codex" / "memories", tmp_path / "cx"
        )
    )
    before = tree(codex)

    report = sync_folder(CODEX, fresh(ws), codex, actor=ACTOR)

    assert report.imported.counts["written"] > 0
    assert "to the agent: nothing to change" in report.render()
    assert tree(codex) == before


@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-memory is not here")
def test_every_real_claude_code_folder_syncs_without_a_change(
    ws: Workspace, tmp_path: Path
) -> None:
    for source in sorted((REAL / "claude-code").iterdir()):
        folder = Path(shutil.copytree(source, tmp_path / "real" / source.name))
        before = tree(folder)
        first = sync(ws, folder)
        assert first.written == first.deleted == (), source.name
        assert tree(folder) == before, source.name
        second = sync(ws, folder)
        assert second.imported.counts["written"] == 0 and second.written == (), source.name


def test_a_parallel_decision_writes_each_files_condition(ws: Workspace, folder: Path) -> None:
    (folder / "project_deploy_staging.md").write_text(
        "---\nname: Deploy\ndescription: how we deploy\ntype: project\n---\n\n"
        "Deploys go out from the staging branch.\n"
    )
    first = sync(ws, folder)
    assert first.imported.counts["conflict"] == 1
    store = Store(ws.private.root)  # type: ignore[union-attr]
    pair = [m for m in store.memories.values() if m.status == "conflict"]
    by_file = {m.origin["file"]: m.id for m in pair if m.origin}
    from core.review.queue import build_queue

    (item,) = build_queue(fresh(ws), kinds=["conflict"])
    decide(
        fresh(ws),
        item.id,
        approve=True,
        option="parallel",
        actor=ACTOR,
        conditions={
            by_file["project_deploy.md"]: "env=production",
            by_file["project_deploy_staging.md"]: "env=staging",
        },
    )

    report = sync(ws, folder)

    assert set(report.written) >= {"project_deploy.md", "project_deploy_staging.md"}
    prod = (folder / "project_deploy.md").read_text()
    assert "name: Deploy (env=production)\n" in prod and "condition: env=production" in prod
    assert prod.endswith("**Why:** hotfix deploys broke prod.\n")  # the statement as it was
    staging = (folder / "project_deploy_staging.md").read_text()
    assert "condition: env=staging" in staging
    assert sync(ws, folder).written == ()  # in agreement now
    # importing the folder into a fresh store gives the same keys back
    again = Store(ws.private.root)  # type: ignore[union-attr]
    assert {
        m.condition
        for m in again.memories.values()
        if m.status == "active" and m.attribute == "deploy"
    } == {"env=production", "env=staging"}


def test_the_command_says_what_came_in_and_went_back(
    ws: Workspace, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui.cli import main

    def memgov(*argv: str) -> tuple[int, str]:
        capsys.readouterr()
        code = main([*argv, "--store", str(ws.private.root), "--as", ACTOR])  # type: ignore[union-attr]
        return code, capsys.readouterr().out

    code, out = memgov("sync", "claude-code", str(folder))
    assert code == 0 and "from the agent: 3 written" in out
    assert "to the agent: nothing to change" in out
    correct(fresh(ws), record(ws, "deploy"), content="Deploys go out on Fridays.", actor=ACTOR)
    (folder / "project_deploy.md").write_text(DEPLOY.replace("main", "trunk"))
    code, out = memgov("sync", "claude-code", str(folder))
    assert code == 3  # something waits for a person
    assert "1 file changed on both sides, held for review" in out
    code, out = memgov("sync", "claude-code", str(folder), "--json")
    data = __import__("json").loads(out)
    assert data["held"][0].startswith("project_deploy.md: held-") and code == 3


def test_a_file_the_agent_deletes_asks_for_its_records_deletion(
    ws: Workspace, folder: Path
) -> None:
    sync(ws, folder)
    (folder / "project_deploy.md").unlink()

    report = sync(ws, folder)

    (asked,) = report.asked
    assert asked.startswith("project_deploy.md: delete-")
    assert not (folder / "project_deploy.md").exists()  # memgov does not write it back
    store = Store(ws.private.root)  # type: ignore[union-attr]
    assert record(ws, "deploy") in store.memories  # a person decides
    again = sync(ws, folder)
    assert again.asked == () and again.written == ()
    assert not (folder / "project_deploy.md").exists()


def test_a_pipe_and_a_name_that_is_not_utf8_in_the_folder_neither_hang_nor_stop_it(
    ws: Workspace, folder: Path
) -> None:
    """The hook runs the sync after every session: a FIFO in the agent's folder is never
    opened (it would block), a file name that is not UTF-8 is named escaped and left
    alone, and the sync finishes with the rest, its state readable."""
    import os

    os.mkfifo(folder / "stuck.md")
    bad = os.fsencode(str(folder)) + b"/notes-\xff.md"
    with open(bad, "wb") as handle:
        handle.write(b"---\nname: x\ntype: user\n---\nPrefers tea.\n")

    report = sync_folder(CLAUDE_CODE, fresh(ws), folder, actor=ACTOR)
    again = sync_folder(CLAUDE_CODE, fresh(ws), folder, actor=ACTOR)

    assert any("notes-\\xff.md" in n for n in report.notes), report.notes
    assert "to the agent: nothing to change" in again.render()
    assert (folder / "stuck.md").exists() and os.path.exists(bad)
    assert {m.attribute for m in Store(ws.private.root).memories.values()} >= {"deploy"}  # type: ignore[union-attr]
