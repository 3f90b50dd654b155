"""Import a Claude Code folder, export it: the same files, byte for byte, where memgov
changed nothing (core.importers.claude_code.origin, core.importers.claude_code.export).
Every real folder of ``../shared/real-memory/`` (skipped when absent) and hand-written
fixtures.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.domain import secrets
from core.importers import CLAUDE_CODE, export_claude_code, import_folder
from core.importers.folders import MARKER
from core.importers.held import load_held
from core.review.correct import correct
from core.review.decide import decide
from core.store.quarantine import load_quarantined
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "alice@example.com"
REAL = Path(__file__).resolve().parents[3] / "shared" / "real-memory" / "claude-code"
FIXTURE = Path(__file__).parents[1] / "fixtures" / "claude_code" / "liyyro"
REAL_FOLDERS = sorted(p.name for p in REAL.iterdir()) if REAL.is_dir() else []


def workspace(root: Path) -> Workspace:
    Store.init(root / "private", scope="private", owner=ACTOR, team_store="../team", actor=ACTOR)
    Store.init(root / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    return open_workspace([root])


def files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != MARKER
    }


def fresh(ws: Workspace) -> Workspace:
    return Workspace(stores=[Store(s.root) for s in ws.stores])


def round_trip(source: Path, tmp_path: Path, *, keep_held: bool = True) -> tuple[Path, Path]:
    folder = Path(shutil.copytree(source, tmp_path / "agent" / source.name))
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    if keep_held:  # a person keeps what was held (internal addresses) as private memories
        for held in load_held(ws.private)[0]:  # type: ignore[arg-type]
            decide(fresh(ws), held.id, approve=True, option="keep", actor=ACTOR)
        # and releases what the steering detector held (the user's own agent folder)
        for candidate in load_quarantined(ws.private, status="open"):  # type: ignore[arg-type]
            decide(fresh(ws), candidate.id, approve=True, actor=ACTOR)
    out = tmp_path / "export"
    export_claude_code(fresh(ws), out)
    return folder, out


@pytest.mark.skipif(not REAL_FOLDERS, reason="../shared/real-memory is not here")
@pytest.mark.parametrize("name", REAL_FOLDERS, ids=lambda n: n[:24])
def test_every_real_folder_comes_back_byte_for_byte(tmp_path: Path, name: str) -> None:
    folder, out = round_trip(REAL / name, tmp_path)
    original, exported = files(folder), files(out)

    # the one exception is the folder's own: 1000ssam's index points at a file its
    # copy left out (it held a credential); the line comes back, the file cannot. And a
    # file whose words hold a credential, even one a person kept as none (a likely one:
    # 1000ssam's team profiles name the demo accounts' password), is never exported
    held_back = {
        rel for rel, data in original.items() if secrets.scan(data.decode("utf-8", "replace"))
    }
    assert set(exported) == set(original) - held_back, name
    for rel in [r for r in original if r.endswith("MEMORY.md") and held_back]:
        original[rel] = b"".join(  # the index leaves out the line of a file held back
            line
            for line in original[rel].splitlines(keepends=True)
            if not any(f"({Path(h).name})".encode() in line for h in held_back)
        )
    different = [rel for rel in exported if original[rel] != exported[rel]]
    assert different == [], name


def test_the_hand_written_fixture_comes_back_byte_for_byte(tmp_path: Path) -> None:
    folder, out = round_trip(FIXTURE, tmp_path)
    assert files(out) == files(folder)


def test_differences_only_where_a_decision_changed_the_memory(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(FIXTURE, tmp_path / "agent" / "liyyro"))
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    store = Store(ws.private.root)  # type: ignore[union-attr]
    testing = next(
        m for m in store.memories.values() if m.origin and m.origin["file"] == "feedback_testing.md"
    )
    correct(
        fresh(ws),
        testing.id,
        content="Integration tests may use the staging database.",
        actor=ACTOR,
    )
    out = tmp_path / "export"

    export_claude_code(fresh(ws), out)

    original, exported = files(folder), files(out)
    assert [rel for rel in original if original[rel] != exported.get(rel)] == [
        "feedback_testing.md"
    ]
    head = original["feedback_testing.md"].split(b"\n---\n", 1)[0]
    assert exported["feedback_testing.md"].startswith(head + b"\n---\n")  # its front matter
    assert exported["feedback_testing.md"].endswith(
        b"Integration tests may use the staging database.\n"
    )


def test_windows_line_endings_come_back(tmp_path: Path) -> None:
    source = tmp_path / "crlf" / "memory"
    source.mkdir(parents=True)
    (source / "MEMORY.md").write_bytes(b"- [Style](feedback_style.md) \xe2\x80\x94 terse\r\n")
    (source / "feedback_style.md").write_bytes(
        b"---\r\nname: Style\r\ntype: feedback\r\n---\r\n\r\nAnswer tersely.\r\n"
    )
    folder, out = round_trip(source, tmp_path)
    assert files(out)["feedback_style.md"] == files(folder)["feedback_style.md"]


def test_a_held_file_left_undecided_is_named_by_the_export(tmp_path: Path) -> None:
    """The team note naming an internal address is held (the team store would take it off
    this machine): the export names it. The private note naming one is the user's data:
    imported, and exported back to the agent's folder on this machine as it was."""
    source = tmp_path / "ops" / "memory"
    (source / "team").mkdir(parents=True)
    (source / "MEMORY.md").write_text(
        "- [Proxy](project_proxy.md) — the proxy\n- [Style](feedback_style.md) — terse\n"
    )
    (source / "feedback_style.md").write_text(
        "---\nname: Style\ntype: feedback\n---\n\nBe terse.\n"
    )
    proxy = "---\nname: Proxy\ntype: project\n---\n\nThe proxy is proxy.corp on 10.1.2.4.\n"
    (source / "project_proxy.md").write_text(proxy)
    (source / "team" / "MEMORY.md").write_text("- [Cache](project_cache.md) — the cache\n")
    (source / "team" / "project_cache.md").write_text(
        "---\nname: Cache\ntype: project\n---\n\nThe cache runs on 10.1.2.3.\n"
    )
    folder = Path(shutil.copytree(source, tmp_path / "agent" / "memory"))
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)

    report = export_claude_code(fresh(ws), tmp_path / "export")

    assert any("team/project_cache.md" in w and "held for review" in w for w in report.warnings)
    assert not any("project_proxy.md" in w for w in report.warnings)
    assert (tmp_path / "export" / "MEMORY.md").read_text() == (
        "- [Proxy](project_proxy.md) — the proxy\n- [Style](feedback_style.md) — terse\n"
    )
    assert (tmp_path / "export" / "project_proxy.md").read_text() == proxy
    assert not (tmp_path / "export" / "team" / "project_cache.md").exists()


