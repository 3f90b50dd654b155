"""The rows of the files a sync read, made on two cores when there are many.

A first build of the catalog (after a clone or a copy) reads, parses and scans every
record: most of what the first command pays. With many files to read
(:data:`PARALLEL_MIN`), a command that runs no other thread forks one child that
makes the rows of half of them (it reads the files itself: nothing is sent to it)
and sends them back through a pipe, while this process makes and writes the other
half's; the rows are written by this process alone, in the sync's transaction, so a kill at any
moment leaves what a kill of a serial build leaves (the child dies with its parent:
``PR_SET_PDEATHSIG``). A child that fails or dies is not waited for twice: its part is
made here.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from core.domain.record import Memory
from core.store.catalog.hints import secret_flags, steering_hints
from core.store.catalog.rows import _row
from core.store.gitstore.run import _die_with_parent
from core.store.snapshot import Problem

#: a file a sync reads: (rel, its stat data, its path, its size)
Unread = tuple[str, tuple[int, int, int], str, int]
#: a file a sync has read: (rel, its stat data, what it holds, its text)
Read = tuple[str, tuple[int, int, int], Memory | Problem, str]
Row = tuple[Any, ...]
#: how a file is read: (path, rel, size) -> (what it holds, its text)
Reader = Callable[[str, str, int], tuple[Memory | Problem, str]]

#: the fewest files to read that are worth a second process (a fork, a pipe)
PARALLEL_MIN = 3000


def rows_of(read: list[Read], taus: tuple[float, float]) -> list[Row]:
    """The rows of files read, their texts scanned for secrets and their records for
    the steering hints in chunks (:mod:`core.store.catalog.hints`)."""
    if not read:
        return []
    flags = secret_flags([text for _rel, _stamp, _item, text in read])
    hints = steering_hints([item if isinstance(item, Memory) else None for *_, item, _ in read])
    return [
        _row(*entry, taus, secret=flag, steering=hint)
        for entry, flag, hint in zip(read, flags, hints, strict=True)
    ]


def _read(unread: list[Unread], reader: Reader) -> list[Read]:
    return [(rel, stamp, *reader(path, rel, size)) for rel, stamp, path, size in unread]


def made_rows(
    unread: list[Unread],
    read: list[Read],
    taus: tuple[float, float],
    reader: Reader,
    write: Callable[[list[Row]], None],
) -> None:
    """The rows of the files ``unread`` (read here with ``reader``) and of those
    already ``read``, given to ``write`` (with a child: this process's rows first,
    written while the child makes the rest, which is why it takes the larger part)."""
    cut = len(unread) * 9 // 20
    child = _Child(unread[cut:], taus, reader) if _parallel(len(unread)) else None
    mine = unread[:cut] if child is not None else unread
    write(rows_of(read + _read(mine, reader), taus))
    if child is not None:
        theirs = child.rows()
        write(theirs if theirs is not None else rows_of(_read(unread[cut:], reader), taus))


def _parallel(count: int) -> bool:
    """Whether ``count`` files are read on two cores: enough of them, a second core, a
    fork (only where no other thread runs: a child of a threaded process may inherit a
    lock another thread held)."""
    if count < PARALLEL_MIN or threading.active_count() != 1:
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) > 1


class _Child:
    """A forked process making the rows of ``unread``, sent back whole when made."""

    def __init__(self, unread: list[Unread], taus: tuple[float, float], reader: Reader) -> None:
        context = multiprocessing.get_context("fork")
        self.receive, send = context.Pipe(duplex=False)
        args = (self.receive, send, os.getpid(), unread, taus, reader)
        self.process = context.Process(target=_child, args=args, daemon=True)
        self.process.start()
        send.close()

    def rows(self) -> list[Row] | None:
        """Its rows, or None when it failed or died before sending them."""
        try:
            rows: list[Row] | None = self.receive.recv()
        except (EOFError, OSError):
            rows = None
        finally:
            self.receive.close()
            self.process.join()
        return rows if self.process.exitcode == 0 else None


def _child(
    receive: Connection,
    send: Connection,
    parent: int,
    unread: list[Unread],
    taus: tuple[float, float],
    reader: Reader,
) -> None:
    # the parent's end closed here (open in this process too, it would keep a send to a
    # dead parent waiting for ever), and this process killed with the parent
    receive.close()
    _die_with_parent()
    if os.getppid() != parent:  # it died before that
        return
    try:
        send.send(rows_of(_read(unread, reader), taus))
    except OSError:  # the parent is gone: nobody reads the rows
        pass
    finally:
        send.close()
