"""Secrets already in records, written as the attack.

A record that reached a store before scanning existed (the demo has one: a
hand-pasted note with a GitHub token), or that someone committed by hand to a
shared store, holds a credential. Doctor reports it, the queue shows a "secret
in a record" item whose actions erase it or replace it by a corrected copy
with the old file *erased*, and export leaves it out. Every test checks the
store on disk afterwards: the file, every reachable git object, the events.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import record_file
from support_desk import desk, settle, text_of, workspace
from textual.widgets import TextArea

from core.demo import OWNER, fake_token
from core.domain import secrets
from core.domain.errors import (
    AlreadyDecided,
    AuthorizationError,
    MemgovError,
    SecretBlocked,
    ValidationError,
)
from core.domain.record import Memory, Source
from core.importers import export_claude_code
from core.reports.doctor import diagnose
from core.review.decide import correct_secret, decide
from core.review.items import KINDS
from core.review.queue import build_queue, get_item
from core.review.revert import revert
from core.store import secret_files
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace, open_workspace
from tui.screens.dialogs import ReasonDialog
from tui.screens.queue.table import QueueTable
from tui.screens.secret import SecretCorrectDialog, SecretScreen

#: the demo's hand-written note carries this made-up token (built at run time)
DEMO_TOKEN = fake_token("ghp_", 36, seed=20261112)
ALICE = "alice@example.com"


# ----------------------------------------------------------------------- helpers
def demo_note(demo: Path) -> Memory:
    private = workspace(demo).private
    assert private is not None
    return next(m for m in private.memories.values() if m.attribute == "ci_registry_auth")


def reachable_objects_holding(root: Path, needle: str) -> int:
    """How many objects reachable from any ref (or the index) hold ``needle``."""
    listing = subprocess.run(
        ["git", "rev-list", "--all", "--objects"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    shas = "\n".join(line.split(" ", 1)[0] for line in listing.splitlines() if line)
    index = subprocess.run(
        ["git", "ls-files", "-s"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    shas += "\n" + "\n".join(line.split()[1] for line in index.splitlines() if line)
    data = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=root,
        input=(shas + "\n").encode(),
        capture_output=True,
        check=True,
    ).stdout
    return data.count(needle.encode())


def files_holding(root: Path, needle: str) -> list[str]:
    """Every file under the store folder holding ``needle``, local state included
    (git's compressed objects are checked by :func:`reachable_objects_holding`)."""
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".git/objects/") or path.is_symlink() or not path.is_file():
            continue
        if needle.encode() in path.read_bytes():
            found.append(rel)
    return sorted(found)


def events(store: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for line in (store / "events/000001.jsonl").read_text().splitlines()
        if line
    ]


def secret_errors(store: Store) -> list[str]:
    return [
        f.render() for f in diagnose(store) if f.severity == "error" and "credential" in f.reason
    ]


def make_ws(root: Path, clock: Callable[[], Any]) -> Workspace:
    Store.init(root / "private", scope="private", owner="alice", actor=ALICE, clock=clock)
    return open_workspace([root / "private"], clock=clock)


def record(memory_id: str, content: str, clock: Any, **changes: Any) -> Memory:
    values: dict[str, Any] = {
        "id": memory_id,
        "type": "semantic",
        "scope": "private",
        "status": "active",
        "subject": "project:demo",
        "attribute": memory_id.replace("-", "_"),
        "content": content,
        "confidence": 0.8,
        "created_at": clock(),
        "verified_at": clock(),
        "source": Source(task="hand-note", evidence="pasted by hand", file="memgov.yaml", line=1),
    }
    values.update(changes)
    return Memory(**values)


def plant(store: Store, *memories: Memory) -> None:
    """Write records behind the write gate, as an import did before scanning existed."""
    with transaction(store, actor=ALICE, message="import: hand-written notes") as tx:
        for memory in memories:
            tx.create(memory, action="import", reason="before scanning existed")


@pytest.fixture
def ws(tmp_path: Path, clock: Any) -> Workspace:
    return make_ws(tmp_path / "stores", clock)


