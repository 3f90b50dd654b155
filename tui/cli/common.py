"""What every command shares: the exit codes, the store, actor and clock options
with their environment defaults, reading input, and printing a result.

Nothing a store holds is printed unredacted: every result goes through
:func:`emit`, which redacts secrets in text and JSON alike.

Importing this module imports no store and no scanner (``memgov --help`` and
the parser use it): the workspace is imported when a command opens one, the
scanner when a result is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.domain.errors import MemgovError, StoreError, ValidationError

if TYPE_CHECKING:
    from core.api.stores import Clock, Workspace

EXIT_OK, EXIT_FOUND, EXIT_ERROR, EXIT_CONFLICT = 0, 1, 2, 3

#: a command: its parsed arguments in, its exit status out
Command = Callable[[argparse.Namespace], int]


def clock_from_env() -> Clock | None:
    """``MEMGOV_NOW`` pins the clock (ISO 8601 with offset): for demos and tests."""
    pinned = os.environ.get("MEMGOV_NOW")
    if not pinned:
        return None
    when = datetime.fromisoformat(pinned)
    if when.tzinfo is None:
        raise MemgovError(f"MEMGOV_NOW={pinned!r} has no UTC offset; add one, e.g. +08:00")
    return lambda: when


def actor_from(args: argparse.Namespace) -> str:
    """Who acts: ``--as``, else ``$MEMGOV_ACTOR``, else the actor the stores name
    (``default_actor`` in their ``memgov.yaml``: the demo's user), else git's
    ``user.email``, else the login name."""
    if getattr(args, "actor", None):
        return str(args.actor)
    if os.environ.get("MEMGOV_ACTOR"):
        return os.environ["MEMGOV_ACTOR"]
    named = _stores_actor(args)
    if named:
        return named
    import getpass
    import subprocess

    try:
        email = subprocess.run(
            ["git", "config", "user.email"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        email = ""
    return email or getpass.getuser()


def _stores_actor(args: argparse.Namespace) -> str | None:
    """The actor the stores of the command name in their config, if any."""
    if not hasattr(args, "store"):
        return None
    try:
        paths = store_paths(args)
    except StoreError:
        return None
    from core.api.stores import default_actor

    return default_actor(paths)


def store_paths(args: argparse.Namespace) -> list[str]:
    paths = list(args.store or [])
    if not paths and os.environ.get("MEMGOV_STORE"):
        paths = [p for p in os.environ["MEMGOV_STORE"].split(os.pathsep) if p]
    if not paths:
        raise StoreError(
            "no store given: pass --store PATH or set MEMGOV_STORE "
            "(try 'memgov demo' for a demo store)"
        )
    return paths


def workspace(args: argparse.Namespace) -> Workspace:
    from core.api.stores import open_workspace

    return open_workspace(store_paths(args), clock=clock_from_env())


def redact_tree(data: Any) -> Any:
    """Every string in a JSON-able tree, with secrets replaced by their rule id. A
    string the tree holds many times (a record's words in its item and its evidence,
    an id, a time) is scanned once."""
    from core.domain.secrets import redact

    done: dict[str, str] = {}

    def walk(data: Any) -> Any:
        if isinstance(data, str):
            found = done.get(data)
            if found is None:
                found = done[data] = redact(data)
            return found
        if isinstance(data, dict):
            return {key: walk(value) for key, value in data.items()}
        if isinstance(data, list | tuple):
            return [walk(value) for value in data]
        return data

    return walk(data)


def emit(args: argparse.Namespace, data: Any, text: Callable[[], str]) -> None:
    """Print a command's result; nothing a store holds is printed unredacted, nor with
    a control a terminal would act on (:func:`core.domain.terminal.printable`).

    ``data`` is what ``--json`` prints, or a function giving it: then it is built
    only for ``--json`` (``memgov list`` on 10,000 records would build 10,000
    dictionaries to print a table)."""
    if getattr(args, "json", False):
        if callable(data):
            data = data()
        print(json.dumps(redact_tree(data), ensure_ascii=False, indent=2, default=str))
    else:
        out = text()
        if out:
            from core.domain.secrets import redact
            from core.domain.terminal import printable

            print(printable(redact(out)))


#: the ``code`` of an error under ``--json``, by the domain's error classes (the first
#: of an error's classes listed here names it; a new subclass keeps its parent's code)
ERROR_CODES: tuple[tuple[str, str], ...] = (
    ("AddressBlocked", "address_blocked"),
    ("SecretBlocked", "secret_blocked"),
    ("AlreadyDecided", "already_decided"),
    ("ItemChanged", "item_changed"),
    ("AuthorizationError", "not_allowed"),
    ("ValidationError", "invalid"),
    ("NotFoundError", "not_found"),
    ("StoreError", "store"),
    ("TransitionError", "transition"),
    ("MemgovError", "error"),
)


def error_code(exc: BaseException) -> str:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return next((code for name, code in ERROR_CODES if name in names), "error")


def error_data(exc: BaseException | str, status: int, code: str | None = None) -> dict[str, Any]:
    """An error as ``--json`` prints it: ``{"error": {...}}`` with every key present
    (null when the error does not name it): its ``code``, the ``message`` the text
    output prints, the ``exit`` status, the ``file``, ``field``, ``where`` (what was
    wrong when it is no file) and ``hint`` a ValidationError names, and the secret
    scanner's ``rules`` (ids, never a value)."""

    def text(name: str) -> str | None:
        value = getattr(exc, name, None)
        return value if isinstance(value, str) else None

    rules = getattr(exc, "rules", None)
    return {
        "error": {
            "code": code or ("error" if isinstance(exc, str) else error_code(exc)),
            "message": str(exc),
            "exit": status,
            "file": text("path"),
            "field": text("field"),
            "where": text("where"),
            "hint": text("hint"),
            "rules": [str(r) for r in rules] if isinstance(rules, list | tuple) else None,
        }
    }


def emit_error(
    args: argparse.Namespace | None,
    exc: BaseException | str,
    status: int,
    *,
    json_output: bool | None = None,
    code: str | None = None,
) -> int:
    """Say an error and give its exit status: ``memgov: ...`` on stderr, and under
    ``--json`` the error object on stdout too (redacted, as every result is)."""
    print(f"memgov: {exc}", file=sys.stderr)
    if json_output if json_output is not None else getattr(args, "json", False):
        data = redact_tree(error_data(exc, status, code))
        print(json.dumps(data, ensure_ascii=False, indent=2))
    return status


def read_input(name: str | None) -> str:
    if name in (None, "-"):
        return sys.stdin.read()
    path = Path(name)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValidationError("no such file", path=path) from None
    except UnicodeDecodeError as exc:
        raise ValidationError(f"not UTF-8 text (byte {exc.start})", path=path) from None
