"""Held memories: an internal address bound for the team store, or a memory erased and
written again, waits for a person instead of being refused or silently imported
(core.importers.held, core.review.held); a private memory keeps its internal address.
Real folders in temporary directories, real stores, the real queue and decisions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from support_agent import ACTOR, ADDRESS, HELD_FILE, HOST, init_stores, write_ops_folder
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.domain.errors import ValidationError
from core.importers import CLAUDE_CODE, import_folder
from core.review.decide import decide
from core.review.queue import build_queue, get_item
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace, open_workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return open_workspace([init_stores(tmp_path / "stores")])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return write_ops_folder(tmp_path / "ops" / "memory")


def records(ws: Workspace, scope: str = "private") -> list[str]:
    found = ws.private if scope == "private" else ws.team
    store = Store(found.root)  # type: ignore[union-attr]
    return sorted(m.content for m in store.memories.values() if m.status == "active")


def held_files(ws: Workspace) -> list[dict[str, object]]:
    root = ws.private.root  # type: ignore[union-attr]
    return [yaml.safe_load(p.read_text()) for p in sorted((root / "held").glob("held-*.yaml"))]


def test_a_private_note_keeps_its_internal_address(ws: Workspace, folder: Path) -> None:
    """The private store never leaves the machine: the address is the project's data."""
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)

    grafana = next(i for i in report.items if i.origin.startswith("project_grafana"))
    assert grafana.outcome == "written" and grafana.scope == "private"
    assert [t for t in records(ws) if HOST in t] == [
        f"The dashboards are on {HOST}; the on-call board is the first one."
    ]
    assert not any(h["file"] == "project_grafana.md" for h in held_files(ws))


def test_a_team_note_with_an_internal_address_is_held_with_its_line_marked(
    ws: Workspace, folder: Path
) -> None:
    """The team store is shared: the same kind of note there waits for a person."""
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)

    assert report.counts["held"] == 1 and report.counts["written"] == 2
    redis = next(i for i in report.items if i.origin.startswith(HELD_FILE))
    assert redis.outcome == "held" and redis.scope == "team"
    assert records(ws, "team") == []
    (held,) = held_files(ws)
    assert held["reason"] == "sensitive" and held["file"] == HELD_FILE
    assert "a team memory leaves the machine" in str(held["detail"])
    assert ADDRESS not in yaml.safe_dump(held)  # the item points at the file, never its words
    (item,) = build_queue(open_workspace([ws.private.root.parent]), kinds=["held"])  # type: ignore[union-attr]
    assert item.analysis.marked == ((7, ("internal-ip-address",)),)  # type: ignore[union-attr]
    assert ADDRESS in (item.analysis.agent_text or "")  # type: ignore[union-attr]
    assert item.analysis.options == ("redact", "keep", "drop")  # type: ignore[union-attr]
    # held once: the same bytes are not held again
    assert import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR).counts["held"] == 1
    assert len(held_files(ws)) == 1


def test_redact_imports_it_with_the_address_marked(ws: Workspace, folder: Path) -> None:
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])

    decision = decide(ws, item.id, approve=True, option="redact", actor=ACTOR)

    assert decision.kind == "held" and decision.option == "redact" and decision.created
    # redacted, it is the team's, as the folder put it
    assert records(ws, "team") == [
        "The cache runs on [internal-ip-address], port 6379; restart it with systemctl."
    ]
    assert not any(ADDRESS in text for text in records(ws) + records(ws, "team"))
    assert held_files(ws)[0]["status"] == "approved"
    assert build_queue(ws, kinds=["held"]) == []
    again = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)  # decided: nothing new
    assert again.counts["held"] == 0 and again.counts["written"] == 0


def test_keep_makes_it_a_private_memory_as_it_is(ws: Workspace, folder: Path) -> None:
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])

    decide(ws, item.id, approve=True, option="keep", actor=ACTOR, reason="my own notes")

    kept = [t for t in records(ws) if ADDRESS in t]
    assert len(kept) == 1  # in the private store, which never leaves the machine
    assert records(ws, "team") == []
    assert held_files(ws)[0]["decision_reason"] == "my own notes"


