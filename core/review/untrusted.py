"""Deciding an untrusted change: the queue's ``untrusted`` items.

A team clone's untrusted commits that wait (:mod:`core.team.untrusted`: a commit
on the remote's main no listed maintainer signed, not taken here) are each an item,
``untrusted-<12 hex of the commit>``: who wrote it, who committed it, who signed it
and why that is not enough, the files it changes and what each does to a record
(added, changed, removed, with the title it has there), and its diff with every
credential shown as ``[secret: rule-id]``. A maintainer ratifies it (approve: its
changes are taken, memgov's merge with anything local) or rejects it (reject: its
changes are undone in the commit that brings it in); only the first that waits can
be decided, the ones after it say so.

The decision is the resolution commit itself (signed, an event naming the commit),
which every other clone takes at its next sync: :func:`core.team.untrusted.decide_item`
makes it (the team layer, above this one; ``memgov decide``, ``memgov team
ratify|reject`` and the desk call it). It has no decision file and no revert: a
ratified change is undone by the ordinary decisions on what it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.domain import secrets
from core.review.items import Item, Kind, UntrustedAnalysis, UntrustedFile
from core.store import gitstore, team_state
from core.store.store import Store

PREFIX = "untrusted-"
OPTIONS = ("ratify", "reject")
MEANINGS = {
    "ratify": "take its changes as your own: they are in effect here and, once synced, in "
    "every clone",
    "reject": "undo its changes: one commit you sign brings it in and undoes it, so no "
    "clone ever has them",
}
DIFF_MAX = 64 * 1024  # bytes of the diff shown; the rest is counted


def item_id(commit: str) -> str:
    return PREFIX + commit[:12]


@dataclass(frozen=True)
class Waiting:
    """One untrusted commit as the clone recorded it (core.team.signing's verdict)."""

    commit: str
    author: str
    signer: str | None
    why: str
    subject: str

    @classmethod
    def of(cls, row: dict[str, Any]) -> Waiting:
        signer = row.get("signer")
        return cls(
            str(row["commit"]),
            str(row.get("author", "")),
            signer if isinstance(signer, str) else None,
            str(row["why"]),
            str(row.get("subject", "")),
        )


def waiting(store: Store) -> list[Waiting]:
    """The untrusted commits this clone recorded and no maintainer re-decided."""
    return [Waiting.of(row) for row in team_state.untrusted_rows(store.state_dir)]


def first_waiting(store: Store) -> Waiting | None:
    """The untrusted commit that waits first on the remote's main: the one whose first
    parent this clone already has."""
    root = store.root
    head = gitstore.head(root)
    for found in waiting(store):
        parent = first_parent(root, found.commit)
        if parent is not None and is_ancestor(root, parent, head):
            return found
    return None


def first_parent(root: Path, commit: str) -> str | None:
    out = gitstore.run(root, "rev-parse", "--verify", "--quiet", f"{commit}^1", check=False)
    return out.decode().strip() or None


def is_ancestor(root: Path, older: str, newer: str) -> bool:
    if older == newer:
        return True
    out = gitstore.run(root, "merge-base", older, newer, check=False)
    return out.decode().strip() == older


def untrusted_items(store: Store, ids: list[str] | None = None) -> list[Item]:
    """The team clone's untrusted commits that wait, oldest first (``ids``: only those)."""
    if store.config.scope != "team":
        return []
    first = first_waiting(store)
    wanted = set(ids) if ids is not None else None
    out = []
    for verdict in waiting(store):
        if wanted is not None and item_id(verdict.commit) not in wanted:
            continue
        if gitstore.resolve(store.root, verdict.commit) is None:
            continue  # not fetched here (a state from elsewhere): nothing to show
        out.append(_item(store, verdict, first is not None and first.commit == verdict.commit))
    return out


def _item(store: Store, verdict: Waiting, first: bool) -> Item:
    root = store.root
    commit = verdict.commit
    meta = gitstore.run(root, "show", "-s", "--format=%cI%x00%cn <%ce>", commit).decode(
        "utf-8", "replace"
    )
    when, _nul, committer = meta.strip().partition("\0")
    diff = gitstore.run(
        root, "show", "--format=", "--patch", "--stat", "--no-color", "--no-ext-diff", commit
    )
    shown = diff[:DIFF_MAX].decode("utf-8", "replace")
    if len(diff) > DIFF_MAX:
        shown += f"\n... {len(diff) - DIFF_MAX:,} more bytes of the diff (git show {commit[:10]})"
    return Item(
        kind=Kind.UNTRUSTED,
        id=item_id(commit),
        title=f"untrusted change by {verdict.author}: {verdict.subject}"[:200],
        opened_at=when,
        store=store,
        scope="team",
        analysis=UntrustedAnalysis(
            commit=commit,
            author=verdict.author,
            committer=committer,
            signer=verdict.signer,
            why=verdict.why,
            subject=verdict.subject,
            files=tuple(_files(root, commit)),
            diff=secrets.redact(shown),
            first=first,
            options=OPTIONS,
            meanings=MEANINGS,
        ),
    )


def _files(root: Path, commit: str) -> list[UntrustedFile]:
    """Each file the commit changes against its first parent, and the record it is."""
    parent = f"{commit}^1"
    has_parent = gitstore.resolve(root, parent) is not None
    rows = gitstore.run(
        root,
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-status",
        parent if has_parent else "--root",
        commit,
    ).split(b"\0")
    out = []
    pairs = [r for r in rows if r]
    for status, raw in zip(pairs[0::2], pairs[1::2], strict=False):
        path = raw.decode("utf-8", "replace")
        change = {"A": "added", "D": "removed"}.get(status.decode()[:1], "changed")
        side = parent if change == "removed" else commit
        out.append(UntrustedFile(path, change, _record_title(root, side, path)))
    return out


def _record_title(root: Path, rev: str, path: str) -> str | None:
    """A record's id and title as that version says (None: not a record, or unreadable)."""
    if not (path.startswith("memories/") and path.endswith(".md")):
        return None
    from core.domain.record import parse_memory

    data = gitstore.read_blobs(root, [f"{rev}:{path}"]).get(f"{rev}:{path}")
    if data is None or len(data) > 1024 * 1024:
        return None
    try:
        memory = parse_memory(data.decode("utf-8"))
    except Exception:  # an untrusted file: what memgov cannot read is only named
        return "(a file memgov cannot read as a record)"
    return f"{memory.id}: {secrets.redact(memory.display_title)}"
