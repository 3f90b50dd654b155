"""``memgov import FORMAT PATH...``: several folders, each its own report and
transaction, then one summary table (or ``{"folders", "total"}`` with ``--json``);
the exit status is the worst of the folders'.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.importers.report import ImportItem, ImportReport, NotImported, summary_table
from core.store.store import Store
from core.store.workspace import open_workspace
from tests.conftest import fake_token
from tests.importers.test_import_real import EXPECTED, REAL
from tui.cli import main

ACTOR = "alice@example.com"


@pytest.fixture
def stores(tmp_path: Path) -> Path:
    root = tmp_path / "stores"
    Store.init(root / "private", scope="private", owner="alice", team_store="../team", actor=ACTOR)
    Store.init(root / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    return root


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    @property
    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def memgov(stores: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    def run(*argv: str) -> Run:
        capsys.readouterr()
        code = main([*argv, "--store", str(stores), "--as", ACTOR])
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


def codex(root: Path, name: str, files: dict[str, str] | None = None) -> Path:
    folder = root / name / "memories"
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text(
        f"v1\n\n## User preferences\n\n- Prefers pnpm in {name}.\n", encoding="utf-8"
    )
    for file, text in (files or {}).items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def lesson(body: str) -> str:
    return f"# LEARNINGS\n\n## [LRN-1] release-notes\n**Logged**: 2026-05-01\n\n{body}\n"


def stored(stores: Path) -> int:
    private = open_workspace([stores]).private
    assert private is not None
    return len(private.memories)


# ---------------------------------------------------------------------- the table
def test_two_folders_give_two_reports_and_one_table(memgov: Any, tmp_path: Path) -> None:
    profile = "## Role\n- Works on the shop.\n- Likes tea.\n"
    shop = codex(tmp_path, "shop", {"PROFILE.md": profile, "README.md": "# Read me\n"})
    blog = codex(tmp_path, "blog")
    run = memgov("import", "codex", str(shop), str(blog))
    assert run.code == 0, run.err
    first, second = (
        run.out.index(f"codex import from {shop}"),
        run.out.index(f"codex import from {blog}"),
    )
    table = run.out[run.out.index("summary of 2 folders") :].splitlines()
    assert first < second < run.out.index("summary of 2 folders")
    wide = len(str(shop))
    assert table == [
        "summary of 2 folders",
        "folder".ljust(wide)
        + "  imported  merged  refused  held  skipped  already-imported  failed",
        str(shop) + "         3       0        0     0        1                 0       0",
        str(blog).ljust(wide)
        + "         1       0        0     0        0                 0       0",
        "total".ljust(wide)
        + "         4       0        0     0        1                 0       0",
    ]  # shop's skipped: README.md, a prompt for the agent
    again = memgov("import", "codex", str(shop), str(blog), "--dry-run")
    assert again.code == 0
    assert "summary of 2 folders (dry run: nothing was written)" in again.out
    assert again.out.rstrip().endswith(
        "total".ljust(wide) + "         0       0        0     0        1                 4       0"
    )


def test_json_for_several_folders_and_the_same_shape_for_one(memgov: Any, tmp_path: Path) -> None:
    shop, blog = codex(tmp_path, "shop"), codex(tmp_path, "blog")
    one = memgov("import", "codex", str(shop), "--json", "--dry-run")
    assert one.code == 0 and one.json["format"] == "codex" and "folders" not in one.json
    several = memgov("import", "codex", str(shop), str(blog), "--json")
    data = several.json
    assert [f["folder"] for f in data["folders"]] == [str(shop), str(blog)]
    assert all(f["counts"]["written"] == 1 for f in data["folders"])
    assert data["total"] == {
        "folders": 2,
        "imported": 2,
        "merged": 0,
        "refused": 0,
        "held": 0,
        "skipped": 0,
        "already-imported": 0,
        "failed": 0,
        "written": 2,
        "conflict": 0,
    }


# ------------------------------------------------------------------ the exit status
def test_the_exit_status_is_the_worst_folders(memgov: Any, tmp_path: Path) -> None:
    clean = codex(tmp_path, "clean", {"LEARNINGS.md": lesson("Release notes go in CHANGES.md.")})
    edited = codex(tmp_path, "edited", {"LEARNINGS.md": lesson("Release notes go in NEWS.md.")})
    token = fake_token("ghp_", 36)
    leaky = codex(tmp_path, "leaky", {"PROFILE.md": f"## Tokens\n- The CI token is {token}.\n"})

    conflict = memgov("import", "codex", str(clean), str(edited))
    assert conflict.code == 3  # the same [LRN-1] with another body: a conflict to review
    assert "imported: written, or written and opened a conflict (1 conflict to review" in (
        conflict.out
    )
    refused = memgov("import", "codex", str(clean), str(leaky), str(edited))
    assert refused.code == 1  # a refusal is worse than a conflict
    assert token not in refused.out and token not in refused.err
    (row,) = [line for line in refused.out.splitlines() if line.startswith(f"{leaky} ")]
    assert row.split()[1:] == ["1", "0", "1", "0", "0", "0", "0"]  # its summary line; its token


def test_a_folder_that_cannot_be_imported_is_a_row_the_others_go_on(
    memgov: Any, stores: Path, tmp_path: Path
) -> None:
    shop = codex(tmp_path, "shop")
    empty = tmp_path / "empty"
    empty.mkdir()
    run = memgov("import", "codex", str(empty), str(shop))
    assert run.code == 2
    assert f"{empty}: not a Codex memories folder" in run.err
    (row,) = [line for line in run.out.splitlines() if line.startswith(f"{empty} ")]
    assert row.split(None, 1)[1].startswith(f"not imported: {empty}: not a Codex memories")
    assert stored(stores) == 1  # shop's preference
    data = memgov("import", "codex", str(empty), str(shop), "--json").json
    assert data["folders"][0]["folder"] == str(empty)
    assert "not a Codex memories folder" in data["folders"][0]["error"]
    assert data["total"]["folders"] == 2 and data["total"]["already-imported"] == 1


def test_a_folder_that_does_not_exist_stops_before_any_import(
    memgov: Any, stores: Path, tmp_path: Path
) -> None:
    shop = codex(tmp_path, "shop")
    run = memgov("import", "codex", str(shop), str(tmp_path / "typo"))
    assert run.code == 2
    assert f"{tmp_path / 'typo'}: not a folder; nothing was imported" in run.err
    assert stored(stores) == 0


def test_the_table_aligns_its_columns_and_names_a_folder_not_imported() -> None:
    def report(folder: str, *outcomes: str) -> ImportReport:
        items = tuple(
            ImportItem(origin=f"f{n}", kind="k", scope="private", outcome=o)
            for n, o in enumerate(outcomes)
        )
        return ImportReport(format="codex", folder=folder, dry_run=False, items=items)

    rows = [
        report("/a", "written", "conflict", "merged", "refused"),
        NotImported("/a/much/longer/folder", "no such layout"),
        report("/b", *["skipped"] * 12, "already-imported", "failed"),
    ]
    assert summary_table(rows).splitlines() == [
        "summary of 3 folders",
        "folder                 imported  merged  refused  held  skipped  already-imported  failed",
        "/a                            2       1        1     0        0                 0       0",
        "/a/much/longer/folder  not imported: no such layout",
        "/b                            0       0        0     0       12                 1       1",
        "total                         2       1        1     0       12                 1       1",
        "imported: written, or written and opened a conflict (1 conflict to review: memgov queue)",
    ]


# ------------------------------------------------------------------- the real folders
@pytest.mark.skipif(not REAL.is_dir(), reason="../shared/real-memory is not here")
@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_every_real_folder_in_one_command(memgov: Any, tmp_path: Path, kind: str) -> None:
    names = sorted(name for k, name in EXPECTED if k == kind)
    folders = [REAL / kind / name for name in names]
    if not all(f.is_dir() for f in folders):
        pytest.skip(f"{REAL / kind} lacks a folder")
    copies = [shutil.copytree(f, tmp_path / kind / f.name) for f in folders]
    run = memgov("import", kind, *map(str, copies), "--dry-run", "--json")
    # each kind has a folder with held items, to review (Claude Code: notes that address
    # the agent from outside the user's words; Codex: two profile lines the gate doubts),
    # and none with a refusal
    assert run.code == 3, run.err
    data = run.json
    assert [f["folder"] for f in data["folders"]] == [str(c) for c in copies]
    for name, folder in zip(names, data["folders"], strict=True):
        counts = {k: v for k, v in folder["counts"].items() if v}
        assert counts == EXPECTED[kind, name], name
    expected_total = sum((EXPECTED[kind, n].get("written", 0) for n in names), 0)
    assert data["total"]["written"] == expected_total
    text = memgov("import", kind, *map(str, copies), "--dry-run")
    assert f"summary of {len(names)} folders (dry run: nothing was written)" in text.out