def test_an_export_into_a_git_repository_leaves_internal_addresses_out(tmp_path: Path) -> None:
    """A folder in a git work tree (a repository's .claude/ folder) is committed and
    pushed: what names an internal address is left out, by id and pattern, never the
    address; the rest is exported, and the private store keeps every record."""
    source = tmp_path / "ops" / "memory"
    source.mkdir(parents=True)
    (source / "MEMORY.md").write_text(
        "- [Proxy](project_proxy.md) — the proxy\n- [Style](feedback_style.md) — terse\n"
        "- Builds run on build01.corp.\n"
    )
    (source / "feedback_style.md").write_text(
        "---\nname: Style\ntype: feedback\n---\n\nBe terse.\n"
    )
    (source / "project_proxy.md").write_text(
        "---\nname: Proxy\ntype: project\n---\n\nThe proxy is on 10.1.2.4.\n"
    )
    folder = Path(shutil.copytree(source, tmp_path / "agent" / "memory"))
    ws = workspace(tmp_path / "stores")
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    repository = tmp_path / "shop"
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    target = repository / ".claude" / "agent-memory" / "ops"

    report = export_claude_code(fresh(ws), target)

    exported = files(target)
    assert set(exported) == {"MEMORY.md", "feedback_style.md"}
    assert not any(b"10.1.2.4" in data or b"build01.corp" in data for data in exported.values())
    assert [entry.split(": ", 1)[1] for entry in report.left_out] == [
        f"names an internal address, and the folder is in the git repository {repository} "
        "(internal-ip-address)",
        f"names an internal address, and the folder is in the git repository {repository} "
        "(internal-hostname)",
    ]
    shown = report.render()
    assert "10.1.2.4" not in shown and "build01" not in shown
    assert "outside the repository" in shown and "--kind secret" not in shown
    kept = [m.content for m in Store(ws.private.root).memories.values()]  # type: ignore[union-attr]
    assert any("10.1.2.4" in c for c in kept) and any("build01.corp" in c for c in kept)
    # outside a repository (the agent's own folder), the same records go back as they were
    assert set(files(export_claude_code(fresh(ws), tmp_path / "home") and tmp_path / "home")) == {
        "MEMORY.md",
        "feedback_style.md",
        "project_proxy.md",
    }
