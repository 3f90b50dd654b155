"""A fingerprint of everything the steering detector says: run it before and after a change
to the engine or a rule's code that must not change what is flagged.

    .venv/bin/python bench/steering_equivalence.py               # prints the sha256
    .venv/bin/python bench/steering_equivalence.py --expect HEX  # exits 1 when it differs
    .venv/bin/python bench/steering_equivalence.py --dump out.jsonl  # every line hashed

The texts: every text of the steering corpora (tests/fixtures/steering/*.jsonl), every
message's text and candidate's content of the provenance corpora
(tests/fixtures/provenance/*.jsonl), every rule's own ``catches`` and ``misses``
(:data:`RULES` and :data:`FOREIGN_RULE`), and two variants of each: upper-cased, and
with odd letters (the ones that fold unlike they look: dotted and dotless i, long s, the
Kelvin sign, sharp s, a full-width letter, a zero-width space), so the engine's folded
index and its aligned/unaligned paths are both exercised. For each text: :func:`detect`,
and :func:`assess` with memory_type in (None, "preference", "semantic"), role in (None,
"user", "tool") and known_hosts in (None, ("example.com",)). Every field of every flag
goes into the hash, in order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain import steering

FIXTURES = ROOT / "tests" / "fixtures"
MEMORY_TYPES = (None, "preference", "semantic")
ROLES = (None, "user", "tool")
HOSTS: tuple[tuple[str, ...] | None, ...] = (None, ("example.com",))

#: letters swapped for odd ones, every other occurrence (so both stay in the text)
ODD = {
    "i": "\u0130",  # İ: casefolds to i + combining dot
    "I": "\u0131",  # ı: dotless i, folded to i by the regex engine
    "s": "\u017f",  # ſ: long s, casefolds to s
    "k": "\u212a",  # K: the Kelvin sign, casefolds to k
    "e": "\uff45",  # ｅ: full-width e (a look-alike, not folded)
    "o": "\u043e",  # о: Cyrillic o
}


def _lines(path: Path) -> Iterator[dict[str, object]]:
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def base_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((FIXTURES / "steering").glob("*.jsonl")):
        texts += [str(row["text"]) for row in _lines(path)]
    for path in sorted((FIXTURES / "provenance").glob("*.jsonl")):
        for row in _lines(path):
            messages = row.get("messages") or []
            assert isinstance(messages, list)
            texts += [str(m["text"]) for m in messages]
            candidate = row.get("candidate")
            if isinstance(candidate, dict):
                texts.append(str(candidate["content"]))
    for rule in (*steering.RULES, steering.FOREIGN_RULE):
        texts += [*rule.catches, *rule.misses]
    return texts


def odd(text: str) -> str:
    out, turn = [], 0
    for n, ch in enumerate(text):
        swap = ODD.get(ch)
        if swap is not None:
            turn += 1
            if turn % 2:
                out.append(swap)
                continue
        out.append(ch)
        if n % 97 == 50 and ch == " ":
            out.append("\u200b")
    return "".join(out)


def texts() -> list[str]:
    every: dict[str, None] = {}
    for text in base_texts():
        for variant in (text, text.upper(), odd(text)):
            every.setdefault(variant, None)
    return list(every)


def _plain(flags: list[steering.Flag]) -> list[tuple[str, str, int, int, str, str]]:
    return [(f.rule, f.family, f.start, f.end, f.shown, f.why) for f in flags]


def flags_of(text: str) -> Iterator[tuple[str, int]]:
    """Each call's line, and how many flags it gave."""
    flags = steering.detect(text)
    yield json.dumps(["detect", _plain(flags)], ensure_ascii=False), len(flags)
    for memory_type in MEMORY_TYPES:
        for role in ROLES:
            for hosts in HOSTS:
                flags = steering.assess(text, memory_type=memory_type, role=role, known_hosts=hosts)
                line = json.dumps([memory_type, role, hosts, _plain(flags)], ensure_ascii=False)
                yield line, len(flags)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--expect", help="the sha256 it must give (exit 1 otherwise)")
    parser.add_argument("--dump", type=Path, help="write every hashed line to this file")
    args = parser.parse_args()
    digest = hashlib.sha256()
    every = texts()
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    count = 0
    start = time.process_time()
    for text in every:
        head = json.dumps(text, ensure_ascii=False)
        for line, n in flags_of(text):
            digest.update(f"{head}\t{line}\n".encode())
            count += n
            if dump:
                dump.write(f"{head}\t{line}\n")
    if dump:
        dump.close()
    took = time.process_time() - start
    hexed = digest.hexdigest()
    print(f"{len(every):,} texts, {count:,} flags, {took:.1f} s CPU: sha256 {hexed}")
    if args.expect and args.expect != hexed:
        print(f"DIFFERENT: expected {args.expect}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
