"""MEMORY.md within its caps (SPEC 2, seed 5.1): memgov writes the first active
memories in the index's order that fit the line and byte caps, then one line saying
how many more there are; every write leaves exactly that; doctor expects exactly
that; the byte cap fires first."""

from __future__ import annotations

import random

import pytest

from core.reports.doctor import diagnose
from core.store.config import CONFIG_FILE
from core.store.index import INDEX_FILE, overflow_line, parse_index, render_index
from core.store.store import Store
from core.store.transaction import transaction
from tests.conftest import ACTOR, MakeMemory, add_memories, git


def _capped(store: Store, **caps: int) -> Store:
    """The store with these caps in its committed config, opened again."""
    path = store.root / CONFIG_FILE
    path.write_text(
        path.read_text() + "".join(f"{k}: {v}\n" for k, v in caps.items()), encoding="utf-8"
    )
    git(store.root, "add", CONFIG_FILE)
    git(store.root, "commit", "-qm", "caps")
    return Store(store.root)


def _index(store: Store) -> str:
    return (store.root / INDEX_FILE).read_text(encoding="utf-8")


def _full_render(store: Store) -> str:
    fresh = Store(store.root)
    return render_index(fresh.load().memories.values(), fresh.config)


def _index_errors(store: Store) -> list[str]:
    return [f.render() for f in diagnose(Store(store.root)) if f.path == INDEX_FILE]


def test_the_index_lists_what_fits_and_counts_the_rest(
    store: Store, make_memory: MakeMemory
) -> None:
    store = _capped(store, index_max_lines=5)
    add_memories(store, *(make_memory(id=f"m-{i:02d}", attribute=f"a_{i:02d}") for i in range(12)))
    text = _index(store)
    lines = text.splitlines()
    assert len(lines) == 5
    assert [line.target for line in parse_index(text)] == [
        f"{Store(store.root).memories[f'm-{i:02d}'].path}" for i in range(4)
    ]
    assert lines[-1] + "\n" == overflow_line(8, store.config)
    assert "8 more active memories not listed" in lines[-1]
    assert _index_errors(store) == []

    # one of those listed expires: the next one in order moves up, the count drops
    with transaction(store, actor=ACTOR, message="expire") as tx:
        tx.transition("m-01", "expired", action="sweep", reason="x")
    targets = [line.target for line in parse_index(_index(store))]
    memories = Store(store.root).memories
    assert targets == [memories[f"m-{i:02d}"].path for i in (0, 2, 3, 4)]
    assert "7 more active memories" in _index(store)
    assert _index(store) == _full_render(store)
    assert _index_errors(store) == []


def test_an_index_that_fits_has_no_note(store: Store, make_memory: MakeMemory) -> None:
    store = _capped(store, index_max_lines=5)
    add_memories(store, *(make_memory(id=f"m-{i}", attribute=f"a_{i}") for i in range(5)))
    text = _index(store)
    assert len(parse_index(text)) == 5 and "more active memor" not in text


def test_the_byte_cap_fires_first(store: Store, make_memory: MakeMemory) -> None:
    store = _capped(store, index_max_bytes=400)
    add_memories(store, *(make_memory(id=f"m-{i:02d}", attribute=f"a_{i:02d}") for i in range(12)))
    text = _index(store)
    assert len(text.encode("utf-8")) <= 400
    listed = len(parse_index(text))
    assert 0 < listed < 12
    assert text.endswith(overflow_line(12 - listed, store.config))
    assert _index_errors(store) == []


def test_a_hand_removed_line_within_the_caps_is_an_error(
    store: Store, make_memory: MakeMemory
) -> None:
    store = _capped(store, index_max_lines=4)
    add_memories(store, *(make_memory(id=f"m-{i}", attribute=f"a_{i}") for i in range(6)))
    text = _index(store)
    first = text.splitlines(keepends=True)[0]
    (store.root / INDEX_FILE).write_text(text.replace(first, ""), encoding="utf-8")
    errors = _index_errors(store)
    assert any("active memory m-0 has no index line" in e for e in errors), errors
    # the memories past the caps are not reported missing
    assert not any("m-5 has no index line" in e for e in errors)


@pytest.mark.parametrize("seed", [3, 7])
def test_after_every_change_the_index_is_the_capped_render_of_every_record(
    store: Store, make_memory: MakeMemory, seed: int
) -> None:
    """A run of creates, expiries, retitles and erasures: after each write, MEMORY.md
    is exactly the capped render of every record (so writes that read only the first
    rows of the catalog and one count write what a whole render would)."""
    store = _capped(store, index_max_lines=4)
    rng = random.Random(seed)
    subjects = ["project:a", "project:b", "user:alice"]
    live: list[str] = []
    overflowed = 0
    for step in range(40):
        action = rng.choice(["create", "create", "create", "expire", "retitle", "erase"])
        if action == "create" or not live:
            memory_id = f"m-{step}"
            add_memories(
                store,
                make_memory(
                    id=memory_id,
                    subject=rng.choice(subjects),
                    attribute=f"a_{rng.randrange(6)}_{step}",
                    type=rng.choice(["preference", "semantic", "reflection"]),
                    title=f"Title {rng.randrange(100)}",
                ),
            )
            live.append(memory_id)
        else:
            memory_id = rng.choice(live)
            with transaction(store, actor=ACTOR, message=action) as tx:
                if action == "expire" and tx.get(memory_id).status == "active":
                    tx.transition(memory_id, "expired", action="sweep", reason="x")
                elif action == "retitle":
                    tx.update(memory_id, action="edit", reason="x", title=f"T {step}")
                elif action == "erase":
                    tx.erase(memory_id, action="delete", reason="x")
                    live.remove(memory_id)
        assert _index(store) == _full_render(store), step
        overflowed += "more active memor" in _index(store)
    assert overflowed >= 3  # several steps ran past the caps
    assert _index_errors(store) == []
