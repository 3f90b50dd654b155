"""What the catalog (core.store.catalog) indexes besides the memory rows: the request
files (read when they change, by hand or by git), the text search (exact: the same
answer as looking at every record), and the count of active rows its triggers keep."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
from pathlib import Path

import pytest
import yaml

from core.domain.errors import NotFoundError
from core.domain.record import Memory
from core.store import catalog as catalog_module
from core.store.catalog import SEARCHED, fold, request_rows
from core.store.layout import MEMORY_DIR
from core.store.request_files import Request
from core.store.requests import (
    REQUEST_DIR,
    file_request,
    get_request,
    load_requests,
    open_requests,
    request_problems,
)
from core.store.store import Store
from core.store.transaction import transaction
from tests.conftest import ACTOR, MakeMemory, add_memories, fake_token, git, record_file


@pytest.fixture
def request_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The request files the catalog reads (a counter around the real reader)."""
    calls: list[str] = []
    real = request_rows.read_request_file  # what the request rows read a file with

    def counting(path: Path, rel: str) -> Request | str:
        calls.append(rel)
        return real(path, rel)

    monkeypatch.setattr(request_rows, "read_request_file", counting)
    return calls


def _by_hand(store: Store, request_id: str, memory_id: str, **fields: str) -> Path:
    data = {
        "id": request_id,
        "kind": request_id.split("-")[0],
        "memory_id": memory_id,
        "reason": "written by hand",
        "requested_by": ACTOR,
        "requested_at": "2027-03-14T10:00:00+08:00",
        "status": "open",
        **fields,
    }
    path = store.root / REQUEST_DIR / f"{request_id}.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _two(store: Store, make_memory: MakeMemory) -> None:
    add_memories(
        store,
        make_memory(id="mem-1", attribute="a1"),
        make_memory(id="mem-2", attribute="a2"),
    )


def test_requests_come_from_the_catalog_and_hand_edits_are_seen(
    store: Store, make_memory: MakeMemory, request_reads: list[str]
) -> None:
    _two(store, make_memory)
    filed = file_request(store, kind="delete", memory_id="mem-1", reason="stale", actor=ACTOR)
    assert [r.id for r in load_requests(store)] == [filed.id]
    request_reads.clear()
    # the same Store object, no forget(): a file added by hand is seen at the next question
    added = _by_hand(store, "promote-20270314-hand01", "mem-2")
    assert [r.id for r in load_requests(store)] == sorted([filed.id, "promote-20270314-hand01"])
    assert request_reads == [f"{REQUEST_DIR}/{added.name}"]  # only the new file was read
    assert [r.id for r in open_requests(store, "mem-2")] == ["promote-20270314-hand01"]
    assert open_requests(store, "mem-2", kind="delete") == []
    # an edit in place (same inode): the request found is checked against its file
    before = os.stat(added).st_ino
    with added.open("r+") as handle:
        text = handle.read().replace("status: open", "status: rejected")
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    assert os.stat(added).st_ino == before
    assert get_request(store, "promote-20270314-hand01").status == "rejected"
    assert open_requests(store, "mem-2") == []
    # another process's view agrees, from its own (persistent) catalog, reading nothing
    request_reads.clear()
    other = Store(store.root)
    assert [r.status for r in load_requests(other)] == ["open", "rejected"]
    assert load_requests(other, status="open") == [filed]
    assert request_reads == []


def test_a_deleted_request_file_is_gone_from_every_question(
    store: Store, make_memory: MakeMemory
) -> None:
    _two(store, make_memory)
    filed = file_request(store, kind="delete", memory_id="mem-1", reason="stale", actor=ACTOR)
    assert open_requests(store, "mem-1") == [filed]
    (store.root / filed.path).unlink()
    assert load_requests(store) == []
    assert open_requests(store, "mem-1") == []
    with pytest.raises(NotFoundError):
        get_request(store, filed.id)
    assert request_problems(store) == []
    # and filing again makes a new one (the old one no longer counts as open)
    again = file_request(store, kind="delete", memory_id="mem-1", reason="stale!", actor=ACTOR)
    assert again.id != filed.id and load_requests(store) == [again]


def test_a_corrupt_request_file_is_reported_by_name_then_read_again_when_fixed(
    store: Store, make_memory: MakeMemory
) -> None:
    _two(store, make_memory)
    filed = file_request(store, kind="delete", memory_id="mem-1", reason="stale", actor=ACTOR)
    path = store.root / filed.path
    good = path.read_bytes()
    path.write_bytes(b"id: [unclosed\n")
    assert load_requests(store) == []
    ((rel, reason),) = request_problems(store)
    assert rel == filed.path and "not valid YAML" in reason
    with pytest.raises(NotFoundError):
        get_request(store, filed.id)
    path.write_bytes(good)
    assert load_requests(store) == [filed] and request_problems(store) == []


