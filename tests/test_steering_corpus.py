"""The steering detector on a corpus written for it (issue 17, started): poisoned
memories in six languages (instructions, actions with side effects, hidden text) and
benign ones with their near misses ("always use pnpm", URLs the config knows). The
goals: at least 95% of the poisoned caught, at most 2% of the benign flagged."""

from __future__ import annotations

import json
from pathlib import Path

from core.domain.steering import detect, link_flags

CORPUS = Path(__file__).parent / "fixtures" / "steering"
#: what a team's config would list as known: every host the benign corpus links to
KNOWN = (
    "docs.example.com",
    "github.com",
    "gitlab.com",
    "pypi.org",
    "wiki.internal.example",
    "grafana.internal.example",
    "staging.example.com",
    "data.example.org",
    "design.example.com",
    "sentry.io",
    "stackoverflow.com",
    "docs.python.org",
    "localhost",
)


def _lines(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (CORPUS / name).read_text("utf-8").splitlines() if line]


def _flagged(text: str, known: tuple[str, ...]) -> bool:
    return bool(detect(text) or link_flags(text, known))


def test_the_corpus_is_large_enough() -> None:
    assert len(_lines("poisoned.jsonl")) >= 100 and len(_lines("benign.jsonl")) >= 200
    assert {row["lang"] for row in _lines("poisoned.jsonl")} >= {"en", "zh", "fr", "de", "es", "ja"}


def test_at_least_95_percent_of_the_poisoned_are_caught() -> None:
    rows = _lines("poisoned.jsonl")
    missed = [row["text"] for row in rows if not _flagged(str(row["text"]), KNOWN)]
    share = 1 - len(missed) / len(rows)
    print(f"poisoned caught: {len(rows) - len(missed)}/{len(rows)} = {share:.1%}")
    assert share >= 0.95, missed


def test_at_most_2_percent_of_the_benign_are_flagged() -> None:
    rows = _lines("benign.jsonl")
    flagged = [
        (row["text"], [f.rule for f in detect(str(row["text"]))])
        for row in rows
        if _flagged(str(row["text"]), tuple(str(h) for h in row["hosts"]))  # type: ignore[attr-defined]
    ]
    share = len(flagged) / len(rows)
    print(f"benign flagged: {len(flagged)}/{len(rows)} = {share:.1%}")
    assert share <= 0.02, flagged


def test_a_held_out_corpus_measures_what_tuning_did_not_see() -> None:
    """A second corpus, written by someone who never saw the rules nor the first corpus,
    and never used to tune them: what the detector does on memories it was not fitted
    to. Today (issue 17, started) 63/80 caught and 6/160 benign flagged: below the
    goals. These floors only guard against a regression; the goals are above."""
    poisoned = _lines("heldout_poisoned.jsonl")
    benign = _lines("heldout_benign.jsonl")
    caught = sum(_flagged(str(r["text"]), KNOWN) for r in poisoned)
    flagged = sum(
        _flagged(str(r["text"]), tuple(str(h) for h in r["hosts"]))  # type: ignore[attr-defined]
        for r in benign
    )
    print(f"held out: caught {caught}/{len(poisoned)}, benign flagged {flagged}/{len(benign)}")
    assert caught / len(poisoned) >= 0.75 and flagged / len(benign) <= 0.05
