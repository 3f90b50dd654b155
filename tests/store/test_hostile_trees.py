"""Hostile trees, as attacks: a store or an agent's folder holding
a name that is not UTF-8, a folder where a file belongs, a named pipe, a depth bomb.

Each attack plants the entry in a real store (the demo's, copied to tmp_path) or a
real Claude Code folder and runs the real command in a subprocess with a timeout:
nothing may trace back, nothing may hang, and the refusal names the path (a name that
is not UTF-8 shown escaped). ``team clone`` is checked as ``sync`` checks a remote.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git
from support_desk import DEMO_NOW, OWNER

from core.domain.errors import StoreError
from core.importers.folders import FolderError, nesting_problem, read_text
from core.store.fsutil import (
    HostileEntry,
    escaped_name,
    read_confined,
    read_entry,
    unescaped_name,
)

ROOT = Path(__file__).resolve().parents[2]
BAD = os.fsdecode(b"bad-\xff\xfe")  # a name that is not UTF-8, as os lists it
BOMB = "---\nname: " + "[" * 50_000 + "]" * 50_000 + "\ndescription: x\ntype: feedback\n---\nhi\n"


def memgov(*argv: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMGOV_NOW": DEMO_NOW.isoformat(), "MEMGOV_ACTOR": OWNER}
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        capture_output=True,
        text=True,
        errors="replace",
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=timeout,  # a hang fails the test: TimeoutExpired
    )


def folder_of(demo: Path) -> Path:
    return demo / "claude-code" / "liyyro" / "memory"


READERS = (
    ("list",),
    ("doctor",),
    ("queue",),
    ("health",),
    ("recall", "build"),
)


def _held(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode in (0, 1, 2, 3), result.stderr[-2000:]


# ----------------------------------------------------------------- names not UTF-8
@pytest.mark.parametrize(
    "plant",
    [
        f"memories/02/{BAD}.md",
        f"memories/{BAD}",  # a folder
        "memories/02/a\nb.md",  # a control character
        f"requests/{BAD}.yaml",
        f"requests/delete-{BAD}.yaml",
    ],
)
def test_a_name_that_is_not_utf8_is_a_finding_not_a_traceback(demo: Path, plant: str) -> None:
    private = demo / "private"
    target = private / plant
    if plant.endswith((".md", ".yaml")):
        target.write_text("not read\n")
    else:
        target.mkdir()
    for argv in READERS:
        result = memgov(*argv, "--store", "private", cwd=demo)
        _held(result)
    doctor = memgov("doctor", "--store", "private", cwd=demo)
    assert escaped_name(plant) in doctor.stdout  # named, escaped
    assert doctor.returncode == 1


# ----------------------------------------------------------- folders and pipes
@pytest.mark.parametrize("where", ["requests/promote-20261118-aaaaaa.yaml", "events/000009.jsonl"])
def test_a_fifo_in_the_store_never_hangs_a_command(demo: Path, where: str) -> None:
    os.mkfifo(demo / "private" / where)
    for argv in (*READERS, ("reindex",)):
        _held(memgov(*argv, "--store", "private", cwd=demo, timeout=60))
    doctor = memgov("doctor", "--store", "private", cwd=demo)
    assert f"{where}: is a named pipe (FIFO)" in doctor.stdout
    for argv in (
        ("import", "claude-code", str(folder_of(demo))),
        ("sync", "claude-code", str(folder_of(demo))),
    ):
        result = memgov(*argv, "--store", "private", cwd=demo)
        _held(result)
        if where.startswith("events/"):  # the log's last shard: refused, named, unwritten
            assert "events/000009.jsonl: is a named pipe (FIFO)" in result.stderr
    assert not (demo / "private" / ".memgov" / "txn.json").exists()  # no half change


def test_memory_md_as_a_folder_refuses_writes_naming_it(demo: Path) -> None:
    private = demo / "private"
    (private / "MEMORY.md").unlink()
    (private / "MEMORY.md").mkdir()
    (private / "MEMORY.md" / "x").write_text("x")
    before = git(private, "rev-parse", "HEAD")
    for argv in (
        ("reindex",),
        ("import", "claude-code", str(folder_of(demo))),
        ("sync", "claude-code", str(folder_of(demo))),
    ):
        result = memgov(*argv, "--store", "private", cwd=demo)
        _held(result)
        assert "MEMORY.md: is a folder where memgov writes a file; remove it" in result.stderr
    for argv in READERS:
        _held(memgov(*argv, "--store", "private", cwd=demo))
    assert git(private, "rev-parse", "HEAD") == before
    assert not (private / ".memgov" / "txn.json").exists()


def test_todays_log_as_a_folder_refuses_the_log_naming_it(demo: Path) -> None:
    private = demo / "private"
    today = private / "logs" / f"{DEMO_NOW:%Y}" / f"{DEMO_NOW:%m}" / f"{DEMO_NOW:%Y-%m-%d}.md"
    today.mkdir(parents=True)
    result = memgov("log", "--store", "private", "--task", "t9", "--index", "1", "hello", cwd=demo)
    _held(result)
    assert result.returncode == 2
    assert f"{today.relative_to(private)}: is a folder where a file belongs" in result.stderr


# ------------------------------------------------------------ an agent's folder
def test_an_agent_folder_with_a_pipe_a_bomb_and_a_bad_name_imports_the_rest(demo: Path) -> None:
    folder = folder_of(demo)
    os.mkfifo(folder / "feedback_pipe.md")
    (folder / "feedback_bomb.md").write_text(BOMB)
    (folder / "feedback_dir.md").mkdir()
    bad = folder / f"feedback_{BAD}.md"
    bad.write_text("---\nname: Use pnpm\ndescription: pnpm\ntype: feedback\n---\nWe use pnpm.\n")
    result = memgov("import", "claude-code", str(folder), "--store", "private", cwd=demo)
    _held(result)
    out = result.stdout
    assert "feedback_pipe.md: is a named pipe (FIFO)" in out
    assert "feedback_bomb.md: the front matter nests over 64 levels deep" in out
    assert f"feedback_{escaped_name(BAD)}.md: its name is not UTF-8" in out
    assert "already-imported" in out  # the agent's other files still came in
    as_json = memgov("import", "claude-code", str(folder), "--store", "private", "--json", cwd=demo)
    _held(as_json)
    # sync: the folder's state cannot hold the name; refused, named, never a traceback
    _held(memgov("sync", "claude-code", str(folder), "--store", "private", cwd=demo))


def test_read_text_refuses_each_hostile_entry(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "dir.md").mkdir()
    (tmp_path / "target.md").write_text("x")
    (tmp_path / "link.md").symlink_to(tmp_path / "target.md")
    (tmp_path / "big.md").write_bytes(b"x" * (1024 * 1024 + 1))
    (tmp_path / "bomb.md").write_text(BOMB)
    said = {}
    for name in ("pipe.md", "dir.md", "link.md", "big.md", "bomb.md", f"{BAD}.md"):
        if name == f"{BAD}.md":
            (tmp_path / name).write_text("x")
        with pytest.raises(FolderError) as caught:
            read_text(tmp_path / name, name, [])
        said[name] = str(caught.value)
    assert said["pipe.md"].startswith("pipe.md: is a named pipe (FIFO)")
    assert said["dir.md"].startswith("dir.md: is a folder where a file belongs")
    assert said["link.md"].startswith("link.md: is a symbolic link")
    assert said["big.md"].startswith("big.md: 1.0 MB, over the 1024 KiB")
    assert "nests over 64 levels" in said["bomb.md"]
    assert (
        said[f"{BAD}.md"]
        == "bad-\\xff\\xfe.md: its name is not UTF-8; rename it (git mv) or remove it"
    )
    assert nesting_problem("name: x\ndescription: '[[[['\ntype: feedback") is None


def test_read_entry_is_the_one_reader(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "file").write_bytes(b"ok")
    assert read_entry(tmp_path / "file", limit=10) == b"ok"
    assert read_entry(tmp_path / "gone", limit=10) is None
    with pytest.raises(HostileEntry, match="named pipe"):
        read_entry(tmp_path / "pipe", limit=10)
    with pytest.raises(HostileEntry, match="named pipe"):
        read_confined(tmp_path, "pipe", limit=10)
    with pytest.raises(HostileEntry, match="a folder where a file belongs"):
        read_entry(tmp_path, limit=10)
    with pytest.raises(HostileEntry) as big:
        read_entry(tmp_path / "file", limit=1)
    assert big.value.oversize
    for name in (BAD, "a\nb", "back\\slash", "\x85", "plain é"):
        assert unescaped_name(escaped_name(name)) == name
        assert escaped_name(name).encode("utf-8")  # always printable as UTF-8


# --------------------------------------------------------------------- team clone
def test_team_clone_refuses_a_tree_sync_refuses(tmp_path: Path) -> None:
    from support_team import ALICE, Clock

    from core.store.store import Store
    from core.team.setup import clone_team, init_team

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    init_team(tmp_path / "alice", url=str(remote), maintainers=(ALICE,), actor=ALICE, clock=Clock())
    alice = tmp_path / "alice"
    attacks = {
        "a link": lambda: os.symlink("/etc/passwd", alice / "memories" / "evil.md"),
        "a name not UTF-8": lambda: (alice / "memories" / f"{BAD}.md").write_text("x"),
        "a bad record": lambda: (alice / "memories" / "bad.md").write_text("---\nid: x\n---\n"),
        "MEMORY.md a folder": lambda: _index_as_folder(alice),
    }
    tried = held = 0
    for what, plant in attacks.items():
        plant()
        git(alice, "add", "-A")
        git(alice, "commit", "-q", "--no-verify", "-m", f"attack: {what}")
        git(alice, "push", "-q", "--no-verify", str(remote), "HEAD:main")
        target = tmp_path / f"bob-{len(what)}-{tried}"
        tried += 1
        with pytest.raises(StoreError, match="has files memgov cannot read, so nothing was kept"):
            clone_team(str(remote), target)
        assert not target.exists()  # nothing half made is left
        held += 1
        git(alice, "reset", "-q", "--hard", "HEAD~1")
        git(alice, "push", "-q", "-f", "--no-verify", str(remote), "HEAD:main")
    assert (tried, held) == (4, 4)
    clean = clone_team(str(remote), tmp_path / "carol")
    assert Store(Path(clean.store)).config.scope == "team"


def _index_as_folder(root: Path) -> None:
    (root / "MEMORY.md").unlink()
    (root / "MEMORY.md").mkdir()
    (root / "MEMORY.md" / "x").write_text("x")


def test_a_pipe_where_an_agent_file_or_the_mapping_was_never_hangs(tmp_path: Path) -> None:
    """The readers of an agent's folder beside the import's: the file a held item shows
    (the desk reads it), the folder's memgov-import.yaml, and a Codex folder's files a
    sync hashes and takes lines out of; each a pipe swapped in, each refused."""
    from core.importers.held import Held, agent_text, file_hash

    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "notes.md").write_text("We deploy on Tuesdays.\n")
    held = Held(
        id="held-20261206-aaaaaaaa",
        reason="sensitive",
        format="claude-code",
        folder=str(folder),
        file="notes.md",
        line=1,
        hash=file_hash(b"We deploy on Tuesdays.\n"),
        held_at="2026-12-06T00:00:00+00:00",
        held_by=OWNER,
    )
    assert agent_text(held) == "We deploy on Tuesdays.\n"
    (folder / "notes.md").unlink()
    os.mkfifo(folder / "notes.md")
    assert agent_text(held) is None  # the pipe is never opened

    os.mkfifo(folder / "memgov-import.yaml")
    store = tmp_path / "stores"
    assert memgov("init", "--store", str(store / "private"), cwd=tmp_path).returncode == 0
    result = memgov("import", "claude-code", str(folder), "--store", str(store), cwd=tmp_path)
    _held(result)  # the pipe that stands where the mapping would is no mapping: not read
    assert "notes.md: is a named pipe (FIFO)" in result.stdout

    codex = tmp_path / "codex"
    codex.mkdir()
    (codex / "memory_summary.md").write_text("# Summary\n- Prefers uv over pip.\n")
    os.mkfifo(codex / "MEMORY.md")
    for argv in (("import", "codex"), ("sync", "codex")):
        _held(memgov(*argv, str(codex), "--store", str(store), cwd=tmp_path))


def test_a_pipe_as_the_config_or_the_index_never_hangs(demo: Path) -> None:
    """memgov.yaml is read by every command and MEMORY.md by a consolidation's gather:
    a pipe at either is named, never opened."""
    index = demo / "private" / "MEMORY.md"
    index.unlink()
    os.mkfifo(index)
    _held(memgov("consolidate", "--store", "private", cwd=demo))
    config = demo / "team" / "memgov.yaml"
    config.unlink()
    os.mkfifo(config)
    result = memgov("list", "--store", "team", cwd=demo)
    _held(result)
    assert result.returncode != 0 and "memgov.yaml" in result.stderr  # no store: no file