def test_a_linked_request_folder_is_one_problem_and_no_request(
    store: Store, make_memory: MakeMemory, tmp_path: Path
) -> None:
    _two(store, make_memory)
    filed = file_request(store, kind="delete", memory_id="mem-1", reason="stale", actor=ACTOR)
    assert load_requests(store) == [filed]
    folder = store.root / REQUEST_DIR
    folder.rename(tmp_path / "elsewhere")
    folder.symlink_to(tmp_path / "elsewhere")
    assert load_requests(store) == []
    assert [rel for rel, _ in request_problems(store)] == [REQUEST_DIR]
    with pytest.raises(NotFoundError):
        get_request(store, filed.id)
    folder.unlink()
    assert load_requests(store) == [] and request_problems(store) == []


def test_git_pull_brings_request_files_and_takes_them_away(
    store: Store, make_memory: MakeMemory, tmp_path: Path
) -> None:
    _two(store, make_memory)
    assert load_requests(store) == []
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(store.root), str(other)], check=True)
    path = _by_hand(Store(other), "delete-20270314-pulled", "mem-2")
    git(other, "add", str(path.relative_to(other)))
    git(other, "-c", f"user.email={ACTOR}", "-c", "user.name=t", "commit", "-q", "-m", "ask")
    branch = git(store.root, "branch", "--show-current").strip()
    git(store.root, "pull", "-q", "--ff-only", str(other), branch)
    assert [r.id for r in open_requests(store, "mem-2")] == ["delete-20270314-pulled"]
    git(store.root, "reset", "-q", "--hard", "HEAD~1")
    assert load_requests(store) == []


def test_a_full_sync_reads_a_request_edited_in_place_that_no_question_touched(
    store: Store, make_memory: MakeMemory
) -> None:
    _two(store, make_memory)
    filed = file_request(store, kind="delete", memory_id="mem-1", reason="stale", actor=ACTOR)
    path = store.root / filed.path
    with path.open("r+") as handle:  # in place: the folder does not change
        text = handle.read().replace("memory_id: mem-1", "memory_id: mem-2")
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    store.refresh(full=True)
    db = sqlite3.connect(store.catalog.path)
    assert db.execute("SELECT memory_id FROM requests").fetchall() == [("mem-2",)]
    assert open_requests(store, "mem-2") == [filed.with_changes(memory_id="mem-2")]


# ------------------------------------------------------------------ text search

#: letters in both cases, CJK (the seed's language), and what LIKE and FTS5 quote
_ALPHABET = "aAbBcC记忆测试中文 \"'%_\\.\n"


def _text(rng: random.Random, low: int, high: int) -> str:
    text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(low, high)))
    return text.strip() or "x"


def _needles(rng: random.Random, texts: list[str]) -> list[str]:
    found = ["", "zz", "记忆测试中文记忆", '"', "%", "_"]
    for _ in range(60):
        text = rng.choice(texts)
        size = rng.choice((1, 2, 3, 4, 6, 9))
        start = rng.randrange(max(len(text) - size, 0) + 1)
        needle = text[start : start + size]
        found.append(needle.swapcase() if rng.random() < 0.3 else needle)
        found.append("".join(rng.choice(_ALPHABET) for _ in range(size)))
    return found


