"""The CLI's ``queue`` and ``show`` on a copy of the demo: the same items as the queue,
as JSON or one line an item, with secrets shown as their rule, never as themselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import DEMO_TOKEN
from support_queue import ITEM_KEYS, RECORD_KEYS, REQUEST_KEYS, queue

from core.review.seen import shown_hash
from core.store.store import Store


# ------------------------------------------------------------------ CLI: queue and show
def test_cli_queue_json_is_the_queue_with_secrets_redacted(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = demo_cli("queue", "--store", str(demo), "--json")
    assert (code, err) == (0, "")
    listed = json.loads(out)
    assert [i["id"] for i in listed] == [i.id for i in queue(demo)]
    for item in listed:
        assert set(item) == ITEM_KEYS
        for record in item["records"] + item["team_records"]:
            assert set(record) == RECORD_KEYS
            for source in record["sources"]:
                assert {"task", "message_index", "evidence", "resolves", "excerpt"} <= set(source)
    requests = [item["request"] for item in listed if item["request"] is not None]
    assert requests and all(set(request) == REQUEST_KEYS for request in requests)
    # the hand-written note's token is shown as its rule, never as itself
    assert DEMO_TOKEN not in out
    note = next(i for i in listed if i["secret_scan"])
    assert "[secret: github-pat]" in note["records"][0]["content"]

    code, out, _ = demo_cli(
        "queue", "--store", str(demo), "--kind", "promotion", "--kind", "deletion", "--json"
    )
    assert code == 0
    assert [i["kind"] for i in json.loads(out)] == ["promotion", "promotion", "deletion"]


def test_cli_queue_text_is_one_line_per_item(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, _ = demo_cli("queue", "--store", str(demo), "--kind", "conflict")
    assert code == 0
    lines = out.splitlines()
    items = queue(demo, "conflict")
    assert len(lines) == len(items) == 2
    for line, item in zip(lines, items, strict=True):
        assert line.startswith(item.opened_at[:16])
        assert item.id in line and item.title in line and item.scope in line


def test_cli_queue_says_when_it_is_empty(
    store: Store, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = demo_cli("queue", "--store", str(store.root))
    assert (code, out.strip(), err) == (0, "the queue is empty", "")
    code, out, _ = demo_cli("queue", "--store", str(store.root), "--json")
    assert (code, json.loads(out)) == (0, [])


def test_cli_show_gives_one_item_with_its_evidence(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    (item,) = [i for i in queue(demo, "conflict") if i.scope == "team"]
    code, out, err = demo_cli("show", item.id, "--store", str(demo), "--json")
    assert (code, err) == (0, "")
    shown = json.loads(out)
    assert set(shown) == ITEM_KEYS | {"shown"}  # and the hash of what it shows
    assert shown.pop("shown") == shown_hash(item)
    assert shown == json.loads(json.dumps(item.to_dict(), ensure_ascii=False, default=str))

    code, out, _ = demo_cli("show", item.id, "--store", str(demo))
    assert code == 0
    assert out.startswith(f"conflict {item.id}: {item.title}\n")
    for record in item.records:
        assert f"- {record.memory.id} [conflict]" in out
        source = record.sources[0].source
        assert (
            f"source: task {source.task}, message {source.message_index}: {source.evidence}" in out
        )
    assert f"sources favour {item.analysis.favoured}" in out


def test_cli_show_says_where_a_source_points_and_counts_in_words(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    """A source in a file (the hand-written note) is its file and line, not "message
    None"; a batch with one change that needs approval says "1 needs approval"."""
    (secret,) = queue(demo, "secret")
    code, out, _ = demo_cli("show", secret.id, "--store", str(demo))
    assert code == 0
    assert "source: task hand-note, notes/ci.md line 1: pasted from the team chat" in out
    assert "None" not in out

    (batch,) = queue(demo, "consolidation")
    code, out, _ = demo_cli("show", batch.id, "--store", str(demo))
    assert code == 0
    assert "  2 changes: 1 automatic, 1 needs approval\n" in out


def test_cli_show_redacts_the_promotion_blocked_by_a_secret(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    (item,) = [i for i in queue(demo, "promotion") if i.scan]
    code, out, _ = demo_cli("show", item.id, "--store", str(demo))
    assert code == 0
    assert "secret scan: github-pat" in out
    assert DEMO_TOKEN not in out and "[secret: github-pat]" in out
    code, out, _ = demo_cli("show", item.id, "--store", str(demo), "--json")
    assert code == 0 and DEMO_TOKEN not in out


def test_cli_show_an_unknown_item_is_an_error(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, err = demo_cli("show", "conflict-0000000000", "--store", str(demo))
    assert (code, out) == (2, "")
    assert "no open review item 'conflict-0000000000'" in err and "memgov queue" in err
