"""What the store remembers of a Codex folder: its sync state (``sync/codex-<key>.json``).

The same file as a Claude Code folder's (:mod:`core.importers.folder_state`:
``format``, ``key``, ``folder``, ``synced_at``, ``files``), with one more field,
``words``: for each file memgov read, a hash (:func:`core.domain.record.normal_hash`)
of each memory's words that stood in it when memgov last read it, never the
words. Every import and sync of the folder keeps it (the files it read).

It answers one question: is a memory a person erased, found in the folder, one the
agent *wrote again* (its words were not there when memgov last read the folder:
held for review, ``relearned``), or one that is *still there* from before the
erasure (its words were: ``memgov sync codex`` takes its lines out, and no
person is asked)? A memory held as re-learned is not counted as there until a
person decides it.

The file is untrusted input: a field that is not what memgov writes makes the
whole state unusable (:class:`~core.importers.folder_state.StateError`), and the
folder is then read as if memgov had never seen it (a re-learned memory is held
rather than taken out).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.domain.record import normal_hash
from core.importers.entries import Entry
from core.importers.folder_state import StateError, parse_state, read_state, state_path
from core.store.store import Store
from core.store.transaction import Transaction

FORMAT = "codex"
_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
MAX_WORDS = 200_000  # hashes in one state: far above any real folder


@dataclass
class CodexState:
    key: str
    folder: str
    #: rel -> {"agent": hash of the file when memgov last read it}
    files: dict[str, dict[str, str]] = field(default_factory=dict)
    #: rel -> hashes of the words of each memory in it then
    words: dict[str, list[str]] = field(default_factory=dict)
    synced_at: str = ""

    @property
    def path(self) -> str:
        return state_path(FORMAT, self.key)

    def seen(self) -> frozenset[str]:
        """The words of every memory the folder held when memgov last read it."""
        return frozenset(h for hashes in self.words.values() for h in hashes)

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "key": self.key,
            "folder": self.folder,
            "synced_at": self.synced_at,
            "index": {},
            "files": {rel: dict(h) for rel, h in sorted(self.files.items())},
            "words": {rel: sorted(set(h)) for rel, h in sorted(self.words.items())},
        }
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def read_codex_state(store: Store, key: str) -> CodexState | None:
    """The folder's state (None: none yet); a StateError naming the file and field."""
    base = read_state(store, FORMAT, key)
    if base is None:
        return None
    rel = state_path(FORMAT, key)
    data = json.loads((store.root / rel).read_bytes().decode("utf-8"))
    return CodexState(
        key=base.key,
        folder=base.folder,
        files=base.files,
        words=_words(data.get("words", {}), rel),
        synced_at=base.synced_at,
    )


def _words(raw: Any, rel: str) -> dict[str, list[str]]:
    def bad(what: str) -> StateError:
        return StateError(f"{rel}: field words {what}; remove the file and sync again")

    if not isinstance(raw, Mapping):
        raise bad("must map each file to a list of hashes")
    parse_state({"files": {name: {} for name in raw}}, rel)  # the names stay in the folder
    out: dict[str, list[str]] = {}
    total = 0
    for name, hashes in raw.items():
        if not isinstance(hashes, list) or not all(
            isinstance(h, str) and _HASH.match(h) for h in hashes
        ):
            raise bad(f"of {str(name)[:80]} must be a list of sha256 hashes")
        total += len(hashes)
        out[name] = list(hashes)
    if total > MAX_WORDS:
        raise bad(f"holds {total:,} hashes, over {MAX_WORDS:,}")
    return out


def safe_state(store: Store | None, key: str, notes: list[str] | None = None) -> CodexState | None:
    """:func:`read_codex_state`, an unusable state noted (``notes``) and taken as none."""
    if store is None:
        return None
    try:
        return read_codex_state(store, key)
    except (StateError, ValueError, OSError) as exc:
        if notes is not None:
            notes.append(f"{exc}; a new state replaces it")
        return None


def fresh_words(
    entries: Iterable[Entry],
    files: Iterable[str],
    seen: frozenset[str],
    erased: Callable[[Entry], bool],
) -> dict[str, list[str]]:
    """The words of each of ``files`` as the entries read them now, less a memory a
    person erased whose words were not there before (held as re-learned: it counts as
    there only once a person decides)."""
    out: dict[str, list[str]] = {rel: [] for rel in files}
    for entry in entries:
        if entry.file not in out:
            continue
        words = normal_hash(entry.content)
        if words not in seen and erased(entry):
            continue
        out[entry.file].append(words)
    return out


def keep_state(
    tx: Transaction,
    *,
    key: str,
    folder: str,
    entries: list[Entry],
    hashes: Mapping[str, str],
    only: frozenset[str] | None,
    erased: Callable[[Entry], bool],
) -> bool:
    """Write the folder's state for the files read (``only``: just those), in ``tx``
    (the private store's); False when nothing changed. ``hashes``: each file's hash
    as read."""
    state = safe_state(tx.store, key) or CodexState(key=key, folder=folder)
    files = {rel for rel in hashes if only is None or rel in only}
    words = fresh_words(entries, files, state.seen(), erased)
    new_files = {rel: h for rel, h in state.files.items() if rel not in files or rel in hashes}
    new_words = {rel: h for rel, h in state.words.items() if rel not in files}
    for rel in files:
        new_files[rel] = {"agent": hashes[rel]}
        new_words[rel] = sorted(set(words.get(rel, ())))
    if only is None:  # the whole folder was read: a file no longer there is forgotten
        new_files = {rel: h for rel, h in new_files.items() if rel in hashes}
        new_words = {rel: h for rel, h in new_words.items() if rel in hashes}
    if (
        new_files == state.files
        and {r: sorted(set(h)) for r, h in new_words.items()}
        == {r: sorted(set(h)) for r, h in state.words.items()}
        and state.folder == folder
    ):
        return False
    fresh = CodexState(
        key=key,
        folder=folder,
        files=new_files,
        words=new_words,
        synced_at=tx.now.isoformat(timespec="seconds"),
    )
    tx.write_file(fresh.path, fresh.to_json())
    return True
