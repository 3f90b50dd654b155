"""``memgov history ID``: events oldest first, commits, the supersedes chain."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from conftest import FakeClock, MakeMemory, add_memories, record_file

from core.domain.record import Memory
from core.reports.history import history, supersedes_chain
from core.store.events import FIRST_SHARD, Event, append_events
from core.store.journal import JOURNAL_FILE
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction
from tui.cli import main


def replace(store: Store, old: str, new: Memory, actor: str) -> None:
    """The newer record points at the old one; the old one becomes superseded."""
    with transaction(store, actor=actor, message=f"replace {old} with {new.id}") as tx:
        tx.create(new, action="create", reason="newer evidence")
        tx.transition(old, "superseded", action="supersede", reason=f"replaced by {new.id}")


@pytest.fixture
def chain(stored: Callable[..., Store], make_memory: MakeMemory) -> Store:
    """A <- B <- C: B supersedes A, C supersedes B; an unrelated memory beside them."""

    def build(store: Store, clock: FakeClock) -> None:
        source = make_memory(id="a").source
        add_memories(
            store, make_memory(id="a", content="npm run deploy"), actor="alice@example.com"
        )
        add_memories(store, make_memory(id="other", attribute="lang"), actor="alice@example.com")
        clock.advance(days=1)
        replace(
            store,
            "a",
            make_memory(id="b", content="make release", supersedes="a", source=source),
            "bob@example.com",
        )
        clock.advance(days=1)
        replace(
            store,
            "b",
            make_memory(id="c", content="make ship", supersedes="b", source=source),
            "carol@example.com",
        )

    return stored(build)


def run_history(capsys: pytest.CaptureFixture[str], store: Store, memory_id: str) -> Any:
    code = main(["history", memory_id, "--store", str(store.root), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_history_of_the_oldest_record(chain: Store, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_history(capsys, chain, "a")
    assert data["id"] == "a"
    assert data["exists"] is True
    assert data["status"] == "superseded"
    assert data["supersedes_chain"] == {"older": [], "newer": ["b", "c"]}
    events = data["events"]
    assert [(e["action"], e["from"], e["to"], e["actor"]) for e in events] == [
        ("create", None, "active", "alice@example.com"),
        ("supersede", "active", "superseded", "bob@example.com"),
    ]
    assert [e["ts"] for e in events] == ["2027-03-14T10:20:00+08:00", "2027-03-15T10:20:00+08:00"]
    assert all(e["memory_ids"] == ["a"] for e in events)
    commits = data["commits"]
    assert [c["message"].splitlines()[0] for c in commits] == [
        "test: add memories",
        "replace a with b",
    ]
    assert [c["author"] for c in commits] == ["alice@example.com", "bob@example.com"]
    assert all(len(c["sha"]) == 40 and c["when"] for c in commits)


def test_history_in_the_middle_of_the_chain(
    chain: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_history(capsys, chain, "b")
    assert data["supersedes_chain"] == {"older": ["a"], "newer": ["c"]}
    assert [(e["action"], e["to"]) for e in data["events"]] == [
        ("create", "active"),
        ("supersede", "superseded"),
    ]
    assert [c["author"] for c in data["commits"]] == ["bob@example.com", "carol@example.com"]


def test_history_of_the_newest_record(chain: Store, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_history(capsys, chain, "c")
    assert data["status"] == "active"
    assert data["supersedes_chain"] == {"older": ["b", "a"], "newer": []}
    assert [e["action"] for e in data["events"]] == ["create"]
    assert len(data["commits"]) == 1


def test_an_unrelated_memory_has_no_chain(chain: Store) -> None:
    assert supersedes_chain(chain, "other") == ((), ())
    result = history(chain, "other")
    assert [e.action for e in result.events] == ["create"]


def test_history_events_follow_the_log_order(chain: Store) -> None:
    result = history(chain, "b")
    stamps = [e.ts for e in result.events]
    assert stamps == sorted(stamps)
    all_events, _ = chain.events()
    assert [e.id for e in result.events] == [e.id for e in all_events if "b" in e.memory_ids]


def test_text_output_shows_the_chain_and_the_events(
    chain: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "b", "--store", str(chain.root)]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0] == "b: superseded"
    assert "  replaced: a" in lines
    assert "  replaced by: c" in lines
    assert any("create" in line and "new -> active" in line for line in lines)
    rows = [line for line in lines if line.startswith("  20")]  # events and commits
    assert sum(line.split()[1] == "commit" for line in rows) == 2
    # one set of columns: the timestamps, the kinds and the changes line up
    columns = [re.match(r"  (\S+)\s+(\S+)\s+(\S)", line) for line in rows]
    for group in (2, 3):
        assert len({m.start(group) for m in columns if m}) == 1, (group, rows)


def test_history_of_an_erased_memory_keeps_its_events(
    chain: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    with transaction(chain, actor="alice@example.com", message="erase a") as tx:
        tx.erase("a", action="erase", reason="user asked")
    data = run_history(capsys, chain, "a")
    assert data["exists"] is False
    assert data["status"] == "deleted"
    assert [e["action"] for e in data["events"]] == ["create", "supersede", "erase"]
    assert "npm run deploy" not in json.dumps(data)


def test_history_of_an_unknown_id_is_an_error(
    chain: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "nobody", "--store", str(chain.root)]) == 2
    assert "no memory and no events with id 'nobody'" in capsys.readouterr().err


def test_events_a_crash_recovery_rolled_back_do_not_decide_the_status(
    chain: Store, make_memory: MakeMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    """A creation that crashed half-way was rolled back: its event stays in the log
    (and in the history, flagged), but the memory never existed."""
    root = chain.root
    offset = (root / FIRST_SHARD).stat().st_size
    append_events(
        root / FIRST_SHARD,
        [Event(id="ev-undone", ts="2027-03-16T10:20:00+08:00", actor="x", action="create",
               memory_ids=("ghost",), to_status="active")],
    )  # fmt: skip
    ghost = record_file(root, "ghost")
    ghost.parent.mkdir(exist_ok=True)
    ghost.write_text(make_memory(id="ghost").to_markdown())
    (chain.state_dir / JOURNAL_FILE).write_text(
        json.dumps({
            "phase": "files", "actor": "x", "message": "crashed", "events_offset": offset,
            "events_file": FIRST_SHARD,
            "paths": [memory_path("ghost")], "created": [memory_path("ghost")],
            "events": ["ev-undone", "ev-never-written"],
        })
    )  # fmt: skip
    with transaction(chain, actor="alice@example.com", message="next"):
        pass
    data = run_history(capsys, chain, "ghost")
    assert data["exists"] is False
    assert data["status"] is None  # not "active": that event did not happen
    assert [e["id"] for e in data["events"]] == ["ev-undone"]
    assert data["rolled_back_events"] == ["ev-undone"]
    # a memory without rolled-back events says so with an empty list
    assert run_history(capsys, chain, "c")["rolled_back_events"] == []


def test_the_commit_graph_is_written_again_only_after_head_moves(
    chain: Store, make_memory: MakeMemory
) -> None:
    graphs = chain.root / ".git" / "objects" / "info" / "commit-graphs"

    def written() -> bool:
        return graphs.is_dir() and any(graphs.iterdir())

    history(chain, "a")
    assert written()
    for graph in graphs.iterdir():  # gone: only a new write would bring it back
        graph.unlink()
    assert history(chain, "a").commits  # log works without a graph, only slower
    assert not written()  # HEAD did not move: no process was started to rewrite it
    add_memories(chain, make_memory(id="later", attribute="editor"), actor="alice@example.com")
    history(chain, "a")
    assert written()
