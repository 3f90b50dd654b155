"""A store is untrusted input: attacks a shared repository can mount, as tests.

Each test plays the attacker (a committed cache, a committed or planted journal,
committed symbolic links, two deciders racing on one item, a kill between the two
stores of a promotion) and then checks what a victim's memgov did: nothing
executed, nothing outside the store touched, every decision exactly once.
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from conftest import ACTOR, git, git_status, record_file
from support_desk import DEMO_NOW, OWNER, workspace

from core.domain.errors import AlreadyDecided, StoreError, ValidationError
from core.reports.doctor import diagnose
from core.review.decide import decide
from core.review.queue import build_queue
from core.review.revert import revert
from core.store.catalog import CATALOG_FILE
from core.store.decisions import last_decision_for, team_copies
from core.store.journal import JOURNAL_FILE, JournalError
from core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]


class _Planted:
    """Unpickling this creates a marker file: proof that code ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, ...]]:
        return (os.system, (f"touch {self.marker}",))


def _commit_all(root: Path, message: str) -> None:
    git(root, "add", "-f", "-A")
    git(root, "commit", "-q", "-m", message)


def _clone(source: Path, target: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(source), str(target)], check=True)
    return target


def _memgov(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMGOV_NOW": DEMO_NOW.isoformat()}
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=120,
    )


