"""Shared fixtures and helpers for the tests.

The fixtures give each test a fresh store (or a copy of the demo) with a fixed
clock; the plain helpers (imported ``from conftest``) read what a test checks: a
store's git, files, events and records, and made-up credentials.

Every test runs with HOME in its own temporary folder and with git's global and
system configuration switched off, so nothing of the developer's machine leaks
in and nothing is written outside ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from core.demo import fake_token as demo_token
from core.domain import secrets
from core.domain.record import Memory, Source
from core.store import logs
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction

TZ = timezone(timedelta(hours=8))
FIXED_NOW = datetime(2027, 3, 14, 10, 20, tzinfo=TZ)
ACTOR = "tester@example.com"


def pytest_configure(config: pytest.Config) -> None:
    """The product's modules byte-compiled once, before any test runs (in the first
    process, before xdist starts its workers). With PYTHONDONTWRITEBYTECODE set, as it
    is here, Python never caches what it compiles, and each of the suite's thousands of
    ``memgov`` subprocesses compiled every module it imports not cached yet, again.
    Only what is missing or stale is compiled; what the tests run is the same code."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    import core
    import tui

    for package in (core, tui):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


#: the seconds the slowest test files took (their tests' --durations summed, under
#: load, on 2 cores): :func:`pytest_collection_modifyitems` starts them first. A file
#: not named here keeps its place after them; numbers only order, so rough is enough.
SLOW_FILES = {
    "tests/writing/test_provenance_gate.py": 189,
    "tests/team/test_team_untrusted_kill.py": 182,
    "tests/e2e/test_tmux.py": 113,
    "tests/store/test_crash_race.py": 111,
    "tests/desk/test_snapshots.py": 102,
    "tests/mcp/test_mcp_recall_warm.py": 70,
    "tests/domain/test_steering_rules.py": 50,
    "tests/desk/test_desk.py": 46,
    "tests/domain/test_secret_prefilter.py": 45,
    "tests/importers/test_transcripts_kill.py": 41,
    "tests/store/test_hostile_trees.py": 40,
    "tests/desk/test_desk_one_key.py": 34,
    "tests/team/test_team_merge_batches.py": 33,
    "tests/team/test_team_kill.py": 32,
    "tests/importers/test_import_stream.py": 23,
    "tests/team/test_team_proposals.py": 20,
    "tests/store/test_purge.py": 20,
    "tests/e2e/test_serve.py": 19,
    "tests/desk/test_desk_flow.py": 19,
    "tests/domain/test_steering_compiled.py": 18,
    "tests/store/test_untrusted.py": 15,
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest files first, each file's tests together and in their own order (a
    module's fixtures are built once a worker). xdist hands the tests out in this
    order, so the long ones start early instead of ending the run on one worker while
    the other waits (collected in folder order, the slowest came last)."""
    root = Path(str(config.rootpath))

    def weight(item: pytest.Item) -> int:
        return -SLOW_FILES.get(Path(str(item.path)).relative_to(root).as_posix(), 0)

    items.sort(key=weight)  # stable: the rest keep their order


class FakeClock:
    """A clock the test moves by hand; it never reads the real time."""

    def __init__(self, now: datetime = FIXED_NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    empty = tmp_path / ".empty-gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    for name in (
        "MEMGOV_STORE",
        "MEMGOV_ACTOR",
        "MEMGOV_NOW",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Durability across power loss is not what these tests can check; fsync only
    makes them slow on a busy disk. Writes, renames and their order are unchanged."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    monkeypatch.setattr(os, "sync", lambda: None)
    # many files written at once are synced together (syncfs): not here either
    monkeypatch.setattr("core.store.fsutil._syncfs", lambda: lambda name: True)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


_TEMPLATES: dict[str, Path] = {}


@pytest.fixture
def stored(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, clock: FakeClock
) -> Callable[[Callable[[Store, FakeClock], None]], Store]:
    """``stored(build)``: a fresh copy of the store ``build(store, clock)`` fills.

    The build runs once per session (git makes it the slow part); each test gets
    its own copy in ``tmp_path / "store"``, opened with the test's clock.
    """

    def make(build: Callable[[Store, FakeClock], None]) -> Store:
        key = f"{build.__module__}.{build.__qualname__}"
        if key not in _TEMPLATES:
            root = tmp_path_factory.mktemp("template") / "store"
            build_clock = FakeClock()
            build(Store.init(root, owner=ACTOR, actor=ACTOR, clock=build_clock), build_clock)
            _TEMPLATES[key] = root
        target = tmp_path / "store"
        shutil.copytree(_TEMPLATES[key], target, symlinks=True)
        return Store(target, clock=clock)

    return make


def _nothing(store: Store, clock: FakeClock) -> None:
    pass


@pytest.fixture
def store(stored: Callable[[Callable[[Store, FakeClock], None]], Store]) -> Store:
    """A fresh, empty private store in ``tmp_path / "store"`` with a fixed clock
    (a copy of one ``Store.init`` made per session)."""
    return stored(_nothing)


def _make_memory(**overrides: Any) -> Memory:
    ident = overrides.get("id", "mem-1")
    values: dict[str, Any] = {
        "id": ident,
        "type": "preference",
        "scope": "private",
        "status": "active",
        "subject": "user:alice/project:demo",
        "attribute": "output_format",
        "content": "Use tables for comparisons.\n\n**Why:** alice asked for it.",
        "confidence": 0.9,
        "created_at": FIXED_NOW,
        "verified_at": FIXED_NOW,
        "source": Source(
            task=f"tr_{ident}",
            message_index=0,
            evidence="use tables",
            log=logs.log_path(FIXED_NOW),
        ),
    }
    values.update(overrides)
    return Memory(**values)


#: the type of the ``make_memory`` fixture
MakeMemory = Callable[..., Memory]


@pytest.fixture
def make_memory() -> MakeMemory:
    """``make_memory(**overrides)``: a valid active private preference."""
    return _make_memory


def add_memories(store: Store, *memories: Memory, actor: str = ACTOR) -> None:
    """Create memories in one transaction, with the daily-log lines their sources
    point at, so that the store stays clean for ``doctor``."""
    with transaction(store, actor=actor, message="test: add memories") as tx:
        touched = set()
        for memory in memories:
            for source in memory.all_sources:
                if source.log is not None and source.message_index is not None:
                    rel, _ = logs.append_message(
                        store.root,
                        task=source.task,
                        index=source.message_index,
                        role="user",
                        text=source.evidence or "evidence",
                        when=FIXED_NOW,
                    )
                    touched.add(rel)
            tx.create(memory, action="create", reason="test")
        for rel in touched:
            tx.write_file(rel, (store.root / rel).read_text(encoding="utf-8"))


@pytest.fixture
def add() -> Callable[..., None]:
    """``add(store, *memories)``: create them through a transaction."""
    return add_memories


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=test", "-c", f"user.email={ACTOR}", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def git_bytes(root: Path, *args: str) -> bytes:
    """``git`` for output that need not be text (objects, patches)."""
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True).stdout


def git_status(root: Path) -> list[str]:
    return [line for line in git(root, "status", "--porcelain").splitlines() if line.strip()]


def commit_count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def head(root: Path) -> str:
    """The commit a store's HEAD names."""
    return git(root, "rev-parse", "HEAD").strip()


def tree_state(root: Path) -> dict[str, bytes]:
    """Every file of a store outside .git and .memgov (derived and local), by path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith((".git/", ".memgov/"))
    }


def snapshot_files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and mtime of every file outside .git and .memgov (for "nothing rewritten")."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".git/", ".memgov/")) or path.is_symlink() or not path.is_file():
            continue
        out[rel] = (path.read_bytes(), path.stat().st_mtime_ns)
    return out


def events(root: Path) -> list[dict[str, Any]]:
    """Every line of a store's event log (every shard, in order), as read from the files."""
    from core.store.events import event_logs

    text = "".join((root / rel).read_text(encoding="utf-8") for rel in event_logs(root))
    lines = text.splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def record_file(store_or_root: Store | Path, memory_id: str) -> Path:
    """The file of a record the store wrote (through a transaction): its shard,
    ``memories/<2 hex of sha1(id)>/<id>.md`` (:func:`core.store.layout.memory_path`).
    A hand-made file at ``memories/<id>.md`` is read too, but is not written there."""
    root = store_or_root.root if isinstance(store_or_root, Store) else store_or_root
    return root / memory_path(memory_id)


def memory_where(store: Store, **fields: Any) -> Memory:
    """The one record of ``store`` whose fields have these values."""
    found = [
        m for m in store.memories.values() if all(getattr(m, k) == v for k, v in fields.items())
    ]
    assert len(found) == 1, found
    return found[0]


def statuses(store: Store) -> dict[str, str]:
    """Each record's status, read afresh from the store's files."""
    return {m.id: m.status for m in Store(store.root).memories.values()}


ALNUM = string.ascii_letters + string.digits


def fake_token(prefix: str, length: int, alphabet: str = ALNUM, seed: int = 7) -> str:
    """A made-up credential, built at run time (never a literal in these sources), that
    the scanner takes for a real one."""
    rng = random.Random(seed)
    token = prefix + "".join(rng.choice(alphabet) for _ in range(length))
    assert secrets.scan(token), "the fake token must look real to the scanner"
    return token


# ------------------------------------------------------------------------ the demo
#: a maintainer of the demo's team store who does not own its private store
DEMO_MAINTAINER = "wang.lead@example.com"
#: the demo's hand-written note (made before scanning existed) holds this token
DEMO_TOKEN = demo_token("ghp_", 36, seed=20261112)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo stores (core.demo), built once per session with no global git config."""
    from core.demo import build_demo

    root = tmp_path_factory.mktemp("demo-template")
    empty = root / ".gitconfig"
    empty.write_text("")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(root))
        mp.setenv("GIT_CONFIG_GLOBAL", str(empty))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        build_demo(root / "demo")
    return root / "demo"


@pytest.fixture
def demo(demo_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the demo stores for one test (deterministic: a pinned clock)."""
    target = tmp_path / "demo"
    shutil.copytree(demo_template, target, symlinks=True)
    return target


@pytest.fixture
def demo_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, str]]:
    """``demo_cli(*argv)``: run ``memgov`` in-process with the demo's clock pinned."""
    from support_desk import DEMO_NOW

    from tui.cli import main

    monkeypatch.setenv("MEMGOV_NOW", DEMO_NOW.isoformat())

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def every_byte(root: Path) -> bytes:
    """Every byte a store keeps: its files (``.git`` included) and every git object,
    unpacked (a value that must never reach the disk is looked for in this)."""
    files = b"".join(p.read_bytes() for p in root.rglob("*") if p.is_file())
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return files + objects
