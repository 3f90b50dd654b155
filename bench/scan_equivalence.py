"""A fingerprint of everything the secret scanner says: run it before and after a change
to the scanner that must not change what is found.

    .venv/bin/python bench/scan_equivalence.py               # prints the sha256
    .venv/bin/python bench/scan_equivalence.py --expect HEX  # exits 1 when it differs
    .venv/bin/python bench/scan_equivalence.py --dump out.jsonl  # every line hashed

The texts: every text of the credential corpora (tests/fixtures/credentials/*.jsonl),
every message's text and candidate's content of the provenance corpora
(tests/fixtures/provenance/*.jsonl), bench/bench_scan.py's generated texts (fixed
seeds: mixed, without tokens, and with the tokens hidden each way; and texts of common
keywords and the tokens of their rules, see :func:`stress_text`), every file of the
real folders under ../shared/real-memory (skipped when absent), and for each credential
text five variants (upper-cased, an invisible character, full-width and look-alike
letters, base64), so the evasion layers run on short texts too. For each text: every
field of every finding of :func:`scan` (rule, description, tier, line, column, how it
was hidden), the byte spans of :func:`text_spans` (raw and hidden, with their rule),
:func:`is_clean`, and :func:`redact_marked` with a mark that hashes the secret's bytes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import string
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_scan import EVASIONS, _full_width, _lookalike, build
from core.domain.secrets import EvadedFinding, is_clean, redact_marked, scan
from core.domain.secrets.rules import RULES
from core.domain.secrets.scanner import text_spans

FIXTURES = ROOT / "tests" / "fixtures"
REAL = ROOT.parent / "shared" / "real-memory"
BENCH_SIZE = 400_000  # characters of each generated text
EVASION_SIZE = 100_000


def _lines(path: Path) -> Iterator[dict[str, object]]:
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def credential_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((FIXTURES / "credentials").glob("*.jsonl")):
        texts += [str(row["text"]) for row in _lines(path)]
    return texts


def variants(text: str) -> list[str]:
    return [
        text.upper(),
        text[:3] + "\u200b" + text[3:],
        _full_width(text),
        _lookalike(text),
        base64.b64encode(text.encode("utf-8", "surrogatepass")).decode(),
    ]


def provenance_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((FIXTURES / "provenance").glob("*.jsonl")):
        for row in _lines(path):
            messages = row.get("messages") or []
            assert isinstance(messages, list)
            texts += [str(m["text"]) for m in messages]
            candidate = row.get("candidate")
            if isinstance(candidate, dict):
                texts.append(str(candidate["content"]))
    return texts


def bench_texts() -> list[str]:
    texts = [build(BENCH_SIZE)[0], build(BENCH_SIZE, with_tokens=False)[0]]
    for _via, hide in EVASIONS.values():
        texts.append(build(EVASION_SIZE, seed=11, hide=hide)[0])
    texts += [stress_text(seed, size) for seed, size in ((1, 300_000), (2, 20_000), (3, 3_000))]
    return texts


def _token(rng: random.Random, head: str, alphabet: str, n: int) -> str:
    return head + "".join(rng.choice(alphabet) for _ in range(n))


def stress_text(seed: int, size: int) -> str:
    """Common keywords (``ey``, ``s.``, ``asia``, ``sg.``, ``key``, ``.ey``) far past the
    prefilter's limit, and tokens of the rules they belong to in every kind of place:
    ends of lines, CRLF, wrapped, in quotes, glued to words, in base64 runs."""
    rng = random.Random(seed)
    alnum = string.ascii_letters + string.digits
    upper = string.ascii_uppercase + "234567"
    words = ["they", "keys.", "this.", "asia", "msg.send", "key:", "x.eyes", "s.", "ey", "sg."]
    seps = [" ", " ", "\n", "\r\n", "\t", ".", ",", "-", "_", "=", ":", '"', "/", "+"]
    makers = [
        lambda: _token(rng, "s.", alnum, rng.choice((23, 24, 25))),
        lambda: _token(rng, "hvs.", alnum + "_-", rng.choice((89, 90, 120, 121))),
        lambda: _token(rng, rng.choice(("AKIA", "ASIA", "A3TX")), upper, rng.choice((15, 16, 17))),
        lambda: _token(rng, "AKIA", upper, 16)
        + rng.choice((" ", "=", ": "))
        + _token(rng, "", alnum + "/+", 40),
        lambda: _token(rng, "eyJ", alnum, 20)
        + "."
        + _token(rng, "eyJ", alnum, 30)
        + "."
        + _token(rng, "", alnum + "_-", 20),
        lambda: _token(rng, "ey", alnum, 16) + "." + _token(rng, "ey", alnum, 18),
        lambda: _token(rng, "SG.", alnum + "._=-", 66),
        lambda: _token(rng, "", alnum + "+/", rng.choice((19, 20, 21, 64, 76))),
    ]  # fmt: skip
    parts: list[str] = []
    total = 0
    while total < size:
        roll = rng.random()
        part = rng.choice(makers)() if roll < 0.08 else rng.choice(words)
        parts += [part, rng.choice(seps)]
        total += len(part) + 1
    return "".join(parts)


def real_texts() -> list[str]:
    if not REAL.is_dir():
        return []
    return [
        path.read_bytes().decode("utf-8", "replace")
        for path in sorted(REAL.rglob("*"))
        if path.is_file()
    ]


def texts(with_real: bool = True) -> list[str]:
    every: dict[str, None] = {}
    credentials = credential_texts()
    for text in credentials:
        every.setdefault(text, None)
    for text in credentials:
        for variant in variants(text):
            every.setdefault(variant, None)
    for text in provenance_texts() + bench_texts() + (real_texts() if with_real else []):
        every.setdefault(text, None)
    return list(every)


def _mark(rule: str, value: bytes) -> str:
    return f"[{rule}:{hashlib.sha256(value).hexdigest()[:16]}]"


def said_of(text: str) -> tuple[str, int]:
    """One line of everything the scanner says of ``text``, and how many findings."""
    findings = scan(text)
    plain = [
        [
            f.rule_id,
            f.description,
            f.tier,
            f.line,
            f.column,
            f.via if isinstance(f, EvadedFinding) else None,
        ]
        for f in findings
    ]
    _data, raw, hidden = text_spans(text, "scan")
    spans = [[s, RULES[o].id, e, v] for s, o, e, v in raw + hidden]
    redacted = hashlib.sha256(redact_marked(text, _mark).encode("utf-8", "surrogatepass"))
    line = json.dumps([plain, spans, is_clean(text), redacted.hexdigest()])
    return line, len(findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--expect", help="the sha256 it must give (exit 1 otherwise)")
    parser.add_argument("--dump", type=Path, help="write every hashed line to this file")
    args = parser.parse_args()
    every = texts()
    digest = hashlib.sha256()
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    count = 0
    start = time.process_time()
    for text in every:
        head = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        line, n = said_of(text)
        digest.update(f"{head}\t{line}\n".encode())
        count += n
        if dump:
            dump.write(f"{head}\t{line}\n")
    if dump:
        dump.close()
    took = time.process_time() - start
    hexed = digest.hexdigest()
    real = "with" if REAL.is_dir() else "without"
    print(
        f"{len(every):,} texts ({real} the real folders), {count:,} findings, "
        f"{took:.1f} s CPU: sha256 {hexed}"
    )
    if args.expect and args.expect != hexed:
        print(f"DIFFERENT: expected {args.expect}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
