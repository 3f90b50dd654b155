"""Held candidates: what the write gate would have written, had it not tried to steer
the agent (the detector is :mod:`core.domain.steering`).

A candidate that passes the write gate and trips the detector is not written. It is
held in ``quarantine/<id>.json``, a review *request* (not a record, and no sixth
lifecycle state): the candidate as the agent sent it, the flags with their spans, the
role of its source message and the raw log lines it came with. A person releases it
(it then goes through the write pipeline as any candidate does) or discards it.

The id is the hash of the text (:func:`text_hash`: NFKC, case folded, spaces
collapsed, invisible format characters dropped), so the same text coming back is
the same file: one ``stat`` tells the pipeline whether it is held already (the
item counts it again), was discarded (refused at once, naming who discarded it) or
was released (a person vouched for these words: they are not held again). A
decided file keeps the candidate, so a revert of the decision opens the item
again. A stored record the detector flags leaves a file too, once a person kept
or erased it: its words' hash and the decision, no candidate (``reverted`` when
that decision is undone).

A quarantine file is untrusted input like every store file: its size is capped,
every field is checked, and a file that fails is reported by
:func:`quarantine_problems` (file and field, never a value) and offered to nobody.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from core.domain.data import AsData
from core.domain.errors import NotFoundError, ValidationError, shown_id
from core.domain.record import check_text

if TYPE_CHECKING:
    from core.domain.steering import Flag
    from core.store.store import Store

QUARANTINE_DIR = "quarantine"
PREFIX = "quarantine-"
#: open: waiting (a held candidate); released and discarded: decided; reverted: a
#: decision undone (a record's mark: as if no file were there)
STATUSES = ("open", "released", "discarded", "reverted")
MAX_QUARANTINE_BYTES = 256 * 1024
MAX_FLAGS = 200
_HEX = frozenset("0123456789abcdef")


@functools.lru_cache(maxsize=4096)  # a pure function of the text: a warm server asks again
def text_hash(text: str) -> str:
    """The hash that recognises the same text: NFKC, case folded, every run of spaces
    one space, format characters (zero-width, bidi controls, tag characters) dropped."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    # no ASCII character is a format character: ASCII text is looked at no further
    visible = (
        folded
        if folded.isascii()
        else "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    )
    return hashlib.sha256(" ".join(visible.split()).encode("utf-8", "surrogatepass")).hexdigest()


def item_id(digest: str) -> str:
    return f"{PREFIX}{digest[:20]}"


def path_of(held_id: str) -> str:
    return f"{QUARANTINE_DIR}/{held_id}.json"


@dataclass(frozen=True)
class Quarantined(AsData):
    """One held candidate, open or decided."""

    id: str
    text_hash: str
    status: str
    held_at: str
    held_by: str
    #: the candidate's key: (scope, subject, attribute, condition), kept once decided
    key: tuple[str, str, str, str | None]
    type: str
    flags: tuple[Flag, ...]
    #: the role of the source message in the daily log (None: a file, or not found)
    role: str | None = None
    #: the raw log lines the source pointed at when it was held: (line, text)
    excerpt_file: str | None = None
    excerpt: tuple[tuple[int, str], ...] = ()
    #: the candidate as the agent sent it (None: the mark of a stored record's words,
    #: kept or erased by a person, core.review.quarantine)
    candidate: dict[str, Any] | None = None
    #: how many times this text was sent (the first time included)
    seen: int = 1
    last_seen_at: str | None = None
    decision: str | None = None
    decided_by: str | None = None
    decided_at: str | None = None
    decision_reason: str | None = None
    #: what the release made (written, merged, conflict, refused) and its records
    released_as: str | None = None
    released_ids: tuple[str, ...] = field(default=())

    @property
    def path(self) -> str:
        return path_of(self.id)

    @property
    def content(self) -> str:
        """The held text (empty for a stored record's mark)."""
        text = (self.candidate or {}).get("content")
        return text if isinstance(text, str) else ""

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "id": self.id,
            "text_hash": self.text_hash,
            "status": self.status,
            "held_at": self.held_at,
            "held_by": self.held_by,
            "key": list(self.key),
            "type": self.type,
            "flags": [_flag_data(f) for f in self.flags],
            "role": self.role,
            "excerpt_file": self.excerpt_file,
            "excerpt": [[n, t] for n, t in self.excerpt],
            "candidate": self.candidate,
            "seen": self.seen,
            "last_seen_at": self.last_seen_at,
            "decision": self.decision,
            "decided_by": self.decided_by,
            "decided_at": self.decided_at,
            "decision_reason": self.decision_reason,
            "released_as": self.released_as,
            "released_ids": list(self.released_ids),
        }
        return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=False) + "\n"

    def seen_again(self, at: str) -> Quarantined:
        return replace(self, seen=self.seen + 1, last_seen_at=at)

    def decided(
        self,
        status: str,
        *,
        decision: str,
        actor: str,
        at: str,
        reason: str,
        released_as: str | None = None,
        released_ids: tuple[str, ...] = (),
    ) -> Quarantined:
        """The file once decided. A held candidate keeps its words (a revert opens the
        item again); the hash is what recognises them when they come back."""
        return replace(
            self,
            status=status,
            decision=decision,
            decided_by=actor,
            decided_at=at,
            decision_reason=reason,
            released_as=released_as,
            released_ids=released_ids,
        )


