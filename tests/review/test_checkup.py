"""The doctor's verdict over a workspace (core.reports.checkup)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import ACTOR, FakeClock, add_memories, record_file

from core.domain.record import Memory
from core.reports.checkup import check_workspace
from core.store.store import Store
from core.store.workspace import Workspace


def test_clean_stores_pass_and_count_their_memories(
    tmp_path: Path, clock: FakeClock, make_memory: Callable[..., Memory]
) -> None:
    private = Store.init(tmp_path / "private", owner=ACTOR, actor=ACTOR, clock=clock)
    team = Store.init(tmp_path / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    add_memories(private, make_memory(id="m1"), make_memory(id="m2", attribute="lang"))
    checkup = check_workspace(Workspace([private, team]))
    assert not checkup.failing
    assert [(c.store, c.findings, c.memories) for c in checkup.stores] == [
        (private, (), 2),
        (team, (), 0),
    ]
    assert checkup.to_dict() == {
        "clean": True,
        "stores": [
            {"store": str(private.root), "memories": 2, "findings": []},
            {"store": str(team.root), "memories": 0, "findings": []},
        ],
    }


def test_an_error_fails(tmp_path: Path, clock: FakeClock) -> None:
    store = Store.init(tmp_path / "s", owner=ACTOR, actor=ACTOR, clock=clock)
    (store.root / "memories" / "broken.md").write_text("not a record\n", encoding="utf-8")
    checkup = check_workspace(Workspace([store]))
    assert checkup.failing
    assert any(f.severity == "error" for f in checkup.stores[0].findings)
    assert checkup.to_dict()["clean"] is False


def test_a_warning_fails_only_when_strict(
    tmp_path: Path, clock: FakeClock, make_memory: Callable[..., Memory]
) -> None:
    store = Store.init(tmp_path / "s", owner=ACTOR, actor=ACTOR, clock=clock)
    add_memories(store, make_memory(id="mem-1"))
    path = record_file(store, "mem-1")
    path.write_text(path.read_text().replace("Use tables", "Use big tables"))  # not committed
    lenient = check_workspace(Workspace([store]))
    assert [f.severity for f in lenient.stores[0].findings] == ["warning"]
    assert not lenient.failing
    assert check_workspace(Workspace([store]), strict=True).failing
