"""The store on disk: init, transactions, git, the lock, atomic writes, crash
recovery and the derived cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import git
import pytest
from conftest import ACTOR, add_memories, commit_count, git_status, record_file

from core.domain.errors import NotFoundError, StoreError, TransitionError, ValidationError
from core.domain.record import Memory, parse_memory
from core.reports.doctor import diagnose
from core.store import catalog, fsutil, gitstore
from core.store import transaction as transaction_module
from core.store.catalog import CATALOG_FILE
from core.store.config import CONFIG_FILE
from core.store.events import FIRST_SHARD, Event, append_events, read_events
from core.store.fsutil import atomic_write_bytes, file_lock
from core.store.index import INDEX_FILE
from core.store.journal import JOURNAL_FILE
from core.store.layout import memory_path
from core.store.store import STATE_DIR, Store
from core.store.transaction import transaction

MakeMemory = Callable[..., Memory]


def head(root: Path) -> git.Commit:
    return git.Repo(root).head.commit


def temp_files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.tmp")
        if ".git" not in p.relative_to(root).parts
    )


# ------------------------------------------------------------------------ init
def test_init_creates_a_git_repo_with_one_commit(tmp_path: Path) -> None:
    root = tmp_path / "new-store"
    store = Store.init(root, actor="founder@example.com")
    assert store.root == root.resolve()
    for rel in (CONFIG_FILE, INDEX_FILE, FIRST_SHARD, ".gitignore", "memories"):
        assert (root / rel).exists(), rel
    assert commit_count(root) == 1
    commit = head(root)
    assert commit.author.email == "founder@example.com"
    assert set(commit.stats.files) == {
        CONFIG_FILE,
        INDEX_FILE,
        FIRST_SHARD,
        ".gitignore",
        "memories/.gitkeep",
    }
    assert git_status(root) == []
    assert f"/{STATE_DIR}/" in (root / ".gitignore").read_text()
    assert store.memories == {}
    assert store.load().problems == []


def test_init_refuses_an_existing_store_or_a_non_empty_folder(tmp_path: Path) -> None:
    Store.init(tmp_path / "a")
    with pytest.raises(StoreError, match="already exists"):
        Store.init(tmp_path / "a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not empty"):
        Store.init(tmp_path / "b")
    assert (tmp_path / "b" / "notes.txt").read_text() == "mine"


def test_opening_a_folder_that_is_not_a_store_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a memgov store"):
        Store(tmp_path)


# ------------------------------------------------------------------ transactions
def test_creating_a_memory_writes_file_event_index_and_one_commit(
    store: Store, make_memory: MakeMemory
) -> None:
    root = store.root
    before = commit_count(root)
    memory = make_memory(id="pref-tables", title="Tables")
    with transaction(store, actor="alice@example.com", message="remember tables") as tx:
        tx.create(memory, action="create", reason="stated by alice")

    path = record_file(root, "pref-tables")
    assert parse_memory(path.read_text(encoding="utf-8")) == memory
    events, bad = store.events()
    assert bad == []
    assert len(events) == 1
    event = events[0]
    assert (event.action, event.memory_ids, event.from_status, event.to_status) == (
        "create",
        ("pref-tables",),
        None,
        "active",
    )
    assert event.actor == "alice@example.com"
    assert event.ts == "2027-03-14T10:20:00+08:00"  # the store's clock
    assert event.details["content_hash"] == memory.content_hash
    assert memory.content not in (root / FIRST_SHARD).read_text()  # no content in events
    assert (root / INDEX_FILE).read_text() == (
        f"- [Tables]({memory_path('pref-tables')}) — Use tables for comparisons.\n"
    )
    assert commit_count(root) == before + 1
    commit = head(root)
    assert commit.author.email == "alice@example.com"
    assert commit.message.startswith("remember tables")
    assert set(commit.stats.files) == {memory_path("pref-tables"), FIRST_SHARD, INDEX_FILE}
    assert git_status(root) == []
    assert store.get("pref-tables") == memory
    assert Store(root).get("pref-tables") == memory


def test_actor_without_email_gets_a_placeholder_address(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory(), actor="alice")
    assert head(store.root).author.email == "alice@memgov.invalid"


def test_a_transaction_with_no_changes_makes_no_commit(store: Store) -> None:
    before = commit_count(store.root)
    with transaction(store, actor=ACTOR, message="nothing"):
        pass
    assert commit_count(store.root) == before
    assert read_events(store.root / FIRST_SHARD) == ([], [])


def test_transitions_are_checked_and_recorded(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory())
    with transaction(store, actor="bob@example.com", message="expire") as tx:
        tx.transition("mem-1", "expired", action="sweep", reason="past expires_at")
    assert store.get("mem-1").status == "expired"
    assert Store(store.root).get("mem-1").status == "expired"
    assert (store.root / INDEX_FILE).read_text() == ""  # only active memories are indexed
    last = store.events()[0][-1]
    assert (last.from_status, last.to_status, last.actor) == (
        "active",
        "expired",
        "bob@example.com",
    )


def test_an_illegal_transition_changes_nothing(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory())
    files = {
        p: p.read_bytes()
        for p in store.root.rglob("*")
        if p.is_file() and ".git" not in p.parts and STATE_DIR not in p.parts
    }
    commits = commit_count(store.root)
    with (
        pytest.raises(TransitionError, match="superseded -> new"),
        transaction(store, actor=ACTOR, message="bad") as tx,
    ):
        tx.transition("mem-1", "superseded", action="supersede", reason="ok so far")
        tx.transition("mem-1", "new", action="oops", reason="illegal")
    assert commit_count(store.root) == commits
    after = {p: p.read_bytes() for p in files}
    assert after == files
    assert Store(store.root).get("mem-1").status == "active"
    # the lock was released: a new transaction goes through
    with transaction(store, actor=ACTOR, message="fine") as tx:
        tx.transition("mem-1", "superseded", action="supersede", reason="newer evidence")
    assert Store(store.root).get("mem-1").status == "superseded"


def test_creating_with_a_status_new_cannot_reach_is_refused(
    store: Store, make_memory: MakeMemory
) -> None:
    with (
        pytest.raises(TransitionError, match="new -> superseded"),
        transaction(store, actor=ACTOR, message="x") as tx,
    ):
        tx.create(make_memory(status="superseded"), action="create", reason="x")


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"scope": "task"}, "never written"),
        ({"scope": "team"}, "private store"),
        ({"id": "../escape"}, "invalid id"),
    ],
)
def test_create_refuses_what_does_not_belong(
    store: Store, make_memory: MakeMemory, overrides: dict[str, str], words: str
) -> None:
    with (
        pytest.raises(ValidationError, match=words),
        transaction(store, actor=ACTOR, message="x") as tx,
    ):
        tx.create(make_memory(**overrides), action="create", reason="x")
    assert commit_count(store.root) == 1


def test_ids_are_unique(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory())
    with (
        pytest.raises(ValidationError, match="already used"),
        transaction(store, actor=ACTOR, message="x") as tx,
    ):
        tx.create(make_memory(attribute="other"), action="create", reason="x")


def test_every_change_needs_an_actor(store: Store) -> None:
    with (
        pytest.raises(ValidationError, match="actor"),
        transaction(store, actor="  ", message="x"),
    ):
        pass


def test_update_is_an_event_but_not_a_status_change(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory())
    with transaction(store, actor=ACTOR, message="use") as tx:
        tx.update("mem-1", action="usage", reason="recalled", usage_count=1)
        with pytest.raises(ValidationError, match="transition"):
            tx.update("mem-1", action="x", reason="x", status="expired")
    assert Store(store.root).get("mem-1").usage_count == 1
    assert store.events()[0][-1].action == "usage"


def test_unknown_ids_raise_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="nope"):
        store.get("nope")
    with (
        pytest.raises(NotFoundError),
        transaction(store, actor=ACTOR, message="x") as tx,
    ):
        tx.transition("nope", "expired", action="x", reason="x")


@pytest.mark.parametrize("rel", ["/etc/passwd", "../outside.md", "logs/../../x", ".memgov/cache"])
def test_write_file_refuses_paths_outside_the_store(store: Store, rel: str) -> None:
    with (
        pytest.raises(ValidationError, match="outside the store"),
        transaction(store, actor=ACTOR, message="x") as tx,
    ):
        tx.write_file(rel, "x")


# -------------------------------------------------------------------------- lock
LOCK_HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from core.store.fsutil import file_lock
    with file_lock(Path(sys.argv[1])):
        print("locked", flush=True)
        sys.stdin.read()  # hold the lock until the test closes stdin
    """
)