# ------------------------------------------------------------ derived state from a clone
def test_a_committed_pickle_cache_never_runs(store: Store, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    legacy = store.root / ".memgov"
    legacy.mkdir(exist_ok=True)
    (legacy / "cache.pickle").write_bytes(pickle.dumps(_Planted(marker)))
    (legacy / CATALOG_FILE).write_bytes(pickle.dumps(_Planted(marker)))
    _commit_all(store.root, "a poisoned cache")
    clone = _clone(store.root, tmp_path / "clone")
    Store(clone).load()
    result = _memgov("list", "--store", str(clone), "--as", ACTOR)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    report = diagnose(Store(clone))
    assert any(".memgov" in f.path and "tracked" in f.reason for f in report)


def test_a_tampered_catalog_row_is_read_again_from_its_file(store: Store, add, make_memory) -> None:  # type: ignore[no-untyped-def]
    """The catalog is local state, but a row that does not validate as a record (a
    bug, a disk error, a hand) is never trusted: the file is read again."""
    add(store, make_memory(id="mem-1"))
    Store(store.root).load()  # writes the catalog
    db = sqlite3.connect(store.state_dir / CATALOG_FILE)
    db.execute("""UPDATE entries SET meta = '{"status": ["not", "a", "status"]}', content = 42""")
    db.commit()
    db.close()
    again = Store(store.root).load()
    assert again.memories["mem-1"].status == "active"
    assert again.memories["mem-1"].content.startswith("Use tables")
    (store.state_dir / CATALOG_FILE).write_text("[[[[" * 100_000)
    for suffix in ("-wal", "-shm"):
        (store.state_dir / (CATALOG_FILE + suffix)).unlink(missing_ok=True)
    assert Store(store.root).load().memories["mem-1"].content.startswith("Use tables")


def test_a_committed_journal_deletes_nothing_outside(store: Store, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    legacy = store.root / ".memgov"
    legacy.mkdir(exist_ok=True)
    journal = {
        "phase": "files",
        "actor": "evil",
        "message": "x",
        "paths": ["../../victim.txt"],
        "created": ["../../victim.txt"],
        "events": [],
        "events_offset": 0,
    }
    (legacy / JOURNAL_FILE).write_text(json.dumps(journal))
    _commit_all(store.root, "a planted journal")
    clone = _clone(store.root, tmp_path / "c" / "clone")
    (tmp_path / "c" / "victim.txt").write_text("keep me too")
    result = _memgov(
        "log", "--store", str(clone), "--as", ACTOR, "--task", "t1", "--index", "1", "hello"
    )
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me"
    assert (tmp_path / "c" / "victim.txt").read_text() == "keep me too"


@pytest.mark.parametrize(
    "paths",
    [["../victim.txt"], ["/etc/hostname"], ["logs/../../victim.txt"], [".git/config"]],
)
def test_a_planted_local_journal_is_refused_with_what_to_do(
    store: Store, tmp_path: Path, paths: list[str]
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    before = (store.root / ".git" / "config").read_bytes()
    store.state_dir.mkdir(parents=True, exist_ok=True)
    journal = {
        "phase": "files",
        "actor": "evil",
        "message": "x",
        "paths": paths,
        "created": paths,
        "events": [],
        "events_offset": 0,
    }
    (store.state_dir / JOURNAL_FILE).write_text(json.dumps(journal))
    with pytest.raises(JournalError) as caught:
        Store(store.root).load()
    assert "delete" in str(caught.value) and "git" in str(caught.value)
    assert victim.read_text() == "keep me"
    assert (store.root / ".git" / "config").read_bytes() == before
    result = _memgov("list", "--store", str(store.root), "--as", ACTOR)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "crash journal" in result.stderr


@pytest.mark.parametrize("garbage", [b"", b"{", b"[]", b'{"phase": "files"}', b"\xff\xfe"])
def test_an_unreadable_journal_is_reported_never_a_traceback(store: Store, garbage: bytes) -> None:
    store.state_dir.mkdir(parents=True, exist_ok=True)
    (store.state_dir / JOURNAL_FILE).write_bytes(garbage)
    result = _memgov(
        "log", "--store", str(store.root), "--as", ACTOR, "--task", "t", "--index", "1", "x"
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "crash journal" in result.stderr


# ------------------------------------------------------------------- symbolic links
@pytest.mark.parametrize("name", ["logs", "requests", "decisions"])
def test_a_committed_folder_link_is_never_written_through(
    demo: Path, tmp_path: Path, name: str
) -> None:
    private = demo / "private"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = private / name
    if target.exists():
        subprocess.run(["cp", "-a", f"{target}/.", str(elsewhere)], check=True)
        git(private, "rm", "-r", "-q", name)
    os.symlink(elsewhere, target)
    _commit_all(private, f"{name} -> elsewhere")
    before = sorted(p.relative_to(elsewhere) for p in elsewhere.rglob("*"))
    sizes = {p: p.stat().st_size for p in elsewhere.rglob("*") if p.is_file()}
    ws = workspace(demo)
    with pytest.raises(StoreError, match="symbolic link"):
        if name == "logs":
            Store(private).log_message(task="t", index=1, role="user", text="hi", actor=OWNER)
        elif name == "requests":  # not read through the link either: no request is open
            from core.store.requests import file_request

            assert not [i for i in build_queue(ws) if i.kind in ("deletion", "promotion")]
            memory = next(iter(Store(private).memories))
            file_request(Store(private), kind="delete", memory_id=memory, reason="x", actor=OWNER)
        else:
            item = next(i for i in build_queue(ws) if i.kind == "deletion")
            decide(ws, item.id, approve=False, actor=OWNER)
    assert any(f.path == name and "symbolic link" in f.reason for f in diagnose(Store(private)))
    assert sorted(p.relative_to(elsewhere) for p in elsewhere.rglob("*")) == before
    assert {p: p.stat().st_size for p in elsewhere.rglob("*") if p.is_file()} == sizes


def test_a_committed_memories_link_is_not_read(store: Store, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.md").write_text("---\nid: x\n---\nsecret notes of another user\n")
    git(store.root, "rm", "-r", "-q", "memories")
    os.symlink(elsewhere, store.root / "memories")
    snap = Store(store.root).load()
    assert snap.memories == {}
    assert any(p.path == "memories" and "symbolic link" in p.reason for p in snap.problems)


@pytest.mark.parametrize("name", ["MEMORY.md", "events/000001.jsonl"])
def test_a_linked_index_or_event_log_is_never_written(
    store: Store,
    add,
    make_memory,
    tmp_path: Path,
    name: str,  # type: ignore[no-untyped-def]
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    (store.root / name).unlink()
    os.symlink(outside, store.root / name)
    with pytest.raises(StoreError, match="symbolic link"):
        add(store, make_memory(id="mem-1"))
    assert outside.read_text() == "untouched\n"
    assert not record_file(store, "mem-1").exists()


def test_a_linked_config_is_refused(store: Store, tmp_path: Path) -> None:
    outside = tmp_path / "memgov.yaml"
    outside.write_text((store.root / "memgov.yaml").read_text())
    (store.root / "memgov.yaml").unlink()
    os.symlink(outside, store.root / "memgov.yaml")
    with pytest.raises(StoreError, match="symbolic link"):
        Store(store.root)


# --------------------------------------------------------------------- exactly once
def _first(ws_path: Path, kind: str) -> str:
    return next(i.id for i in build_queue(workspace(ws_path)) if i.kind == kind)


@pytest.mark.parametrize(
    ("kind", "first", "second"),
    [
        ("conflict", {"approve": True, "option": "newer"}, {"approve": True, "option": "neither"}),
        ("conflict", {"approve": True, "option": "neither"}, {"approve": True, "option": "older"}),
        ("deletion", {"approve": True}, {"approve": False}),
        ("deletion", {"approve": False}, {"approve": True}),
        ("promotion", {"approve": False}, {"approve": True}),
        ("consolidation", {"approve": True}, {"approve": False}),
    ],
)
def test_the_second_decider_gets_already_decided(
    demo: Path, kind: str, first: dict[str, object], second: dict[str, object]
) -> None:
    item_id = _first(demo, kind)
    actor = OWNER
    one, two = workspace(demo), workspace(demo)  # two people, each with the queue on screen
    build_queue(two)
    done = decide(one, item_id, actor=actor, **first)  # type: ignore[arg-type]
    files_before = {
        p: p.read_bytes() for p in demo.rglob("*") if p.is_file() and ".git" not in p.parts
    }
    with pytest.raises(AlreadyDecided) as caught:
        decide(two, item_id, actor=actor, **second)  # type: ignore[arg-type]
    message = str(caught.value)
    assert f"already decided by {actor}" in message and done.id in message
    after = {p: p.read_bytes() for p in demo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert after == files_before


def test_two_processes_racing_on_one_conflict_apply_once(demo: Path) -> None:
    item_id = _first(demo, "conflict")
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from core.demo import DemoClock
        from core.domain.errors import AlreadyDecided
        from core.review.decide import decide
        from core.store.workspace import open_workspace
        from datetime import datetime
        now = datetime.fromisoformat({DEMO_NOW.isoformat()!r})
        ws = open_workspace([{str(demo)!r}], clock=DemoClock(now))
        while not Path({str(demo / "go")!r}).exists():
            time.sleep(0.005)
        try:
            d = decide(ws, {item_id!r}, approve=True, option=sys.argv[1], actor={OWNER!r})
            print("ok", d.id)
        except AlreadyDecided as exc:
            print("lost", exc)
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, option],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for option in ("newer", "neither")
    ]
    (demo / "go").write_text("")
    outs = [p.communicate(timeout=120) for p in procs]
    (demo / "go").unlink()
    results = [out.split()[0] if out else err for out, err in outs]
    assert sorted(results) == ["lost", "ok"], outs
    made = [
        json.loads(p.read_text())
        for p in (demo / "private" / "decisions").glob("*.json")
        if json.loads(p.read_text())["item"] == item_id
    ]
    assert len(made) == 1


def test_a_decision_is_reverted_once(demo: Path) -> None:
    item_id = _first(demo, "conflict")
    done = decide(workspace(demo), item_id, approve=True, option="newer", actor=OWNER)
    one, two = workspace(demo), workspace(demo)
    revert(one, done.id, actor=OWNER)
    with pytest.raises(AlreadyDecided, match="already decided by"):
        revert(two, done.id, actor=OWNER)


def test_threads_of_one_process_decide_once(demo: Path) -> None:
    item_id = _first(demo, "deletion")
    outcomes: list[str] = []

    def run(approve: bool) -> None:
        try:
            decide(workspace(demo), item_id, approve=approve, actor=OWNER)
            outcomes.append("ok")
        except AlreadyDecided:
            outcomes.append("lost")

    threads = [threading.Thread(target=run, args=(flag,)) for flag in (True, False)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["lost", "ok"]


@pytest.mark.parametrize("bad", ["../../etc/passwd", "../requests/x", "dec-1", "", "x" * 5000])
def test_revert_takes_a_decision_id_never_a_path(demo: Path, bad: str) -> None:
    with pytest.raises(ValidationError) as caught:
        revert(workspace(demo), bad, actor=OWNER)
    assert caught.value.field == "decision"
    assert bad not in str(caught.value) or not bad


# ------------------------------------------------------------------- crash leftovers
def test_a_stale_git_index_lock_is_cleared(store: Store, add, make_memory) -> None:  # type: ignore[no-untyped-def]
    (store.root / ".git" / "index.lock").write_text("")
    add(store, make_memory(id="mem-1"))
    assert not (store.root / ".git" / "index.lock").exists()
    assert git_status(store.root) == []


def test_orphan_temp_files_are_cleaned_by_the_next_writer(store: Store, add, make_memory) -> None:  # type: ignore[no-untyped-def]
    orphan = store.root / "memories" / ".mem-0.md.abc123.tmp"
    orphan.write_text("half")
    (store.root / "logs").mkdir(exist_ok=True)
    (store.root / "logs" / ".x.md.def456.tmp").write_text("half")
    add(store, make_memory(id="mem-1"))
    assert not orphan.exists()
    assert not (store.root / "logs" / ".x.md.def456.tmp").exists()
    assert git_status(store.root) == []


def test_orphan_temps_left_between_two_writes_of_one_process_are_cleaned(
    store: Store,
    add,
    make_memory,  # type: ignore[no-untyped-def]
) -> None:
    """The search for temporary files skips folders unchanged since it last looked;
    a killed writer's file changes its folder, deep or not, so it is still found."""
    deep = store.root / "logs" / "2026" / "12"
    deep.mkdir(parents=True, exist_ok=True)
    (deep / "01.md").write_text("# a log\n")
    add(store, make_memory(id="mem-1"))  # searched once: the stamps are kept
    orphans = [deep / ".01.md.abc123.tmp", store.root / "decisions" / ".d.json.def456.tmp"]
    for orphan in orphans:
        orphan.parent.mkdir(parents=True, exist_ok=True)
        orphan.write_text("half")
    add(store, make_memory(id="mem-2", attribute="editor"))
    assert [o for o in orphans if o.exists()] == []


# ------------------------------------------------------------- killed at a given moment
KILL = textwrap.dedent(
    """
    import os, sys
    import core.store.erase as st  # recovery imports purge_history from it when due
    from core.store.transaction import Transaction
    target, nth = sys.argv[1], int(sys.argv[2])
    cls, name = target.split(".")
    owner = Transaction if cls == "Transaction" else st
    original = getattr(owner, name)
    calls = [0]
    def dying(*a, **k):
        calls[0] += 1
        if calls[0] == nth:
            os._exit(137)
        return original(*a, **k)
    setattr(owner, name, dying)
    from tui.cli import main
    sys.exit(main(sys.argv[3:]))
    """
)


def _killed(point: str, nth: int, *argv: str) -> int:
    env = {**os.environ, "MEMGOV_NOW": DEMO_NOW.isoformat()}
    done = subprocess.run(
        [sys.executable, "-c", KILL, point, str(nth), *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode


def _consistent(demo: Path) -> None:
    for name in ("private", "team"):
        store = Store(demo / name)
        store.load()  # recovers
        assert not (store.state_dir / JOURNAL_FILE).exists()
        errors = [f for f in diagnose(store) if f.severity == "error"]
        assert not [e for e in errors if "credential" not in e.reason.lower()], errors
        assert git_status(store.root) == [], name


def _team_records(demo: Path) -> set[str]:
    """The record files of the demo's team store (in their shards, and any flat ones)."""
    team = demo / "team"
    return {p.relative_to(team).as_posix() for p in (team / "memories").rglob("*.md")}


@pytest.mark.parametrize(
    ("point", "nth"),
    [
        ("Transaction.write", 1),  # the team's files are half written
        ("Transaction.write", 2),  # the team's done, the private's not
        ("Transaction.commit", 1),  # past the commit point, nothing in git yet
        ("Transaction.commit", 2),  # the team committed, the private not
        ("Transaction.finish", 1),
        ("Transaction.finish", 2),
    ],
)
def test_a_promotion_killed_anywhere_lands_in_both_stores_or_neither(
    demo: Path, point: str, nth: int
) -> None:
    team_before = _team_records(demo)
    item_id = next(
        i.id for i in build_queue(workspace(demo)) if i.kind == "promotion" and not i.scan
    )
    code = _killed(point, nth, "decide", item_id, "--approve", "--store", str(demo), "--as", OWNER)
    assert code == 137
    _consistent(demo)
    team_after = _team_records(demo)
    request = next(
        r
        for r in (demo / "private" / "requests").glob("*.yaml")
        if r.stem == item_id or item_id in r.read_text()
    )
    approved = "status: approved" in request.read_text()
    assert (team_after != team_before) == approved, (point, nth, approved)
    ws = workspace(demo)
    if approved:  # and the decision can be reverted as a whole
        decision = last_decision_for(ws.stores, item_id)
        assert decision is not None
        revert(ws, decision.id, actor=OWNER)
        assert _team_records(demo) == team_before
    else:
        decide(ws, item_id, approve=True, actor=OWNER)
        assert _team_records(demo) != team_before


def _all_objects(root: Path) -> bytes:
    return subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout


@pytest.mark.parametrize(
    ("point", "nth"),
    [("Transaction.commit", 1), ("Transaction.finish", 1), ("st.purge_history", 1)],
)
def test_an_erasure_killed_anywhere_is_finished_for_good(demo: Path, point: str, nth: int) -> None:
    item = next(i for i in build_queue(workspace(demo)) if i.kind == "deletion")
    memory = item.records[0].memory
    needle = memory.content.strip().splitlines()[0].encode("utf-8")
    assert needle in _all_objects(demo / "private")
    code = _killed(point, nth, "decide", item.id, "--approve", "--store", str(demo), "--as", OWNER)
    assert code == 137
    Store(demo / "private").load()  # the next command recovers: it finishes the purge
    events = (demo / "private" / "events/000001.jsonl").read_text()
    if '"erase"' in events and memory.id in events:
        assert needle not in _all_objects(demo / "private")
    _consistent(demo)


# ------------------------------------------------------------------ erasure, complete
def test_erasing_a_promoted_record_asks_the_team_to_delete_its_copy(demo: Path) -> None:
    from core.store.requests import file_request, load_requests

    ws = workspace(demo)
    item = next(i for i in build_queue(ws) if i.kind == "promotion" and not i.scan)
    private_id = item.records[0].memory.id
    decide(ws, item.id, approve=True, actor=OWNER)
    ws = workspace(demo)
    copies = team_copies(ws.stores, private_id)
    assert len(copies) == 1
    team, copy_id = copies[0]
    asked = file_request(
        ws.for_scope("private"), kind="delete", memory_id=private_id, reason="wrong", actor=OWNER
    )
    done = decide(workspace(demo), asked.id, approve=True, actor=OWNER)
    assert done.note is not None and copy_id in done.note
    opened = [r for r in load_requests(Store(team.root)) if r.status == "open"]
    asked_team = [(r.kind, r.memory_id) for r in opened if r.memory_id == copy_id]
    assert asked_team == [("delete", copy_id)]
    assert copy_id in Store(team.root).memories  # a maintainer decides it, in the team's queue
    queue = build_queue(workspace(demo))
    assert any(i.kind == "deletion" and i.records[0].memory.id == copy_id for i in queue)


def test_a_team_record_never_shows_a_file_outside_the_store(tmp_path: Path) -> None:
    from core.domain.record import Source
    from core.store import logs

    secret = tmp_path / "victim-notes.md"
    secret.write_text("private notes of the person who cloned the team store\n")
    team = Store.init(tmp_path / "team", scope="team", maintainers=("lead",), actor="lead")
    (team.root / "logs").mkdir()
    os.symlink(tmp_path, team.root / "logs" / "up")
    for source in (
        Source(task="t", evidence="x", file=str(secret), line=1),
        Source(task="t", evidence="x", file="../victim-notes.md", line=1),
        Source(task="t", evidence="x", file="logs/up/victim-notes.md", line=1),
        Source(task="t", message_index=1, evidence="x", log="logs/up/victim-notes.md"),
    ):
        assert logs.resolve(team.root, source) is None
    own = Source(task="t", evidence="x", file=str(secret), line=1)
    assert logs.resolve(team.root, own, outside_ok=True) is not None  # the writer's own file


def test_a_killed_writers_temp_file_does_not_stop_consolidate(demo: Path) -> None:
    from core.consolidation.consolidate import consolidate

    private = Store(demo / "private")
    batch = next(i for i in build_queue(workspace(demo)) if i.kind == "consolidation")
    decide(workspace(demo), batch.id, approve=False, actor=OWNER)
    (private.root / "memories" / ".x.md.k1l2m3.tmp").write_text("half a file")
    consolidate(Store(demo / "private"), actor=OWNER, dry_run=True)
    consolidate(Store(demo / "private"), actor=OWNER)
    assert not (private.root / "memories" / ".x.md.k1l2m3.tmp").exists()
