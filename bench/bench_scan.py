"""Scan ~10 MB of mixed text for secrets and print the throughput.

    .venv/bin/python bench/bench_scan.py              # 10 MB, 3 runs
    .venv/bin/python bench/bench_scan.py --mb 50 --runs 1
    .venv/bin/python bench/bench_scan.py --evasion-mb 0   # skip the evasion runs
    .venv/bin/python bench/bench_scan.py --records bench/.stores/mg-10000  # memory files

The text is built deterministically (seeded): prose, Python code, JSON,
Markdown, a little Chinese, and now and then a fake credential made at run
time from a rule's prefix and a random body (none is stored in this file).
It reports MB/s for the mixed text and for the same text without the fake
credentials (plain prose and code with no hits), plus the number of findings.
Goal: well over 10 MB/s.

Then, for each way of hiding a token (an invisible character inside, bidi
controls, a combining accent after every fifth character, the same accents
precomposed, full-width letters, look-alike letters, URL and JSON escapes, a
line break in the middle, base64), the same kind of mixed text with every fake
token hidden that way: found/planted (a planted token counts as found when a
finding of its rule, marked with how it was hidden, starts on its line) and
MB/s. Times are CPU time of this process (``time.process_time``), so a busy
machine skews them less; wall time is printed too.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.secrets import EvadedFinding, Finding, scan

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


@dataclass(frozen=True)
class Family:
    """A rule family: the rule id a scan reports and how to make a fake token."""

    rule: str
    make: Fake


def _body(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


# A few rule families, each made of a prefix and a random body.
FAMILIES: tuple[Family, ...] = (
    Family("aws-access-token", lambda r: "AKIA" + _body(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
    Family("github-pat", lambda r: "ghp_" + _body(r, ALNUM, 36)),
    Family("gitlab-pat", lambda r: "glpat-" + _body(r, ALNUM, 20)),
    Family(
        "slack-bot-token",
        lambda r: (
            "xoxb-"
            + _body(r, "0123456789", 12)
            + "-"
            + _body(r, "0123456789", 12)
            + "-"
            + _body(r, ALNUM, 24)
        ),
    ),
    Family("stripe-access-token", lambda r: "sk_" + "live_" + _body(r, ALNUM, 24)),
    Family("gcp-api-key", lambda r: "AIza" + _body(r, ALNUM + "_-", 35)),
    Family("anthropic-api-key", lambda r: "sk-ant-api03-" + _body(r, ALNUM + "_-", 93) + "AA"),
    Family("huggingface-access-token", lambda r: "hf_" + _body(r, string.ascii_letters, 34)),
    Family("npm-access-token", lambda r: "npm_" + _body(r, ALNUM, 36)),
    Family("digitalocean-pat", lambda r: "dop_v1_" + _body(r, HEX, 64)),
    Family(
        "jwt",
        lambda r: (
            "eyJ"
            + _body(r, ALNUM, 20)
            + ".eyJ"
            + _body(r, ALNUM, 40)
            + "."
            + _body(r, ALNUM + "_-", 43)
        ),
    ),
    Family("sendgrid-api-token", lambda r: "SG." + _body(r, ALNUM, 22) + "." + _body(r, ALNUM, 43)),
)
FAKES: tuple[Fake, ...] = tuple(f.make for f in FAMILIES)

# --- ways to hide a token -------------------------------------------------------------

# Cyrillic and Greek letters a reader takes for Latin ones.
LOOKALIKE = {
    "a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
    "x": "\u0445", "s": "\u0455", "i": "\u0456", "A": "\u0410", "K": "\u041a",
    "P": "\u0420", "E": "\u0395", "T": "\u03a4", "I": "\u0399", "O": "\u039f",
    "S": "\u0405", "h": "\u04bb", "j": "\u0458", "y": "\u0443", "B": "\u0412",
}  # fmt: skip


def _cut(token: str) -> int:
    return min(len(token) // 2, 12)


def _lookalike(token: str) -> str:
    """Look-alikes for the letters of the first twelve characters (of all, if none)."""
    head = "".join(LOOKALIKE.get(c, c) for c in token[:12])
    if head != token[:12]:
        return head + token[12:]
    return "".join(LOOKALIKE.get(c, c) for c in token)


def _full_width(token: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and (c.isalnum() or c in "_-") else c
                   for c in token)  # fmt: skip


def _url(token: str) -> str:
    return f"%{ord(token[0]):02X}" + "".join(
        f"%{ord(c):02X}" if c in "_-." else c for c in token[1:]
    )


def _json(token: str) -> str:
    return f"\\u{ord(token[0]):04x}" + token[1:]


def _split(token: str) -> str:
    return token[: _cut(token)] + "\n        " + token[_cut(token) :]


def _base64(token: str) -> str:
    return base64.b64encode(f"export API_TOKEN={token}\n".encode()).decode()


def _accents(token: str) -> str:
    """A combining acute accent after every fifth character."""
    return "".join(c + "\u0301" * (i % 5 == 4) for i, c in enumerate(token))


Hide = Callable[[str], str]
EVASIONS: dict[str, tuple[str, Hide]] = {
    "zero-width": ("zero-width", lambda t: t[:2] + "\u200b" + t[2:]),
    "combining": ("combining", _accents),
    "accented": ("combining", lambda t: unicodedata.normalize("NFC", _accents(t))),
    "bidi": ("zero-width", lambda t: t[:2] + "\u202e" + t[2:]),
    "soft-hyphen": ("zero-width", lambda t: t[: _cut(t)] + "\u00ad" + t[_cut(t) :]),
    "nfkc": ("nfkc", _full_width),
    "homoglyph": ("homoglyph", _lookalike),
    "url": ("url", _url),
    "escape": ("escape", _json),
    "split": ("split", _split),
    "base64": ("base64", _base64),
}


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


def build(
    size: int, seed: int = 7, with_tokens: bool = True, hide: Hide | None = None
) -> tuple[str, list[tuple[int, str]]]:
    """About ``size`` characters of mixed text, and the (line, rule) of each fake token.

    With ``hide``, every token is hidden that way.
    """
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    line = 1
    planted: list[tuple[int, str]] = []
    makers = (prose, prose, code, json_blob, markdown)
    while total < size:
        part = rng.choice(makers)(rng)
        roll = rng.random()
        if roll < 0.02:
            part = CHINESE + part
        if with_tokens and roll > 0.99:
            family = rng.choice(FAMILIES)
            token = family.make(rng)
            planted.append((line + part.count("\n"), family.rule))
            part += f"note: the token is {token if hide is None else hide(token)} (rotate it).\n"
        parts.append(part)
        total += len(part)
        line += part.count("\n")
    return "".join(parts), planted


def bench(text: str, runs: int) -> tuple[float, float, list[Finding]]:
    """Best CPU and wall seconds of ``runs`` scans, and the findings."""
    cpu = wall = float("inf")
    findings: list[Finding] = []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        findings = scan(text)
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start)
    return cpu, wall, findings


def found_count(findings: list[Finding], planted: list[tuple[int, str]], via: str | None) -> int:
    """Planted tokens with a finding of their rule on their line (marked ``via``)."""
    seen = {
        (f.line, f.rule_id)
        for f in findings
        if (via is None) or (isinstance(f, EvadedFinding) and f.via == via)
    }
    return sum((line, rule) in seen for line, rule in planted)


def records(store: Path, runs: int) -> None:
    """The memory files of ``store`` (front matter: a line break after nearly every
    token-like value), scanned in the chunks the catalog's first build scans."""
    files = sorted((store / "memories").rglob("*.md"))[:2000]
    texts = [f.read_text(encoding="utf-8") for f in files]
    chunks = ["\n\n".join(texts[i : i + 64]) for i in range(0, len(texts), 64)]
    megabytes = sum(len(c.encode("utf-8")) for c in chunks) / 1_000_000
    best = min(_timed_chunks(chunks) for _ in range(runs))
    print(
        f"records: {len(files)} files, {megabytes:.2f} MB in {best:.3f} s CPU = "
        f"{megabytes / best:.1f} MB/s"
    )


