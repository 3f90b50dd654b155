"""Race loop: two deciders on one item, released at the same moment.

Each round copies a fresh demo and starts two ``memgov`` commands with different
outcomes on one item (a conflict newer vs neither, older vs parallel; a deletion
approve vs reject; a promotion approve vs reject; a batch approve vs reject; two
reverts of one decision; two ``request-delete`` of one memory). Both wait at a
FIFO after their imports and leave it together. A double application is: both
exit 0 (for two requests: two different requests returned), two effective
decisions for one item, two reverts of one decision, two open requests for one
memory, two baseline tags for one decision. The loser must exit 1 with "already
decided by"; the stores are checked as in the crash loop.

    .venv/bin/python bench/race_loop.py [--rounds 50] [--seed 1] [--same-second]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from support_attack import RACES, Harness, is_double, main_setup, print_classes, race_loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--race", action="append", choices=[r.name for r in RACES], help="only these (repeat)"
    )
    parser.add_argument(
        "--same-second",
        action="store_true",
        help="both deciders on one pinned clock (default: one second apart, two people)",
    )
    parser.add_argument("--work", help="work folder (default: a new one under $TMPDIR or /tmp)")
    parser.add_argument("--code", help="run this tree's core/ and tui/ instead of the repo's")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="run the commands that are not attacked through the memgov entry point "
        "(a new interpreter each) rather than forked from the zygote",
    )
    args = parser.parse_args(argv)
    work = main_setup(args.work)
    with Harness(work, code=Path(args.code) if args.code else None, cold=args.cold) as harness:
        return run(harness, args, work)


def run(harness: Harness, args: argparse.Namespace, work: Path) -> int:
    print(f"work folder: {work}")
    started = time.monotonic()
    harness.build({r.variant for r in RACES})
    result = race_loop(
        harness, rounds=args.rounds, seed=args.seed, races=args.race, same_second=args.same_second
    )
    rounds = result["rounds"]
    print()
    print(
        f"races tried / double applications: {result['races']} / {result['double']}"
        f"  ({time.monotonic() - started:.0f} s)"
    )
    per: dict[str, list[int]] = {}
    for r in rounds:
        tally = per.setdefault(r.command, [0, 0])
        tally[0] += 1
        tally[1] += any(is_double(f) for f in r.failures)
    for name, (tried, double) in sorted(per.items()):
        print(f"  {name:<36} {tried:3d} tried, {double:3d} double")
    for r in rounds:
        if r.failures:
            print(f"  round {r.number} {r.command} ({r.note}): " + "; ".join(map(str, r.failures)))
            print(f"    stores kept in {r.kept}")
    print_classes(rounds)
    return 0 if not any(r.failures for r in rounds) else 1


if __name__ == "__main__":
    sys.exit(main())
