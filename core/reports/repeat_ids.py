"""The ids of a store's repeat candidates, for health's "to label", found again only
when what they are found in changed.

The candidates (core.review.labels.repeat_candidates) are a function of the user
messages of the daily logs, the log messages the records' sources point at and the
keys of those records, and the code that finds them. Their ids are kept in the
store's local state (``repeat-ids.json``) under a digest of all of that: the
messages themselves (each one's log, task, index, role, time and text: what the logs
say, not their stat data, so a checkout, an edit by hand or an append that keeps a
log's size and time is seen), each record's time, key and sources, in the order
given, the logs' time zone and the code. A process reads the logs and builds the
records anyway (the measures need them); the digest costs a pass over them, the
search for markers, statements and similar messages it saves costs several.

When they are found again (a message logged, a record written), what the search
reads of each message's text (its marker, its statement, its words: the part that
costs) is kept too, by the digest of the text (``repeat-features.json``): only a
text not seen before is read again, and what a text gives never changes while the
code is the same (its digest heads the file).

The files are derived and untrusted: a digest that differs, a file of another shape,
garbage or a missing file, and the candidates are found again and the file written
whole in its place (a kill leaves the old file or the new one).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import Any

from core.domain import repeats
from core.domain.errors import StoreError
from core.domain.record import Memory
from core.review.labels import Features, repeat_candidates
from core.store import logs
from core.store.fsutil import atomic_write_bytes
from core.store.store import Store

#: the store's local-state file of the last candidates' ids and what they were found in
IDS_FILE = "repeat-ids.json"
#: a larger file is not read (it is found again)
_MAX_BYTES = 16 << 20
_MAX_FEATURES = 256 << 20
_ID = re.compile(r"repeat-[0-9a-f]{16}\Z")
#: the modules the candidates depend on (their bytes are part of the digest)
_CODE = ("core/domain/repeats.py", "core/review/labels.py", "core/store/logs.py")


def repeat_ids(store: Store, memories: Sequence[Memory]) -> list[str]:
    """The ids of every repeat candidate of the store, oldest first: what
    ``[c.id for c in repeat_candidates(store, memories)]`` gives, read from the kept
    file when nothing it depends on changed."""
    tz = logs.log_timezone((m.created_at for m in memories), store.now().tzinfo or UTC)
    key = _digest(logs.messages(store.root, tz), memories, str(tz))
    path = store.state_dir / IDS_FILE
    kept = _read(path, key)
    if kept is not None:
        return kept
    features = KeptFeatures(store.state_dir / FEATURES_FILE)
    ids = [c.id for c in repeat_candidates(store, memories, features=features)]
    features.save()
    data = json.dumps({"key": key, "ids": ids}).encode("ascii")
    # a cache: not written (a folder in its place, a full disk), the next health finds
    # the candidates again
    with contextlib.suppress(OSError, StoreError):
        atomic_write_bytes(path, data)
    return ids


#: the store's local-state file of what the search read of each message's text
FEATURES_FILE = "repeat-features.json"
_MARKER_IDS = frozenset(m.id for m in repeats.MARKERS)
_Known = tuple[repeats.Found | None, str | None, frozenset[str]]


class KeptFeatures(Features):
    """Each text's marker, statement and words, from the file where it holds them (of
    this code, every field of its form), else read from the text; :meth:`save` keeps
    those of the texts asked about this time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.version = _code_digest(("core/domain/repeats.py",))
        self.kept: dict[str, Any] = {}
        self.used: dict[str, _Known] = {}
        self.rows: dict[str, list[Any]] = {}
        try:
            raw = json.loads(path.read_bytes()[:_MAX_FEATURES])
        except (OSError, ValueError):
            return
        if isinstance(raw, dict) and raw.get("version") == self.version:
            texts = raw.get("texts")
            self.kept = texts if isinstance(texts, dict) else {}

    def _of(self, text: str) -> _Known:
        name = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        known = self.used.get(name)
        if known is None:
            known = _known(self.kept.get(name), text)
            if known is None:
                known = (repeats.marker(text), repeats.statement(text), repeats.grams(text))
            self.used[name] = known
            mark, norm, grams = known
            self.rows[name] = [
                None if mark is None else [mark.marker, mark.start, mark.end],
                norm,
                sorted(grams),
            ]
        return known

    def marker(self, text: str) -> repeats.Found | None:
        return self._of(text)[0]

    def statement(self, text: str) -> str | None:
        return self._of(text)[1]

    def grams(self, text: str) -> frozenset[str]:
        return self._of(text)[2]

    def save(self) -> None:
        """Keep what was asked about this time (what was not is dropped)."""
        if not self.rows or self.rows == self.kept:
            return  # nothing asked (the process's own memory answered): keep the file
        data = json.dumps({"version": self.version, "texts": self.rows}, sort_keys=True)
        with contextlib.suppress(OSError, StoreError):
            atomic_write_bytes(self.path, data.encode("utf-8"))


def _known(row: object, text: str) -> _Known | None:
    """A kept row, if every field is of its form for this text (else None)."""
    if not isinstance(row, list) or len(row) != 3:
        return None
    mark, norm, grams = row
    found = None
    if mark is not None:
        if not (isinstance(mark, list) and len(mark) == 3 and mark[0] in _MARKER_IDS):
            return None
        start, end = mark[1], mark[2]
        if not (type(start) is int and type(end) is int and 0 <= start < end <= len(text)):
            return None
        found = repeats.Found(mark[0], start, end)
    if norm is not None and not (isinstance(norm, str) and len(norm) <= 4 * len(text) + 16):
        return None
    if not isinstance(grams, list) or not all(isinstance(g, str) for g in grams):
        return None
    return found, norm, frozenset(grams)


def _read(path: Path, key: str) -> list[str] | None:
    """The kept ids, if the file is of this digest and of its shape (else None)."""
    try:
        raw = json.loads(path.read_bytes()[:_MAX_BYTES])
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("key") != key:
        return None
    ids = raw.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) and _ID.match(i) for i in ids):
        return None
    return ids


def _code_digest(files: Sequence[str]) -> str:
    """A digest of the bytes of these modules (of this checkout)."""
    digest = hashlib.blake2b(digest_size=20)
    base = Path(__file__).resolve().parent.parent.parent
    for rel in files:
        try:
            digest.update(rel.encode() + b"\0" + (base / rel).read_bytes())
        except OSError:
            digest.update(rel.encode() + b"\0?")
    return digest.hexdigest()


def _digest(messages: Sequence[logs.Message], memories: Sequence[Memory], tz: str) -> str:
    """The digest of everything the candidates are found in (see the module)."""
    digest = hashlib.blake2b(digest_size=20)
    digest.update(_code_digest(_CODE).encode())
    digest.update(f"\1{tz}\1".encode())
    for m in messages:
        digest.update(
            f"{m.log}\0{m.task}\0{m.index}\0{m.role}\0{m.when.timestamp()!r}\0{m.text}\n".encode(
                "utf-8", "surrogatepass"
            )
        )
    digest.update(b"\2")
    for memory in memories:
        sources = "\0".join(
            f"{s.log}|{s.task}|{s.message_index}|{s.file}" for s in memory.all_sources
        )
        digest.update(
            f"{memory.created_at.timestamp()!r}\0{memory.subject}#{memory.attribute}\0"
            f"{sources}\n".encode("utf-8", "surrogatepass")
        )
    return digest.hexdigest()
