"""``memgov decide`` and ``memgov revert``: their JSON and text, their exit codes.

Each runs on a copy of the demo or on a small store built for the case; after it the
stores are checked as a whole (``support_decisions``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import DEMO_MAINTAINER as MAINTAINER
from support_decisions import DECISION_KEYS, assert_clean, fronts, stores, the_item, unchanged

from core.demo import OWNER

#: what ``--json`` shows of a decision besides its own fields: the keys a dry run's
#: result has too (``tui.cli.shapes``), null in a decision made
RESULT_ONLY = {"dry_run", "notes", "stores", "approved", "rejected"}


# --------------------------------------------------------------------- CLI decide/revert
def test_cli_decide_and_revert_json(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "conflict", scope="team")
    older, newer = (r.memory.id for r in item.records)
    before = fronts(item.store.root)
    code, out, err = demo_cli(
        "decide", item.id, "--approve", "--option", "parallel",
        "--condition", f"{older}=env=testing", "--condition", f"{newer}=env=production",
        "--reason", "the source names both", "--store", str(demo), "--as", MAINTAINER, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    decided = json.loads(out)
    assert set(decided) == DECISION_KEYS | RESULT_ONLY and decided["dry_run"] is False
    assert (decided["kind"], decided["option"], decided["item"]) == (
        "conflict",
        "parallel",
        item.id,
    )
    assert (decided["actor"], decided["reason"]) == (MAINTAINER, "the source names both")
    assert decided["after"][older]["condition"] == "env=testing"
    assert decided["revertible"] is True and decided["erased"] == []
    assert decided["store"] == str(item.store.root)

    code, out, err = demo_cli(
        "revert", decided["id"], "--store", str(demo), "--as", MAINTAINER, "--json"
    )
    assert (code, err) == (0, "")
    undone = json.loads(out)
    assert set(undone) == DECISION_KEYS | RESULT_ONLY and undone["dry_run"] is False
    assert (undone["option"], undone["note"]) == ("revert", f"reverts {decided['id']}")
    assert undone["revertible"] is False
    assert fronts(item.store.root) == before
    assert_clean(demo)


def test_cli_decide_text_says_how_to_undo(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "deletion")
    code, out, _ = demo_cli(
        "decide", item.id, "--reject", "--reason", "keep", "--store", str(demo), "--as", OWNER
    )
    assert code == 0
    decision_id = out.split(":", 1)[0]
    assert out == (
        f"{decision_id}: deletion {item.id} -> reject (keep)\n"
        f"  undo with: memgov revert {decision_id}\n"
    )
    code, out, _ = demo_cli("revert", decision_id, "--store", str(demo), "--as", OWNER)
    assert code == 0 and out.endswith(f": reverted {decision_id}\n")


def test_cli_erasure_and_its_refused_revert(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    item = the_item(demo, "deletion")
    code, out, err = demo_cli(
        "decide", item.id, "--approve", "--store", str(demo), "--as", OWNER, "--json"
    )
    assert (code, err) == (0, "")
    decided = json.loads(out)
    assert decided["erased"] == [item.records[0].memory.id] and decided["revertible"] is False
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli("revert", decided["id"], "--store", str(demo), "--as", OWNER)
    assert (code, out) == (2, "")
    assert "an erasure cannot be reverted, its content is gone" in err
    check()
    assert_clean(demo)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "say --approve or --reject"),
        (["--approve", "--reject"], "say --approve or --reject"),
        (["--approve"], "field 'option': approving a conflict item needs an option"),
        (["--approve"], "(--option one of: newer, older, parallel, neither)"),
        (["--reject", "--option", "newer"], "a rejection takes no option"),
        (["--reject", "--option", "newer"], "--approve --option newer to apply it"),
        (["--reject", "--option", "erase"], "drop --option"),
        (["--approve", "--option", "erase"], "'erase' is not an option of a conflict item"),
        (["--approve", "--option", "parallel"], "parallel needs a condition"),
        (["--approve", "--option", "parallel", "--condition", "nope"], "ID=CONDITION"),
    ],
)
def test_cli_decide_bad_input(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]], args: list[str], says: str
) -> None:
    item = the_item(demo, "conflict", scope="team")
    check = unchanged(*(s.root for s in stores(demo)))
    code, out, err = demo_cli("decide", item.id, *args, "--store", str(demo), "--as", MAINTAINER)
    assert (code, out) == (2, "") and says in err
    assert "<candidate>" not in err and "None" not in err  # no internals
    if "field" in err:
        assert err.startswith(f"memgov: {item.id}: field 'option'") or "condition" in err
    check()


@pytest.mark.parametrize(
    ("kind", "where", "actor"),
    [("deletion", {}, OWNER), ("promotion", {"attribute": "package_manager"}, MAINTAINER)],
)
def test_cli_an_option_for_a_kind_that_takes_none_is_an_error(
    demo: Path,
    demo_cli: Callable[..., tuple[int, str, str]],
    kind: str,
    where: dict[str, str],
    actor: str,
) -> None:
    item = the_item(demo, kind, **where)
    check = unchanged(*(s.root for s in stores(demo)))
    for args in (["--approve", "--option", "newer"], ["--reject", "--option", "older"]):
        code, out, err = demo_cli("decide", item.id, *args, "--store", str(demo), "--as", actor)
        assert (code, out) == (2, ""), err
        assert "option" in err and "drop --option" in err
    check()


# ------------------------------------------------- a dry run's ids, carried by --id
def test_decide_with_the_id_its_dry_run_named_writes_the_ids_it_named(
    demo: Path,
    demo_cli: Callable[..., tuple[int, str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from support_desk import DEMO_NOW

    item = the_item(demo, "promotion", attribute="package_manager")
    argv = ["decide", item.id, "--approve", "--store", str(demo), "--as", OWNER, "--json"]
    code, out, err = demo_cli(*argv, "--dry-run")
    assert (code, err) == (0, "")
    shown = json.loads(out)  # (a dry run in a decision's shape: its id, what it creates)
    assert shown["dry_run"] is True
    (named,) = [c["id"] for c in shown["created"] if c["store"].endswith("team")]
    # a minute later: a decision of its own would have other ids; --id carries them
    monkeypatch.setenv("MEMGOV_NOW", (DEMO_NOW + timedelta(minutes=1, seconds=3)).isoformat())
    code, out, err = demo_cli(*argv, "--id", shown["id"])
    assert (code, err) == (0, "")
    decided = json.loads(out)
    assert decided["id"] == shown["id"]
    assert decided["created"] == [{"store": str(demo / "team"), "id": named}]
    assert (demo / "private" / "decisions" / f"{shown['id']}.json").is_file()
    promoted = [e for e in events_of(demo / "team") if e.get("decision") == shown["id"] and e["to"]]
    assert [e["memory_ids"] for e in promoted] == [[named]]
    assert_clean(demo)
    # the id is taken now: a second decision with it is refused, nothing written
    other = the_item(demo, "promotion", attribute="ci_registry_auth")
    before = fronts(demo / "team")
    code, out, err = demo_cli(
        "decide", other.id, "--reject", "--store", str(demo), "--as", OWNER,
        "--id", shown["id"],
    )  # fmt: skip
    assert code == 2 and "is taken" in err and "preview the decision again" in err, err
    assert fronts(demo / "team") == before


def events_of(store: Path) -> list[dict[str, object]]:
    lines = (line for f in sorted((store / "events").glob("*.jsonl")) for line in f.open())
    return [json.loads(line) for line in lines if line.strip()]
