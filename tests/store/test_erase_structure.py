"""Erasure touches only what it erases: a record's title is usually the slug
of its id and of the agent's file name (``deploy-checklist`` in
``deploy-checklist-3debb0d0`` and ``deploy-checklist.md``), so an erasure that replaced
the title as bytes everywhere broke the ids in the event log, the request files and the
sync state, and the deleted memory came back at the next sync.

The property, for every record of a store built from a Claude Code folder whose titles
stand inside their ids (as 99 of 256 real topic files do): erasing it changes no other
record's bytes and no id; every event, request, held item and sync-state file still
parses; doctor is clean; the erased words are in no file and no git object; and the
agent's folder follows at the next sync, which then is idle, and holds the memory when
the agent writes it again.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

from core.importers import CLAUDE_CODE, import_folder, sync_folder
from core.importers.folder_state import read_state
from core.importers.held import load_held
from core.reports.doctor import diagnose
from core.review.decide import decide
from core.store.erase import parsed
from core.store.erase.scrub import kind_of, patterns, transform
from core.store.events import event_logs
from core.store.request_files import Request, read_request_file
from core.store.requests import file_request
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

ACTOR = "alice@example.com"


def topic(name: str, kind: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {body[:30]}\ntype: {kind}\n---\n\n{body}\n"


#: file -> (title, type, statement): every title at least 12 bytes, most inside the id
FILES = {
    "deploy-checklist.md": (
        "deploy-checklist",
        "project",
        "Before every production deploy run the smoke tests, then tag the release.",
    ),
    "feedback_testing-style.md": (
        "feedback_testing-style",
        "feedback",
        "Write integration tests against a real database, never a mocked one.",
    ),
    "project_release-train.md": (
        "release-train",
        "project",
        "Releases leave every second Tuesday; a missed train waits two weeks.",
    ),
    "user_preferred-editor.md": (
        "preferred-editor",
        "user",
        "Uses Helix as the editor and wants keybindings explained in its terms.",
    ),
    "reference_grafana-board.md": (
        "grafana-board-latency",
        "reference",
        "The latency board lives under Ops > API latency; p99 above 800 ms pages.",
    ),
}
INDEX = "# Memory index\n\n" + "".join(
    f"- [{title}]({name}) — {body[:40]}\n" for name, (title, _k, body) in FILES.items()
)
NOTE = "- Standups are at 9:30 and the notes go into the team wiki afterwards."


@pytest.fixture
def synced(tmp_path: Path) -> tuple[Path, Path]:
    """A private store that imported and synced a Claude Code folder, copied per test."""
    folder = tmp_path / "agent" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(INDEX + NOTE + "\n", encoding="utf-8")
    for name, (title, kind, body) in FILES.items():
        (folder / name).write_text(topic(title, kind, body), encoding="utf-8")
    root = tmp_path / "stores" / "private"
    Store.init(root, scope="private", owner=ACTOR, actor=ACTOR)
    ws = open_workspace([tmp_path / "stores"])
    report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
    assert report.counts.get("written") == len(FILES) + 1, report.render()
    sync_folder(CLAUDE_CODE, fresh(ws), folder, actor=ACTOR)
    inside = [m.id for m in Store(root).memories.values() if m.title and m.title in m.id]
    assert len(inside) >= 3, inside  # the case the scrub broke: the title is in the id
    return root, folder


def fresh(ws_or_root: Workspace | Path) -> Workspace:
    if isinstance(ws_or_root, Path):
        return Workspace(stores=[Store(ws_or_root)])
    return Workspace(stores=[Store(s.root) for s in ws_or_root.stores])


def record_files(root: Path) -> dict[str, bytes]:
    return {p.stem: p.read_bytes() for p in sorted((root / "memories").rglob("*.md"))}


def erase(root: Path, memory_id: str) -> None:
    store = Store(root)
    request = file_request(
        store, kind="delete", memory_id=memory_id, reason="no longer true", actor=ACTOR
    )
    decide(fresh(root), request.id, approve=True, actor=ACTOR, reason="erase it")


def all_git_text(root: Path) -> bytes:
    """Every object git holds, reachable or not, and every file of the work tree."""
    objects = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    files = b"".join(
        p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    )
    return objects + files


def assert_store_whole(root: Path, folder: Path) -> None:
    """Every structured file parses, every event line reads, doctor is clean."""
    findings = [f for f in diagnose(Store(root)) if f.severity == "error"]
    assert findings == [], findings
    for rel in event_logs(root):
        for line in (root / rel).read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            assert "[erased]" not in json.dumps(event["memory_ids"]), line
    for path in sorted((root / "requests").glob("*.yaml")):
        assert isinstance(read_request_file(path, f"requests/{path.name}"), Request), path
    _held, problems = load_held(Store(root))
    assert problems == []
    for path in sorted((root / "sync").glob("*.json")):
        state = json.loads(path.read_text(encoding="utf-8"))
        found = read_state(Store(root), state["format"], state["key"])
        assert found is not None and all("[erased]" not in rel for rel in found.files)
    assert (folder / "MEMORY.md").exists()


@pytest.mark.parametrize("name", sorted(FILES))
def test_erasing_a_record_whose_title_is_in_its_id_touches_nothing_else(
    synced: tuple[Path, Path], name: str
) -> None:
    root, folder = synced
    store = Store(root)
    (target,) = [m for m in store.memories.values() if (m.origin or {}).get("file") == name]
    before = record_files(root)
    title = FILES[name][0]
    body = FILES[name][2]

    erase(root, target.id)

    after = record_files(root)
    assert target.id not in after
    assert after == {i: b for i, b in before.items() if i != target.id}
    assert_store_whole(root, folder)
    assert body.encode() not in all_git_text(root)
    # the id (and the title inside it) stays where it points at the record
    events_text = "".join((root / rel).read_text() for rel in event_logs(root))
    assert f'"{target.id}"' in events_text

    # the agent's folder follows: the file goes, its index line goes
    report = sync_folder(CLAUDE_CODE, fresh(root), folder, actor=ACTOR)
    assert report.deleted == (name,), report.render()
    assert not (folder / name).exists()
    assert f"]({name})" not in (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert report.imported.counts.get("written", 0) == 0, report.render()

    # an unchanged folder: an idle sync
    again = sync_folder(CLAUDE_CODE, fresh(root), folder, actor=ACTOR)
    assert (again.written, again.deleted, again.held) == ((), (), ()), again.render()
    assert not [i for i in again.imported.items if i.outcome != "already-imported"]

    # the agent writes the deleted memory again: held, never let in
    (folder / name).write_text(topic(title, FILES[name][1], body), encoding="utf-8")
    relearned = sync_folder(CLAUDE_CODE, fresh(root), folder, actor=ACTOR)
    assert relearned.imported.counts.get("held") == 1, relearned.render()
    assert all(m.status != "active" or m.content != body for m in Store(root).memories.values())
    assert_store_whole(root, folder)


def test_erasing_every_record_one_after_another_keeps_the_store_whole(
    synced: tuple[Path, Path],
) -> None:
    root, folder = synced
    ids = sorted(Store(root).memories)
    for memory_id in ids:
        erase(root, memory_id)
        assert_store_whole(root, folder)
    assert Store(root).memories == {}
    text = all_git_text(root)
    for _title, _kind, body in FILES.values():
        assert body.encode() not in text
    assert NOTE.removeprefix("- ").encode() not in text


# --------------------------------------------------------------- the rules, file by file
PATS = patterns((b"deploy-checklist", b"run the smoke tests"), ("deploy-checklist-3debb0d0",))


def test_a_title_inside_an_id_or_a_file_name_is_left_and_standing_alone_goes() -> None:
    line = (
        b'{"id":"ev-1","memory_ids":["deploy-checklist-3debb0d0"],'
        b'"reason":"the deploy-checklist says: run the smoke tests",'
        b'"details":{"file":"deploy-checklist.md","title":"deploy-checklist"}}\n'
    )
    out = json.loads(transform("events/000001.jsonl", line, PATS))
    assert out["memory_ids"] == ["deploy-checklist-3debb0d0"]
    assert out["details"] == {"file": "deploy-checklist.md", "title": "[erased]"}
    assert out["reason"] == "the [erased] says: [erased]"


def test_a_needle_that_spans_structure_cannot_break_a_file() -> None:
    # the record's words happen to look like JSON structure: the value is what goes
    pats = patterns((b'smoke", "reason": "x',), ())
    line = b'{"id":"ev-2","memory_ids":[],"reason":"smoke", "reason": "x"}\n'
    out = transform("events/000002.jsonl", line, pats)
    assert json.loads(out) == json.loads(line)  # nothing of a value matched: unchanged
    request = (
        b"id: req-1\nkind: delete\nmemory_id: deploy-checklist-3debb0d0\n"
        b"reason: 'run the smoke\n  tests before a deploy'\n"
    )
    cleaned = transform("requests/req-1.yaml", request, PATS)
    value, ok = parsed.load_yaml(cleaned)
    assert ok and value["memory_id"] == "deploy-checklist-3debb0d0"
    assert value["reason"] == "[erased] before a deploy"  # folded over two lines, still found


def test_a_file_that_does_not_parse_still_loses_the_words() -> None:
    broken = b'{"id": "ev-3", "reason": "run the smoke tests"\n'
    assert b"smoke" not in transform("events/000003.jsonl", broken, PATS)
    assert kind_of("sync/claude-code-x.json") == "json"
    assert kind_of("held/held-1.yaml") == "yaml"
    assert kind_of("logs/2026-12-06.md") == "plain"


# ------------------------------------------------------- the property on the demo's store
def structured_files(root: Path) -> dict[str, bytes]:
    """Every file of the store but the records, by path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and "memories" not in p.parts
    }


