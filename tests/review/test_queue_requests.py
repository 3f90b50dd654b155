"""Requests end to end: ``file_request`` and the CLI's ``request-delete`` and
``request-promote``: each opens a queue item with one event and one commit; a request
that does not fit (no reason, an unknown kind or memory) is refused, saying why.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import events, git, head, memory_where, tree_state
from support_desk import workspace
from support_queue import REQUEST_KEYS, queue

from core.demo import AGENT, OWNER
from core.domain.errors import NotFoundError, ValidationError
from core.store.requests import file_request, load_requests
from tui.cli import main


# ---------------------------------------------------------------------------- requests
def test_filing_a_request_twice_returns_the_open_one(demo: Path) -> None:
    private = workspace(demo).private
    assert private is not None
    city = memory_where(private, attribute="home_city")
    (existing,) = [r for r in load_requests(private) if r.memory_id == city.id]
    before = head(private.root)
    again = file_request(private, kind="delete", memory_id=city.id, reason="again", actor=OWNER)
    assert again == existing
    assert head(private.root) == before  # nothing written, no commit
    assert len(load_requests(private)) == 4


def test_a_request_opens_an_item_with_one_event_and_one_commit(demo: Path) -> None:
    private = workspace(demo).private
    assert private is not None
    doc = memory_where(private, attribute="output_format")
    first = len(events(private.root))
    request = file_request(
        private, kind="delete", memory_id=doc.id, reason=" no longer true ", actor=OWNER
    )
    assert request.reason == "no longer true" and request.requested_by == OWNER
    assert request.path == f"requests/{request.id}.yaml"
    (event,) = events(private.root)[first:]
    assert (event["action"], event["memory_ids"], event["request"], event["actor"]) == (
        "request-delete", [doc.id], request.id, OWNER
    )  # fmt: skip
    assert (
        git(private.root, "log", "-1", "--format=%s|%ae").strip()
        == f"request: delete {doc.id}|{OWNER}@memgov.invalid"
    )
    assert [i.id for i in queue(demo, "deletion")][-1] == request.id


@pytest.mark.parametrize(
    ("kind", "attribute", "reason", "says"),
    [
        ("delete", "home_city", "   ", "a request needs a reason"),
        ("promote", "home_city", "", "a request needs a reason"),
        ("archive", "home_city", "why not", "unknown request kind"),
        ("delete", "doctor", "wrong", "resolve the conflict"),  # a conflict: choose neither
        ("promote", "doctor", "share", "only active private memories can be promoted"),
    ],
)
def test_a_request_is_refused_with_a_clear_reason(
    demo: Path, kind: str, attribute: str, reason: str, says: str
) -> None:
    private = workspace(demo).private
    assert private is not None
    target = next(m for m in private.memories.values() if m.attribute == attribute)
    files = tree_state(private.root)
    with pytest.raises(ValidationError, match=says):
        file_request(private, kind=kind, memory_id=target.id, reason=reason, actor=OWNER)
    assert tree_state(private.root) == files


def test_a_request_for_an_unknown_memory_is_refused(demo: Path) -> None:
    private = workspace(demo).private
    assert private is not None
    with pytest.raises(NotFoundError, match="no memory with id 'nope-1'"):
        file_request(private, kind="delete", memory_id="nope-1", reason="gone", actor=OWNER)


def test_cli_request_delete_and_request_promote(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    private = workspace(demo).private
    assert private is not None
    doc = memory_where(private, attribute="output_format")
    code, out, err = demo_cli(
        "request-delete", doc.id, "--reason", "I changed my mind",
        "--store", str(demo), "--as", OWNER, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    filed = json.loads(out)
    assert set(filed) == REQUEST_KEYS | {"filed"} and filed["filed"] is True
    assert (filed["kind"], filed["memory_id"], filed["status"]) == ("delete", doc.id, "open")
    assert filed["requested_by"] == OWNER and filed["reason"] == "I changed my mind"
    # filing twice gives the same open request, and says that nothing was filed
    commits = git(private.root, "rev-list", "--count", "HEAD")
    code, out, _ = demo_cli(
        "request-delete", doc.id, "--reason", "really", "--store", str(demo), "--as", AGENT
    )
    assert (code, out.strip()) == (
        0,
        f"{filed['id']}: delete {doc.id} was already requested by {OWNER} at "
        f"{filed['requested_at'][:16]} (I changed my mind); nothing filed",
    )
    code, out, _ = demo_cli(
        "request-delete", doc.id, "--reason", "really", "--store", str(demo), "--json"
    )
    again = json.loads(out)
    assert (again["id"], again["filed"], again["reason"]) == (
        filed["id"],
        False,
        "I changed my mind",
    )
    assert git(private.root, "rev-list", "--count", "HEAD") == commits  # no commit either

    code, out, err = demo_cli(
        "request-promote", doc.id, "--reason", "the team writes docs too",
        "--store", str(demo), "--as", OWNER, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    promoted = json.loads(out)
    assert (promoted["kind"], promoted["memory_id"]) == ("promote", doc.id)
    listed = {i.id: i.kind for i in queue(demo)}
    assert (listed[filed["id"]], listed[promoted["id"]]) == ("deletion", "promotion")


def test_cli_requests_need_a_reason(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    private = workspace(demo).private
    assert private is not None
    doc = memory_where(private, attribute="output_format")
    files = tree_state(private.root)
    with pytest.raises(SystemExit) as exc:  # argparse: --reason is required
        main(["request-promote", doc.id, "--store", str(demo), "--as", OWNER])
    assert exc.value.code == 2
    assert "--reason" in capsys.readouterr().err
    code, out, err = demo_cli(
        "request-delete", doc.id, "--reason", " ", "--store", str(demo), "--as", OWNER
    )
    assert (code, out) == (2, "")
    assert "a request needs a reason" in err
    code, _, err = demo_cli(
        "request-delete", "nope-1", "--reason", "x", "--store", str(demo), "--as", OWNER
    )
    assert code == 2 and "no memory with id 'nope-1'" in err
    assert tree_state(private.root) == files
