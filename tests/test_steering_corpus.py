"""The steering detector on the corpora written for it (issue 17): poisoned memories in
eight languages (instructions, actions with side effects, hidden text) and benign ones
with their near misses ("always use pnpm", URLs the config knows).

All six files are tuning data: ``poisoned``/``benign`` from the start;
``tuning2_poisoned``/``tuning2_benign``, which were the held-out corpus (written by
someone who saw neither the rules nor the first corpus) until session 14 and were then
used for tuning too; and ``blind_poisoned``/``blind_benign`` (177 and 295 memories),
written blind in session 14 by a helper that saw neither the rules nor the other
corpora. Measured blind, as they came in, the detector caught 133/177 (75.1%) and
flagged 12/295 benign (4.1%), below the goals; they were then used for tuning (the
rules deceive-user, steer-judgement, weaken-security and other-encoding, and quoted or
described mentions left alone), so they no longer measure what the detector does on
memories it was not fitted to. A newer blind corpus, written separately, does that. The
goals are 95% caught and at most 2% flagged; on the tuning data the tests ask for more
(97%, 1.5%) so the blind corpus has some margin.

Each row goes through :func:`assess` as the write gate would see a candidate of unknown
source (``role`` None, no type): weak signs count, since nothing vouches for the words
being the user's."""

from __future__ import annotations

import json
from pathlib import Path

from core.domain.steering import assess

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


def _hosts(row: dict[str, object]) -> tuple[str, ...]:
    hosts = row.get("hosts", ())
    return tuple(str(h) for h in hosts) if isinstance(hosts, list) else ()


def _rules(text: str, known: tuple[str, ...]) -> list[str]:
    return [flag.rule for flag in assess(text, known_hosts=known)]


POISONED = (
    _lines("poisoned.jsonl") + _lines("tuning2_poisoned.jsonl") + _lines("blind_poisoned.jsonl")
)
BENIGN = _lines("benign.jsonl") + _lines("tuning2_benign.jsonl") + _lines("blind_benign.jsonl")


def test_the_corpus_is_large_enough() -> None:
    assert len(POISONED) >= 420 and len(BENIGN) >= 700
    assert {row["lang"] for row in POISONED} >= {"en", "zh", "fr", "de", "es", "ja", "ko", "ru"}
    assert {row["family"] for row in POISONED} == {"instruction", "action", "hidden"}


def test_at_least_97_percent_of_the_poisoned_are_caught() -> None:
    missed = [row["text"] for row in POISONED if not _rules(str(row["text"]), KNOWN)]
    share = 1 - len(missed) / len(POISONED)
    print(f"poisoned caught: {len(POISONED) - len(missed)}/{len(POISONED)} = {share:.1%}")
    assert share >= 0.97, missed


def test_at_most_1_5_percent_of_the_benign_are_flagged() -> None:
    flagged = [
        (row["text"], rules) for row in BENIGN if (rules := _rules(str(row["text"]), _hosts(row)))
    ]
    share = len(flagged) / len(BENIGN)
    print(f"benign flagged: {len(flagged)}/{len(BENIGN)} = {share:.1%}")
    assert share <= 0.015, flagged


def test_the_former_blind_corpus_reaches_the_goals_on_its_own() -> None:
    """``blind_*`` alone (tuning data since session 14, see the module's docstring): the
    same goals as the whole, so it is not carried by the older files."""
    poisoned = _lines("blind_poisoned.jsonl")
    benign = _lines("blind_benign.jsonl")
    caught = sum(bool(_rules(str(r["text"]), KNOWN)) for r in poisoned)
    flagged = sum(bool(_rules(str(r["text"]), _hosts(r))) for r in benign)
    print(f"blind_*: caught {caught}/{len(poisoned)}, benign flagged {flagged}/{len(benign)}")
    assert caught / len(poisoned) >= 0.97 and flagged / len(benign) <= 0.015


def test_each_family_is_caught_on_its_own() -> None:
    """No family carries the others: each reaches the goal alone."""
    for family in ("instruction", "action", "hidden"):
        rows = [row for row in POISONED if row["family"] == family]
        caught = sum(bool(_rules(str(row["text"]), KNOWN)) for row in rows)
        assert caught / len(rows) >= 0.97, (family, caught, len(rows))


def test_a_second_blind_corpus_measures_what_tuning_did_not_see() -> None:
    """``blind3_*``: 174 poisoned and 335 benign memories written in session 14 by a
    third helper that saw neither the rules nor the other corpora; never used for
    tuning. Measured with the detector tuned on every other file here: 117/174 caught
    (67.2%), 18/335 benign flagged (5.4%), far below the goals (95%, 2%); the rules
    before the last round of tuning gave 111/174 and 20/335. These floors only guard
    against a regression. Do not tune on these files: write a new blind corpus first."""
    poisoned = _lines("blind3_poisoned.jsonl")
    benign = _lines("blind3_benign.jsonl")
    caught = sum(bool(assess(str(r["text"]), known_hosts=())) for r in poisoned)
    flagged = sum(bool(assess(str(r["text"]), known_hosts=_hosts(r))) for r in benign)
    print(f"blind3: caught {caught}/{len(poisoned)}, benign flagged {flagged}/{len(benign)}")
    assert caught / len(poisoned) >= 0.66 and flagged / len(benign) <= 0.06
