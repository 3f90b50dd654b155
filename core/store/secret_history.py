"""Credentials in a store's git history: every version of every file, found by scanning,
never shown.

A daily log written before logs were redacted, a record corrected by hand, an event
that quoted a token: the file may be clean now while an older commit keeps the value,
and every clone of the repository with it. :func:`history_hits` reads every blob that
any ref reaches (one ``git rev-list --objects --all`` and one ``git cat-file --batch``)
and scans it; a blob found clean is remembered by its object id in the store's local
state (a blob never changes), and so are the tips the walk started from and the hits
under them, so a later doctor walks and reads only what was committed since (a tip
today's refs no longer reach, after a rewrite, takes the whole history again).
What it returns is the path, the rules and the first commit that holds each, never
the value.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.domain import secrets
from core.domain.data import AsData
from core.domain.errors import StoreError, ValidationError
from core.store import gitstore
from core.store.fsutil import atomic_write_bytes
from core.store.store import MAX_FILE_BYTES, Store

#: the store's local-state file of the blobs already found clean (hex ids, a line each)
CLEAN_FILE = "clean-blobs"
#: a larger walked-history file is not read (it is rebuilt)
_MAX_WALKED = 4 << 20


@dataclass(frozen=True)
class HistoryHit:
    """A version of a file in the history that holds a credential."""

    path: str
    rules: tuple[str, ...]
    blob: str
    commit: str | None  # the first commit (of any ref) that holds the version


def history_hits(store: Store) -> list[HistoryHit]:
    """Every blob of the history holding a credential, by path (the rules, never the
    value); blobs already found clean are not read again, and what the tips walked last
    time reach is not walked again (:func:`_walked`)."""
    root = store.root
    if not gitstore.run(root, "rev-parse", "--verify", "-q", "HEAD", check=False):
        return []
    tips = _tips(root)
    remembered = _walked(root, store.state_dir, tips)
    found: dict[str, tuple[str, ...]] = dict(remembered[1]) if remembered else {}
    ids = new_objects(root, tips, remembered[0] if remembered else ())
    clean = _clean(store.state_dir) if ids else set()
    todo = [i for i in ids if i.decode("ascii") not in clean]
    if todo:
        found.update(_scan(store, todo))
    if remembered is None or remembered[0] != tips or remembered[1] != found:
        _remember_walked(store.state_dir, tips, found)
    return [_located(root, blob, rules) for blob, rules in sorted(found.items())]


def new_objects(root: Path, tips: list[str], walked: Sequence[str]) -> list[bytes]:
    """The ids of every object the ``tips`` reach that the ``walked`` tips do not (all
    of them, with no tip walked): ``git rev-list --objects``. An object both reach was
    scanned when the walked tips were."""
    if not tips or set(tips) <= set(walked):
        return []
    revs = "\n".join([*tips, *(f"^{t}" for t in walked)]) + "\n"
    listed = gitstore.run(
        root, "rev-list", "--objects", "--no-object-names", "--stdin", data=revs.encode("ascii")
    )
    return [line.strip() for line in listed.splitlines() if line.strip()]


def _scan(store: Store, todo: list[bytes]) -> dict[str, tuple[str, ...]]:
    """The blobs of ``todo`` that hold a credential, with their rules; the rest (and the
    trees and commits) remembered clean."""
    root = store.root
    kinds = gitstore.run(
        root, "cat-file", "--batch-check=%(objecttype) %(objectname)", data=b"\n".join(todo) + b"\n"
    )
    blobs = [
        parts[1]
        for parts in (line.split() for line in kinds.splitlines())
        if len(parts) == 2 and parts[0] == b"blob"
    ]
    found: dict[str, tuple[str, ...]] = {}
    readable = set(blobs)
    newly_clean = [i.decode("ascii") for i in todo if i not in readable]  # trees, commits
    stream = gitstore.BlobStream(root, blobs)
    try:
        for sha in blobs:
            data = stream.next()[:MAX_FILE_BYTES]
            text = data.decode("utf-8", "replace")
            rules = tuple(sorted({f.rule_id for f in secrets.scan(text)})) if text else ()
            if rules:
                found[sha.decode("ascii")] = rules
            else:
                newly_clean.append(sha.decode("ascii"))
    finally:
        stream.close()
    _remember_clean(store.state_dir, newly_clean)
    return found


# ------------------------------------------------------------- the tips walked last time
#: the store's local-state file of the tips last walked and the hits they reach (JSON)
WALKED_FILE = "walked-history.json"
_OBJECT_ID = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
_RULE_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}\Z")


def _tips(root: Path) -> list[str]:
    """What ``--all`` starts from: every ref's object and HEAD's, each once, sorted."""
    out = gitstore.run(root, "for-each-ref", "--format=%(objectname)")
    head = gitstore.run(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    ids = {line.strip().decode("ascii", "replace") for line in [*out.splitlines(), head]}
    return sorted(i for i in ids if _OBJECT_ID.match(i))


def _walked(
    root: Path, state_dir: Path, tips: list[str]
) -> tuple[list[str], dict[str, tuple[str, ...]]] | None:
    """The tips the last walk started from and the blobs holding a credential it found,
    if they can be relied on: the file is of these rules, of its shape, and every tip it
    names is still reached from one of today's ``tips`` (a tip rewritten away, by an
    erasure's purge, ``scrub-history``, a reset or a deleted branch, takes the whole
    history walked again: what its hits were may be gone, and what replaced it is
    new). None: walk everything. The file is derived local state, read as untrusted."""
    try:
        raw = json.loads((state_dir / WALKED_FILE).read_bytes()[:_MAX_WALKED])
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("rules") != _version():
        return None
    walked, hits = raw.get("tips"), raw.get("hits")
    if not isinstance(walked, list) or not isinstance(hits, dict) or not walked:
        return None
    if not all(isinstance(t, str) and _OBJECT_ID.match(t) for t in walked):
        return None
    remembered: dict[str, tuple[str, ...]] = {}
    for blob, rules in hits.items():
        if not _OBJECT_ID.match(blob) or not isinstance(rules, list) or not rules:
            return None
        if not all(isinstance(r, str) and _RULE_ID.match(r) for r in rules):
            return None
        remembered[blob] = tuple(rules)
    gone = sorted(set(walked) - set(tips))
    if gone and not _reached(root, gone, tips):
        return None
    return sorted(set(walked)), remembered


def _reached(root: Path, gone: list[str], tips: list[str]) -> bool:
    """Whether every object the ``gone`` tips reach is reached from today's ``tips``
    too (a tip moved forward: its commit is an ancestor of the new one). An id that
    names no object, or anything git cannot answer, is not reached."""
    revs = "\n".join([*gone, *(f"^{t}" for t in tips)]) + "\n"
    try:
        out = gitstore.run(
            root,
            "rev-list",
            "--objects",
            "--no-object-names",
            "--stdin",
            data=revs.encode("ascii"),
        )
    except gitstore.GitFailed:
        return False
    return not out.strip()


def _remember_walked(state_dir: Path, tips: list[str], hits: dict[str, tuple[str, ...]]) -> None:
    """Keep the tips just walked and the hits they reach (written whole and renamed: a
    kill leaves the old file or the new one)."""
    data = {"rules": _version(), "tips": tips, "hits": {b: list(r) for b, r in hits.items()}}
    # a cache: not written (a folder in its place, a full disk), the next doctor walks
    # everything again
    with contextlib.suppress(OSError, StoreError):
        atomic_write_bytes(state_dir / WALKED_FILE, json.dumps(data, sort_keys=True).encode())


def _located(root: Path, blob: str, rules: tuple[str, ...]) -> HistoryHit:
    """Where a blob is: a path it has and the first commit that holds it."""
    out = gitstore.run(
        root, "log", "--all", "--reverse", "--format=%H", "--name-only", f"--find-object={blob}"
    ).decode("utf-8", "replace")
    commit = path = None
    for line in out.splitlines():
        if not line.strip():
            continue
        if commit is None:
            commit = line.strip()
        elif path is None:
            path = line.strip()
            break
    return HistoryHit(path or f"(blob {blob[:12]})", rules, blob, commit)


def _version() -> str:
    from core.domain.secrets.redaction import RULES_VERSION

    return "rules " + RULES_VERSION.hex()


def _clean(state_dir: Path) -> set[str]:
    """The blobs found clean by these rules (none when the file is of other rules)."""
    try:
        text = (state_dir / CLEAN_FILE).read_text("ascii", errors="replace")
    except OSError:
        return set()
    first, _, rest = text.partition("\n")
    if first != _version():
        return set()
    return {line for line in rest.split() if len(line) in (40, 64)}


def _remember_clean(state_dir: Path, ids: list[str]) -> None:
    """Append the ids found clean (a torn last line is dropped when read: its length is
    wrong); the file starts anew, headed by the rules' version, when its rules are not
    these (a rule added since scans every blob again)."""
    if not ids:
        return
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / CLEAN_FILE
    try:
        with path.open("rb") as f:
            current = f.readline().decode("ascii", "replace").rstrip("\n") == _version()
    except OSError:
        current = False
    head = b"" if current else (_version() + "\n").encode("ascii")
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if current else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    try:
        os.write(fd, head + ("\n".join(ids) + "\n").encode("ascii"))
    finally:
        os.close(fd)


# --------------------------------------------------------------- scrubbing the history
@dataclass(frozen=True)
class Scrubbed(AsData):
    """What :func:`scrub_history` did: how many versions of files held a credential,
    the rules, and how many commits the rewrite changed (never a value)."""

    store: str
    versions: int
    rules: tuple[str, ...]
    rewritten: int

    def render(self) -> str:
        if not self.versions:
            return f"{self.store}: no credential in the history"
        return (
            f"{self.store}: {self.versions} version(s) of files held a credential "
            f"({', '.join(self.rules)}); {self.rewritten} commit(s) rewritten without it"
        )


def scrub_history(store: Store, *, actor: str) -> Scrubbed:
    """Rewrite a private store's history so that no version of any file holds a
    credential the scanner finds (each becomes ``[erased]``, as an erasure's content
    does: core.store.erase), with a ``scrub-history`` event naming the rules and the
    count, never a value. The values pass through this process only (and the
    erasure's journal in the store's local state until the rewrite is done, as an
    erasure's content does); a kill at any moment is finished by the next command.
    A team store's history is never rewritten: refused, saying to rotate."""
    from core.domain.secrets.scanner import text_spans
    from core.store.transaction import transaction

    if store.config.scope == "team":
        raise ValidationError(
            "a team store's history is never rewritten (every clone keeps it)",
            path=str(store.root),
            hint="rotate the credential; scrub the history of a private store only",
        )
    hits = history_hits(store)
    if not hits:
        return Scrubbed(str(store.root), 0, (), 0)
    needles: set[bytes] = set()
    stream = gitstore.BlobStream(store.root, [h.blob.encode("ascii") for h in hits])
    try:
        for _hit in hits:
            data = stream.next()[:MAX_FILE_BYTES]
            text = data.decode("utf-8", "replace")
            raw_bytes, raw, hidden = text_spans(text, "scrub_history")
            needles.update(raw_bytes[start:stop] for start, _o, stop, _v in raw + hidden)
    finally:
        stream.close()
    rules = tuple(sorted({r for h in hits for r in h.rules}))
    with transaction(
        store, actor=actor, message="scrub-history: credentials out of every version"
    ) as tx:
        tx.needles += sorted(needles)
        tx.scrub = True
        tx.event(
            "scrub-history",
            reason="credentials found in the history, scrubbed from every version",
            details={"versions": len(hits), "rules": list(rules)},
        )
    return Scrubbed(str(store.root), len(hits), rules, tx.history_rewritten)