def _timed_chunks(chunks: list[str]) -> float:
    start = time.process_time()
    for chunk in chunks:
        scan(chunk)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=10.0, help="text size in MB (default 10)")
    parser.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument(
        "--evasion-mb",
        type=float,
        default=2.0,
        help="size of the text for each way of hiding tokens, in MB (default 2; 0 skips)",
    )
    parser.add_argument(
        "--records",
        type=Path,
        help="a store: scan its first 2,000 memory files, joined 64 at a time as the "
        "catalog's first build scans them, and stop",
    )
    args = parser.parse_args()
    if args.records is not None:
        records(args.records, args.runs)
        return
    size = int(args.mb * 1_000_000)

    for label, with_tokens in (("mixed", True), ("no tokens", False)):
        text, planted = build(size, with_tokens=with_tokens)
        megabytes = len(text.encode("utf-8")) / 1_000_000
        cpu, wall, findings = bench(text, args.runs)
        by_rule = Counter(f.rule_id for f in findings)
        print(
            f"{label:>11}: {megabytes:.1f} MB in {cpu:.3f} s CPU = {megabytes / cpu:.1f} MB/s "
            f"(wall {megabytes / wall:.1f} MB/s); {len(findings)} findings "
            f"({len(planted)} fake tokens planted, {found_count(findings, planted, None)} found)"
        )
        if by_rule:
            print("             " + ", ".join(f"{k}={v}" for k, v in sorted(by_rule.items())))

    if args.evasion_mb <= 0:
        return
    size = int(args.evasion_mb * 1_000_000)
    print(f"hidden tokens, {args.evasion_mb:g} MB of mixed text each (found/planted):")
    for name, (via, hide) in EVASIONS.items():
        text, planted = build(size, seed=11, hide=hide)
        megabytes = len(text.encode("utf-8")) / 1_000_000
        cpu, wall, findings = bench(text, args.runs)
        found = found_count(findings, planted, via)
        extra = len(findings) - found
        print(
            f"{name:>11}: {found}/{len(planted)} found as {via!r}"
            f"{f', {extra} other findings' if extra else ''}; "
            f"{megabytes / cpu:.1f} MB/s (wall {megabytes / wall:.1f} MB/s)"
        )


if __name__ == "__main__":
    main()
