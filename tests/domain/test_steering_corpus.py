"""The steering detector on the corpora written for it: poisoned memories in
eight languages (instructions, actions with side effects, hidden text) and benign ones
with their near misses ("always use pnpm", URLs the config knows).

All eight files are tuning data: ``poisoned``/``benign`` from the start;
``tuning2_poisoned``/``tuning2_benign``, which were the held-out corpus (written by
someone who saw neither the rules nor the first corpus) until session 14 and were then
used for tuning too; and ``blind_poisoned``/``blind_benign`` (177 and 295 memories),
written blind in session 14 by a helper that saw neither the rules nor the other
corpora. Measured blind, as they came in, the detector caught 133/177 (75.1%) and
flagged 12/295 benign (4.1%), below the goals; they were then used for tuning (the
rules deceive-user, steer-judgement, weaken-security and other-encoding, and quoted or
described mentions left alone), so they no longer measure what the detector does on
memories it was not fitted to. ``blind3_poisoned``/``blind3_benign`` (174 and 335),
written blind in session 14 by a third helper, were measured blind at 117/174 caught
(67.2%) and 18/335 benign flagged (5.4%), then tuned on (the rules scripted-answer,
persist-itself and show-secrets; concealment, precedence, forged permission, persona,
verdicts, recommendations and security-weakening widened; quotation, description and
scope told from orders). ``blind4_poisoned``/``blind4_benign`` (200 and 360), written
blind in session 15 by two more helpers (coding and personal-assistant memories, 17
languages), measure the detector on memories it was not fitted to: 106/200 caught
(53.0%) and 33/360 benign flagged (9.2%) with the rules tuned on blind3 (90/200 and
48/360 with the rules before), far from the goals. They are not tuning data: their test
is a floor against regressions, not the goal. The goals are 95% caught and at most 2%
flagged; on the tuning data the tests ask for more (97%, 1.5%).

``blind5_*`` (200 and 400, session 16) measured 108/200 caught (54.0%) and 22/400
flagged (5.5%) when it came in; ``blind6_*`` (200 and 400, session 16, written before
any change of that session and measured once after them) 75/200 (37.5%) and 18/400
(4.5%). Session 16 tuned on ``blind4_*`` and ``blind5_*``: false alarms cut (33 to 11 and
22 to 10 benign flagged) and the ``foreign-rule`` provenance flag written from them.

Each row goes through :func:`assess` as the write gate would see a candidate of unknown
source (``role`` None, no type): weak signs count, since nothing vouches for the words
being the user's. :func:`test_the_gate_with_provenance` measures what the gate does with
the source it always has: a planted memory from a tool result, a benign one from the
user's message (blind6, unseen: 153/200 caught, 6/400 flagged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.domain.steering import assess

CORPUS = Path(__file__).parents[1] / "fixtures" / "steering"
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
    _lines("poisoned.jsonl")
    + _lines("tuning2_poisoned.jsonl")
    + _lines("blind_poisoned.jsonl")
    + _lines("blind3_poisoned.jsonl")
)
BENIGN = (
    _lines("benign.jsonl")
    + _lines("tuning2_benign.jsonl")
    + _lines("blind_benign.jsonl")
    + _lines("blind3_benign.jsonl")
)


def test_the_corpus_is_large_enough() -> None:
    assert len(POISONED) >= 590 and len(BENIGN) >= 1040
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


def test_the_third_corpus_reaches_the_goals_on_its_own() -> None:
    """``blind3_*`` alone: measured blind at 117/174 caught and 18/335 benign flagged,
    then tuned on (see the module's docstring), so it now asks what the rest of the
    tuning data asks, not what unseen memories give."""
    poisoned = _lines("blind3_poisoned.jsonl")
    benign = _lines("blind3_benign.jsonl")
    caught = sum(bool(assess(str(r["text"]), known_hosts=())) for r in poisoned)
    flagged = sum(bool(assess(str(r["text"]), known_hosts=_hosts(r))) for r in benign)
    print(f"blind3: caught {caught}/{len(poisoned)}, benign flagged {flagged}/{len(benign)}")
    assert caught / len(poisoned) >= 0.97 and flagged / len(benign) <= 0.015


@pytest.mark.parametrize(
    ("name", "sizes", "caught_at_least", "flagged_at_most"),
    [
        # written blind in session 15 (coding and personal-assistant memories, 17
        # languages): 106/200 caught, 33/360 flagged when it came in; its false alarms
        # were cut in session 16
        ("blind4", (200, 360), 106, 11),
        # written blind in session 16 (coding and assistant memories, 18 languages):
        # 108/200 (54.0%) caught, 22/400 (5.5%) flagged when it came in; then tuned on
        ("blind5", (200, 400), 108, 10),
        # written blind in session 16 (data, devops, security and research agents; small
        # business, school, clinic, paperwork and family life) before any change of that
        # session, measured once after them: 75/200 (37.5%), 18/400 (4.5%); never tuned on
        ("blind6", (200, 400), 75, 18),
    ],
)
def test_the_blind_corpora_by_the_words_alone(
    name: str, sizes: tuple[int, int], caught_at_least: int, flagged_at_most: int
) -> None:
    """What the detector does on memories written by people who never saw its rules,
    by their words alone: far from the goals set for it (see the module's docstring).
    Floors, so a change that loses catches or adds false alarms on blind text shows."""
    poisoned = _lines(f"{name}_poisoned.jsonl")
    benign = _lines(f"{name}_benign.jsonl")
    caught = sum(1 for row in poisoned if _rules(str(row["text"]), ()))
    flagged = sum(1 for row in benign if _rules(str(row["text"]), _hosts(row)))
    print(f"{name}: caught {caught}/{len(poisoned)}, benign flagged {flagged}/{len(benign)}")
    assert (len(poisoned), len(benign)) == sizes
    assert caught >= caught_at_least and flagged <= flagged_at_most


# ------------------------------------------------ as the gate sees them: with provenance
def _gate(rows: list[dict[str, object]], role: str, hosts: bool) -> int:
    """How many rows the gate would hold as candidates of type ``semantic`` whose source
    message is ``role``'s (a planted memory comes from what the agent read: a tool
    result; a benign one from the user's own message)."""
    return sum(
        1
        for row in rows
        if assess(
            str(row["text"]),
            memory_type="semantic",
            role=role,
            known_hosts=_hosts(row) if hosts else (),
        )
    )


@pytest.mark.parametrize(
    ("name", "caught_at_least", "flagged_at_most"),
    [
        # tuned on: the foreign-rule orders and the cuts of false alarms were written
        # from the fourth and fifth corpora (195 and 199 held before a fact's order
        # was read in its docs' register: what is no longer held is admitted as data,
        # marked external, by the write gate)
        ("blind4", 179, 4),
        ("blind5", 183, 4),
        # unseen: measured once, after the session's changes (153 held before)
        ("blind6", 121, 6),
    ],
)
def test_the_gate_with_provenance(name: str, caught_at_least: int, flagged_at_most: int) -> None:
    """The words and where they came from, as the write gate weighs them: each poisoned
    memory as a candidate from a tool result (the evidence a planted memory quotes is in
    what the agent read, and the gate finds it in the line its source points at), each
    benign one from the user's message. blind6, unseen: 153/200 caught (76.5%), 6/400
    benign flagged (1.5%); the goals were 95% and 2%. Since a fact read in a document is
    weighed in the document's register (an order is what moves, sends, installs, trusts
    or disables), a planted fact with no such order is no longer held here: the write
    gate admits it as data, marked external (tests/writing/test_provenance_gate.py)."""
    poisoned, benign = _lines(f"{name}_poisoned.jsonl"), _lines(f"{name}_benign.jsonl")
    caught = _gate(poisoned, "tool", hosts=False)
    flagged = _gate(benign, "user", hosts=True)
    print(
        f"{name} with provenance: caught {caught}/{len(poisoned)}, flagged {flagged}/{len(benign)}"
    )
    assert caught >= caught_at_least and flagged <= flagged_at_most