def parses(rel: str, data: bytes) -> bool:
    if rel.endswith(".jsonl"):
        return all(parsed.load_json(line) is not None for line in data.splitlines())
    if rel.endswith(".json"):
        return parsed.load_json(data) is not None
    if rel.endswith((".yaml", ".yml")):
        return parsed.load_yaml(data)[1]
    return True


@pytest.mark.parametrize("number", range(9))
def test_erasing_any_record_of_the_demo_keeps_every_other_file_whole(
    demo: Path, number: int
) -> None:
    from support_desk import workspace

    root = demo / "private"
    store = Store(root)
    erasable = sorted(i for i, m in store.memories.items() if m.status == "active")
    if number >= len(erasable):
        pytest.skip(f"the demo has {len(erasable)} active private records")
    target = store.memories[erasable[number]]
    records, files = record_files(root), structured_files(root)
    errors = {f.render() for f in diagnose(store) if f.severity == "error"}
    assert all(parses(rel, data) for rel, data in files.items())

    request = file_request(store, kind="delete", memory_id=target.id, reason="x", actor=ACTOR)
    owner = Store(root).config.owner
    assert owner is not None
    decide(workspace(demo), request.id, approve=True, actor=owner, reason="erase it")

    assert record_files(root) == {i: b for i, b in records.items() if i != target.id}
    after = structured_files(root)
    assert [rel for rel, data in after.items() if not parses(rel, data)] == []
    now = {f.render() for f in diagnose(Store(root)) if f.severity == "error"}
    assert now <= errors, now - errors
    for rel in event_logs(root):
        for line in (root / rel).read_bytes().splitlines():
            assert all(ERASED_ID not in i for i in json.loads(line)["memory_ids"])
    assert target.content.encode() not in all_git_text(root)


ERASED_ID = "[erased]"
