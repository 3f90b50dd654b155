"""``remember_many``: a list of candidates through the write pipeline in one
transaction and one commit, with exactly the outcomes of one ``remember`` per
candidate in a row (same kinds, ids, files and event actions)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ACTOR, FakeClock, commit_count

from core.domain.errors import ValidationError
from core.domain.record import Source
from core.store import logs
from core.store.store import Store
from core.store.transaction import transaction
from core.writing.candidate import candidates_from_data
from core.writing.pipeline import Candidate, remember, remember_many

SUBJECT = "project:liyyro"
SAID = {
    "tr_1": "we use pnpm",
    "tr_2": "pnpm it is, again",
    "tr_3": "we moved to npm",
    "tr_4": "I edit in vim",
    "tr_5": "now I prefer helix",
    "tr_6": "pnpm, I said",
}


def fresh(root: Path, clock: FakeClock) -> tuple[Store, dict[str, Source]]:
    store = Store.init(root, owner=ACTOR, actor=ACTOR, clock=clock)
    sources = {}
    for task, text in SAID.items():
        rel, _ = logs.append_message(
            store.root, task=task, index=1, role="user", text=text, when=clock.now
        )
        sources[task] = Source(task=task, message_index=1, evidence=text, log=rel)
    return store, sources


def cand(source: Source | None, **overrides: Any) -> Candidate:
    fields: dict[str, Any] = {
        "content": "The project uses pnpm as its package manager.",
        "type": "semantic",
        "scope": "private",
        "subject": SUBJECT,
        "attribute": "package_manager",
        "value": "pnpm",
        "source": source,
        "s1": 0.9,
        "s2": 0.9,
    }
    fields.update(overrides)
    return Candidate(**fields)


def the_list(src: dict[str, Source]) -> list[Candidate]:
    npm = {"value": "npm", "content": "The project uses npm as its package manager."}
    vim = {
        "type": "preference",
        "subject": "user:me",
        "attribute": "editor",
        "value": "vim",
        "content": "I edit in vim.",
    }
    return [
        cand(src["tr_1"]),  # written
        cand(src["tr_2"]),  # merged (a new source)
        cand(src["tr_1"]),  # merged (reconfirmed)
        cand(src["tr_3"], **npm),  # conflict with the first
        cand(src["tr_6"]),  # merged into the conflict
        cand(src["tr_1"], s1=0.1, attribute="lint"),  # refused by the gate
        cand(src["tr_1"], content=""),  # empty
        cand(src["tr_1"], scope="task"),  # refused early
        cand(None, attribute="runtime"),  # refused: no source
        cand(src["tr_4"], **vim),  # written
        cand(src["tr_5"], **(vim | {"value": "helix", "content": "I prefer helix."})),  # supersedes
        # vim again: supersedes helix, under a fresh id (the superseded vim has its own)
        cand(src["tr_4"], **vim),
    ]


def state(store: Store) -> tuple[dict[str, str], list[tuple[str, tuple[str, ...], Any, Any]]]:
    files = {
        p.relative_to(store.root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((store.root / "memories").rglob("*"))
        if p.is_file()
    }
    found, bad = store.events()
    assert bad == []
    acts = [(e.action, e.memory_ids, e.from_status, e.to_status) for e in found]
    return files, acts


def test_a_batch_equals_the_same_candidates_one_by_one(tmp_path: Path, clock: FakeClock) -> None:
    one, src_one = fresh(tmp_path / "one", clock)
    many, src_many = fresh(tmp_path / "many", clock)
    before_one, before_many = commit_count(one.root), commit_count(many.root)

    singly = [remember(one, c, actor=ACTOR) for c in the_list(src_one)]
    batch = remember_many(many, the_list(src_many), actor=ACTOR)

    kinds = [o.kind for o in batch]
    assert kinds == [
        "written",
        "merged",
        "merged",
        "conflict",
        "merged",
        "refused",
        "empty",
        "refused",
        "refused",
        "written",
        "written",
        "written",
    ]
    assert batch[10].superseded == batch[9].memory_ids
    assert [o.to_dict() for o in batch] == [o.to_dict() for o in singly]
    assert state(many) == state(one)
    assert commit_count(one.root) == before_one + len(singly)
    assert commit_count(many.root) == before_many + 1
    # the catalog and the records agree with the files after the one commit
    assert {m.id: m for m in Store(many.root, clock=clock).memories.values()} == {
        m.id: m for m in one.memories.values()
    }


def test_an_empty_batch_writes_nothing(store: Store) -> None:
    before = commit_count(store.root)
    assert remember_many(store, [], actor=ACTOR) == []
    assert commit_count(store.root) == before


def test_one_bad_candidate_refuses_the_whole_list(store: Store) -> None:
    good = {"content": "x", "type": "semantic", "scope": "private", "subject": "s"}
    with pytest.raises(ValidationError) as caught:
        candidates_from_data([good | {"attribute": "a"}, good])
    assert caught.value.field == "attribute"
    assert str(caught.value).startswith("candidate 1: field 'attribute': is required")
    assert "nothing in the list was written" in str(caught.value)
    assert len(candidates_from_data([good | {"attribute": "a"}] * 2)) == 2
    assert len(candidates_from_data(json.loads(json.dumps(good | {"attribute": "a"})))) == 1


def test_a_savepoint_undoes_only_its_own_changes(tmp_path: Path, clock: FakeClock) -> None:
    from core.writing.pipeline import remember_in_transaction

    store, src = fresh(tmp_path / "s", clock)
    before = commit_count(store.root)
    with transaction(store, actor=ACTOR, message="remember: two, one fails") as tx:
        kept = remember_in_transaction(tx, cand(src["tr_1"]))
        with pytest.raises(RuntimeError), tx.savepoint():
            undone = remember_in_transaction(tx, cand(src["tr_3"], value="npm", content="npm."))
            assert undone.kind == "conflict"
            raise RuntimeError("this entry fails")
        assert set(tx.changed) == set(kept.memory_ids)
    assert commit_count(store.root) == before + 1
    assert {m.status for m in store.memories.values()} == {"active"}
    assert [e.action for e in store.events()[0]][-1] == "create"
