"""Recall by the catalog's rank index answers what reading every record answers.

:func:`core.writing.decay.by_rank` walks the recall index (core.store.catalog
recall_rows) and builds only the records it shows; :func:`core.writing.decay.by_reading`
builds and weighs every active record of the key. On a store with records of many
weights (ties, a weight that underflows to 0, times in the future, a confidence of
0), hinted preferences, records the steering detector flags (withheld), one a person
kept and a candidate the gate held, every query answers the same records, in the same
order, with the same weights and the same withheld ids; and still after a write, a
decision and its undo, an edit of a record file behind the store's back and a checkout
that changes files under it, on the same warm store. A catalog whose rows disagree
with the records, or an id two files claim, is not trusted: recall reads every record.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock, _make_memory, add_memories, git, head
from support_recall import plant, queries

from core.review.decide import decide
from core.review.revert import revert
from core.store.reaching import Reaching
from core.store.store import Store
from core.store.workspace import Workspace
from core.writing import decay


@pytest.fixture
def planted(
    stored: Callable[[Callable[[Store, FakeClock], None]], Store], clock: FakeClock
) -> Store:
    clock.advance(days=1)
    return stored(plant)


def answers(store: Store, walked: decay.Walked | None) -> tuple[list[tuple[str, float]], list[str]]:
    assert walked is not None, "the index could not say"
    ranked, held = walked
    return [(r.memory.id, r.weight) for r in ranked], held


def same(store: Store, prefix: str | None, attribute: str | None, limit: int) -> None:
    now = store.now()
    fast = decay.by_rank(store, prefix, attribute, now, limit, Reaching(store))
    slow = decay.by_reading(store, prefix, attribute, now, limit, Reaching(store))
    assert answers(store, fast) == answers(store, slow), (prefix, attribute, limit)


def test_every_query_answers_as_reading_every_record(planted: Store) -> None:
    store = planted
    withheld_seen = weights_zero = 0
    for prefix, attribute, limit in queries():
        same(store, prefix, attribute, limit)
        ranked, held = answers(
            store, decay.by_reading(store, prefix, attribute, store.now(), limit, Reaching(store))
        )
        withheld_seen += bool(held)
        weights_zero += any(w == 0.0 for _i, w in ranked)
    # the store holds what the walk must get right: withheld records and zero weights
    assert withheld_seen and weights_zero
    found = decay.by_reading(store, "project:", None, store.now(), 1000, Reaching(store))[0]
    ids = [r.memory.id for r in found]
    assert "m-018" in ids and "m-005" not in ids  # kept reaches; flagged does not


def test_recall_gives_the_same_answer_and_withheld_ids(planted: Store) -> None:
    store = planted
    for prefix, attribute, limit in (("project:a", None, 3), ("project:", "attr_5", 10)):
        withheld: list[str] = []
        got = decay.recall(
            store,
            subject_prefix=prefix,
            attribute=attribute,
            actor=ACTOR,
            limit=limit,
            record_usage=False,
            withheld=withheld,
        )
        slow = decay.by_reading(store, prefix, attribute, store.now(), limit, Reaching(store))
        assert ([(r.memory.id, r.weight) for r in got], withheld) == answers(store, slow)


def test_the_same_after_changes_on_a_warm_store(planted: Store, clock: FakeClock) -> None:
    store = planted

    def check(expect_first: str | None = None) -> list[str]:
        store.forget()  # what the MCP server does before each call
        for prefix, attribute, limit in queries()[::7]:
            same(store, prefix, attribute, limit)
        ranked, _held = answers(
            store, decay.by_rank(store, "project:a", None, store.now(), 100, Reaching(store))
        )
        if expect_first is not None:
            assert ranked[0][0] == expect_first
        return [i for i, _w in ranked]

    check()
    before = head(store.root)
    # a write: a heavy new record comes first
    new = _make_memory(
        id="m-new", subject="project:a", attribute="fresh", confidence=1.0,
        created_at=clock.now, verified_at=clock.now,
    )  # fmt: skip
    add_memories(store, new)
    check("m-new")
    # a decision and its undo: the kept record is withheld again, then reaches again
    ws = Workspace([store])
    assert "m-018" in check() and "m-031" not in check()
    kept = decide(ws, "steering-m-031", approve=False, actor=ACTOR, reason="mine")
    assert "m-031" in check()
    revert(ws, kept.id, actor=ACTOR, reason="no")
    assert "m-031" not in check()
    # an edit behind the store's back (an editor's rename): the record's new weight counts
    path = store.root / store.memories["m-new"].path
    text = path.read_text(encoding="utf-8").replace("confidence: 1.0", "confidence: 0.01")
    assert text != path.read_text(encoding="utf-8")
    temp = store.root / "edited.tmp"
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)
    assert "m-new" not in check()[:1]
    # a checkout that changes files under it: the records of an earlier commit
    git(store.root, "add", "-A")
    git(store.root, "commit", "-q", "-m", "edit")
    git(store.root, "checkout", "-q", before)
    ids = check()
    assert "m-new" not in ids


def test_a_row_that_disagrees_with_its_record_is_not_trusted(planted: Store) -> None:
    store = planted
    now = store.now()
    top = answers(store, decay.by_rank(store, "project:a", None, now, 3, Reaching(store)))[0]
    catalog = store.memories.catalog
    with sqlite3.connect(catalog.path) as db:  # another program wrote the catalog
        db.execute("UPDATE entries SET rank = rank + 5 WHERE id = ?", (top[-1][0],))
    store.forget()
    assert decay.by_rank(store, "project:a", None, now, 3, Reaching(store)) is None
    got = decay.recall(
        store, subject_prefix="project:a", attribute=None, actor=ACTOR, limit=3, record_usage=False
    )
    assert [(r.memory.id, r.weight) for r in got] == top


def test_an_id_two_files_claim_is_read_the_slow_way(planted: Store) -> None:
    store = planted
    now = store.now()
    first = answers(store, decay.by_rank(store, "project:a", None, now, 5, Reaching(store)))[0]
    memory = store.memories[first[0][0]]
    # a second file of the id, superseded, in a folder listed before the record's own:
    # the store keeps that one (core.store.records), and it is not active
    copy = store.root / "memories" / "0" / f"{memory.id}.md"
    copy.parent.mkdir()
    text = (store.root / memory.path).read_text(encoding="utf-8")
    copy.write_text(text.replace("status: active", "status: superseded"), encoding="utf-8")
    store.forget()
    assert decay.by_rank(store, "project:a", None, now, 5, Reaching(store)) is None
    got = decay.recall(
        store, subject_prefix="project:a", attribute=None, actor=ACTOR, limit=5, record_usage=False
    )
    slow = answers(store, decay.by_reading(store, "project:a", None, now, 5, Reaching(store)))
    assert [(r.memory.id, r.weight) for r in got] == slow[0]
    assert memory.id not in [i for i, _w in slow[0]]


def test_a_missing_or_older_catalog_is_built_with_the_index(planted: Store) -> None:
    store = planted
    path = store.memories.catalog.path
    expected = [
        answers(store, decay.by_reading(store, p, a, store.now(), n, Reaching(store)))
        for p, a, n in queries()[::11]
    ]
    for damage in ("drop the index", "delete the file", "garbage"):
        store.memories.catalog.delete()
        if damage == "drop the index":  # a catalog of this schema made before the index
            Store(store.root, clock=store.clock).memories.catalog._query("SELECT 1")
            with sqlite3.connect(path) as db:
                db.execute("DROP INDEX entries_recall_subject")
                db.execute("DROP INDEX entries_recall_attribute")
        elif damage == "delete the file":
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        else:
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            path.write_bytes(b"not a database at all" * 100)
        fresh = Store(store.root, clock=store.clock)
        got = [
            answers(fresh, decay.by_rank(fresh, p, a, fresh.now(), n, Reaching(fresh)))
            for p, a, n in queries()[::11]
        ]
        assert got == expected, damage
        indexes = {
            name
            for (name,) in fresh.memories.catalog._query(
                "SELECT name FROM sqlite_master WHERE type = 'index'"
            )
        }
        assert {"entries_recall_subject", "entries_recall_attribute"} <= indexes
        fresh.memories.catalog.delete()


def test_the_walk_reads_the_index_not_every_row(planted: Store) -> None:
    catalog = planted.memories.catalog
    for prefix, attribute in (("project:a", None), ("project:a", "attr_1"), (None, "attr_1")):
        catalog.recall_rows(prefix, attribute, 5)  # INDEXED BY: an error if it cannot
    plan = " ".join(
        str(row)
        for row in catalog._query(
            "EXPLAIN QUERY PLAN SELECT rel, id, rank FROM entries "
            "INDEXED BY entries_recall_subject WHERE reason IS NULL AND status = 'active' "
            "AND subject >= ? AND subject < ? ORDER BY rank DESC LIMIT 5",
            ("project:a", "project:b"),
        )
    )
    assert "COVERING INDEX entries_recall_subject" in plan


def test_a_prefix_with_no_next_string_is_compared(planted: Store, clock: FakeClock) -> None:
    store = planted
    last = "project:z\ud7ff"  # the code point before the surrogates: no next string
    add_memories(
        store,
        *(
            _make_memory(
                id=f"m-edge-{n}", subject=subject, attribute="edge", confidence=confidence,
                created_at=clock.now, verified_at=clock.now,
            )
            for n, (subject, confidence) in enumerate(
                ((last, 0.5), (last + "x", 0.6), ("project:z\ue000", 1.0), ("project:{", 1.0))
            )
        ),
    )  # fmt: skip
    now = store.now()
    got = answers(store, decay.by_rank(store, last, None, now, 10, Reaching(store)))
    assert [i for i, _w in got[0]] == ["m-edge-1", "m-edge-0"]
    same(store, last, None, 1)
    same(store, last, "edge", 10)


def test_an_index_dropped_under_an_open_catalog_is_made_again(planted: Store) -> None:
    store = planted
    now = store.now()
    before = answers(store, decay.by_rank(store, "project:a", None, now, 5, Reaching(store)))
    with sqlite3.connect(store.memories.catalog.path) as db:  # another program
        db.execute("DROP INDEX entries_recall_subject")
    store.forget()
    assert (
        answers(store, decay.by_rank(store, "project:a", None, now, 5, Reaching(store))) == before
    )
