"""The desk's screen read as text, for the tests that drive it from outside (tmux, the
browser): they wait on what the screen shows, never on time.

Every wait polls the screen until it shows what the next step needs, within
:data:`DEADLINE`: generous, so that a machine under load is only slower, never a
failure; a passing run never waits it out. On failure the last screen is printed.
"""

from __future__ import annotations

import re

#: the most any one screen may take to show, in seconds
DEADLINE = 180.0

#: while a key that may be repeated without harm shows no effect, it is sent again
#: this often (the desk's first keys can be lost while it talks to the terminal)
RESEND = 5.0

#: a screen shows the queue once the stores are read: its status line says how many
#: items wait and no longer that the stores or records are being read
READING = "reading"

#: the reason dialog, which every decision shows first (enter accepts it)
REASON = "Reason (enter to accept"


def selected(screen: str) -> str:
    """The queue's selected item, as its preview names it: the first row right of the
    preview's rule, beside the table's header; "" when no queue shows (or no preview:
    the queue shows one from 110 columns on)."""
    for line in screen.splitlines():
        if "Opened" in line and "Kind" in line and "▏" in line:
            return line.split("▏", 1)[1].strip()
    return ""


def waiting(n: int) -> str:
    """The queue's status line for ``n`` items."""
    return f"{n} item{'' if n == 1 else 's'} waiting"


def counts(screen: str, n: int) -> bool:
    """The queue's status line says ``n`` items wait (10 is not 0)."""
    return re.search(rf"(?<![\d,]){waiting(n)}", screen) is not None


def queue_shown(screen: str, n: int) -> bool:
    """The queue read, ``n`` items in it."""
    return counts(screen, n) and READING not in screen
