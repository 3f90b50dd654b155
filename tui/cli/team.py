"""The team commands: ``memgov team init|clone|ratify|reject|check-push`` and ``memgov sync``
of team stores (:mod:`core.team`).

``sync`` exits 0 when every team store synced, 1 when one was refused (a secret
blocks the push, an untrusted commit came in, a remote file memgov cannot read)
and 2 when a remote could not be reached; each store is synced on its own, so
one unreachable remote does not stop the others.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.domain.errors import MemgovError, SecretBlocked
from tui.cli.common import (
    EXIT_ERROR,
    EXIT_FOUND,
    EXIT_OK,
    actor_from,
    clock_from_env,
    emit,
    store_paths,
    workspace,
)


def cmd_team(args: argparse.Namespace) -> int:
    action = {
        "init": _init,
        "clone": _clone,
        "ratify": _ratify,
        "reject": _reject,
        "check-push": _check_push,
    }[args.action]
    return action(args)


def _key(args: argparse.Namespace) -> Path | None:
    return Path(args.signing_key) if args.signing_key else None


def _init(args: argparse.Namespace) -> int:
    from core.api.team import init_team

    actor = actor_from(args)
    done = init_team(
        Path(store_paths(args)[0]),
        url=args.remote,
        maintainers=tuple(args.maintainer or (actor,)),
        actor=actor,
        key=_key(args),
        clock=clock_from_env(),
    )
    emit(args, done.to_dict(), done.render)
    return EXIT_OK


def _clone(args: argparse.Namespace) -> int:
    from core.api.team import clone_team

    target = args.path or args.url.rstrip("/").rpartition("/")[2].removesuffix(".git") or "team"
    done = clone_team(args.url, Path(target), key=_key(args))
    emit(args, done.to_dict(), done.render)
    return EXIT_FOUND if done.untrusted else EXIT_OK


def _ratify(args: argparse.Namespace) -> int:
    from core.api.team import ratify

    ws = workspace(args)
    done = ratify(ws.for_scope("team"), args.commit, actor=actor_from(args), reason=args.reason)
    emit(args, done.to_dict(), done.render)
    return EXIT_OK


def _reject(args: argparse.Namespace) -> int:
    from core.api.team import resolve

    ws = workspace(args)
    store = ws.for_scope("team")
    done = resolve(store, args.commit, ratify=False, actor=actor_from(args), reason=args.reason)
    emit(args, done.to_dict(), done.render)
    return EXIT_OK


def _check_push(args: argparse.Namespace) -> int:
    """git's pre-push hook: the refs on standard input, the store the folder git runs
    it in. A hit is printed (file, line, rule; never the value) and stops the push."""
    from core.api.team import PushBlocked, check_hook_input

    root = Path.cwd()
    leaks = check_hook_input(root, sys.stdin.read())
    if leaks:
        print(f"memgov: {PushBlocked(root, leaks)}", file=sys.stderr)
        return EXIT_FOUND
    return EXIT_OK


def _progress(text: str) -> None:
    """A sync's steps on stderr; git's transfer counters only on a terminal, each over
    the last."""
    if "objects:" in text:
        if sys.stderr.isatty():
            print(
                f"\r  ... {text}\033[K",
                end="" if not text.endswith("done.") else "\n",
                file=sys.stderr,
                flush=True,
            )
        return
    print(f"  ... {text}", file=sys.stderr, flush=True)


def sync_teams(args: argparse.Namespace) -> int:
    from core.api.team import is_team_clone, sync_team

    ws = workspace(args)
    teams = [s for s in ws.stores if is_team_clone(s)]
    if not teams:
        raise MemgovError(
            "no team store with a remote among the stores given; clone one with "
            "'memgov team clone URL PATH', or give an agent's folder: "
            "memgov sync claude-code|codex PATH"
        )
    actor = actor_from(args)
    reports = []
    code = EXIT_OK
    progress = None if args.json else _progress
    for store in teams:
        try:
            report = sync_team(store, actor=actor, progress=progress, private=ws.private)
        except SecretBlocked as exc:
            print(f"memgov: {exc}", file=sys.stderr)
            code = max(code, EXIT_FOUND)
            continue
        except MemgovError as exc:
            print(f"memgov: {exc}", file=sys.stderr)
            code = EXIT_ERROR
            continue
        reports.append(report)
        if report.untrusted:
            code = max(code, EXIT_FOUND)
    emit(
        args,
        [r.to_dict() for r in reports],
        lambda: "\n".join(r.render() for r in reports),
    )
    return code
