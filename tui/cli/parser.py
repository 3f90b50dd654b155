"""The ``memgov`` parser and entry point.

:func:`build_parser` gives every command the common options (``--store``,
``--as``, ``--json``) and lets each command's module add its own arguments, in
the order ``memgov --help`` lists them. :func:`main` runs one command and turns
the errors a command may raise into exit statuses (see :mod:`tui.cli`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from core import __version__
from core.domain.errors import AlreadyDecided, MemgovError
from tui.cli import consolidation, desk, memories, review, stores, transfer, writing
from tui.cli.common import EXIT_ERROR, EXIT_FOUND, Adder, Command

#: each command's parser, in the order the help lists them
COMMANDS: tuple[Callable[[Adder], None], ...] = (
    stores.add_init,
    desk.add_demo,
    desk.add_review,
    stores.add_doctor,
    memories.add_history,
    memories.add_list,
    writing.add_remember,
    writing.add_scan,
    writing.add_sweep,
    memories.add_recall,
    review.add_queue,
    review.add_show,
    review.add_decide,
    consolidation.add_consolidate,
    consolidation.add_rollback,
    review.add_revert,
    review.add_requests,
    transfer.add_import,
    transfer.add_export,
    writing.add_log,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memgov",
        description="Govern what AI agents remember: the store, the write "
        "pipeline and the review desk.",
        epilog="Exit status: 0 ok, 1 found something or "
        "refused, 2 bad input or error, 3 a conflict was opened.",
    )
    parser.add_argument("--version", action="version", version=f"memgov {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        action="append",
        metavar="PATH",
        help="a store folder, or a folder with private/ and team/ stores; "
        "repeatable (default: $MEMGOV_STORE)",
    )
    common.add_argument(
        "--as", dest="actor", metavar="USER", help="who is acting (default: git's user.email)"
    )
    common.add_argument("--json", action="store_true", help="machine-readable output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    for add_command in COMMANDS:
        add_command(add)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["review", *argv]  # plain `memgov [--store P]` opens the desk
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except AlreadyDecided as exc:  # someone decided first: a refusal, not an error
        print(f"memgov: {exc}", file=sys.stderr)
        return EXIT_FOUND
    except MemgovError as exc:
        print(f"memgov: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
