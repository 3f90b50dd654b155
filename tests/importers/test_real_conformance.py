"""Every real Claude Code folder of ``../shared/real-memory`` (skipped when absent)
through import, export and the four sync steps, each step checked on
disk on both sides (:mod:`support_conformance`). ``bench/real_folders.py`` prints
the same run as a table, with times.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support_conformance import REAL, run_claude_code
from support_home import isolated  # noqa: F401 (autouse: a home of the test's own)

FOLDERS = sorted(p.name for p in (REAL / "claude-code").iterdir()) if REAL.is_dir() else []


@pytest.mark.skipif(not FOLDERS, reason="../shared/real-memory is not here")
@pytest.mark.parametrize("name", FOLDERS, ids=lambda n: n.split("__")[0])
def test_a_real_folder_keeps_every_decision_two_ways(tmp_path: Path, name: str) -> None:
    result = run_claude_code(REAL / "claude-code" / name, tmp_path)
    assert result.export_identical, result.export_note
    assert result.imported > 0
    assert {step: why for step, why in result.steps.items() if why} == {}
