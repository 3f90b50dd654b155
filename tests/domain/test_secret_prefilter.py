"""The scanner's keyword prefilter finds what a plain search for each keyword finds.

The prefilter reads a text by stretches and drops a common keyword once it has been
seen often enough; these texts put keywords across the stretches' boundaries and
after a common keyword has left, and compare every needle's hits with a byte search
for it (its tail's regex checked after it), and a token's finding with the scan.
"""

from __future__ import annotations

import random
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from core.domain.secrets import matching, prefilter, scan
from core.domain.secrets.hidden import base64_runs
from core.domain.secrets.rules import RULES
from core.domain.secrets.tells import CLASSES

ROOT = Path(__file__).resolve().parents[2]


def plain_hits(lowered: bytes) -> dict[bytes, list[int]]:
    """Every needle's occurrences by ``bytes.find``, cut as the prefilter cuts them."""
    hits: dict[bytes, list[int]] = {}
    for needle in {n for needles in matching._NEEDLES for n in needles}:
        keyword, _, tail = needle.partition(b"\0")
        found, at = [], lowered.find(keyword)
        while at != -1:
            if not tail or re.compile(tail).match(lowered, at + len(keyword)):
                found.append(at)
            at = lowered.find(keyword, at + 1)
        if found:
            hits[needle] = found
    return hits


def same(hits: dict[bytes, list[int]], plain: dict[bytes, list[int]]) -> None:
    assert hits.keys() == plain.keys()
    for needle, found in hits.items():
        if needle in matching._LOCAL:
            assert found == plain[needle]
        else:  # up to one past the limit: beyond it the rule runs over the whole text
            assert found == plain[needle][: matching._MAX_WINDOWS + 1]


def text_with_keywords(seed: int, size: int) -> str:
    rng = random.Random(seed)
    keywords = sorted(matching._BY_KEYWORD)
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        if rng.random() < 0.3:
            parts.append(rng.choice(keywords).encode("latin-1").decode("utf-8", "replace"))
        else:
            parts.append("".join(rng.choice(string.ascii_lowercase + " =:.\n") for _ in range(9)))
    return "".join(parts)


@pytest.mark.parametrize("seed", range(4))
def test_every_keyword_is_found_where_a_byte_search_finds_it(seed: int) -> None:
    lowered = text_with_keywords(seed, 200_000).encode("utf-8").lower()
    same(matching.keyword_hits(lowered), plain_hits(lowered))


@pytest.mark.parametrize("boundary", [8192, 8192 + 16384, 8192 + 16384 + 32768])
def test_a_keyword_across_a_stretch_boundary_is_found(boundary: int) -> None:
    for cut in range(1, 5):
        token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"
        text = "x" * (boundary - cut) + token + " and then some words\n"
        lowered = text.encode("utf-8").lower()
        same(matching.keyword_hits(lowered), plain_hits(lowered))
        assert [(f.rule_id, f.column) for f in scan(text)] == [("github-pat", boundary - cut + 1)]


def test_a_token_after_a_common_keyword_has_left_the_search_is_found() -> None:
    common = "they say s. and asia, the key is here. " * 3000  # ``ey``, ``s.``, ``asia``
    token = "glpat-" + "Xy7Kq2Lm9Pw4Rt6Vb8Nz"
    text = common + token + "\n" + common
    lowered = text.encode("utf-8").lower()
    same(matching.keyword_hits(lowered), plain_hits(lowered))
    assert [f.rule_id for f in scan(text)] == ["gitlab-pat"]


def test_importing_the_scanner_compiles_nothing_nor_loads_the_automaton() -> None:
    probe = (
        "import re, sys\n"
        "compiled = []\n"
        "plain = re.compile\n"
        "def counting(pattern, flags=0):\n"
        "    caller = sys._getframe(1).f_globals.get('__name__', '')\n"
        "    if caller == 'core.domain.secrets.matching':\n"
        "        compiled.append(pattern)\n"
        "    return plain(pattern, flags)\n"
        "re.compile = counting\n"
        "import core.domain.secrets\n"
        "from core.domain.secrets import matching\n"
        "print(len(compiled), 'ahocorasick_rs' in sys.modules, len(matching._AUTOMATA))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "False", "0"]


# --- the shortcuts: narrower needles and the lines of base64 runs -----------------------


def test_every_shortcut_is_live_for_the_regex_it_was_worked_out_for() -> None:
    """A shortcut holds for one regex (its digest); a rule whose regex changed has lost
    it. Check again that each match lies on one line and holds the needle (``.ey``) or 20
    base64 characters in a row, then update the digest in prefilter.py or matching.py."""
    ids = [rule.id for rule in RULES]
    for rule_id, (digest, needles) in prefilter._NARROWER.items():
        rule = RULES[ids.index(rule_id)]
        assert prefilter.verified(rule, digest), rule_id
        assert prefilter.NEEDLES[ids.index(rule_id)] == needles
    assert {RULES[order].id for order in matching.RUN_RULES} == {
        rule_id for rule_id, _ in matching._IN_LONG_RUN
    }


def _tokens_among_common_keywords(seed: int, size: int) -> str:
    rng = random.Random(seed)
    alnum = string.ascii_letters + string.digits
    upper = string.ascii_uppercase + "234567"

    def body(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    makers = [
        lambda: "s." + body(alnum, rng.choice((23, 24, 25))),
        lambda: "hvs." + body(alnum + "_-", rng.choice((89, 90, 121))),
        lambda: rng.choice(("AKIA", "ASIA", "A3TB")) + body(upper, rng.choice((15, 16, 17))),
        lambda: "AKIA" + body(upper, 16) + rng.choice((" ", "=", ": ")) + body(alnum + "/+", 40),
        lambda: "eyJ" + body(alnum, 20) + ".eyJ" + body(alnum, 30) + "." + body(alnum, 20),
        lambda: body(alnum + "+/", rng.choice((19, 20, 64))),
        lambda: "SG." + body(alnum + "._=-", rng.choice((65, 66))),
    ]
    words = ["they", "keys.", "this.", "asia", "key", "s.", "x.eyes", "ey", "msg.send", "sg."]
    seps = [" ", "\n", "\r\n", ".", ",", "-", "_", "=", '"', "/", "+", "\t"]
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        parts.append(rng.choice(makers)() if rng.random() < 0.06 else rng.choice(words))
        parts.append(rng.choice(seps))
    return "".join(parts)


@pytest.mark.parametrize(("seed", "size"), [(0, 60_000), (1, 60_000), (2, 2_000)])
def test_the_shortcuts_find_what_each_rule_finds_over_the_whole_text(seed: int, size: int) -> None:
    data = _tokens_among_common_keywords(seed, size).encode("utf-8")
    lowered = data.lower()
    runs = base64_runs(data, data.translate(CLASSES))
    found = sorted(matching.find_secrets(data, lowered, matching.keyword_hits(lowered), runs))
    ids = [rule.id for rule in RULES]
    shortcut = [*matching.RUN_RULES, *(ids.index(rule_id) for rule_id in prefilter._NARROWER)]
    whole = sorted(
        (start, order, stop)
        for order in shortcut
        for start, stop in matching._candidates(RULES[order], [(0, len(data))], data)
    )
    assert whole, "the text holds tokens of the rules"
    assert [f for f in found if f[1] in shortcut] == whole
