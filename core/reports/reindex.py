"""``memgov reindex``: ``MEMORY.md`` written again from the records.

What every write leaves in the index (core.store.prepared.index_text: the active
records within the caps, the ones that matter most kept, then the note of how many
more there are), written on its own: after a hand edit of the index, or for a store
whose index an older memgov wrote in another order (doctor says to run it). The
records are checked against their files first (every file's stat data, as doctor
does). An index that is already what memgov writes is left alone: nothing written,
no commit. Otherwise the index is written with a ``reindex`` event (how many lines
and bytes, how many active records it lists) in one commit, a transaction as every
write is (a kill at any moment leaves the old index or the new one).

A team store's index is rewritten only by its maintainers (any other team write
is a request, and this one has nothing to ask for).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.domain import policy
from core.domain.data import AsData
from core.domain.errors import StoreError
from core.store.index import INDEX_FILE, parse_index, read_index_text
from core.store.prepared import index_text
from core.store.store import Store
from core.store.transaction import transaction
from core.store.workspace import Workspace

HINT = "Nothing was written. Pass your private store alone with --store, or ask a maintainer"


@dataclass(frozen=True)
class Reindexed(AsData):
    store: str
    written: bool  # False: the index was already what memgov writes
    listed: int  # active records the index lists
    lines: int
    bytes: int

    def render(self) -> str:
        what = "wrote" if self.written else "already up to date:"
        return (
            f"{self.store}: {what} {INDEX_FILE}, {self.listed:,} active "
            f"memor{'y' if self.listed == 1 else 'ies'} listed in {self.lines:,} "
            f"line{'' if self.lines == 1 else 's'}, {self.bytes:,} bytes"
        )


def reindex(store: Store, *, actor: str) -> Reindexed:
    """The store's ``MEMORY.md`` written again from its records, if it differs."""
    if store.config.scope == "team":
        policy.check_maintainer(store, actor, f"reindex the team store {store.root}", hint=HINT)
    store.refresh(full=True)  # an edit in place of a record file is seen too
    with transaction(store, actor=actor, message=f"reindex: {INDEX_FILE} from the records") as tx:
        text = index_text(tx)
        current, _problem = read_index_text(store.root)
        written = current != text
        size = len(text.encode("utf-8"))
        listed = len(parse_index(text))
        lines = len(text.splitlines())
        if written:  # the event is what makes the transaction write the index
            tx.event(
                "reindex",
                reason=f"{INDEX_FILE} written again from the records",
                details={"listed": listed, "lines": lines, "bytes": size},
            )
    return Reindexed(str(store.root), written, listed, lines, size)


def reindex_workspace(workspace: Workspace, *, actor: str) -> list[Reindexed]:
    """:func:`reindex` every store of the workspace, or none: who may reindex each
    team store is checked before the first store is written."""
    if not workspace.stores:
        raise StoreError("no store given: pass --store PATH")
    for store in workspace.stores:
        if store.config.scope == "team":
            policy.check_maintainer(store, actor, f"reindex the team store {store.root}", hint=HINT)
    return [reindex(store, actor=actor) for store in workspace.stores]
