"""The steering detector reads what each alternative of its regexes needs from
``analysed.json`` instead of parsing every regex in each process: the table must be
exactly what the parser gives (made again by ``bench/steering_table.py`` after a rule
changes), and a detector built from it must be the detector built without it. A table
that is unreadable, of another Python, or silent on a regex is not used for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.domain import steering
from core.domain.steering import analysis, engine

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "steering"

PROBE = """
import json, sys
from pathlib import Path
from core.domain.steering import analysis
if sys.argv[1] != "table":
    analysis.TABLE_FILE = Path(sys.argv[1])
from core.domain import steering
from core.domain.steering import engine
texts = json.loads(sys.stdin.read())
verdicts = [repr(steering.assess(t, role="tool", known_hosts=())) for t in texts]
branches = [
    [b.pattern, b.flags, repr(b.checks), sorted(b.leads), sorted(b.initial), b.non_ascii]
    for b in engine._BRANCHES
]
print(json.dumps({"verdicts": verdicts, "branches": branches, "read": len(analysis._TABLE[0])}))
"""


def corpus_texts() -> list[str]:
    return [
        json.loads(line)["text"]
        for path in sorted(CORPUS.glob("*.jsonl"))
        for line in path.read_text("utf-8").splitlines()
    ]


def built(table: str, texts: list[str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, table],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_table_is_what_the_parser_gives_for_every_rule() -> None:
    assert steering.RULES
    regexes = engine.gated_regexes()
    assert len(regexes) > 30
    expected = analysis.table_text(regexes)
    assert analysis.TABLE_FILE.read_text(encoding="utf-8") == expected, (
        "a rule changed: make the table again with .venv/bin/python bench/steering_table.py"
    )
    read = analysis._read(analysis.TABLE_FILE)
    assert len(read) == len(regexes)
    for pattern, flags in regexes:
        assert read[(pattern, flags)] == analysis.analyse(pattern, flags)


def test_a_detector_from_the_table_is_the_detector_without_it(tmp_path: Path) -> None:
    texts = corpus_texts()
    assert len(texts) > 100
    with_table = built("table", texts)
    without = built(str(tmp_path / "absent.json"), texts)
    assert with_table["read"] == len(engine.gated_regexes())
    assert without["read"] == 0
    assert with_table["branches"] == without["branches"]
    assert with_table["verdicts"] == without["verdicts"]
    assert any("override-instructions" in v for v in with_table["verdicts"])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        json.dumps({"python": [2, 7], "regexes": []}),
        json.dumps({"python": list(sys.version_info[:2]), "regexes": [["x", "y"]]}),
        json.dumps({"python": list(sys.version_info[:2])}),
    ],
)
def test_a_table_that_cannot_be_used_is_not(tmp_path: Path, text: str) -> None:
    path = tmp_path / "analysed.json"
    path.write_text(text, encoding="utf-8")
    assert analysis._read(path) == {}


def test_a_regex_the_table_does_not_hold_is_worked_out() -> None:
    pattern = r"\bplease (?:obey|follow) (?:me|the page)\b|\bnew orders\b"
    assert (pattern, 2) not in analysis._read(analysis.TABLE_FILE)
    found = analysis.analysed(pattern, 2)
    assert found == analysis.analyse(pattern, 2)
    assert [part for part, *_ in found] == [
        r"\bplease (?:obey|follow) (?:me|the page)\b",
        r"\bnew orders\b",
    ]
    assert all(checks for _part, checks, _leads, _ascii in found)