def test_drop_imports_nothing_and_is_not_asked_again(ws: Workspace, folder: Path) -> None:
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])

    decide(ws, item.id, approve=False, actor=ACTOR)

    assert len(records(ws)) == 2 and records(ws, "team") == []
    again = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    redis = next(i for i in again.items if i.origin.startswith(HELD_FILE))
    assert redis.outcome == "skipped" and "do not import it" in redis.reasons[0]
    # the agent edits the file: new bytes, new evidence, held again
    path = folder / HELD_FILE
    path.write_text(path.read_text().replace("6379", "6380"))
    assert import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR).counts["held"] == 1


def test_a_rejection_takes_no_approval_option(ws: Workspace, folder: Path) -> None:
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    (item,) = build_queue(ws, kinds=["held"])
    with pytest.raises(ValidationError, match="rejecting a held item means 'drop'"):
        decide(ws, item.id, approve=False, option="keep", actor=ACTOR)
    with pytest.raises(ValidationError, match="unknown option"):
        decide(ws, item.id, approve=True, option="learn", actor=ACTOR)
    assert held_files(ws)[0]["status"] == "open"


def erase_style(ws: Workspace) -> None:
    store = Store(ws.private.root)  # type: ignore[union-attr]
    style = next(m for m in store.memories.values() if m.content == "Answer tersely.")
    with transaction(store, actor=ACTOR, message="test: erase") as tx:
        tx.erase(style.id, action="erase", reason="not true")


def test_a_memory_erased_and_written_again_is_held(ws: Workspace, folder: Path) -> None:
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    erase_style(ws)
    # the agent writes it again, reworded only in form
    (folder / "feedback_style.md").write_text(
        "---\nname: Style\ntype: feedback\n---\n\n**Answer  tersely.**\n"
    )

    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)

    style = next(i for i in report.items if i.origin.startswith("feedback_style"))
    assert style.outcome == "held" and "re-learned after deletion" in style.reasons[0]
    assert "Answer tersely." not in records(ws)
    held = next(h for h in held_files(ws) if h["reason"] == "relearned")
    assert "tersely" not in yaml.safe_dump(held)  # the erased words never come back
    item = get_item(ws, str(held["id"]))
    assert item.analysis.options == ("learn", "forget")  # type: ignore[union-attr]


def test_forget_keeps_it_erased_and_learn_brings_it_back(ws: Workspace, folder: Path) -> None:
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    erase_style(ws)
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    held = next(h for h in held_files(ws) if h["reason"] == "relearned")

    decide(ws, str(held["id"]), approve=False, actor=ACTOR)

    assert "Answer tersely." not in records(ws)
    again = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    style = next(i for i in again.items if i.origin.startswith("feedback_style"))
    assert style.outcome == "skipped" and "keep it forgotten" in style.reasons[0]

    # written again with other words: held again, and this time learnt
    (folder / "feedback_style.md").write_text(
        "---\nname: Style\ntype: feedback\n---\n\nAnswer tersely, in English.\n"
    )
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    held2 = next(h for h in held_files(ws) if h["status"] == "open" and h["reason"] == "relearned")
    decide(ws, str(held2["id"]), approve=True, option="learn", actor=ACTOR)
    assert "Answer tersely, in English." in records(ws)


def test_a_held_file_pointing_outside_its_folder_is_not_read(ws: Workspace, folder: Path) -> None:
    """A held item is untrusted input: one naming a file outside the agent's folder
    is reported, never read or shown."""
    import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    root = ws.private.root  # type: ignore[union-attr]
    (path,) = (root / "held").glob("held-*.yaml")
    data = yaml.safe_load(path.read_text())
    data["file"] = "../../../etc/passwd.md"
    path.write_text(yaml.safe_dump(data))

    assert build_queue(ws, kinds=["held"]) == []