def test_a_second_process_cannot_take_the_store_lock(store: Store) -> None:
    lock = store.state_dir / "lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with (
            pytest.raises(StoreError, match="another memgov process holds the store lock"),
            file_lock(lock, timeout=0.2),
        ):
            pytest.fail("took a lock another process holds")
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
    with file_lock(lock, timeout=5):  # released when the holder exits
        pass


# ---------------------------------------------------------------- atomic writes
def test_transactions_leave_no_temporary_files(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory(), make_memory(id="mem-2", attribute="lang"))
    with transaction(store, actor=ACTOR, message="x") as tx:
        tx.transition("mem-1", "expired", action="sweep", reason="x")
    Store(store.root).load()  # writes the cache
    assert temp_files(store.root) == []
    assert not (store.state_dir / JOURNAL_FILE).exists()
    assert [p.name for p in store.state_dir.iterdir() if p.name.startswith(".")] == []


def test_a_failed_atomic_write_keeps_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "file.md"
    target.write_bytes(b"old")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(fsutil.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".empty-gitconfig") == ["file.md"]


def test_atomic_write_creates_folders_and_keeps_the_usual_mode(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.md"
    atomic_write_bytes(target, b"x")
    assert target.read_bytes() == b"x"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


# ---------------------------------------------------------------- crash recovery
def write_journal(store: Store, **journal: object) -> None:
    store.state_dir.mkdir(exist_ok=True)
    (store.state_dir / JOURNAL_FILE).write_text(json.dumps(journal))


def test_crash_in_files_phase_is_rolled_back_to_head(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory())
    root = store.root
    committed = {rel: (root / rel).read_bytes() for rel in (memory_path("mem-1"), INDEX_FILE)}
    events_before = (root / FIRST_SHARD).read_bytes()
    commits = commit_count(root)
    # a crashed change: it rewrote mem-1 (half written), started mem-2, touched the index
    write_journal(
        store,
        phase="files",
        actor="crash@example.com",
        message="crashed change",
        paths=[INDEX_FILE, memory_path("mem-1"), memory_path("mem-2")],
        created=[memory_path("mem-2")],
        events=["ev-crashed-1"],
        events_file=FIRST_SHARD,
        events_offset=len(events_before),
    )
    record_file(root, "mem-1").write_text("---\nid: mem-1\nstatus: supers")
    record_file(root, "mem-2").parent.mkdir(exist_ok=True)
    record_file(root, "mem-2").write_text(make_memory(id="mem-2").to_markdown()[:50])
    (root / INDEX_FILE).write_text(f"- [half]({memory_path('mem-2')})\n")

    with transaction(store, actor=ACTOR, message="next change"):
        pass

    assert not record_file(root, "mem-2").exists()
    for rel, data in committed.items():
        assert (root / rel).read_bytes() == data, rel
    assert (root / FIRST_SHARD).read_bytes() == events_before
    assert not (store.state_dir / JOURNAL_FILE).exists()
    assert commit_count(root) == commits
    assert git_status(root) == []
    assert set(store.memories) == {"mem-1"}
    assert store.load().problems == []


def test_crash_after_some_events_rolls_back_and_says_so(
    store: Store, make_memory: MakeMemory
) -> None:
    """Half of a transaction's events reached the log: the files are rolled back
    and a 'recover' event records that those events did not happen."""
    add_memories(store, make_memory())
    root = store.root
    offset = (root / FIRST_SHARD).stat().st_size
    orphan = make_memory(id="mem-2")
    append_events(
        root / FIRST_SHARD,
        [
            Event(
                id="ev-half-1",
                ts="2027-03-14T10:20:00+08:00",
                actor="x",
                action="create",
                memory_ids=("mem-2",),
                to_status="active",
            )
        ],
    )
    record_file(root, "mem-2").parent.mkdir(exist_ok=True)
    record_file(root, "mem-2").write_text(orphan.to_markdown())
    write_journal(
        store,
        phase="files",
        actor="crash@example.com",
        message="crashed change",
        paths=[memory_path("mem-2")],
        created=[memory_path("mem-2")],
        events=["ev-half-1", "ev-half-2"],
        events_file=FIRST_SHARD,
        events_offset=offset,
    )
    with transaction(store, actor=ACTOR, message="next"):
        pass
    assert not record_file(root, "mem-2").exists()
    events, bad = read_events(root / FIRST_SHARD)
    assert bad == []
    assert events[-1].action == "recover"
    assert events[-1].details["rolled_back_events"] == ["ev-half-1"]
    assert git_status(root) == []
    assert head(root).message.startswith("recover: roll back")
    # doctor knows those events did not happen
    assert [f for f in diagnose(Store(root)) if f.severity == "error"] == []


def test_crash_in_events_phase_is_finished_as_a_commit(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())
    root = store.root
    commits = commit_count(root)
    offset = (root / FIRST_SHARD).stat().st_size
    # every file and the event were written; the crash came before the commit
    new = make_memory(id="mem-2", attribute="lang").with_changes(path=memory_path("mem-2"))
    record_file(root, "mem-2").parent.mkdir(exist_ok=True)
    record_file(root, "mem-2").write_text(new.to_markdown())
    append_events(
        root / FIRST_SHARD,
        [
            Event(
                id="ev-done-1",
                ts="2027-03-14T10:20:00+08:00",
                actor="crash@example.com",
                action="create",
                memory_ids=("mem-2",),
                to_status="active",
            )
        ],
    )
    write_journal(
        store,
        phase="events",
        actor="crash@example.com",
        message="crashed change",
        paths=[memory_path("mem-2")],
        created=[memory_path("mem-2")],
        events=["ev-done-1"],
        events_file=FIRST_SHARD,
        events_offset=offset,
    )
    with transaction(store, actor=ACTOR, message="next"):
        pass
    assert commit_count(root) == commits + 1
    commit = head(root)
    assert commit.author.email == "crash@example.com"
    assert (
        "crashed change" in commit.message and "finished after an interrupted run" in commit.message
    )
    assert set(commit.stats.files) == {memory_path("mem-2"), FIRST_SHARD}
    assert git_status(root) == []
    assert not (store.state_dir / JOURNAL_FILE).exists()
    assert store.get("mem-2") == new


def test_a_real_crash_before_the_commit_is_finished_by_the_next_writer(
    store: Store, make_memory: MakeMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Crash the process for real (an exception out of git commit inside apply)."""
    commits = commit_count(store.root)

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("power cut")

    with monkeypatch.context() as patch:
        patch.setattr(gitstore, "commit", crash)
        with pytest.raises(KeyboardInterrupt):
            add_memories(store, make_memory())
    assert json.loads((store.state_dir / JOURNAL_FILE).read_text())["phase"] == "events"
    assert commit_count(store.root) == commits
    with transaction(store, actor=ACTOR, message="next"):
        pass
    assert commit_count(store.root) == commits + 1
    assert git_status(store.root) == []
    assert Store(store.root).get("mem-1").status == "active"


def test_a_real_crash_while_writing_files_is_rolled_back(
    store: Store, make_memory: MakeMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_memories(store, make_memory())
    snapshot = {
        p: p.read_bytes()
        for p in store.root.rglob("*")
        if p.is_file() and ".git" not in p.parts and STATE_DIR not in p.parts
    }

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("power cut")

    with (
        monkeypatch.context() as patch,
        pytest.raises(KeyboardInterrupt),
    ):
        patch.setattr(transaction_module, "append_to_log", crash)
        with transaction(store, actor=ACTOR, message="crash") as tx:
            tx.transition("mem-1", "expired", action="sweep", reason="x")
            tx.create(make_memory(id="mem-2", attribute="lang"), action="create", reason="x")
    assert record_file(store, "mem-2").exists()  # the crash left it behind
    with transaction(store, actor=ACTOR, message="next"):
        pass
    after = {p: p.read_bytes() for p in snapshot}
    assert after == snapshot
    assert not record_file(store, "mem-2").exists()
    assert git_status(store.root) == []


def test_a_crash_after_the_commit_makes_no_second_commit(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())
    commits = commit_count(store.root)
    write_journal(
        store,
        phase="events",
        actor=ACTOR,
        message="already committed",
        paths=[memory_path("mem-1"), INDEX_FILE],
        created=[],
        events=[],
        events_file=FIRST_SHARD,
        events_offset=0,
    )
    with transaction(store, actor=ACTOR, message="next"):
        pass
    assert commit_count(store.root) == commits
    assert not (store.state_dir / JOURNAL_FILE).exists()


def test_a_torn_event_line_of_the_crashed_change_is_not_taken_as_written(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())
    root = store.root
    offset = (root / FIRST_SHARD).stat().st_size
    commits = commit_count(root)
    record_file(root, "mem-2").parent.mkdir(exist_ok=True)
    record_file(root, "mem-2").write_text(make_memory(id="mem-2").to_markdown())
    with (root / FIRST_SHARD).open("ab") as handle:  # power cut in the middle of the line
        handle.write(b'{"id":"ev-torn-1","ts":"2027-03-14T10:2')
    write_journal(
        store,
        phase="files",
        actor="crash@example.com",
        message="crashed change",
        paths=[memory_path("mem-2")],
        created=[memory_path("mem-2")],
        events=["ev-torn-1"],
        events_file=FIRST_SHARD,
        events_offset=offset,
    )
    with transaction(store, actor=ACTOR, message="next"):
        pass
    # the event never landed, so the change must be undone, not committed
    assert not record_file(root, "mem-2").exists()
    assert commit_count(root) == commits


# ------------------------------------------------------------------ derived cache
@pytest.fixture
def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = catalog.memory_sync._read_file  # what the memory rows' sync reads a file with

    def counting(path: str, rel: str, size: int) -> object:
        calls.append(rel)
        return real(path, rel, size)

    monkeypatch.setattr(catalog.memory_sync, "_read_file", counting)
    return calls


def three_memories(store: Store, make_memory: MakeMemory) -> None:
    add_memories(
        store,
        make_memory(id="mem-1"),
        make_memory(id="mem-2", attribute="lang"),
        make_memory(id="mem-3", attribute="editor"),
    )


def test_a_warm_open_reads_no_memory_file(
    store: Store, make_memory: MakeMemory, count_reads: list[str]
) -> None:
    three_memories(store, make_memory)
    cold = Store(store.root).memories
    count_reads.clear()
    warm = Store(store.root).memories
    assert count_reads == []
    assert warm == cold
    assert set(warm) == {"mem-1", "mem-2", "mem-3"}
    assert {m.path for m in warm.values()} == {memory_path(f"mem-{i}") for i in (1, 2, 3)}


def _save_like_an_editor(path: Path, text: str) -> None:
    """A new file renamed over the old one: how memgov, vim, sed -i and git write."""
    temp = path.with_name(path.name + ".swp")
    temp.write_text(text)
    os.replace(temp, path)


def test_editing_one_file_rereads_only_that_file(
    store: Store, make_memory: MakeMemory, count_reads: list[str]
) -> None:
    three_memories(store, make_memory)
    Store(store.root).load()
    path = record_file(store, "mem-2")
    edited = Store(store.root).get("mem-2").with_changes(content="Edited by hand, longer now.")
    _save_like_an_editor(path, edited.to_markdown())
    count_reads.clear()
    memories = Store(store.root).memories
    assert memories["mem-2"].content == "Edited by hand, longer now."
    assert count_reads == [memory_path("mem-2")]
    count_reads.clear()
    record_file(store, "mem-3").unlink()
    assert set(Store(store.root).memories) == {"mem-1", "mem-2"}
    assert count_reads == []


def test_an_edit_in_place_is_seen_by_the_full_check_and_by_a_writer(
    store: Store, make_memory: MakeMemory, count_reads: list[str]
) -> None:
    """Rewriting a file in place keeps its inode and its folder's mtime: the quick
    open does not see it (core.store.catalog says so); the full check does, and a
    transaction that changes the record reads it first."""
    three_memories(store, make_memory)
    Store(store.root).load()
    path = record_file(store, "mem-2")
    edited = Store(store.root).get("mem-2").with_changes(content="Edited in place.")
    path.write_text(edited.to_markdown())
    assert Store(store.root).refresh(full=True).memories["mem-2"].content == "Edited in place."
    path.write_text(edited.with_changes(content="Edited in place again.").to_markdown())
    writer = Store(store.root)
    with transaction(writer, actor=ACTOR, message="expire") as tx:
        tx.transition("mem-2", "expired", action="sweep", reason="x")
    assert "Edited in place again." in path.read_text()


def test_a_commit_elsewhere_is_seen_through_git(
    store: Store, make_memory: MakeMemory, count_reads: list[str]
) -> None:
    """HEAD moved since the catalog was written: the files git says changed are read,
    even an edit in place that left its folder alone."""
    three_memories(store, make_memory)
    Store(store.root).load()
    path = record_file(store, "mem-2")
    edited = Store(store.root).get("mem-2").with_changes(content="Committed by hand.")
    path.write_text(edited.to_markdown())
    subprocess.run(
        ["git", "commit", "-qam", "hand edit"],
        cwd=store.root,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@x",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@x",
        },
    )
    count_reads.clear()
    assert Store(store.root).memories["mem-2"].content == "Committed by hand."
    assert count_reads == [memory_path("mem-2")]


def test_the_cache_also_remembers_problems(
    store: Store, make_memory: MakeMemory, count_reads: list[str]
) -> None:
    three_memories(store, make_memory)
    (store.root / "memories" / "broken.md").write_text("no front matter\n")
    first = Store(store.root).load().problems
    count_reads.clear()
    second = Store(store.root).load().problems
    assert count_reads == []
    assert first == second and [p.path for p in second] == ["memories/broken.md"]


@pytest.mark.parametrize(
    "content",
    [b"not a pickle at all", b"", b"\x80\x04K\x01.", b"\x80\x04}\x94(\x8c\x07version\x94K\x03u."],
)
def test_a_corrupt_catalog_is_only_a_slower_open(
    store: Store, make_memory: MakeMemory, count_reads: list[str], content: bytes
) -> None:
    three_memories(store, make_memory)
    expected = dict(Store(store.root).memories)
    Store(store.root).catalog.delete()
    (store.state_dir / CATALOG_FILE).write_bytes(content)
    count_reads.clear()
    assert dict(Store(store.root).memories) == expected
    assert sorted(count_reads) == sorted(memory_path(f"mem-{i}") for i in (1, 2, 3))
    count_reads.clear()
    Store(store.root).load()
    assert count_reads == []  # rebuilt


def test_loading_without_the_cache_reads_everything(
    store: Store, make_memory: MakeMemory, count_reads: list[str]
) -> None:
    three_memories(store, make_memory)
    Store(store.root).load()
    count_reads.clear()
    Store(store.root).load(use_cache=False)
    assert len(count_reads) == 3


def test_the_catalog_is_not_in_git(store: Store, make_memory: MakeMemory) -> None:
    three_memories(store, make_memory)
    Store(store.root).load()
    assert (store.state_dir / CATALOG_FILE).exists()
    tracked = git.Repo(store.root).git.ls_files().splitlines()
    assert not [t for t in tracked if t.startswith(STATE_DIR)]
    assert git_status(store.root) == []


def test_a_memory_too_large_to_read_back_is_refused_whole(
    store: Store, make_memory: MakeMemory
) -> None:
    """Over 40,000 characters warns; over the 1 MiB read limit the write is refused,
    because the store could never read the file back (it would silently vanish)."""
    head = store.repo.head.commit.hexsha
    big = make_memory(content="word " * 220_000)  # 1.1 MB
    with pytest.raises(ValidationError) as caught:
        add_memories(store, big)
    assert caught.value.path == memory_path("mem-1") and caught.value.field == "content"
    assert not record_file(store, "mem-1").exists()
    assert store.repo.head.commit.hexsha == head


# ------------------------------------------------------------------------ config
def set_config(store: Store, text: str) -> None:
    (store.root / CONFIG_FILE).write_text(text, encoding="utf-8")


def test_config_round_trips_through_init(tmp_path: Path) -> None:
    store = Store.init(
        tmp_path / "team",
        scope="team",
        maintainers=("lead@example.com",),
        actor="lead@example.com",
    )
    again = Store(store.root).config
    assert again == store.config
    assert (again.scope, again.maintainers, again.index_max_bytes) == (
        "team",
        ("lead@example.com",),
        25_000,
    )


def test_config_keeps_unknown_settings_and_derives_tau2(store: Store) -> None:
    set_config(store, "tau1_days: 10\nfuture_setting: [1, 2]\n")
    config = Store(store.root).config
    assert config.tau2_days == 20.0
    assert config.extra == {"future_setting": [1, 2]}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("theta: 1.5\n", "theta"),
        ("theta: high\n", "theta"),
        ("tau1_days: 0\n", "tau1_days"),
        ("index_max_bytes: true\n", "index_max_bytes"),
        ("index_line_chars: 40.5\n", "index_line_chars"),
        ("index_max_lines: 199.9\n", "index_max_lines"),
        ("scope: public\n", "scope"),
        ("maintainers: lead\n", "maintainers"),
        ("owner: [a]\n", "owner"),
    ],
)
def test_bad_config_values_name_the_field(store: Store, text: str, field: str) -> None:
    set_config(store, text)
    with pytest.raises(ValidationError) as info:
        Store(store.root)
    assert info.value.field == field
    assert info.value.path == str(store.root / CONFIG_FILE)


@pytest.mark.parametrize("text", ["[1, 2]\n", "a: [\n", b"\xff\xfe".decode("latin-1")])
def test_unreadable_config_names_the_file(store: Store, text: str) -> None:
    (store.root / CONFIG_FILE).write_bytes(text.encode("latin-1"))
    with pytest.raises(ValidationError) as info:
        Store(store.root)
    assert info.value.path == str(store.root / CONFIG_FILE)


def test_a_hand_edit_since_the_last_transaction_is_not_overwritten(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())  # the same Store object keeps its snapshot
    path = record_file(store, "mem-1")
    path.write_text(path.read_text().replace("Use tables", "Use big tables"))
    with transaction(store, actor=ACTOR, message="expire") as tx:
        tx.transition("mem-1", "expired", action="sweep", reason="x")
    text = path.read_text()
    assert "status: expired" in text
    assert "Use big tables" in text


def test_a_commit_takes_a_removal_a_crash_already_staged(tmp_path: Path) -> None:
    """A kill between staging an erasure's removals and committing leaves files that are
    gone from disk and from the index but still in HEAD: ``git add`` refuses such a path
    ("pathspec did not match"), so recovery's commit must hand it to the commit only
    (found by bench/crash_loop.py, decide-conflict-neither killed at 0.18 s)."""
    root = tmp_path / "repo"
    repo = gitstore.init_repo(root)
    (root / "kept.md").write_text("one\n")
    (root / "gone.md").write_text("secret\n")
    gitstore.commit(repo, ["kept.md", "gone.md"], actor=ACTOR, message="first")
    subprocess.run(["git", "-C", str(root), "rm", "-q", "gone.md"], check=True)
    (root / "kept.md").write_text("two\n")
    assert gitstore.commit(repo, ["kept.md", "gone.md"], actor=ACTOR, message="finish")
    assert git_status(root) == []
    tree = subprocess.run(
        ["git", "-C", str(root), "ls-tree", "--name-only", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert tree == ["kept.md"]