def _flag_data(flag: Flag) -> dict[str, Any]:
    return {
        "rule": flag.rule,
        "family": flag.family,
        "start": flag.start,
        "end": flag.end,
        "shown": flag.shown,
        "why": flag.why,
    }


# ---------------------------------------------------------------------- reading
def _bad(rel: str, name: str, what: str, hint: str | None = None) -> ValidationError:
    return ValidationError(
        what,
        path=rel,
        field=name,
        hint=hint or "decide the item again, or delete the file and let the agent send it again",
    )


def _text(data: Mapping[str, Any], name: str, rel: str, *, optional: bool = False) -> str | None:
    value = data.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _bad(rel, name, "must be text")
    check_text(value, field=name, path=rel, limit=20_000, multiline=True)
    return value


def _int(data: Mapping[str, Any], name: str, rel: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10**9:
        raise _bad(rel, name, "must be a whole number from 0")
    return value


def _flags(raw: Any, rel: str) -> tuple[Flag, ...]:
    from core.domain.steering import Flag  # its rules compile on import: only when read

    if not isinstance(raw, list) or len(raw) > MAX_FLAGS:
        raise _bad(rel, "flags", f"must be a list of at most {MAX_FLAGS} flags")
    found = []
    for n, entry in enumerate(raw):
        where = f"flags[{n}]"
        if not isinstance(entry, Mapping):
            raise _bad(rel, where, "must be an object")
        texts = {k: _text(entry, k, rel) for k in ("rule", "family", "shown", "why")}
        start, end = _int(entry, "start", rel), _int(entry, "end", rel)
        if end < start:
            raise _bad(rel, f"{where}.end", "ends before it starts")
        found.append(Flag(start=start, end=end, **{k: v or "" for k, v in texts.items()}))
    return tuple(found)


def quarantined_from(data: Any, rel: str) -> Quarantined:  # noqa: C901
    """A quarantine file's JSON, every field checked; the error names the file and field."""
    if not isinstance(data, Mapping):
        raise _bad(rel, "(file)", "must be a JSON object")
    held_id = _text(data, "id", rel) or ""
    digest = _text(data, "text_hash", rel) or ""
    if len(digest) != 64 or not set(digest) <= _HEX:
        raise _bad(rel, "text_hash", "must be 64 hexadecimal digits")
    if held_id != item_id(digest) or rel != path_of(held_id):
        raise _bad(rel, "id", "does not match the file name and the text's hash")
    status = _text(data, "status", rel)
    if status not in STATUSES:
        raise _bad(rel, "status", f"must be one of {', '.join(STATUSES)}")
    key = data.get("key")
    if (
        not isinstance(key, list)
        or len(key) != 4
        or not all(isinstance(k, str) for k in key[:3])
        or not (key[3] is None or isinstance(key[3], str))
    ):
        raise _bad(rel, "key", "must be [scope, subject, attribute, condition]")
    for n, part in enumerate(key):
        if part is not None:
            check_text(part, field=f"key[{n}]", path=rel, limit=1_000)
    candidate = data.get("candidate")
    if status == "open" and not isinstance(candidate, Mapping):
        raise _bad(rel, "candidate", "an open item must hold the candidate (an object)")
    if candidate is not None and not isinstance(candidate, Mapping):
        raise _bad(rel, "candidate", "must be an object")
    if isinstance(candidate, Mapping):
        content = candidate.get("content")
        if not isinstance(content, str) or text_hash(content) != digest:
            raise _bad(
                rel,
                "candidate.content",
                "does not match the text's hash: the held text was changed after it was held",
            )
    excerpt_raw = data.get("excerpt") or []
    if not isinstance(excerpt_raw, list) or len(excerpt_raw) > 50:
        raise _bad(rel, "excerpt", "must be a list of [line, text]")
    excerpt = []
    for n, pair in enumerate(excerpt_raw):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or isinstance(pair[0], bool)
            or not isinstance(pair[0], int)
            or not isinstance(pair[1], str)
        ):
            raise _bad(rel, f"excerpt[{n}]", "must be [line, text]")
        check_text(pair[1], field=f"excerpt[{n}]", path=rel, limit=20_000)
        excerpt.append((pair[0], pair[1]))
    released = data.get("released_ids") or []
    if not isinstance(released, list) or not all(isinstance(i, str) for i in released):
        raise _bad(rel, "released_ids", "must be a list of memory ids")
    return Quarantined(
        id=held_id,
        text_hash=digest,
        status=status,
        held_at=_text(data, "held_at", rel) or "",
        held_by=_text(data, "held_by", rel) or "",
        key=(key[0], key[1], key[2], key[3]),
        type=_text(data, "type", rel) or "",
        flags=_flags(data.get("flags"), rel),
        role=_text(data, "role", rel, optional=True),
        excerpt_file=_text(data, "excerpt_file", rel, optional=True),
        excerpt=tuple(excerpt),
        candidate=dict(candidate) if isinstance(candidate, Mapping) else None,
        seen=_int(data, "seen", rel),
        last_seen_at=_text(data, "last_seen_at", rel, optional=True),
        decision=_text(data, "decision", rel, optional=True),
        decided_by=_text(data, "decided_by", rel, optional=True),
        decided_at=_text(data, "decided_at", rel, optional=True),
        decision_reason=_text(data, "decision_reason", rel, optional=True),
        released_as=_text(data, "released_as", rel, optional=True),
        released_ids=tuple(released),
    )


