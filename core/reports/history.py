"""One memory's history: its events, its commits, its supersedes chain (SPEC 10).

:func:`history` reads it in one store; :func:`history_in` first finds the store of
a workspace that holds the memory, or, for an erased memory, the store whose
events still name it (:func:`store_of_history`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core.domain.data import AsData, shown_as
from core.domain.errors import NotFoundError, shown_id
from core.store import gitstore
from core.store.events import Event
from core.store.layout import memory_paths
from core.store.store import Store
from core.store.workspace import Workspace

#: the events of a maintainer re-deciding an untrusted team commit (core.team.untrusted)
RATIFIED, REJECTED = "ratify", "reject-commit"


@dataclass(frozen=True)
class History(AsData):
    memory_id: str = field(metadata=shown_as(key="id"))
    exists: bool
    status: str | None
    events: tuple[Event, ...] = field(
        metadata=shown_as(convert=lambda events: [e.to_dict() for e in events])
    )
    commits: tuple[gitstore.CommitInfo, ...]
    #: what this memory replaced, nearest first
    older: tuple[str, ...] = field(metadata=shown_as(skip=True))
    #: what replaced it, nearest first
    newer: tuple[str, ...] = field(metadata=shown_as(skip=True))
    #: ids of listed events a crash recovery undid
    rolled_back: tuple[str, ...] = field(default=(), metadata=shown_as(key="rolled_back_events"))
    #: commits no listed maintainer signed, with who re-decided them and how (a team
    #: store: core.team.untrusted's ratify and reject-commit events)
    untrusted: dict[str, str] = field(default_factory=dict)

    DATA_PROPERTIES = ("supersedes_chain",)

    @property
    def supersedes_chain(self) -> dict[str, tuple[str, ...]]:
        return {"older": self.older, "newer": self.newer}


def supersedes_chain(store: Store, memory_id: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    memories = store.memories
    older: list[str] = []
    seen = {memory_id}
    current = memories.get(memory_id)
    while current is not None and current.supersedes and current.supersedes not in seen:
        older.append(current.supersedes)
        seen.add(current.supersedes)
        current = memories.get(current.supersedes)
    newer: list[str] = []
    cursor = memory_id
    while True:  # each step one indexed query: what says it supersedes the cursor
        replacing = [m.id for m in memories.superseding(cursor) if m.id not in seen]
        if not replacing:
            break
        cursor = replacing[-1]
        newer.append(cursor)
        seen.add(cursor)
    return tuple(older), tuple(newer)


def history(
    store: Store, memory_id: str, *, meanwhile: Callable[[], object] | None = None
) -> History:
    """The memory's events (from the catalog's index of the event log: only its own
    lines are read) and the commits that touched its file (git's commit graph with
    changed-path filters, kept current here, lets ``git log -- FILE`` skip the
    commits that did not). The ``git log`` runs while the rest is read, and while
    ``meanwhile`` runs (the CLI makes its output's redaction ready then)."""
    memory = store.memories.get(memory_id)
    path = memory.path if memory else _former_path(store, memory_id)
    gitstore.update_commit_graph(store.root)
    log = gitstore.log_started(store.root, path)
    try:
        found, recoveries = store.catalog.events_of(memory_id)
        older, newer = supersedes_chain(store, memory_id)
        if meanwhile is not None:
            meanwhile()
    except BaseException:
        log.stop()
        raise
    commits = tuple(gitstore.log_read(log))
    mine = tuple(found)
    # events of a change that crashed and was rolled back did not happen: they stay
    # listed (the log is the evidence) but do not decide the status
    undone = {i for e in recoveries for i in e.details.get("rolled_back_events", [])}
    rolled_back = tuple(e.id for e in mine if e.id in undone)
    transitions = [e for e in mine if e.id not in undone and e.to_status is not None]
    marks = {
        str(e.details["commit"]): (
            f"UNTRUSTED ({e.details.get('was', 'not signed by a maintainer')}): "
            f"{'ratified' if e.action == RATIFIED else 'rejected'} by {e.actor} ({e.reason})"
        )
        for e in mine
        if e.action in (RATIFIED, REJECTED) and isinstance(e.details.get("commit"), str)
    }
    return History(
        memory_id=memory_id,
        exists=memory is not None,
        status=memory.status if memory else (transitions[-1].to_status if transitions else None),
        events=mine,
        commits=commits,
        older=older,
        newer=newer,
        rolled_back=rolled_back,
        untrusted=marks,
    )


def store_of_history(workspace: Workspace, memory_id: str) -> Store:
    """The first store holding the memory; else (erased, or only ever in the events)
    the first store whose events name it; else :class:`NotFoundError`."""
    store = next((s for s in workspace.stores if memory_id in s.memories), None)
    if store is None:  # erased or unknown: the events still tell
        store = next((s for s in workspace.stores if s.catalog.names_in_events(memory_id)), None)
    if store is None:
        raise NotFoundError(f"no memory and no events with id {shown_id(memory_id)}")
    return store


def history_in(
    workspace: Workspace, memory_id: str, *, meanwhile: Callable[[], object] | None = None
) -> History:
    """:func:`history` of the memory in the store :func:`store_of_history` finds."""
    return history(store_of_history(workspace, memory_id), memory_id, meanwhile=meanwhile)


def _former_path(store: Store, memory_id: str) -> str:
    """The file a memory no longer in the store had: its shard, or the flat folder
    of a store written before shards (whichever git has commits for)."""
    sharded, flat = memory_paths(memory_id)
    if gitstore.run(store.root, "rev-list", "-1", "HEAD", "--", flat, check=False).strip():
        return flat
    return sharded
