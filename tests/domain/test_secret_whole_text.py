"""A rule whose keywords occur too often for windows is searched through the whole
text; there a regex is skipped when a literal each of its matches holds is nowhere in
the text (``matching._may_occur``). Skipping must never lose a finding: the findings
of long texts with and without the shortcut are the same, and the literals read off
the regexes are what their matches hold."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from core.domain.secrets import matching, scan
from core.domain.secrets.rules import RULES

CORPORA = Path(__file__).resolve().parents[1] / "fixtures" / "credentials"
COMMANDS = (
    "sshpass -p 'Vq8#zLr2pW' ssh deploy@db1",
    "mysql -u root -pT7kd9Qa2Lm warehouse",
    "curl -u admin:Pz4mQ8rT2x https://ci.example.org/api",
    "PGPASSWORD=Hk3n8Vq2Zt psql -h db1",
    "redis-cli -h cache1 -a Lm2Qz8Vx4k ping",
    "xfreerdp /u:ops /p:Wz7Kq2Pm9r /v:win1",
    "net use Z: \\\\files\\share Rt5Vx9Kq2m /user:corp\\ops",
    "docker login -u bot -p Xq9Lm2Vz7k registry.example.org",
    "psexec \\\\win1 -u ops -p Qz7Vm2Kx9t cmd",
    "ldapsearch -x -D cn=admin -w Np4Kz8Qm2v -b dc=corp",
    "openssl enc -aes-256-cbc -k Vb6Qz2Lm8x -in a.txt",
    "app --db-password=Jt5Wq9Lz2m --verbose",
)
NOISE = (
    "run the linter with -p to print a summary and -a for all files",
    "the --user flag takes a name; passwd is the file, not a password",
    "see /user: and /pass in the admin guide for the fields",
    "ldap groups sync every hour; openssl is pinned to 3.0",
)


def _text(seed: int, commands: int) -> str:
    rng = random.Random(seed)
    lines = [rng.choice(NOISE) for _ in range(400)]
    for _ in range(commands):
        lines.insert(rng.randrange(len(lines)), rng.choice(COMMANDS))
    return "\n".join(lines) + "\n"


def _findings(text: str) -> list[tuple[str, int, int]]:
    return [(f.rule_id, f.line, f.column) for f in scan(text)]


@pytest.mark.parametrize("seed", range(4))
def test_whole_text_search_finds_with_the_shortcut_what_it_finds_without(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _text(seed, commands=6)
    found = _findings(text)
    monkeypatch.setattr(matching, "_may_occur", lambda *_args: True)
    assert found == _findings(text)
    assert sum(rule == "cli-password" for rule, _line, _column in found) >= 6


def test_the_text_is_searched_whole_and_regexes_are_skipped() -> None:
    text = _text(9, commands=0)
    data = text.encode()
    lowered = data.lower()
    order = next(i for i, rule in enumerate(RULES) if rule.id == "cli-password")
    hits = matching.keyword_hits(lowered)
    assert matching._windows(order, hits, lowered, None) == [(0, len(data))]
    skipped = [s for s in RULES[order].searchers if not matching._may_occur(s, data, lowered)]
    assert len(skipped) > len(RULES[order].searchers) // 2


def _corpus_texts() -> list[bytes]:
    texts = [c.encode() for c in COMMANDS]
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"].encode("utf-8", "surrogatepass"))
    return texts


def test_every_literal_read_off_a_regex_is_in_each_of_its_matches() -> None:
    texts = _corpus_texts()
    matched = 0
    for rule in RULES:
        for searcher in rule.searchers:
            required = matching._required(searcher)
            fold = bool(searcher.flags & re.IGNORECASE)
            for data in texts:
                for match in searcher.finditer(data):
                    held = match.group().lower() if fold else match.group()
                    assert all(any(r in held for r in any_of) for any_of in required), (
                        rule.id,
                        searcher.pattern,
                    )
                    matched += bool(required)
    assert matched > 1000
