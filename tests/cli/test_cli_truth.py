"""What the CLI says is what happened, or what would ("The desk and the CLI
tell the truth"): a dry run that a real run would refuse says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from support_decisions import stores, the_item
from support_desk import OWNER

from core.consolidation.consolidate import consolidate


def test_a_dry_run_consolidation_says_a_real_run_is_refused_while_a_batch_waits(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    private, _team = stores(demo)
    pending = the_item(demo, "consolidation").id

    report = consolidate(private, actor=OWNER, dry_run=True)
    assert report.refused is not None and f"batch {pending} is still pending" in report.refused

    code, out, _ = demo_cli("consolidate", "--dry-run", "--store", str(private.root))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("dry run, nothing written")
    assert lines[1] == f"  a real run now is refused: {report.refused}"
    code, _, err = demo_cli("consolidate", "--store", str(private.root), "--as", OWNER)
    assert code == 2 and report.refused in err  # what the dry run said

    code, out, _ = demo_cli("consolidate", "--dry-run", "--store", str(private.root), "--json")
    assert json.loads(out)[0]["refused"] == report.refused


def test_a_dry_run_with_no_batch_waiting_is_not_refused(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    code, out, _ = demo_cli("consolidate", "--dry-run", "--store", str(demo / "team"))
    assert code == 0 and "refused" not in out
    assert "  orient: 3 records; index 1 line, 87 bytes\n" in out  # counts in words
    assert "  changes: 0 (0 automatic, 0 need approval) in 0 files\n" in out


def test_the_common_options_may_come_before_the_command(
    demo: Path, demo_cli: Callable[..., tuple[int, str, str]]
) -> None:
    """``memgov --as U decide X`` runs decide (it was taken for the desk's options and
    answered "unrecognized arguments: decide X")."""
    after = demo_cli("queue", "--kind", "deletion", "--store", str(demo), "--as", OWNER)
    before = demo_cli("--store", str(demo), "--as", OWNER, "queue", "--kind", "deletion")
    assert before == after and after[0] == 0 and "delete: Home city" in after[1]
    item = the_item(demo, "deletion").id
    code, out, err = demo_cli(
        "--as", OWNER, "--store", str(demo), "decide", item, "--approve", "--dry-run"
    )
    assert (code, err) == (0, "") and out.startswith("dry run: nothing written")
