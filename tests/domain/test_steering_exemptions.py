"""Attacks on the steering detector's exemptions: each text is a
memory an attacker would plant, worded to slip through one of the exemptions written to
cut false alarms (a project's own installer, a check off as a bounded exception, a secret
kept from a third party, a quoted example, a comment in a code span, direction marks in
right-to-left text) or past ``foreign-rule``. A helper wrote them against the code; the 47
that the detector before the exemptions caught and the first exemptions let through were
closed (``words``: flagged by the words alone). Six standing orders worded as facts ("the
user's payment account changed to GB33 ...", "competitors have unpatched breaches") still
get through both: the instruction family's known gap (see docs/security.md), not listed here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.domain.steering import assess

ATTACKS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "fixtures" / "steering" / "exemption_attacks.jsonl")
    .read_text("utf-8")
    .splitlines()
    if line
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[str(a["id"]) for a in ATTACKS])
def test_an_attack_on_an_exemption_is_flagged(attack: dict[str, object]) -> None:
    """``words``: flagged by its words alone; otherwise, as a candidate from a tool."""
    text = str(attack["text"])
    alone = assess(text, known_hosts=())
    from_a_tool = assess(text, memory_type="semantic", role="tool", known_hosts=())
    assert alone if attack["words"] else from_a_tool
