"""The desk's decision flow tells the truth: what a decision changes besides
its records is in its confirmation and its notification (and ``memgov decide``'s
output); the item says what the actor may do before they start; a blocked promotion
says why; a promotion request is withdrawn, or moves with a correction; a deferral is
marked and the desk moves on; ``u`` says why it cannot undo; the parallel dialog
prefills every record and stops on an empty one. Driven with Pilot, then the store
is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import DEMO_MAINTAINER as MAINTAINER
from conftest import events
from support_desk import OWNER, decide_key, desk, doctor_clean, git, settle, text_of, workspace
from textual import on
from textual.screen import Screen
from textual.widgets import Input, Static, TextArea

from core.review.decide import decide, preview
from core.review.queue import build_queue
from core.store.requests import get_request, load_requests
from tui.screens.conflict import ConflictScreen
from tui.screens.dialogs import ConditionsDialog, ReasonDialog
from tui.screens.promotion import PromotionScreen
from tui.screens.queue import QueueScreen
from tui.screens.queue.table import QueueTable
from tui.screens.secret import SecretCorrectDialog
from tui.screens.views import screen_for


def pending_batches(store: Path) -> list[str]:
    out = git(store, "for-each-ref", "--format=%(refname)", "refs/heads/memgov/batch/")
    return out.split()


def messages(app: Any) -> list[tuple[str, str]]:
    return [(str(n.title), str(n.message)) for n in app._notifications]


async def open_item(pilot: Any, app: Any, kind: str, title_part: str = "") -> None:
    """Select the first item of a kind by moving the cursor, and open it."""
    await settle(pilot, app)
    table = app.screen.query_one("#queue", QueueTable)
    items = app.screen.shown_items()
    index = next(
        i for i, item in enumerate(items) if item.kind == kind and title_part in item.title
    )
    step = "j" if index >= table.cursor_row else "k"
    for _ in range(abs(index - table.cursor_row)):
        await pilot.press(step)
    await pilot.press("enter")
    await settle(pilot, app)
    assert app.screen.item.id == items[index].id


# ----------------------------------------- 1. what else a decision changes or discards
async def test_erasing_the_deletion_says_the_pending_batch_goes_before_and_after(
    demo: Path,
) -> None:
    private = demo / "private"
    (batch,) = [b.removeprefix("refs/heads/memgov/batch/") for b in pending_batches(private)]
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "deletion")
        await pilot.press("e")
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, ReasonDialog)
        # first and apart, in the confirmation: the batch the erasure discards
        assert any(batch in line and "discarded" in line for line in dialog.proposal.also)
        assert batch in text_of(dialog.query_one("#dialog-also", Static))
        await pilot.press("enter")
        await settle(pilot, app)
        said = [m for t, m in messages(app) if t == "Decided"]
        assert said and batch in said[-1] and "discarded" in said[-1]
    # and it is what happened: the batch is gone, with its event
    assert pending_batches(private) == []
    discarded = [e for e in events(private) if e["action"] == "batch-discarded"]
    assert discarded and discarded[-1]["details"]["batches"] == [batch]
    doctor_clean(demo)


async def test_neither_on_a_conflict_says_the_pending_batch_goes(demo: Path) -> None:
    private = demo / "private"
    (batch,) = [b.removeprefix("refs/heads/memgov/batch/") for b in pending_batches(private)]
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "conflict", "#doctor")
        await pilot.press("x")
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)
        assert any(batch in line for line in app.screen.proposal.also)
        await pilot.press("enter")
        await settle(pilot, app)
        said = [m for t, m in messages(app) if t == "Decided"]
        assert said and batch in said[-1]
    assert pending_batches(private) == []


def test_memgov_decide_says_what_else_it_discarded(demo: Path, demo_cli: Any) -> None:
    private = demo / "private"
    (batch,) = [b.removeprefix("refs/heads/memgov/batch/") for b in pending_batches(private)]
    item = next(i for i in build_queue(workspace(demo)) if i.kind == "deletion")
    store = ["--store", str(demo), "--as", OWNER]
    code, out, _err = demo_cli("decide", item.id, "--approve", "--dry-run", *store)
    assert code == 0 and batch in out and "discarded" in out
    code, out, _err = demo_cli("decide", item.id, "--approve", *store)
    assert code == 0
    (line,) = [x for x in out.splitlines() if batch in x]
    assert line.startswith("  and: ") and "discarded" in line
    assert pending_batches(private) == []


def test_memgov_decide_json_lists_the_consequences(demo: Path, demo_cli: Any) -> None:
    item = next(i for i in build_queue(workspace(demo)) if i.kind == "deletion")
    code, out, _err = demo_cli(
        "decide", item.id, "--approve", "--json", "--store", str(demo), "--as", OWNER
    )
    assert code == 0
    kinds = [c["kind"] for c in json.loads(out)["consequences"]]
    assert kinds == ["batch-discarded", "history"]


def test_a_decision_that_changes_a_record_the_batch_expects_says_it_goes_stale(
    demo: Path,
) -> None:
    """Approving the pnpm promotion changes no private record; correcting the record
    the pending batch rewrites does: its change goes stale (approval refused)."""
    from core.review.correct import correct

    item = next(i for i in build_queue(workspace(demo)) if i.kind == "consolidation")
    record = next(
        r.memory for r in item.records if r.memory.attribute == "package_manager"
    )  # the batch's change that needs approval
    done = correct(workspace(demo), record.id, content="只用 pnpm。", actor=OWNER)
    stale = [c for c in done.consequences if c.kind == "batch-stale"]
    assert stale and stale[0].subject == item.id and record.id in stale[0].text
    # and it is so: the batch now marks the change stale
    (after,) = [i for i in build_queue(workspace(demo)) if i.id == item.id]
    assert any(record.id in c.stale for c in after.analysis.changes)  # type: ignore[union-attr]


# ------------------------------------------------- 2. what the actor may do, at the item
async def test_a_non_owner_sees_at_the_item_that_they_may_not_decide(demo: Path) -> None:
    private = demo / "private"
    head = git(private, "rev-parse", "HEAD")
    app = desk(demo, actor=MAINTAINER)  # a team maintainer, not the private store's owner
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "conflict", "#doctor")
        screen = app.screen
        assert isinstance(screen, ConflictScreen)
        banner = text_of(screen.query_one("#item-head", Static))
        assert f"you ({MAINTAINER}) may not decide it" in banner
        assert "private items are decided by the store's owner, liys05" in banner
        assert not any(a.allowed for a in screen.actions)
        keys = {b.binding.key: b.enabled for b in screen.active_bindings.values()}
        assert keys["n"] is keys["p"] is keys["d"] is False  # greyed out in the footer
        await pilot.press("p")  # parallel: no conditions to fill in before a refusal
        await settle(pilot, app)
        assert app.screen is screen
        assert any("not here" in t and "owner" in m for t, m in messages(app))
    assert git(private, "rev-parse", "HEAD") == head


async def test_the_owner_sees_every_action_of_their_item(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_item(pilot, app, "conflict", "#doctor")
        banner = text_of(app.screen.query_one("#item-head", Static))
        assert f"you ({OWNER}) may take any of its decisions" in banner


# -------------------------------------------------- 3. a blocked promotion, withdrawn
async def test_a_on_a_blocked_promotion_says_why_and_the_reason_is_true(demo: Path) -> None:
    team_head = git(demo / "team", "rev-parse", "HEAD")
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "promotion", "CI registry auth")
        screen = app.screen
        assert isinstance(screen, PromotionScreen)
        assert "not Approve (a): blocked: it carries a credential (github-pat)" in text_of(
            screen.query_one("#item-head", Static)
        )
        await pilot.press("a")
        await settle(pilot, app)
        assert app.screen is screen  # no dialog
        said = [m for t, m in messages(app) if "not here" in t]
        assert said and "blocked: it carries a credential (github-pat)" in said[-1]
        await pilot.press("r")
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, ReasonDialog)
        prefilled = dialog.query_one("#reason", Input).value
        assert "carries a credential (github-pat)" in prefilled
        assert "personal preference" not in prefilled
        await pilot.press("escape")
    assert git(demo / "team", "rev-parse", "HEAD") == team_head


async def test_w_withdraws_a_promotion_request(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "promotion", "Package manager")
        item_id = app.screen.item.id
        await decide_key(pilot, app, "w")
        await settle(pilot, app)
        assert not isinstance(app.screen, PromotionScreen)  # closed: back to the queue
    request = get_request(workspace(demo).private, item_id)  # type: ignore[arg-type]
    assert (request.status, request.decided_by) == ("rejected", OWNER)
    assert request.decision_reason == f"withdrawn by {OWNER}"
    assert not [t for t in (demo / "team" / "memories").rglob("package-manager-*.md")]
    doctor_clean(demo)


async def test_correcting_the_blocked_record_moves_its_request_to_the_correction(
    demo: Path,
) -> None:
    """The token-blocked promotion: correct the record from its secret item; the
    confirmation and the notification say the request moves; the promotion of the
    correction is then clean and approvable."""
    private = demo / "private"
    blocked = next(i for i in build_queue(workspace(demo)) if i.kind == "promotion" and i.scan)
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "secret")
        await pilot.press("c")
        await settle(pilot, app)
        assert isinstance(app.screen, SecretCorrectDialog)
        app.screen.query_one("#content", TextArea).text = "CI 拉私有包用 CI 变量里的 token。"
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, ReasonDialog)  # the core's preview, not a list of its own
        also = " ".join(dialog.proposal.also)
        assert blocked.id in also and "moves to" in also
        assert "batch" in also  # the erasure of the old file discards the pending batch
        await pilot.press("enter")
        await settle(pilot, app)
        said = [m for t, m in messages(app) if t == "Decided"][-1]
        assert blocked.id in said and "moves to" in said
    closed = get_request(workspace(demo).private, blocked.id)  # type: ignore[arg-type]
    assert closed.status == "rejected"
    (moved,) = [
        r for r in load_requests(workspace(demo).private)  # type: ignore[arg-type]
        if r.status == "open" and r.kind == "promote" and r.id != blocked.id
        and r.reason == blocked.request.reason  # type: ignore[union-attr]
    ]  # fmt: skip
    (item,) = [i for i in build_queue(workspace(demo)) if i.id == moved.id]
    assert item.scan == ()  # the correction holds no credential: approvable
    # the note's source is a file of the private store: the team copy's would not resolve
    shown = preview(workspace(demo), item.id, approve=True, actor=OWNER)
    (left_behind,) = [c for c in shown.consequences if c.kind == "source"]
    assert "notes/ci.md" in left_behind.text
    done = decide(workspace(demo), item.id, approve=True, actor=OWNER)
    assert [c.text for c in done.consequences if c.kind == "source"] == [left_behind.text]
    assert "ghp_" not in git(demo / "team", "log", "-p", "--all")
    assert git(private, "status", "--porcelain") == ""


# ------------------------------------------------------- 4. a deferral, marked; next
async def test_defer_marks_the_item_and_asks_the_queue_for_the_next(demo: Path) -> None:
    from tui.messages import NextItem

    class Under(Screen[None]):
        """The screen an item view opens over, as the queue is: it records what it is
        told."""

        def __init__(self) -> None:
            super().__init__()
            self.told: list[str] = []

        @on(NextItem)
        def next_item(self, message: NextItem) -> None:
            self.told.append(message.after)

    item = next(i for i in build_queue(workspace(demo)) if "deploy_command" in i.title)
    assert item.deferred is None
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot, app)
        under = Under()
        await app.push_screen(under)
        await app.push_screen(screen_for(item))
        await settle(pilot, app)
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
        assert app.screen is under  # the view went back ...
        assert under.told == [item.id]  # ... and asked for the item after this one
        said = [m for t, m in messages(app) if t == "Decided"][-1]
        assert "marked as looked at" in said
    (again,) = [i for i in build_queue(workspace(demo)) if i.id == item.id]
    assert again.deferred is not None
    assert (again.deferred.actor, again.deferred.reason) == (OWNER, "deferred: needs more evidence")
    assert [e for e in events(demo / "team") if e["action"] == "defer"][-1]["request"] == item.id
    assert {r.memory.status for r in again.records} == {"conflict"}  # still open


def test_a_deferral_from_before_the_item_opened_is_no_mark(demo: Path) -> None:
    """A conflict that opened again under the same key (the same item id: a record
    joined it, or it was resolved and contradicted anew) after the deferral is not
    marked by it."""
    from dataclasses import replace

    from core.review.queue import with_deferrals

    item = next(i for i in build_queue(workspace(demo)) if "deploy_command" in i.title)
    decide(workspace(demo), item.id, approve=False, actor=OWNER)  # deferred
    (marked,) = [i for i in build_queue(workspace(demo)) if i.id == item.id]
    assert marked.deferred is not None
    reopened = replace(marked, deferred=None, opened_at="2027-01-01T00:00:00+08:00")
    (shown,) = with_deferrals(marked.store, [reopened])
    assert shown.deferred is None


# ----------------------------------------------------------------- 5. undo, truthfully
async def test_u_after_a_defer_or_a_batch_reject_says_why_and_an_undo_is_undone(
    demo: Path,
) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        await decide_key(pilot, app, "d")
        await settle(pilot, app)
        await pilot.press("u")
        await settle(pilot, app)
        title, said = messages(app)[-1]
        assert title == "Nothing to undo" and "deferral: it changed nothing" in said
        assert "Nothing to undo in this session" not in said
        assert not isinstance(app.screen, QueueScreen)  # the next item opened
        await pilot.press("escape")
        await settle(pilot, app)
        await open_item(pilot, app, "consolidation")
        await decide_key(pilot, app, "r")
        await settle(pilot, app)
        await pilot.press("u")
        await settle(pilot, app)
        title, said = messages(app)[-1]
        assert title == "Nothing to undo" and "rejected the batch" in said
        await open_item(pilot, app, "conflict", "deploy_command")
        await decide_key(pilot, app, "n")
        await settle(pilot, app)
        await pilot.press("u")
        await settle(pilot, app)
        title, said = messages(app)[-1]
        assert title == "Undone" and said.startswith("Undo dec-")
    statuses = {r.status for s in workspace(demo).stores for r in s.memories.values()
                if r.attribute == "deploy_command"}  # fmt: skip
    assert statuses == {"conflict"}  # the newer-wins was undone: open again
    reverts = [e for e in events(demo / "team") if e["action"] == "decide"
               and e["details"]["option"] == "revert"]  # fmt: skip
    assert len(reverts) == 1


# -------------------------------------------------------------- 6. the parallel dialog
async def test_the_parallel_dialog_prefills_both_and_stops_on_an_empty_one(demo: Path) -> None:
    app = desk(demo)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await open_item(pilot, app, "conflict", "deploy_command")
        older, newer = (r.memory for r in app.screen.ordered())
        await pilot.press("p")
        await settle(pilot, app)
        dialog = app.screen
        assert isinstance(dialog, ConditionsDialog)
        fields = list(dialog.query(Input))
        # the newer record's quote states both: production for one, testing for the other
        assert [f.value for f in fields] == ["env=testing", "env=production"]
        fields[0].value = ""
        fields[0].focus()
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen is dialog and app.focused is fields[0]  # stays on the empty one
        assert any(older.id in m and "needs a condition" in m for _t, m in messages(app))
        fields[0].value = "env=testing"
        await pilot.press("enter")  # every record has its condition now: accepted
        await settle(pilot, app)
        assert isinstance(app.screen, ReasonDialog)  # the core's preview of the parallel
        await pilot.press("enter")
        await settle(pilot, app)
    held = {
        m.id: (m.status, m.condition)
        for s in workspace(demo).stores
        for m in s.memories.values()
        if m.attribute == "deploy_command"
    }
    assert held == {older.id: ("active", "env=testing"), newer.id: ("active", "env=production")}
    doctor_clean(demo)


def test_memgov_decide_withdraws_a_promotion_request(demo: Path, demo_cli: Any) -> None:
    item = next(i for i in build_queue(workspace(demo)) if i.kind == "promotion" and not i.scan)
    store = ["--store", str(demo), "--as", OWNER]
    code, out, _err = demo_cli("decide", item.id, "--reject", "--option", "withdraw", *store)
    assert code == 0 and "-> withdraw" in out and "undo with: memgov revert" in out
    closed = get_request(workspace(demo).private, item.id)  # type: ignore[arg-type]
    assert (closed.status, closed.decided_by) == ("rejected", OWNER)
    code, _out, err = demo_cli("decide", item.id, "--reject", "--option", "withdraw", *store)
    assert code == 1 and "already decided by" in err
