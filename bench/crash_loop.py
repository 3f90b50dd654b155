"""Crash loop: kill -9 every writing command at a random moment, then check.

Each round copies a fresh demo (built once), starts one writing command of the
real ``memgov`` CLI, kills its process group with SIGKILL after a random delay
between 0 and the command's normal duration (measured first, per command), and
then checks (see ``tests/support/support_attack.py``):

(a) ``memgov doctor --json`` and one more write (``memgov log`` in each store) do
    not crash (no traceback, exit 0..3; the write must succeed), then doctor finds
    no error the fresh demo did not have, ``git status`` is clean outside
    ``.memgov/``, no ``.git/index.lock`` and no journal are left;
(b) every memory an ``erase`` that was not rolled back names is gone: its content
    (read from the demo before the round) is in no file of the store and, in a
    private store, in no git object (``git cat-file --batch-all-objects``);
(c) no decision applied twice: one effective decision per item and store, one
    revert per decision, no event id twice, every ``decide`` event has its record,
    one baseline tag per decision, one open request per memory and kind;
(d) a promotion is in both stores or in neither.

    .venv/bin/python bench/crash_loop.py [--kills 100] [--seed 1] [--command NAME ...]

Prints every round, then kills tried / stores consistent, and the failure classes.
The store of each inconsistent round is kept (its path is printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from support_attack import (
    Harness,
    command_names,
    crash_loop,
    main_setup,
    print_classes,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100, help="kills that land (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--command", action="append", choices=command_names(), help="only these (repeat)"
    )
    parser.add_argument(
        "--spread", action="store_true", help="cycle through the commands instead of drawing"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per duration measurement")
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
    harness.build()
    result = crash_loop(
        harness,
        kills=args.kills,
        seed=args.seed,
        commands=args.command,
        spread=args.spread,
        repeat=args.repeat,
    )
    rounds = result["rounds"]
    print()
    if result["skipped"]:
        print("skipped (their starting state could not be built): " + ", ".join(result["skipped"]))
        for name, why in harness.broken_variants.items():
            print(f"  variant {name}: {why}")
    controls = {c: f for c, f in result["controls"].items() if f}
    if controls:
        print(f"control runs (not killed) already inconsistent: {len(controls)} command(s)")
        for name, failures in controls.items():
            print(f"  {name}: " + "; ".join(str(f) for f in failures))
    print(
        f"kills tried / stores consistent: {result['kills']} / {result['consistent']}"
        f"  ({result['finished_first']} more round(s) finished before the kill; "
        f"{time.monotonic() - started:.0f} s)"
    )
    bad = [r for r in rounds if not r.consistent]
    for r in bad:
        print(
            f"  round {r.number} {r.command}, kill at {r.delay:.3f}s"
            f"{'' if r.killed else ' (finished first)'}: " + "; ".join(str(f) for f in r.failures)
        )
        print(f"    store kept in {r.kept}")
    print_classes(rounds)
    return 0 if not bad and not controls else 1


if __name__ == "__main__":
    sys.exit(main())
