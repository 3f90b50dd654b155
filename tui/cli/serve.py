"""``memgov serve``: the review desk in a browser, through textual-serve.

textual-serve runs one command per browser session, in a shell, and relays its
screen and keys over a websocket. That command is memgov's own desk
(``python -P -m tui.cli review``) on the stores this process opened, resolved to
absolute paths, with this process's actor: the same authority as ``memgov
review`` here. Every argument in it is quoted with :func:`shlex.quote` and given
as ``--name=value`` (a path or an actor that starts with ``-`` is never read as
an option), and ``-P`` keeps the working folder (a store folder may be anyone's)
off the child's import path.

Listening on loopback is the default. A browser visiting another site can still
open a websocket to a port on this machine, and so can a page whose host name
an attacker points at 127.0.0.1 (DNS rebinding), so the websocket is refused
unless its ``Host`` and ``Origin`` are this server's own address. A non-loopback
``--host`` gives the desk, with this actor's authority, to anyone who can reach
the port: the command says so before it starts.

textual-serve (and aiohttp under it) is imported by this command only.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import socket
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core.domain.errors import MemgovError
from tui.cli.common import EXIT_OK, actor_from, clock_from_env, store_paths

if TYPE_CHECKING:
    from aiohttp import web
    from textual_serve.server import Server

#: the names a browser on this machine may reach a loopback server by
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def desk_command(roots: Sequence[str], actor: str, *, python: str = sys.executable) -> str:
    """The shell command textual-serve runs for each browser session: this
    interpreter's memgov desk on ``roots`` as ``actor``, every word quoted."""
    argv = [python, "-P", "-m", "tui.cli", "review"]
    argv += [f"--store={root}" for root in roots]
    argv.append(f"--as={actor}")
    # exec: the desk replaces the shell, so textual-serve's quit and a kill reach it
    return "exec " + shlex.join(argv)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only ever this machine: ``localhost``, a loopback address,
    or a name every address of which is loopback. A wildcard (``0.0.0.0``, ``::``)
    is every interface, and a name that does not resolve is not known to be local."""
    name = host.strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(name, None)
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(f[4][0]).is_loopback for f in found)


def exposure_warning(host: str, port: int, actor: str) -> str | None:
    """What ``memgov serve`` says before listening on ``host`` when that is not this
    machine alone; nothing for a loopback address."""
    if is_loopback(host):
        return None
    return (
        f"memgov serve: warning: {host} is not a loopback address: anyone who can "
        f"reach port {port} of this machine gets the desk and decides as {actor}, "
        "with no password (memgov's identity is self-declared). Use the default "
        "--host 127.0.0.1 unless the network is yours alone."
    )


def check_host(host: str) -> None:
    """A wildcard address is refused: it listens on every interface, while the page
    tells the browser one address to open the desk's websocket at, and only that
    address is let in."""
    try:
        unspecified = ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return
    if unspecified:
        raise MemgovError(
            f"--host {host} listens on every interface, but the desk's page needs the one "
            "address browsers reach this machine by: give that address (--host "
            "192.168.1.5, say), or leave the default 127.0.0.1"
        )


def netloc(host: str, port: int) -> str:
    """``host:port`` as a browser writes it in ``Host`` and ``Origin``."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    return f"{host.lower()}:{port}"


def allowed_netlocs(host: str, port: int) -> frozenset[str]:
    """The addresses the desk's page is served from: the ``--host`` given and, when it
    is loopback, this machine's other names for itself."""
    names = {netloc(host, port)}
    if is_loopback(host):
        names.update(netloc(n, port) for n in LOOPBACK_NAMES)
    return frozenset(names)


def same_site(host_header: str | None, origin: str | None, allowed: frozenset[str]) -> bool:
    """Whether a websocket handshake comes from the desk's own page: the ``Host`` it
    was sent to and the ``Origin`` of the page that opened it are both the server's
    addresses (a browser always sends ``Origin`` with a websocket)."""
    if not host_header or not origin:
        return False
    return (
        _netloc_of(f"//{host_header}") in allowed
        and urlsplit(origin).scheme == "http"
        and _netloc_of(origin) in allowed
    )


def _netloc_of(url: str) -> str | None:
    parts = urlsplit(url)
    try:
        port = parts.port or 80
    except ValueError:  # not a port number
        return None
    return netloc(parts.hostname, port) if parts.hostname else None


def cmd_serve(args: argparse.Namespace) -> int:
    from core.api.stores import open_workspace

    check_host(args.host)
    actor = actor_from(args)
    # the stores are opened here, once: a wrong path fails now, not in every browser
    workspace = open_workspace(store_paths(args), clock=clock_from_env())
    roots = [str(store.root) for store in workspace.stores]
    warning = exposure_warning(args.host, args.port, actor)
    if warning:
        print(warning, file=sys.stderr)
    server = desk_server(
        desk_command(roots, actor),
        host=args.host,
        port=args.port,
        banner=f"memgov serve: the desk on {', '.join(roots)} as {actor}",
    )
    server.serve()
    return EXIT_OK


def desk_server(command: str, *, host: str, port: int, banner: str) -> Server:
    """A textual-serve server for ``command`` that refuses websockets from other
    sites (the class is made here, so textual-serve is imported only when serving)."""
    import asyncio

    from aiohttp import web
    from textual_serve.server import Server

    allowed = allowed_netlocs(host, port)
    public_url = f"http://{netloc(host, port)}"
    sessions: set[asyncio.Task[object]] = set()

    class DeskServer(Server):
        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            if not same_site(request.headers.get("Host"), request.headers.get("Origin"), allowed):
                raise web.HTTPForbidden(text="memgov serve: not the desk's own page\n")
            task = asyncio.current_task()
            if task is None:  # never: aiohttp runs each request in a task
                return await super().handle_websocket(request)
            sessions.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                sessions.discard(task)

        async def on_shutdown(self, app: web.Application) -> None:
            # Ctrl+C or a TERM: textual-serve leaves each open tab's websocket to
            # aiohttp's shutdown, which waits for it (24 s with a tab open, measured);
            # cancelled, each session tells its desk to quit, waits for it, and
            # closes its websocket (2.3 s)
            for task in list(sessions):
                task.cancel()

        async def on_startup(self, app: web.Application) -> None:
            # textual-serve's banner prints the whole command; ours says what is served
            print(f"{banner}\nat {public_url} (Ctrl+C stops)", flush=True)

    return DeskServer(
        command, host=host.strip("[]"), port=port, title="memgov", public_url=public_url
    )