def _read(store: Store, rel: str) -> Quarantined:
    """One file, read without following a link, its size capped, then checked."""
    path = store.root / rel
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise NotFoundError(f"no held candidate {rel} in {store.root}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _bad(rel, "(file)", "is not a plain file; memgov reads no store file through a link")
    if st.st_size > MAX_QUARANTINE_BYTES:
        raise _bad(rel, "(file)", f"is larger than {MAX_QUARANTINE_BYTES // 1024} KiB")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(MAX_QUARANTINE_BYTES + 1)
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _bad(rel, "(file)", f"is not readable JSON ({type(exc).__name__})") from None
    return quarantined_from(data, rel)


def held_for(store: Store, digest: str) -> Quarantined | None:
    """The held candidate of this text's hash, if the store has one (None: none, or a
    file that cannot be read, which :func:`quarantine_problems` reports)."""
    try:
        held = _read(store, path_of(item_id(digest)))
    except (NotFoundError, ValidationError):
        return None
    return None if held.status == "reverted" else held


def read_quarantined(store: Store, held_id: str) -> Quarantined:
    if not held_id.startswith(PREFIX) or not set(held_id[len(PREFIX) :]) <= _HEX:
        raise NotFoundError(f"{shown_id(held_id)} is not a held candidate's id")
    return _read(store, path_of(held_id))


def _names(store: Store) -> list[str]:
    folder = store.root / QUARANTINE_DIR
    if folder.is_symlink() or not folder.is_dir():
        return []
    return sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json"))


def load_quarantined(store: Store, *, status: str | None = None) -> list[Quarantined]:
    """Every readable held candidate of the store (``status``: only those)."""
    found = []
    for name in _names(store):
        try:
            held = _read(store, f"{QUARANTINE_DIR}/{name}")
        except (NotFoundError, ValidationError):
            continue
        if status is None or held.status == status:
            found.append(held)
    return found


def quarantine_problems(store: Store) -> list[tuple[str, str]]:
    """(file, what is wrong) for each quarantine file that cannot be read."""
    problems = []
    for name in _names(store):
        rel = f"{QUARANTINE_DIR}/{name}"
        try:
            _read(store, rel)
        except ValidationError as exc:
            problems.append((rel, str(exc)))
        except NotFoundError:
            continue
    return problems


class WritesFiles(Protocol):
    """A transaction, as far as writing a held candidate goes (a
    :class:`~core.store.transaction.Transaction` is one; the transaction reads what
    this module holds, so it is not named here)."""

    def write_file(self, rel: str, text: str) -> None: ...


def write_quarantined(tx: WritesFiles, held: Quarantined) -> None:
    tx.write_file(held.path, held.to_json())
