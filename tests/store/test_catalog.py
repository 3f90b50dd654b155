"""The catalog (core.store.catalog): a derived sqlite index that an open trusts only
as far as the files say, and that a write keeps current."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from core.domain.record import Memory
from core.store import catalog as catalog_module
from core.store.catalog import CATALOG_FILE, memory_sync
from core.store.index import INDEX_FILE, render_index
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction
from tests.conftest import ACTOR, MakeMemory, add_memories, record_file


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The memory files the catalog reads (a real counter around the real reader)."""
    calls: list[str] = []
    real = memory_sync._read_file  # what the memory rows' sync reads a file with

    def counting(path: str, rel: str, size: int) -> tuple[Memory | object, str]:
        calls.append(rel)
        return real(path, rel, size)

    monkeypatch.setattr(memory_sync, "_read_file", counting)
    return calls


def some(store: Store, make_memory: MakeMemory, count: int = 5) -> list[Memory]:
    memories = [make_memory(id=f"mem-{i}", attribute=f"attr_{i}") for i in range(count)]
    add_memories(store, *memories)
    return memories


def test_a_write_keeps_the_catalog_current_so_the_next_open_reads_nothing(
    store: Store, make_memory: MakeMemory, reads: list[str]
) -> None:
    some(store, make_memory)
    reads.clear()
    fresh = Store(store.root)
    assert set(fresh.memories) == {f"mem-{i}" for i in range(5)}
    assert fresh.memories["mem-3"].attribute == "attr_3"
    assert reads == []


def test_a_new_subfolder_and_a_removed_one_are_seen(
    store: Store, make_memory: MakeMemory, reads: list[str]
) -> None:
    some(store, make_memory, 2)
    Store(store.root).load()
    sub = store.root / "memories" / "team-a"
    sub.mkdir()
    moved = make_memory(id="mem-9", attribute="moved").with_changes(path="memories/team-a/mem-9.md")
    (sub / "mem-9.md").write_text(moved.to_markdown())
    reads.clear()
    assert "mem-9" in Store(store.root).memories
    assert reads == ["memories/team-a/mem-9.md"]
    shutil.rmtree(sub)
    assert "mem-9" not in Store(store.root).memories


def test_another_process_s_write_is_seen_by_a_store_that_read_before(
    store: Store, make_memory: MakeMemory
) -> None:
    some(store, make_memory, 2)
    reader = Store(store.root)
    assert reader.memories["mem-1"].status == "active"
    writer = Store(store.root)
    with transaction(writer, actor=ACTOR, message="expire") as tx:
        tx.transition("mem-1", "expired", action="sweep", reason="x")
    reader.forget()
    assert reader.memories["mem-1"].status == "expired"


def test_the_index_from_the_catalog_is_the_index_of_every_record(
    store: Store, make_memory: MakeMemory
) -> None:
    some(store, make_memory, 6)
    with transaction(store, actor=ACTOR, message="changes") as tx:
        tx.transition("mem-2", "expired", action="sweep", reason="x")
        tx.update("mem-4", action="edit", reason="x", title="A new title")
    add_memories(store, make_memory(id="mem-0b", attribute="attr_0", title="Same key order"))
    text = (store.root / INDEX_FILE).read_text()
    assert text == render_index(Store(store.root).load().memories.values(), store.config)
    assert "mem-2.md" not in text and "A new title" in text


def test_a_catalog_made_for_another_folder_is_rebuilt(
    store: Store, make_memory: MakeMemory, tmp_path: Path, reads: list[str]
) -> None:
    some(store, make_memory, 3)
    Store(store.root).load()
    other = Store.init(tmp_path / "other", owner="bob")
    other.state_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(store.state_dir / CATALOG_FILE, other.state_dir / CATALOG_FILE)
    assert len(Store(other.root).memories) == 0


def test_an_erasure_leaves_no_byte_of_the_content_in_the_catalog(
    store: Store, make_memory: MakeMemory
) -> None:
    secret_text = "Prefers the unlisted staging cluster zeta-nine"
    add_memories(
        store, make_memory(id="mem-1", content=secret_text), make_memory(id="mem-2", attribute="x")
    )
    Store(store.root).load()
    with transaction(store, actor=ACTOR, message="erase") as tx:
        tx.erase("mem-1", action="delete", reason="asked")
    store.memories  # noqa: B018 - the catalog is current again
    for name in os.listdir(store.state_dir):
        if name.startswith(CATALOG_FILE):
            assert b"zeta-nine" not in (store.state_dir / name).read_bytes(), name
    assert set(Store(store.root).memories) == {"mem-2"}


