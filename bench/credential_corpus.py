"""Measure the secret scanner on a labelled corpus of credentials and near misses.

    .venv/bin/python bench/credential_corpus.py                      # the tuning corpus
    .venv/bin/python bench/credential_corpus.py --corpus PATH.jsonl  # another one
    .venv/bin/python bench/credential_corpus.py --misses             # ids of what went wrong

Each line of the corpus is a JSON object: ``id``, ``label`` (``credential`` or
``near-miss``), ``family``, ``text`` and, for a credential, ``secret``. A
credential is *caught* when a finding (either tier) starts on the line of the
secret's first character, or a secret's span covers that character; a near
miss is *flagged* when the scan has any finding at all. Prints, per family and
overall, caught/credentials and flagged/near misses, and the findings by tier.
Only ids, families and rule ids are printed, never a text or a value.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.domain.secrets import scan
from core.domain.secrets.scanner import text_spans

TUNING = ROOT / "tests" / "fixtures" / "credentials" / "tuning.jsonl"


@dataclass
class Tally:
    total: int = 0
    hit: int = 0
    ids: list[str] = field(default_factory=list)  # the misses (credentials) or flags


@dataclass
class Report:
    caught: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    flagged: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    tiers: Counter[str] = field(default_factory=Counter)

    def share(self, which: str) -> tuple[int, int]:
        table = self.caught if which == "caught" else self.flagged
        return sum(t.hit for t in table.values()), sum(t.total for t in table.values())


def is_caught(text: str, secret: str) -> bool:
    """A finding on the secret's line, or a span over its first character."""
    at = text.find(secret)
    if at < 0:
        return bool(scan(text))
    line = text.count("\n", 0, at) + 1
    if any(f.line == line for f in scan(text)):
        return True
    first = len(text[:at].encode("utf-8", "surrogatepass"))
    _data, raw, hidden = text_spans(text, "scan")
    return any(start <= first < stop for start, _order, stop, _via in raw + hidden)


def measure(path: Path) -> Report:
    report = Report()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            text, label, family = row["text"], row["label"], row["family"]
        except (ValueError, KeyError, TypeError):
            raise SystemExit(
                f"{path}:{number}: not a corpus line (id, label, family, text)"
            ) from None
        findings = scan(text)
        report.tiers.update(f.tier for f in findings)
        if label == "credential":
            tally = report.caught[family]
            tally.total += 1
            if is_caught(text, str(row.get("secret") or "")):
                tally.hit += 1
            else:
                tally.ids.append(str(row.get("id")))
        else:
            tally = report.flagged[family]
            tally.total += 1
            if findings:
                tally.hit += 1
                tally.ids.append(
                    f"{row.get('id')}:{','.join(sorted({f.rule_id for f in findings}))}"
                )
    return report


def _pct(hit: int, total: int) -> str:
    return f"{hit}/{total} ({100 * hit / total:.1f}%)" if total else "0/0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=TUNING)
    parser.add_argument("--misses", action="store_true", help="list the ids missed or flagged")
    args = parser.parse_args()
    report = measure(args.corpus)
    print(f"corpus: {args.corpus}")
    print("credentials caught, by family:")
    for family, tally in sorted(report.caught.items()):
        extra = f"  missed: {' '.join(tally.ids)}" if args.misses and tally.ids else ""
        print(f"  {family:28} {_pct(tally.hit, tally.total)}{extra}")
    print("near misses flagged, by family:")
    for family, tally in sorted(report.flagged.items()):
        extra = f"  flagged: {' '.join(tally.ids)}" if args.misses and tally.ids else ""
        print(f"  {family:28} {_pct(tally.hit, tally.total)}{extra}")
    print(
        f"overall: caught {_pct(*report.share('caught'))}, flagged {_pct(*report.share('flagged'))}"
    )
    print(f"findings by tier: {dict(sorted(report.tiers.items()))}")


if __name__ == "__main__":
    main()
