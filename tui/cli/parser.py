"""The ``memgov`` parser and entry point.

:func:`build_parser` gives every command the common options (``--store``,
``--as``, ``--json``) and its own arguments (:mod:`tui.cli.arguments`), in the
order ``memgov --help`` lists them. :func:`main` imports the one command's module,
runs it and turns the errors a command may raise into exit statuses (see
:mod:`tui.cli`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, cast

from core import __version__
from core.domain.errors import (
    AlreadyDecided,
    AuthorizationError,
    ItemChanged,
    MemgovError,
    SecretBlocked,
)
from tui.cli.arguments import COMMANDS
from tui.cli.common import EXIT_ERROR, EXIT_FOUND, Command, emit_error


@functools.cache
def _help_width() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it ($COLUMNS, then
    standard output's terminal, then 80), less two: argparse's own default."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter with the width found once. argparse makes a formatter
    for every ``add_argument`` (to check its metavar) and each asks the terminal's
    size through ``shutil``, whose import brings ``bz2`` and ``lzma``: 10 ms of
    every command's start-up."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _help_width())


class UsageError(Exception):
    """A command line argparse refuses, when the output is JSON: :func:`main` says it
    as an error object (argparse itself would print its usage and exit)."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser; under ``--json`` a refused command line is a
    :class:`UsageError` (its own usage text and exit otherwise)."""

    json_output = False

    def error(self, message: str) -> NoReturn:
        if _Parser.json_output:
            raise UsageError(message)
        super().error(message)


class _Unused:
    """What ``add`` gives a command that is not being run: every call is a no-op,
    so building the parser for one command sets up no other command's arguments."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given ``only``, of that command alone (what
    running it needs; argparse costs some milliseconds a sub-command)."""
    parser = _Parser(
        prog="memgov",
        description="Govern what AI agents remember: the store, the write "
        "pipeline and the review desk.",
        epilog="Exit status: 0 ok, 1 found something or "
        "refused, 2 bad input or error, 3 a conflict was opened.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"memgov {__version__}")
    common = _Parser(add_help=False, formatter_class=_Formatter)
    common.add_argument(
        "--store",
        action="append",
        metavar="PATH",
        help="a store folder, or a folder with private/ and team/ stores; "
        "repeatable (default: $MEMGOV_STORE)",
    )
    common.add_argument(
        "--as",
        dest="actor",
        metavar="USER",
        help="who is acting (default: $MEMGOV_ACTOR, else the stores' default_actor, else git's "
        "user.email, else the login name)",
    )
    common.add_argument("--json", action="store_true", help="machine-readable output")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, target: str, help_text: str) -> argparse.ArgumentParser:
        if only is not None and name != only:
            return cast(argparse.ArgumentParser, _Unused())
        p = sub.add_parser(
            name,
            parents=[common],
            help=help_text,
            description=help_text,
            formatter_class=_Formatter,
        )
        p.set_defaults(target=target)
        return p

    for add_command in COMMANDS:
        add_command(add)
    return parser


def command_names() -> list[str]:
    """Every command's name, in ``--help``'s order (no parser is built)."""
    names: list[str] = []

    def add(name: str, target: str, help_text: str) -> argparse.ArgumentParser:
        names.append(name)
        return cast(argparse.ArgumentParser, _Unused())

    for add_command in COMMANDS:
        add_command(add)
    return names


def command(target: str) -> Command:
    """The function a parsed command names (``"writing:cmd_remember"``), its module
    imported only now: building the parser imports no command's implementation."""
    module, _, name = target.partition(":")
    func: Command = getattr(importlib.import_module(f"tui.cli.{module}"), name)
    return func


#: the exit status when the reader of the output went away (``memgov queue | head -1``):
#: 128 + SIGPIPE, what ``git log | head`` gives
EXIT_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _main(argv)
        finally:  # a closed reader fails here, not at the interpreter's exit
            sys.stdout.flush()
    except BrokenPipeError:
        # the reader is gone: no traceback, and nothing more to write (stdout goes to
        # /dev/null so the interpreter's own last flush does not fail again)
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE


#: the common options that take a value (``--store P``, ``--as U``)
_VALUED = ("--store", "--as")


def _command_first(argv: list[str]) -> list[str]:
    """``memgov --as U decide X`` as ``memgov decide --as U X``: the common options may
    come before the command, which then still is the command (it was taken for the
    desk's, which answered "unrecognized arguments: decide X")."""
    at = 0
    while at < len(argv) and argv[at].startswith("-") and argv[at] not in ("-h", "--help"):
        at += 2 if argv[at] in _VALUED else 1
    if 0 < at < len(argv) and argv[at] in command_names():
        return [argv[at], *argv[:at], *argv[at + 1 :]]
    return argv


def _main(argv: Sequence[str] | None) -> int:
    argv = _command_first(list(sys.argv[1:] if argv is None else argv))
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = ["review", *argv]  # plain `memgov [--store P]` opens the desk
    # one command's parser; the full one for help, or for what is not a command
    parser = build_parser(only=argv[0] if argv[0] in command_names() else None)
    # under --json a refused command line is an error object too (before the parse:
    # the refusal may come before --json is read)
    json_output = "--json" in argv[: argv.index("--")] if "--" in argv else "--json" in argv
    _Parser.json_output = json_output
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        shown = f"memgov {argv[0]}" if argv[0] in command_names() else "memgov"
        said = f"{exc} (see {shown} --help)"
        return emit_error(None, said, EXIT_ERROR, json_output=True, code="usage")
    finally:
        _Parser.json_output = False
    try:
        return int(command(args.target)(args))
    except (AlreadyDecided, AuthorizationError, ItemChanged, SecretBlocked) as exc:
        # a refusal, not an error: someone decided first, the actor may not do this, a
        # secret blocks it. The input was understood; the answer is no (exit 1)
        return emit_error(args, exc, EXIT_FOUND)
    except MemgovError as exc:
        return emit_error(args, exc, EXIT_ERROR)
    except KeyboardInterrupt:
        return 130