def test_queries_answer_from_the_key_columns(store: Store, make_memory: MakeMemory) -> None:
    add_memories(
        store,
        make_memory(id="a1", subject="project:alpha", attribute="lang"),
        make_memory(id="a2", subject="project:alpha", attribute="lang", condition="prod"),
        make_memory(id="b1", subject="project:beta", attribute="lang"),
        make_memory(id="a3", subject="project:alpha/web", attribute="style", supersedes="a1"),
    )
    with transaction(store, actor=ACTOR, message="expire") as tx:
        tx.transition("b1", "expired", action="sweep", reason="x")
    records = Store(store.root).memories
    key = ("private", "project:alpha", "lang", None)
    assert [m.id for m in records.by_key(key)] == ["a1"]
    assert sorted(m.id for m in records.with_subject("project:alpha")) == ["a1", "a2", "a3"]
    assert [m.id for m in records.with_subject("PROJECT:alpha")] == []
    assert [m.id for m in records.with_status("expired")] == ["b1"]
    assert [m.id for m in records.superseding("a1")] == ["a3"]
    assert records.summaries()["b1"] == ("project:beta", "expired")


def test_a_hand_commit_elsewhere_then_pulled_is_seen(
    store: Store, make_memory: MakeMemory, tmp_path: Path, reads: list[str]
) -> None:
    some(store, make_memory, 2)
    Store(store.root).load()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(store.root), str(clone)], check=True)
    target = record_file(clone, "mem-1")
    target.write_text(target.read_text().replace("status: active", "status: expired"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x"}
    env.update(GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
    subprocess.run(["git", "commit", "-qam", "expire by hand"], cwd=clone, check=True, env=env)
    subprocess.run(
        ["git", "pull", "-q", "--ff-only", str(clone)], cwd=store.root, check=True, env=env
    )
    reads.clear()
    assert Store(store.root).memories["mem-1"].status == "expired"
    assert reads == [memory_path("mem-1")]


def test_a_catalog_that_is_not_a_database_is_rebuilt(store: Store, make_memory: MakeMemory) -> None:
    some(store, make_memory, 2)
    Store(store.root).load()
    Store(store.root).catalog.delete()
    (store.state_dir / CATALOG_FILE).write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    assert set(Store(store.root).memories) == {"mem-0", "mem-1"}
    db = sqlite3.connect(store.state_dir / CATALOG_FILE)
    assert db.execute("PRAGMA user_version").fetchone()[0] == catalog_module.SCHEMA_VERSION


def _index_is_the_full_render(store: Store) -> None:
    fresh = Store(store.root)
    expected = render_index(fresh.load().memories.values(), fresh.config)
    assert (store.root / INDEX_FILE).read_text() == expected


def test_a_hand_edit_that_expires_a_record_leaves_the_index_at_the_next_write(
    store: Store, make_memory: MakeMemory
) -> None:
    some(store, make_memory, 3)
    path = record_file(store, "mem-1")
    temp = path.with_name("mem-1.md.swp")
    temp.write_text(path.read_text().replace("status: active", "status: expired"))
    os.replace(temp, path)
    add_memories(Store(store.root), make_memory(id="mem-7", attribute="late"))
    assert "mem-1.md" not in (store.root / INDEX_FILE).read_text()
    _index_is_the_full_render(store)


def test_secret_flags_scanned_in_chunks_are_those_of_each_text() -> None:
    from core.demo import fake_token

    texts = [f"a clean note number {n} about deploys and tables" for n in range(150)]
    texts[3] = f"token {fake_token('ghp_', 36, seed=3)} in the middle"
    hidden = fake_token("ghp_", 36, seed=4)
    texts[100] = f"split {hidden[:10]}\u200b{hidden[10:]} with a zero-width space"
    flags = catalog_module.secret_flags(texts)
    assert [i for i, f in enumerate(flags) if f] == [3, 100]
    assert flags == [catalog_module._has_secret(t) for t in texts]
