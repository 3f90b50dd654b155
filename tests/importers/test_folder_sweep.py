"""What a sync killed mid-write leaves in an agent's folder (its temporary file) is
removed by the next sync; nothing else is touched, a link never followed."""

from __future__ import annotations

from pathlib import Path

from core.importers.folder_write import sweep_temps


def test_a_killed_writes_temporary_file_goes_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    (folder / "team").mkdir(parents=True)
    left = [
        folder / ".project_deploy.md.d8c84hlr.memgov",
        folder / "team" / ".MEMORY.md.a1b2c3d4.memgov",
    ]
    for path in left:
        path.write_text("half")
    kept = [
        folder / "project_deploy.md",
        folder / ".project_deploy.md.memgov",  # not the shape mkstemp makes
        folder / "notes.memgov",
    ]
    for path in kept:
        path.write_text("the agent's")
    outside = tmp_path / "outside.x1y2z3w4.memgov"
    outside.write_text("not the folder's")
    (folder / ".link.q1w2e3r4.memgov").symlink_to(outside)
    notes: list[str] = []

    assert sweep_temps(folder, notes) == 2

    assert not any(p.exists() for p in left)
    assert all(p.read_text() == "the agent's" for p in kept)
    assert outside.read_text() == "not the folder's"
    assert (folder / ".link.q1w2e3r4.memgov").is_symlink()
    assert len(notes) == 2 and all("cut short" in n for n in notes)
