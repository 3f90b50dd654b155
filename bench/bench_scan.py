"""Scan ~10 MB of mixed text for secrets and print the throughput.

    .venv/bin/python bench/bench_scan.py              # 10 MB, 3 runs
    .venv/bin/python bench/bench_scan.py --mb 50 --runs 1

The text is built deterministically (seeded): prose, Python code, JSON,
Markdown, a little Chinese, and now and then a fake credential made at run
time from a rule's prefix and a random body (none is stored in this file).
It reports MB/s for the mixed text and for the same text without the fake
credentials (plain prose and code with no hits), plus the number of findings.
Goal: well over 10 MB/s.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.secrets import scan  # noqa: E402

PROSE = (
    "the agent remembers that deploys run from the main branch after review and the "
    "tests pass on staging; a memory is a short note with a source, a type and a decay "
    "policy. users prefer concise answers, tables for comparisons and code in python. "
    "they asked for money reports every monday, the key metric is latency at p99, and "
    "this service retries with backoff. asia and europe regions share one queue; msg "
    "handlers log the event id. see the docs for schema migration, cache index, token "
    "budget and session limits. hooks fire on commit; please keep keys out of notes."
)
WORDS = PROSE.split()
CHINESE = "记忆治理层会在写入前检查密钥和敏感信息，审阅者可以批准或拒绝候选记忆。"
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"

Fake = Callable[[random.Random], str]


def _body(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# A few rule families, each made of a prefix and a random body.
FAKES: tuple[Fake, ...] = (
    lambda r: "AKIA" + _body(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    lambda r: "ghp_" + _body(r, ALNUM, 36),
    lambda r: "glpat-" + _body(r, ALNUM, 20),
    lambda r: (
        "xoxb-"
        + _body(r, "0123456789", 12)
        + "-"
        + _body(r, "0123456789", 12)
        + "-"
        + _body(r, ALNUM, 24)
    ),
    lambda r: "sk_" + "live_" + _body(r, ALNUM, 24),
    lambda r: "AIza" + _body(r, ALNUM + "_-", 35),
    lambda r: "sk-ant-api03-" + _body(r, ALNUM + "_-", 93) + "AA",
    lambda r: "hf_" + _body(r, string.ascii_letters, 34),
    lambda r: "npm_" + _body(r, ALNUM, 36),
    lambda r: "dop_v1_" + _body(r, HEX, 64),
    lambda r: (
        "eyJ"
        + _body(r, ALNUM, 20)
        + ".eyJ"
        + _body(r, ALNUM, 40)
        + "."
        + _body(r, ALNUM + "_-", 43)
    ),
    lambda r: "SG." + _body(r, ALNUM, 22) + "." + _body(r, ALNUM, 43),
)


def prose(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(3, 7)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences) + "\n\n"


def code(rng: random.Random) -> str:
    name = rng.choice(("load_config", "apply_decay", "render_index", "check_gate"))
    arg = rng.choice(("store", "record", "path", "events"))
    return (
        f"def {name}({arg}: Store, limit: int = {rng.randint(1, 500)}) -> list[str]:\n"
        f'    """Return the {rng.choice(WORDS)} entries for {arg}."""\n'
        f"    out = [item.key for item in {arg}.items() if item.score > {rng.random():.3f}]\n"
        f"    self.s.update(out)  # see os.environ and msg.send\n"
        f"    return sorted(out)[:limit]\n\n"
    )


def json_blob(rng: random.Random) -> str:
    doc = {
        "id": f"mem-{rng.getrandbits(48):012x}",
        "type": rng.choice(("preference", "fact", "procedure")),
        "text": " ".join(rng.choice(WORDS) for _ in range(12)),
        "score": round(rng.random(), 3),
        "tags": [rng.choice(WORDS) for _ in range(3)],
    }
    return json.dumps(doc) + "\n"


def markdown(rng: random.Random) -> str:
    title = " ".join(rng.choice(WORDS) for _ in range(4)).title()
    items = "\n".join(f"- {rng.choice(WORDS)}: `{rng.choice(WORDS)}`" for _ in range(4))
    return f"## {title}\n\n{items}\n\n[docs](https://example.org/{rng.choice(WORDS)})\n\n"


def build(size: int, seed: int = 7, with_tokens: bool = True) -> tuple[str, int]:
    """About ``size`` characters of mixed text, and how many fake tokens it holds."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = tokens = 0
    makers = (prose, prose, code, json_blob, markdown)
    while total < size:
        part = rng.choice(makers)(rng)
        roll = rng.random()
        if roll < 0.02:
            part = CHINESE + part
        if with_tokens and roll > 0.99:
            part += f"note: the token is {rng.choice(FAKES)(rng)} (rotate it).\n"
            tokens += 1
        parts.append(part)
        total += len(part)
    return "".join(parts), tokens


def bench(text: str, runs: int) -> tuple[float, int, Counter[str]]:
    best = float("inf")
    findings = []
    for _ in range(runs):
        start = time.perf_counter()
        findings = scan(text)
        best = min(best, time.perf_counter() - start)
    return best, len(findings), Counter(f.rule_id for f in findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=10.0, help="text size in MB (default 10)")
    parser.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)

    for label, with_tokens in (("mixed", True), ("no tokens", False)):
        text, planted = build(size, with_tokens=with_tokens)
        megabytes = len(text.encode("utf-8")) / 1_000_000
        seconds, count, by_rule = bench(text, args.runs)
        print(
            f"{label:>9}: {megabytes:.1f} MB in {seconds:.3f} s = {megabytes / seconds:.1f} MB/s; "
            f"{count} findings ({planted} fake tokens planted)"
        )
        if by_rule:
            print("           " + ", ".join(f"{k}={v}" for k, v in sorted(by_rule.items())))


if __name__ == "__main__":
    main()
