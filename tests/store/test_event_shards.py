"""The event log in shards: ``events/NNNNNN.jsonl`` after a legacy ``events.jsonl``.

A shard is full at SHARD_BYTES (made small here): the next append starts the next
one, each commit takes only the shard it appended to, and the log reads back in
append order across shards. A store made before shards keeps its events.jsonl as
the oldest shard. A crash during an append to a new shard rolls back; a shard, or
the folder, that is a link is refused, never read or written through.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ACTOR, MakeMemory, add_memories, git_status, record_file

from core.domain.errors import StoreError
from core.reports.doctor import diagnose
from core.store import events as events_module
from core.store import prepared as prepared_module
from core.store import transaction as transaction_module
from core.store.events import (
    EVENTS_DIR,
    EVENTS_FILE,
    FIRST_SHARD,
    Event,
    EventsAt,
    append_to_log,
    event_logs,
    next_append,
    read_log,
    shard_name,
)
from core.store.journal import JOURNAL_FILE, JournalError, read_journal
from core.store.store import Store
from core.store.transaction import transaction

SMALL = 700  # bytes: two or three events a shard


@pytest.fixture
def small_shards(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(events_module, "SHARD_BYTES", SMALL)
    return SMALL


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def changed_in_head(root: Path) -> set[str]:
    return set(git(root, "show", "--name-only", "--format=", "HEAD").split())


def expire_all(store: Store, count: int, make_memory: MakeMemory) -> list[str]:
    """``count`` transactions of one event each; the ids of their events."""
    add_memories(store, *(make_memory(id=f"mem-{i}", attribute=f"a{i}") for i in range(count)))
    for i in range(count):
        with transaction(store, actor=ACTOR, message=f"expire {i}") as tx:
            tx.transition(f"mem-{i}", "expired", action="sweep", reason=f"sweep {i}")
        assert len(changed_in_head(store.root) & {*event_logs(store.root)}) == 1
    return [e.id for e in store.events()[0]]


def test_a_new_store_starts_its_log_in_the_first_shard(store: Store) -> None:
    assert event_logs(store.root) == [FIRST_SHARD]
    assert not (store.root / EVENTS_FILE).exists()
    assert FIRST_SHARD in git(store.root, "ls-files").split()


def test_shards_roll_over_at_the_size_and_keep_the_order(
    store: Store, make_memory: MakeMemory, small_shards: int
) -> None:
    root = store.root
    ids = expire_all(store, 8, make_memory)
    logs = event_logs(root)
    assert logs == [shard_name(n) for n in range(1, len(logs) + 1)]
    assert len(logs) >= 4
    sizes = [(root / rel).stat().st_size for rel in logs]
    # every shard but the last had reached the size when the next one started, and
    # none grew much past it: one transaction's events at most
    assert all(size >= small_shards for size in sizes[:-1])
    assert all(size < small_shards + 1000 for size in sizes[1:])  # shard 1: eight creations
    # the whole log reads back in the order it was appended: by event time
    lines = [
        json.loads(line)["id"]
        for rel in logs
        for line in (root / rel).read_text().splitlines()
        if line
    ]
    assert ids == lines
    events = store.events()[0]
    assert [e.memory_ids for e in events[8:]] == [(f"mem-{i}",) for i in range(8)]
    assert len(ids) == 8 + 8  # eight creations (one transaction) and eight expiries
    assert store.events()[1] == []
    assert git_status(root) == []
    # each transaction's commit took exactly one shard: the one it appended to
    for rev in range(8):
        files = git(root, "show", "--name-only", "--format=", f"HEAD~{rev}").split()
        assert len([f for f in files if f.startswith(f"{EVENTS_DIR}/")]) == 1


def test_a_legacy_log_is_read_first_and_kept(
    store: Store, make_memory: MakeMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = store.root
    monkeypatch.setattr(events_module, "SHARD_BYTES", 100_000)
    add_memories(store, make_memory(id="mem-old"))
    # a store made before shards: the same log, as one events.jsonl
    os.replace(root / FIRST_SHARD, root / EVENTS_FILE)
    (root / EVENTS_DIR).rmdir()
    git(root, "add", "--all")
    git(root, "-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "old layout")
    old = [e.id for e in Store(root).events()[0]]
    assert old and event_logs(root) == [EVENTS_FILE]
    reopened = Store(root)
    size_before = (root / EVENTS_FILE).stat().st_size
    with transaction(reopened, actor=ACTOR, message="one") as tx:
        tx.transition("mem-old", "expired", action="sweep", reason="x")
    # under the size, the legacy log is still the last shard: appended to
    assert event_logs(root) == [EVENTS_FILE]
    legacy = (root / EVENTS_FILE).stat().st_size
    monkeypatch.setattr(events_module, "SHARD_BYTES", legacy)  # the legacy log is full now
    add_memories(reopened, make_memory(id="mem-new"))
    assert event_logs(root) == [EVENTS_FILE, FIRST_SHARD]
    events, bad = Store(root).events()
    assert bad == []
    assert [e.id for e in events][: len(old)] == old  # the legacy events come first
    assert events[-1].memory_ids == ("mem-new",)
    assert size_before < legacy == (root / EVENTS_FILE).stat().st_size
    assert git_status(root) == []


def test_a_crash_during_an_append_to_a_new_shard_rolls_back(
    store: Store, make_memory: MakeMemory, small_shards: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = store.root
    expire_all(store, 3, make_memory)
    while (root / event_logs(root)[-1]).stat().st_size < small_shards:
        add_memories(store, make_memory(id=f"pad-{len(event_logs(root))}"))
    head = git(root, "rev-parse", "HEAD")
    before = {rel: (root / rel).read_bytes() for rel in event_logs(root)}
    target = next_append(root)
    assert target.offset == 0 and target.file not in before  # the next append starts one

    def torn(root_: Path, events: list[Event], at: EventsAt | None = None) -> EventsAt:
        assert at == target
        path = root_ / at.file
        path.write_bytes(events[0].line()[:25])  # power cut in the middle of the line
        raise KeyboardInterrupt("power cut")

    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr(transaction_module, "append_to_log", torn)
        with transaction(store, actor=ACTOR, message="crash") as tx:
            tx.create(make_memory(id="mem-crash", attribute="lang"), action="create", reason="x")
    assert (root / target.file).exists()
    journal = read_journal(store)
    assert journal is not None
    assert (journal["events_file"], journal["events_offset"]) == (target.file, 0)
    reopened = Store(root)
    with transaction(reopened, actor=ACTOR, message="next"):
        pass
    assert not (root / target.file).exists()  # the shard it started is gone
    assert {rel: (root / rel).read_bytes() for rel in event_logs(root)} == before
    assert git(root, "rev-parse", "HEAD") == head
    assert git_status(root) == []
    assert "mem-crash" not in reopened.memories
    assert not (reopened.state_dir / JOURNAL_FILE).exists()
    assert [f for f in diagnose(Store(root)) if f.severity == "error"] == []
    add_memories(reopened, make_memory(id="mem-after", attribute="after"))
    assert event_logs(root)[-1] == target.file  # the next append starts it again


def test_a_crash_after_some_events_in_a_new_shard_says_so(
    store: Store, make_memory: MakeMemory, small_shards: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = store.root
    while (root / event_logs(root)[-1]).stat().st_size < small_shards:
        add_memories(store, make_memory(id=f"pad-{(root / event_logs(root)[-1]).stat().st_size}"))
    target = next_append(root)

    def half(root_: Path, events: list[Event], at: EventsAt | None = None) -> EventsAt:
        (root_ / EVENTS_DIR).mkdir(exist_ok=True)
        (root_ / target.file).write_bytes(events[0].line())  # one whole event of two
        raise KeyboardInterrupt("power cut")

    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr(transaction_module, "append_to_log", half)
        with transaction(store, actor=ACTOR, message="crash") as tx:
            tx.create(make_memory(id="mem-a", attribute="a"), action="create", reason="x")
            tx.create(make_memory(id="mem-b", attribute="b"), action="create", reason="x")
    reopened = Store(root)
    with transaction(reopened, actor=ACTOR, message="next"):
        pass
    events, bad = reopened.events()
    assert bad == []
    assert events[-1].action == "recover"
    assert len(events[-1].details["rolled_back_events"]) == 1
    assert git_status(root) == []  # the shard with the undone event is committed too
    assert target.file in git(root, "ls-files").split()
    assert {"mem-a", "mem-b"}.isdisjoint(reopened.memories)


def test_a_linked_shard_is_refused(store: Store, make_memory: MakeMemory, tmp_path: Path) -> None:
    root = store.root
    add_memories(store, make_memory(id="mem-1"))
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes((root / FIRST_SHARD).read_bytes())
    kept = outside.read_bytes()
    (root / FIRST_SHARD).unlink()
    os.symlink(outside, root / FIRST_SHARD)
    events, bad = read_log(root)
    assert events == []
    assert [(b.file, b.line) for b in bad] == [(FIRST_SHARD, 0)]
    assert "symbolic link" in bad[0].reason
    found = [f for f in diagnose(Store(root)) if f.path == FIRST_SHARD and f.severity == "error"]
    assert found and "symbolic link" in found[0].reason
    with pytest.raises(StoreError, match="symbolic link"):
        add_memories(Store(root), make_memory(id="mem-2", attribute="two"))
    with pytest.raises(StoreError, match="symbolic link"):
        append_to_log(root, [])
    assert outside.read_bytes() == kept
    assert not record_file(root, "mem-2").exists()


def test_a_linked_shard_folder_is_refused(
    store: Store, make_memory: MakeMemory, tmp_path: Path
) -> None:
    root = store.root
    add_memories(store, make_memory(id="mem-1"))
    outside = tmp_path / "elsewhere"
    shutil.copytree(root / EVENTS_DIR, outside)
    kept = (outside / "000001.jsonl").read_bytes()
    shutil.rmtree(root / EVENTS_DIR)
    os.symlink(outside, root / EVENTS_DIR)
    events, bad = read_log(root)
    assert events == []
    assert [(b.file, b.line) for b in bad] == [(EVENTS_DIR, 0)]
    with pytest.raises(StoreError, match="symbolic link"):
        add_memories(Store(root), make_memory(id="mem-2", attribute="two"))
    assert (outside / "000001.jsonl").read_bytes() == kept
    assert sorted(p.name for p in outside.iterdir()) == ["000001.jsonl"]


def test_a_bad_line_names_its_shard_and_other_names_are_not_the_log(
    store: Store, make_memory: MakeMemory, small_shards: int
) -> None:
    root = store.root
    expire_all(store, 4, make_memory)
    second = shard_name(2)
    with (root / second).open("ab") as handle:
        handle.write(b"not json\n")
    (root / EVENTS_DIR / "notes.txt").write_text("not json either\n")
    (root / EVENTS_DIR / "7.jsonl").write_text("not json either\n")
    events, bad = read_log(root)
    assert [b.file for b in bad] == [second]
    assert len(events) == 4 + 4
    found = [f for f in diagnose(Store(root)) if f.path == second and f.severity == "error"]
    assert len(found) == 1 and found[0].reason.startswith("line ")


def test_an_erasure_scrubs_every_shard(
    store: Store, make_memory: MakeMemory, small_shards: int
) -> None:
    root = store.root
    expire_all(store, 4, make_memory)
    assert len(event_logs(root)) >= 2
    assert set(event_logs(root)) <= set(prepared_module._scrubbable_files(root))


@pytest.mark.parametrize("name", ["events/../memgov.yaml", "events/1.jsonl", "memgov.yaml", 7])
def test_a_journal_naming_no_shard_is_refused(store: Store, name: object) -> None:
    store.state_dir.mkdir(exist_ok=True)
    (store.state_dir / JOURNAL_FILE).write_text(
        json.dumps({
            "phase": "files", "actor": "x", "message": "m", "paths": [], "created": [],
            "events": [], "events_offset": 0, "events_file": name,
        })
    )  # fmt: skip
    with pytest.raises(JournalError, match="events_file"):
        read_journal(store)