def _check_search(store: Store, rng: random.Random) -> None:
    catalog = store.records.catalog
    memories = store.records.all()
    texts = {m.id: (store.root / m.path).read_text() for m in memories}
    for needle in _needles(rng, [m.content for m in memories]):
        assert catalog.text_holders(needle) == {i for i, t in texts.items() if needle in t}, needle
        quoted = {m.id for m in memories if needle in "\0".join(s.evidence for s in m.all_sources)}
        assert catalog.text_holders(needle, column="evidence") == quoted, needle
        expected = sorted(
            (m.path, m.id)
            for m in memories
            if any(
                fold(needle) in fold(value or "")
                for value in (m.id, m.subject, m.attribute, m.display_title, m.value, m.content)
            )
        )
        assert [(rel, i) for i, rel in catalog.search(needle)] == expected, needle
        assert catalog.search(needle, limit=2) == [(i, rel) for rel, i in expected][:2]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_text_search_answers_as_a_scan_of_every_record_does(
    store: Store, make_memory: MakeMemory, seed: int
) -> None:
    rng = random.Random(seed)
    memories = [
        make_memory(
            id=f"mem-{n}",
            attribute=f"attr_{n}",
            content=_text(rng, 5, 40),
            title=_text(rng, 1, 8).replace("\n", " ") if n % 3 == 0 else None,
            value=_text(rng, 1, 6).replace("\n", " ") if n % 4 == 0 else None,
        )
        for n in range(30)
    ]
    add_memories(store, *memories)
    assert SEARCHED == ("id", "subject", "attribute", "title", "value", "content")
    _check_search(store, rng)
    # kept in step by the writes: changed, erased, added records
    with transaction(store, actor=ACTOR, message="change") as tx:
        for n in rng.sample(range(30), 6):
            tx.update(f"mem-{n}", action="correct", reason="t", content=_text(rng, 5, 40))
        for n in rng.sample(range(30), 3):
            if f"mem-{n}" in tx.view:
                tx.erase(f"mem-{n}", action="delete", reason="t")
        tx.create(
            make_memory(id="mem-new", attribute="attr_new", content=_text(rng, 5, 40)),
            action="create",
            reason="t",
        )
    _check_search(store, rng)
    # an edit by hand, and a file removed by hand, seen by the next open
    victim = next(m for m in store.records.all() if m.id != "mem-new")
    path = record_file(store, victim.id)
    path.write_text(path.read_text().replace(victim.content, "记忆 edited by HAND"))
    record_file(store, "mem-new").unlink()
    again = Store(store.root)
    again.refresh(full=True)
    _check_search(again, rng)


def test_a_search_never_matches_a_credentials_characters(
    store: Store, make_memory: MakeMemory
) -> None:
    token = fake_token("ghp_", 36, seed=5)
    add_memories(
        store,
        make_memory(id="mem-1", attribute="a1", content=f"deploy with {token} on fridays"),
        make_memory(id="mem-2", attribute="a2", content="deploy on mondays"),
    )
    catalog = store.records.catalog
    assert catalog.search(token[4:20]) == []
    assert catalog.text_holders(token[4:20]) == {"mem-1"}  # an erasure still finds it
    in_path_order = sorted(["mem-1", "mem-2"], key=lambda i: store.get(i).path)
    assert [i for i, _ in catalog.search("DEPLOY")] == in_path_order
    assert [i for i, _ in catalog.search("fridays")] == ["mem-1"]
    assert store.records.search("on ") == in_path_order


def _catalog_bytes(store: Store) -> bytes:
    return b"".join(
        Path(f"{store.catalog.path}{suffix}").read_bytes()
        for suffix in ("", "-wal")
        if Path(f"{store.catalog.path}{suffix}").exists()
    )


def test_an_erasure_leaves_no_trigram_of_the_erased_text_in_the_catalog(
    store: Store, make_memory: MakeMemory
) -> None:
    unique = "vault7e3c9a1f"
    add_memories(
        store,
        make_memory(id="mem-1", attribute="a1", content=f"the code is {unique}"),
        make_memory(id="mem-2", attribute="a2", content="keep this one"),
    )
    catalog = store.records.catalog
    assert catalog.text_holders("7e3c9a") == {"mem-1"}  # the search tables are built
    pieces = [unique[i : i + 3].encode() for i in range(len(unique) - 2)]
    assert all(piece in _catalog_bytes(store) for piece in pieces)
    with transaction(store, actor=ACTOR, message="erase") as tx:
        tx.erase("mem-1", action="delete", reason="t")
    assert store.records.catalog.text_holders("7e3c9a") == set()
    left = _catalog_bytes(store)
    assert [piece for piece in pieces if piece in left] == []


# --------------------------------------------------------------- active count


def _count(store: Store) -> int:
    db = sqlite3.connect(store.catalog.path)
    try:
        ((n,),) = db.execute(
            "SELECT COUNT(*) FROM entries WHERE reason IS NULL AND status = 'active'"
        )
        return int(n)
    finally:
        db.close()


def _stored(store: Store) -> int:
    db = sqlite3.connect(store.catalog.path)
    try:
        ((v,),) = db.execute("SELECT v FROM meta WHERE k = 'active'")
        return int(v)
    finally:
        db.close()


