"""The crash journal of a transaction: ``.git/memgov/txn.json``.

Written before any file of a change and rewritten at each phase (``files``, then
``events``: the commit point, then ``purge``), it tells the next writer or reader
whether to roll the change back or finish it (:mod:`core.store.recovery`). It is
local state inside ``.git`` (never committed, never transferred) and still
untrusted: :func:`read_journal` confines every path to the store and checks
every field; a journal memgov did not write is a :class:`JournalError`, and none
of it is acted on.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any, Protocol

from core.domain.errors import StoreError, ValidationError
from core.domain.record import validate_id
from core.store.events import EVENTS_FILE, is_event_log
from core.store.fsutil import UnsafePath, atomic_write_text, check_relative
from core.store.layout import STATE_DIR


class Located(Protocol):
    """Where a store is: all the journal needs of one (a
    :class:`~core.store.store.Store` is one; the journal is below it)."""

    @property
    def root(self) -> Path: ...

    @property
    def state_dir(self) -> Path: ...


JOURNAL_FILE = "txn.json"
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
#: a ref an erasure discards (core.store.discard): under refs/, no '..', '//' or lock
_REF = re.compile(r"refs/(?:[A-Za-z0-9._-]+/)*[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}")


def write_journal(store: Located, journal: dict[str, Any]) -> None:
    kept = {k: v for k, v in journal.items() if k != "needles_bytes"}
    atomic_write_text(store.state_dir / JOURNAL_FILE, json.dumps(kept, indent=1))


class JournalError(StoreError):
    """The crash journal cannot be trusted: memgov will not act on any of it."""


def read_journal(store: Located) -> dict[str, Any] | None:  # noqa: C901
    """The journal, validated: every path confined to the store, every field typed.
    A journal memgov did not write (planted, corrupt) is a JournalError saying what
    to do; none of it is acted on."""
    path = store.state_dir / JOURNAL_FILE
    if not os.path.lexists(path):
        return None
    what_to_do = (
        f"memgov cannot tell which files an interrupted change left, so it changes nothing. "
        f"See them with 'git -C {store.root} status', undo them with 'git -C {store.root} "
        f"checkout -- FILE' (or commit them if they are yours), then delete {path}"
    )
    try:
        if path.is_symlink() or path.stat().st_size > MAX_JOURNAL_BYTES:
            raise ValueError("not a plain file of a sane size")
        journal = json.loads(path.read_bytes())
        if not isinstance(journal, dict):
            raise ValueError("not a JSON object")
        phase = journal["phase"]
        if phase not in ("files", "events", "purge"):
            raise ValueError("field 'phase' is not files, events or purge")
        for name in ("actor", "message"):
            if not isinstance(journal[name], str) or "\0" in journal[name]:
                raise ValueError(f"field {name!r} is not text")
        lists = {"paths": journal["paths"], "created": journal["created"]}
        lists["removes"] = journal.setdefault("removes", [])
        lists["erased_ids"] = journal.setdefault("erased_ids", [])
        lists["discard_refs"] = journal.setdefault("discard_refs", [])
        lists["events"] = journal["events"]
        lists["needles"] = journal.setdefault("needles", [])
        if not isinstance(journal.setdefault("purge", False), bool):
            raise ValueError("field 'purge' is not true or false")
        for name, value in lists.items():
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"field {name!r} is not a list of text")
        for name in ("paths", "created", "removes"):
            for rel in journal[name]:
                try:
                    check_relative(rel)
                except UnsafePath:
                    raise ValueError(f"field {name!r} names a path outside the store") from None
                if rel.startswith(f"{STATE_DIR}/"):
                    raise ValueError(f"field {name!r} names local state")
        if not set(journal["created"]) <= set(journal["paths"]):
            raise ValueError("field 'created' names paths the change did not write")
        for ref in journal["discard_refs"]:
            if not _REF.fullmatch(ref) or ".." in ref or ref.endswith(".lock"):
                raise ValueError("field 'discard_refs' holds a name that is not a ref")
        for memory_id in journal["erased_ids"]:
            validate_id(memory_id)
        if type(journal["events_offset"]) is not int or journal["events_offset"] < 0:
            raise ValueError("field 'events_offset' is not a position")
        shard = journal.setdefault("events_file", EVENTS_FILE)
        if not isinstance(shard, str) or not is_event_log(shard):
            raise ValueError("field 'events_file' is not a shard of the event log")
        journal["needles_bytes"] = [base64.b64decode(n, validate=True) for n in journal["needles"]]
        peer = journal.get("peer")
        if peer is not None and (
            not isinstance(peer, dict)
            or peer.get("role") not in ("coordinator", "participant")
            or not isinstance(peer.get("root"), str)
            or not isinstance(peer.get("txn"), str)
        ):
            raise ValueError("field 'peer' is not what memgov writes")
    except (OSError, ValueError, KeyError, TypeError, RecursionError, ValidationError) as exc:
        why = exc.message if isinstance(exc, ValidationError) else str(exc)
        raise JournalError(
            f"{path}: the crash journal cannot be used ({why}). {what_to_do}"
        ) from None
    return journal