# ------------------------------------------------------------------------- doctor
def test_doctor_reports_the_demo_token_by_file_and_rule_never_the_value(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    note = demo_note(demo)
    private = workspace(demo).private
    assert private is not None
    (error,) = secret_errors(private)
    assert error.startswith(f"error   {note.path}: holds a credential (github-pat")
    assert f"secret-{note.id}" in error and "memgov decide" in error
    assert DEMO_TOKEN not in error

    code, out, err = demo_cli("doctor", "--store", str(demo))
    assert code == 1
    assert note.path in out and "github-pat" in out
    assert DEMO_TOKEN not in out + err
    code, out, _ = demo_cli("doctor", "--store", str(demo), "--json")
    assert code == 1 and DEMO_TOKEN not in out


def test_doctor_finds_tokens_in_superseded_expired_and_unreadable_files(
    ws: Workspace, clock: Any
) -> None:
    store = ws.stores[0]
    tokens = [fake_token("ghp_", 36, seed=n) for n in (1, 2, 3, 4)]
    plant(
        store,
        record("old-note", f"token {tokens[0]}", clock),
        record("stale-note", "clean text", clock, title=f"CI {tokens[1]}"),
        record("live-note", "clean", clock, source=Source(task="t", evidence=tokens[2])),
    )
    with transaction(store, actor=ALICE, message="age them") as tx:
        tx.transition("old-note", "superseded", action="supersede", reason="replaced")
        tx.transition("stale-note", "expired", action="expire", reason="too old")
    (store.root / "memories" / "broken.md").write_text(f"no front matter {tokens[3]}\n")

    errors = secret_errors(Store(store.root))
    paths = sorted(e.split()[1].rstrip(":") for e in errors)
    assert paths == sorted(
        [
            "memories/broken.md",
            memory_path("live-note"),
            memory_path("old-note"),
            memory_path("stale-note"),
        ]
    )
    assert any("the record is superseded" in e for e in errors)
    assert any("the record is expired" in e for e in errors)
    assert not any(t in e for t in tokens for e in errors)


def test_doctor_reports_symbolic_links_anywhere_but_dot_git(ws: Workspace, tmp_path: Path) -> None:
    store = ws.stores[0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store.root / "logs").symlink_to(elsewhere)  # logs -> /elsewhere
    (store.root / "requests").mkdir()
    (store.root / "requests" / "r.yaml").symlink_to(tmp_path / "nothing")
    (store.root / ".memgov").mkdir()
    (store.root / ".memgov" / "lock").symlink_to(elsewhere)
    (store.root / ".git" / "hooks-link").symlink_to(elsewhere)  # inside .git: git's business

    linked = {f.path: f.reason for f in diagnose(Store(store.root)) if "symbolic link" in f.reason}

    assert set(linked) == {"logs", "requests/r.yaml", ".memgov/lock"}
    assert all(f.startswith("is a symbolic link") for f in linked.values())
    assert not any(str(tmp_path) in reason for reason in linked.values())


def test_doctor_reports_local_state_committed_to_git(ws: Workspace) -> None:
    store = ws.stores[0]
    state = store.root / ".memgov"
    state.mkdir(exist_ok=True)
    (state / "cache.pickle").write_bytes(b"not really a pickle")
    (state / "txn.json").write_text("{}")
    subprocess.run(["git", "add", "-f", ".memgov"], cwd=store.root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-qm", "state"],
        cwd=store.root,
        check=True,
    )

    tracked = {
        f.path: f.reason
        for f in diagnose(Store(store.root))
        if f.severity == "error" and "tracked by git" in f.reason
    }

    assert set(tracked) == {".memgov/cache.pickle", ".memgov/txn.json"}
    assert (
        "memgov ignores it; remove it with git rm --cached .memgov/txn.json"
        in (tracked[".memgov/txn.json"])
    )


def test_doctor_reports_request_files_that_do_not_parse(ws: Workspace) -> None:
    from core.store import requests

    if not hasattr(requests, "request_problems"):
        pytest.skip("core.store.requests.request_problems is not there yet")
    store = ws.stores[0]
    (store.root / "requests").mkdir(exist_ok=True)
    (store.root / "requests" / "bad.yaml").write_text("id: [unclosed\n")
    found = [f for f in diagnose(Store(store.root)) if f.path.endswith("bad.yaml")]
    assert found and all(f.severity == "error" for f in found)


# -------------------------------------------------------------------------- queue
def test_the_queue_shows_a_secret_item_with_the_scan_only(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    note = demo_note(demo)
    assert "secret" in KINDS
    (item,) = build_queue(workspace(demo), kinds=["secret"])
    assert item.id == f"secret-{note.id}"
    assert item.title == "secret in a record: CI registry auth"
    assert item.opened_at == note.created_at.isoformat()
    assert item.scope == "private" and item.records[0].memory.id == note.id
    assert item.records[0].pointers  # the evidence, as for every item
    assert [{"rule", "line", "column"} <= set(s.to_dict()) for s in item.scan] == [True]
    assert item.scan[0].rule == "github-pat"
    assert item.analysis.options == ("erase", "correct")
    assert item.analysis.file == note.path

    for argv in (("queue", "--json"), ("show", item.id), ("show", item.id, "--json")):
        code, out, _ = demo_cli(*argv, "--store", str(demo))
        assert code == 0 and DEMO_TOKEN not in out, argv


def test_memgov_queue_kind_secret(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    note = demo_note(demo)
    code, out, _ = demo_cli("queue", "--kind", "secret", "--store", str(demo))
    assert code == 0 and f"secret-{note.id}" in out and DEMO_TOKEN not in out


def test_memgov_decide_erase(demo: Path, demo_cli: Callable[..., tuple[int, str, str]]) -> None:
    note = demo_note(demo)
    argv = ("decide", f"secret-{note.id}", "--approve", "--option", "erase", "--as", OWNER)
    code, out, _ = demo_cli(*argv, "--store", str(demo))
    assert code == 0 and "erased: " + note.id in out
    assert not (demo / "private" / note.path).exists()
    code, _, err = demo_cli(*argv, "--store", str(demo))  # the second time
    assert code == 1 and "already decided" in err


def test_a_queue_build_scans_each_file_once(
    ws: Workspace, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ws.stores[0]
    plant(
        store,
        *(record(f"note-{n}", f"clean note {n}", clock) for n in range(20)),
        record("leaky", f"token {fake_token('ghp_', 36, seed=9)}", clock),
    )
    scanned: list[int] = []
    real = secrets.scan

    def counting(text: str) -> list[secrets.Finding]:
        scanned.append(len(text))
        return real(text)

    monkeypatch.setattr(secret_files.secrets, "scan", counting)
    first = build_queue(ws, kinds=["secret"])
    after_first = len(scanned)
    second = build_queue(ws, kinds=["secret"])
    assert [i.id for i in first] == [i.id for i in second] == ["secret-leaky"]
    assert after_first <= 21 and len(scanned) == after_first  # the second build scans none
    path = record_file(store, "note-3")
    edited = path.with_name("note-3.md.swp")
    edited.write_text(path.read_text() + "\nmore\n")
    os.replace(edited, path)  # a hand edit, saved as editors do: that file only again
    build_queue(open_workspace([store.root]), kinds=["secret"])
    assert len(scanned) == after_first + 1


# ------------------------------------------------------------------------ deciding
def test_erase_removes_the_record_and_the_token_from_every_object(demo: Path) -> None:
    note = demo_note(demo)
    private = demo / "private"
    assert reachable_objects_holding(private, DEMO_TOKEN) > 0

    decision = decide(
        workspace(demo), f"secret-{note.id}", approve=True, option="erase", actor=OWNER
    )

    assert decision.kind == "secret" and decision.option == "erase"
    assert decision.erased == [note.id] and not decision.revertible
    assert not (private / note.path).exists()
    assert files_holding(private, DEMO_TOKEN) == []
    assert reachable_objects_holding(private, DEMO_TOKEN) == 0
    log = events(private)
    assert any(e["action"] == "erase" and e["memory_ids"] == [note.id] for e in log)
    assert log[-1]["action"] in ("decide", "batch-discarded")
    decided = [e for e in log if e["action"] == "decide"][-1]
    assert decided["details"] == {"item": f"secret-{note.id}", "kind": "secret", "option": "erase"}
    saved = json.loads((private / decision.path).read_text())
    assert set(saved["before"][note.id]) <= {
        "id",
        "scope",
        "subject",
        "attribute",
        "condition",
        "status",
    }
    private_store = workspace(demo).private
    assert private_store is not None
    assert secret_errors(private_store) == []
    assert build_queue(workspace(demo), kinds=["secret"]) == []
    # the promotion request for the note closes with this decision
    request = next((private / "requests").glob("promote-*0727d6.yaml")).read_text()
    assert "status: rejected" in request and decision.id in request
    assert all(
        not i.records or i.records[0].memory.id != note.id for i in build_queue(workspace(demo))
    )
    with pytest.raises(ValidationError, match="cannot be reverted"):
        revert(workspace(demo), decision.id, actor=OWNER)


def test_correct_replaces_the_record_and_erases_the_old_file(demo: Path) -> None:
    note = demo_note(demo)
    private = demo / "private"

    decision = decide(
        workspace(demo), f"secret-{note.id}", approve=True, option="correct", actor=OWNER
    )

    ((created,),) = [[c["id"] for c in decision.created]]
    store = workspace(demo).private
    assert store is not None
    new = store.memories[created]
    assert new.content == "CI 拉私有包要设置 GITHUB_TOKEN=[secret: github-pat]。"
    assert new.status == "active" and new.key == note.key and new.title == note.title
    assert note.id not in store.memories  # erased, not superseded
    assert not (private / note.path).exists()
    assert decision.erased == [note.id] and not decision.revertible
    assert files_holding(private, DEMO_TOKEN) == []
    assert reachable_objects_holding(private, DEMO_TOKEN) == 0
    assert new.id in (private / "MEMORY.md").read_text()
    assert note.id not in (private / "MEMORY.md").read_text()
    actions = [(e["action"], e["memory_ids"]) for e in events(private)[-8:]]
    assert ("correct", [new.id]) in actions and ("erase", [note.id]) in actions
    assert ("request-closed", [note.id]) in actions  # the open promotion, with an event
    request = next((private / "requests").glob("promote-*0727d6.yaml")).read_text()
    assert "status: rejected" in request and new.id in request
    # ... moved to the corrected record: the promotion asked for goes on, for the copy
    assert ("request-promote", [new.id]) in actions
    (moved,) = [
        r for r in (private / "requests").glob("promote-*.yaml")
        if f"memory_id: {new.id}" in r.read_text()
    ]  # fmt: skip
    assert "status: open" in moved.read_text()
    (said,) = [c for c in decision.consequences if c.kind == "request-moved"]
    assert moved.stem in said.text and new.id in said.text
    assert secret_errors(store) == []


def test_correct_with_the_content_a_person_wrote(ws: Workspace, clock: Any) -> None:
    store = ws.stores[0]
    token = fake_token("ghp_", 36, seed=5)
    plant(
        store, record("ci-auth", f"CI needs GITHUB_TOKEN={token}\n\nWhy: private packages", clock)
    )
    item = "secret-ci-auth"

    with pytest.raises(SecretBlocked) as blocked:
        correct_secret(ws, item, content=f"still {fake_token('ghp_', 36, seed=6)}", actor="alice")
    assert "github-pat" in str(blocked.value) and "ghp_" not in str(blocked.value)
    assert "ci-auth" in Store(store.root).memories  # nothing changed

    decision = correct_secret(
        ws, item, content="CI reads GITHUB_TOKEN from the CI secrets", actor="alice", reason="ok"
    )

    fresh = Store(store.root)
    (new,) = fresh.memories.values()
    assert new.content == "CI reads GITHUB_TOKEN from the CI secrets"
    assert decision.created == [{"store": str(store.root), "id": new.id}]
    assert reachable_objects_holding(store.root, token) == 0
    assert files_holding(store.root, token) == []
    with pytest.raises(AlreadyDecided, match=decision.id):  # a second decider
        correct_secret(ws, item, content="again", actor="alice")
    with pytest.raises(AlreadyDecided, match=decision.id):
        decide(open_workspace([store.root]), item, approve=True, option="erase", actor="alice")


def test_reject_defers_and_the_item_stays_open(demo: Path) -> None:
    note = demo_note(demo)
    before = (demo / "private" / note.path).read_bytes()

    decision = decide(workspace(demo), f"secret-{note.id}", approve=False, actor=OWNER)

    assert decision.option == "defer" and decision.erased == []
    assert (demo / "private" / note.path).read_bytes() == before
    assert [i.id for i in build_queue(workspace(demo), kinds=["secret"])] == [f"secret-{note.id}"]
    saved = (demo / "private" / decision.path).read_text()
    assert DEMO_TOKEN not in saved and "CI registry auth" not in saved


def test_someone_else_may_not_decide_and_nothing_changes(demo: Path) -> None:
    note = demo_note(demo)
    before = (demo / "private" / note.path).read_bytes()
    for option in ("erase", "correct"):
        with pytest.raises(AuthorizationError):
            decide(
                workspace(demo),
                f"secret-{note.id}",
                approve=True,
                option=option,
                actor="mallory@evil.example",
            )
    assert (demo / "private" / note.path).read_bytes() == before


def test_a_reason_or_an_option_that_does_not_fit_is_refused(demo: Path) -> None:
    note = demo_note(demo)
    item = f"secret-{note.id}"
    with pytest.raises(ValidationError, match="option"):
        decide(workspace(demo), item, approve=True, actor=OWNER)
    with pytest.raises(ValidationError, match="option"):
        decide(workspace(demo), item, approve=True, option="newer", actor=OWNER)
    leaked = fake_token("ghp_", 36, seed=7)
    with pytest.raises(SecretBlocked) as blocked:
        decide(
            workspace(demo),
            item,
            approve=True,
            option="erase",
            actor=OWNER,
            reason=f"it was {leaked}",
        )
    assert leaked not in str(blocked.value)
    assert (demo / "private" / note.path).exists()


def test_an_expired_record_is_erased_not_corrected(ws: Workspace, clock: Any) -> None:
    store = ws.stores[0]
    plant(store, record("stale", f"token {fake_token('ghp_', 36, seed=8)}", clock))
    with transaction(store, actor=ALICE, message="expire") as tx:
        tx.transition("stale", "expired", action="expire", reason="too old")
    (item,) = build_queue(ws, kinds=["secret"])
    assert item.analysis.options == ("erase",)
    with pytest.raises(ValidationError, match="expired"):
        decide(ws, item.id, approve=True, option="correct", actor="alice")
    decide(ws, item.id, approve=True, option="erase", actor="alice")
    assert Store(store.root).memories == {}


def test_correct_is_refused_while_a_deletion_is_requested(demo: Path) -> None:
    from core.store.requests import file_request

    note = demo_note(demo)
    private = workspace(demo).private
    assert private is not None
    request = file_request(private, kind="delete", memory_id=note.id, actor=OWNER, reason="go")
    with pytest.raises(ValidationError, match="deletion"):
        decide(workspace(demo), f"secret-{note.id}", approve=True, option="correct", actor=OWNER)
    decide(workspace(demo), f"secret-{note.id}", approve=True, option="erase", actor=OWNER)
    text = (demo / "private" / request.path).read_text()
    assert "status: approved" in text


# ------------------------------------------------------------------------- export
def test_export_leaves_the_record_out_and_says_so(
    demo: Path, tmp_path: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    note = demo_note(demo)
    out = tmp_path / "export"

    report = export_claude_code(workspace(demo), out)

    assert report.left_out == (f"{note.id}: holds a credential (github-pat)",)
    assert f"left out: {note.id}: holds a credential (github-pat)" in report.render()
    assert report.to_dict()["left_out"] == list(report.left_out)
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written and not any(DEMO_TOKEN.encode() in p.read_bytes() for p in written)
    assert "CI registry auth" not in (out / "MEMORY.md").read_text()

    code, text, _ = demo_cli("export", "claude-code", str(tmp_path / "again"), "--store", str(demo))
    assert code == 0 and f"left out: {note.id}" in text and DEMO_TOKEN not in text


# --------------------------------------------------------------------------- desk
async def open_secret(pilot: Any, app: Any) -> None:
    await settle(pilot, app)
    table = app.screen.query_one("#queue", QueueTable)
    index = next(i for i, item in enumerate(app.screen.shown_items()) if item.kind == "secret")
    for _ in range(index - table.cursor_row):
        await pilot.press("j")
    await pilot.press("enter")
    await settle(pilot, app)


async def test_desk_erase(demo: Path) -> None:
    note = demo_note(demo)
    private = demo / "private"
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_secret(pilot, app)
        assert isinstance(app.screen, SecretScreen)
        shown = text_of(app.screen.query_one("#record")) + text_of(app.screen.query_one("#scan"))
        assert "[secret: github-pat]" in shown and DEMO_TOKEN not in shown
        assert "github-pat at line" in shown
        await pilot.press("e")
        await settle(pilot, app)  # the core's dry run (a worker) opens the reason dialog
        assert isinstance(app.screen, ReasonDialog) and app.screen.proposal.destructive
        await pilot.press("enter")
        await settle(pilot, app)
        assert not isinstance(app.screen, SecretScreen)  # decided: back to the queue
    assert not (private / note.path).exists()
    assert files_holding(private, DEMO_TOKEN) == []
    assert reachable_objects_holding(private, DEMO_TOKEN) == 0
    decided = [e for e in events(private) if e["action"] == "decide"][-1]
    assert decided["actor"] == OWNER and decided["details"]["option"] == "erase"


async def test_desk_correct_prefilled_with_the_redacted_text(demo: Path) -> None:
    note = demo_note(demo)
    private = demo / "private"
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_secret(pilot, app)
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SecretCorrectDialog)
        area = dialog.query_one("#content", TextArea)
        assert area.text == "CI 拉私有包要设置 GITHUB_TOKEN=[secret: github-pat]。"
        area.text = "CI 拉私有包用 CI 变量里的 GITHUB_TOKEN。"
        await pilot.press("ctrl+s")
        await settle(pilot, app)  # the core's dry run opens the reason dialog
        assert isinstance(app.screen, ReasonDialog)
        await pilot.press("enter")
        await settle(pilot, app)
    store = workspace(demo).private
    assert store is not None
    (new,) = [m for m in store.memories.values() if m.attribute == "ci_registry_auth"]
    assert new.content == "CI 拉私有包用 CI 变量里的 GITHUB_TOKEN。" and new.id != note.id
    assert not (private / note.path).exists()
    assert reachable_objects_holding(private, DEMO_TOKEN) == 0
    assert files_holding(private, DEMO_TOKEN) == []
    decided = [e for e in events(private) if e["action"] == "decide"][-1]
    assert decided["details"]["option"] == "correct"


async def test_desk_correct_refuses_a_text_that_still_holds_a_token(demo: Path) -> None:
    note = demo_note(demo)
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_secret(pilot, app)
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one("#content", TextArea).text = f"token {fake_token('ghp_', 36, 3)}"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SecretCorrectDialog)  # still open, nothing decided
        await pilot.press("escape")
        await pilot.press("d")
        await settle(pilot, app)
        await pilot.press("enter")  # defer: recorded, the item stays (marked), the view goes
        await settle(pilot, app)
        assert not isinstance(app.screen, SecretScreen)
        (left,) = [i for i in build_queue(workspace(demo)) if i.id == f"secret-{note.id}"]
        assert left.deferred is not None
    assert (demo / "private" / note.path).exists()
    decided = [e for e in events(demo / "private") if e["action"] == "decide"][-1]
    assert decided["details"]["option"] == "defer"


def test_snapshot_secret_item(snap_compare: Any, demo: Path) -> None:
    async def run(pilot: Any) -> None:
        await open_secret(pilot, pilot.app)

    assert snap_compare(desk(demo), terminal_size=(80, 24), run_before=run)


def test_snapshot_secret_correct_dialog(snap_compare: Any, demo: Path) -> None:
    async def run(pilot: Any) -> None:
        await open_secret(pilot, pilot.app)
        await pilot.press("c")
        await settle(pilot, pilot.app)

    assert snap_compare(desk(demo), terminal_size=(80, 24), run_before=run)


def test_decision_errors_never_hold_the_token(demo: Path) -> None:
    note = demo_note(demo)
    item = get_item(workspace(demo), f"secret-{note.id}")
    messages = []
    for option in ("erase", "correct", None, "bogus"):
        try:
            decide(workspace(demo), item.id, approve=True, option=option, actor="x@evil.example")
        except MemgovError as exc:
            messages.append(str(exc))
    assert messages and not any(DEMO_TOKEN in m for m in messages)
    assert os.path.exists(demo / "private" / note.path)