def test_the_active_count_equals_the_rows_after_a_random_walk(
    store: Store, make_memory: MakeMemory
) -> None:
    rng = random.Random(11)
    made = 0
    statuses = {"active": "expired", "expired": "active", "conflict": "active"}
    for step in range(40):
        move = rng.choice(("create", "create", "transition", "erase", "restore", "hand", "sync"))
        live = sorted(store.records)
        if move == "create" or not live:
            batch = [
                make_memory(
                    id=f"mem-{made + k}",
                    attribute=f"a{made + k}",
                    status=rng.choice(("active", "active", "conflict")),
                )
                for k in range(rng.randint(1, 3))
            ]
            made += len(batch)
            add_memories(store, *batch)
        elif move == "transition":
            with transaction(store, actor=ACTOR, message="walk") as tx:
                for memory_id in rng.sample(live, min(3, len(live))):
                    status = tx.get(memory_id).status
                    if status in statuses:
                        tx.transition(memory_id, statuses[status], action="walk", reason="t")
        elif move == "erase":
            with transaction(store, actor=ACTOR, message="walk") as tx:
                tx.erase(rng.choice(live), action="delete", reason="t")
        elif move == "restore":  # what a revert does: a record put back as it was
            memory_id = rng.choice(live)
            before = store.get(memory_id)
            with transaction(store, actor=ACTOR, message="walk") as tx:
                if before.status in statuses:
                    tx.transition(memory_id, statuses[before.status], action="walk", reason="t")
            with transaction(store, actor=ACTOR, message="revert") as tx:
                tx.restore(before, reason="t", decision=f"d-{step}")
        elif move == "hand":  # by hand: a status edited, a file broken, a file removed
            path = record_file(store, rng.choice(live))
            what = rng.choice(("status", "break", "remove"))
            text = path.read_text()
            flipped = text.replace("status: active", "status: expired", 1)
            if flipped == text:
                flipped = text.replace("status: expired", "status: active", 1)
            if what == "remove":
                path.unlink()
            else:  # as an editor saves: a new file renamed over the old one
                temp = path.with_name(f"{path.name}.new")
                temp.write_text(flipped if what == "status" else "not a memory\n")
                temp.rename(path)
            store.forget()
        else:
            store.refresh(full=rng.random() < 0.5)
        assert store.records is not None  # synced
        assert _stored(store) == _count(store), (step, move)
        besides = rng.sample(sorted(store.records), min(2, len(store.records)))
        active_besides = sum(1 for i in besides if store.records[i].status == "active")
        assert store.catalog.count_active(besides) == _count(store) - active_besides


def test_a_full_sync_puts_a_wrong_count_right(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, *(make_memory(id=f"mem-{n}", attribute=f"a{n}") for n in range(4)))
    db = sqlite3.connect(store.catalog.path)
    db.execute("UPDATE meta SET v = '99' WHERE k = 'active'")
    db.commit()
    db.close()
    assert Store(store.root).catalog.count_active() == 99  # one row read, trusted
    fresh = Store(store.root)
    fresh.refresh(full=True)
    assert fresh.catalog.count_active() == 4 == _count(fresh)


def test_an_old_catalog_is_built_again_with_the_new_tables(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())
    db = sqlite3.connect(store.catalog.path)
    db.execute("PRAGMA user_version = 4")
    db.commit()
    db.close()
    again = Store(store.root)
    assert list(again.records) == ["mem-1"]
    db = sqlite3.connect(again.catalog.path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == catalog_module.SCHEMA_VERSION
    names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert names == set(catalog_module._TRIGGERS)
    assert again.catalog.count_active() == 1
    assert (store.root / MEMORY_DIR).is_dir()


def test_memory_rows_built_for_the_search_are_records(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory(id="mem-1", attribute="a1", content="记忆测试"))
    found = store.records.search("忆测")
    assert found == ["mem-1"] and isinstance(store.records[found[0]], Memory)


def test_a_conflict_set_is_found_by_its_id_through_one_index(tmp_path: Path) -> None:
    """The conflict id is a digest of the key; the catalog indexes that digest, so
    a decision names its set with one lookup, not a read of every open key."""
    from support_conflicts import conflict_store

    from core.domain.keys import conflict_item_id

    root = conflict_store(tmp_path / "s", 30)
    store = Store(root)
    catalog = store.memories.catalog
    keys = catalog.keys_with_status("conflict")
    assert len(keys) == 30
    for key in keys:
        assert catalog.conflict_key(conflict_item_id(key)) == key
    assert catalog.conflict_key("conflict-0000000000") is None
    plan = catalog.db.execute(
        "EXPLAIN QUERY PLAN SELECT scope FROM entries WHERE "
        "memgov_conflict_id(scope, subject, attribute, condition) = ? "
        "AND status = 'conflict' AND reason IS NULL",
        ("x",),
    ).fetchall()
    assert "entries_conflict_item" in str(plan)
    key = sorted(keys)[0]
    with transaction(store, actor="owner@example.com", message="settle one") as tx:
        for memory in store.memories.by_key(key):
            tx.transition(memory.id, "active", action="adjudicate", reason="test")
            break
    # one record of the set is left in conflict: the set is still found by its id
    assert Store(root).memories.catalog.conflict_key(conflict_item_id(key)) == key
