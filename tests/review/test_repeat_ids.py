"""health's "to label" reads the repeat candidates' ids from the store's local state
while the messages, the records' sources and keys, and the code are what they were
(core.reports.repeat_ids), and gives what finding them cold gives: after a message
logged, a record written, an undo, a log edited by hand (its size and time kept), a
checkout of older logs, and with the file deleted, garbage or of another shape."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.domain.record import Memory, Source
from core.reports.metrics import health
from core.reports.repeat_ids import FEATURES_FILE, IDS_FILE, repeat_ids
from core.review import labels
from core.store import logs
from core.store.store import Store
from core.writing.pipeline import Candidate, remember
from tests.conftest import FakeClock, git

AGENT = "agent@example.com"


def _said(store: Store, task: str, index: int, text: str) -> Source:
    rel, _ = store.log_message(task=task, index=index, role="user", text=text, actor=AGENT)
    return Source(task=task, message_index=index, evidence=text, log=rel)


def _write(store: Store, source: Source, attribute: str, content: str) -> str:
    outcome = remember(
        store,
        Candidate(
            content=content,
            type="preference",
            scope="private",
            subject="user:alice/project:shop",
            attribute=attribute,
            source=source,
            s1=0.9,
            s2=0.9,
        ),
        actor=AGENT,
    )
    assert outcome.memory_ids, outcome
    return outcome.memory_ids[0]


def _memories(store: Store) -> list[Memory]:
    return list(store.memories.values())


def _cold(store: Store) -> list[str]:
    labels._FOUND.clear()  # the process's own memory of them, too
    return [c.id for c in labels.repeat_candidates(store, _memories(store))]


def _kept(store: Store) -> Path:
    return store.state_dir / IDS_FILE


def _same(store: Store) -> list[str]:
    """The ids as a new process finds them (a store opened again, the logs read
    again), and cold."""
    for kept in (logs._PARSED, logs._MESSAGES, logs._ALL):
        kept.clear()
    store = Store(store.root, clock=store.clock)
    got = repeat_ids(store, _memories(store))
    assert got == _cold(store)
    assert json.loads(_kept(store).read_text("ascii"))["ids"] == got
    return got


def test_each_change_gives_what_finding_them_cold_gives(store: Store, clock: FakeClock) -> None:
    first = _said(store, "t1", 1, "Always use pnpm in this repo, never npm")
    _write(store, first, "package_manager", "Use pnpm, never npm.")
    clock.advance(days=1)
    said = _said(store, "t2", 1, "I told you again: pnpm, never npm")
    assert len(_same(store)) == 1
    # kept: asked again with nothing changed, the file is read, not written
    stamp = _kept(store).stat().st_mtime_ns
    assert repeat_ids(store, _memories(store)) == _cold(store)
    assert _kept(store).stat().st_mtime_ns == stamp
    # a message logged: the same statement three days on, from another task
    clock.advance(days=2)
    _said(store, "t3", 1, "Always use pnpm in this repo, never npm")
    assert len(_same(store)) == 2
    # a record written from a message: the same key twice
    clock.advance(hours=1)
    _write(store, _said(store, "t4", 1, "deploys go through ArgoCD"), "deploy", "ArgoCD.")
    clock.advance(days=1)
    count = len(store.memories)
    second = _write(store, _said(store, "t5", 1, "deploy via flux now"), "deploy", "Flux.")
    assert len(store.memories) == count + 1 and second in store.memories
    before_undo = _same(store)
    assert len(before_undo) == 3
    # an undo of that record's commit: its file and source gone
    git(store.root, "revert", "--no-edit", "HEAD")
    again = Store(store.root, clock=clock).memories
    assert second not in again and len(again) == count
    assert len(_same(store)) == 2
    # a record edited by hand: its key now the one t1's record has (t4 says it again)
    record = next(store.root.glob("memories/*/deploy-*.md"))
    record.write_text(
        record.read_text("utf-8").replace("attribute: deploy", "attribute: package_manager"),
        "utf-8",
    )
    Store(store.root, clock=clock).refresh(full=True)  # an edit in place: seen so
    assert len(_same(store)) == 3
    # a log edited by hand, its size and time kept: a marker taken out
    path = store.root / (said.log or "")
    text = path.read_text("utf-8")
    st = path.stat()
    path.write_text(text.replace("I told you again", "Noted, thanks ok"), "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size
    assert len(_same(store)) == 2
    # a checkout of the logs as they were before t3 said it: fewer candidates
    path.write_text(text, "utf-8")
    git(store.root, "checkout", "HEAD~6", "--", "logs")
    assert _same(store) != before_undo
    git(store.root, "checkout", "HEAD", "--", "logs")
    assert len(_same(store)) == 3


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        b"",
        b"{",
        b"\xff\x00",
        b"[]",
        b'{"key": 1, "ids": []}',
        "same key, ids of another shape",
        "same key, an id that is no candidate's form",
    ],
)
def test_a_missing_or_bad_file_is_found_again(
    store: Store, clock: FakeClock, garbage: bytes | str | None
) -> None:
    _said(store, "t1", 1, "use tabs in Go files please")
    clock.advance(hours=1)
    _said(store, "t2", 1, "I told you again, tabs in Go files")
    expected = _same(store)
    assert len(expected) == 1
    key = json.loads(_kept(store).read_text("ascii"))["key"]
    if garbage is None:
        _kept(store).unlink()
    elif isinstance(garbage, bytes):
        _kept(store).write_bytes(garbage)
    elif "another shape" in garbage:
        _kept(store).write_text(json.dumps({"key": key, "ids": {"a": 1}}), "ascii")
    else:
        _kept(store).write_text(json.dumps({"key": key, "ids": ["$(rm -rf ~)"]}), "ascii")
    assert repeat_ids(store, _memories(store)) == expected
    assert json.loads(_kept(store).read_text("ascii")) == {"key": key, "ids": expected}


def test_health_counts_what_it_counted_before(store: Store, clock: FakeClock) -> None:
    _said(store, "t1", 1, "use tabs in Go files please")
    clock.advance(hours=1)
    _said(store, "t2", 1, "I told you again, tabs in Go files")
    cold = next(m for m in health(store).measures if m.name == "repeats")
    assert "1 to label" in cold.shown
    warm = next(m for m in health(store).measures if m.name == "repeats")
    assert warm == cold


@pytest.mark.parametrize(
    "forged",
    [
        b"{",
        b"[]",
        {"version": "other"},
        {"row": "x"},
        {"row": [["again-en", 0, 10**6], None, []]},
        {"row": [["no-such-marker", 0, 1], None, []]},
        {"row": [["again-en", True, 2], None, []]},
        {"row": [None, 7, []]},
        {"row": [None, None, [1, 2]]},
        {"row": [None, None]},
    ],
)
def test_kept_features_of_the_wrong_form_are_read_again(
    store: Store, clock: FakeClock, forged: bytes | dict[str, object]
) -> None:
    _said(store, "t1", 1, "use tabs in Go files please")
    clock.advance(hours=1)
    _said(store, "t2", 1, "I told you again, tabs in Go files")
    expected = _same(store)
    path = store.state_dir / FEATURES_FILE
    good = json.loads(path.read_text("utf-8"))
    assert len(good["texts"]) == 2  # the two user messages' texts
    if isinstance(forged, bytes):
        path.write_bytes(forged)
    elif "version" in forged:
        path.write_text(json.dumps({**good, **forged}), "utf-8")
    else:
        texts = {name: forged["row"] for name in good["texts"]}
        path.write_text(json.dumps({**good, "texts": texts}), "utf-8")
    _kept(store).unlink()  # the ids found again: from the features
    assert _same(store) == expected
    assert json.loads(path.read_text("utf-8")) == good
