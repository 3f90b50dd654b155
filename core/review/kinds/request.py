"""What the three kinds a request opens share (a promotion, a deletion, a stale
report): their items are built from the store's open requests of their kind."""

from __future__ import annotations

from typing import ClassVar

from core.domain.errors import NotFoundError
from core.domain.record import Memory
from core.review.evidence import Evidence
from core.review.items import KIND_OF_REQUEST, Analysis, Item, RecordEvidence, ScanHit
from core.review.kinds.base import ReviewKind
from core.store.requests import Request, get_request, load_requests
from core.store.store import Store
from core.store.workspace import Workspace


class RequestKind(ReviewKind):
    """A kind of item a request opens; its id is the request's."""

    #: the request's kind (core.store.requests): promote, delete or stale
    request_kind: ClassVar[str]
    #: how its items are titled: "<verb>: <the record's title>"
    verb: ClassVar[str]

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        items = []
        for request in evidence.requests:
            if KIND_OF_REQUEST.get(request.kind) == self.kind:
                item = self.item(evidence, request, workspace.team)
                if item is not None:
                    items.append(item)
        return items

    def open_ids(self, store: Store) -> set[str]:
        return {
            r.id
            for r in load_requests(store)
            if r.status == "open" and r.kind == self.request_kind and r.memory_id in store.memories
        }

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        try:
            request = get_request(evidence.store, item_id)
        except NotFoundError:
            return None
        return self.item(evidence, request, workspace.team)

    def item(self, evidence: Evidence, request: Request, team: Store | None) -> Item | None:
        """The open request as an item (None: closed, or its record is gone)."""
        store = evidence.store
        if request.status != "open" or request.memory_id not in store.memories:
            return None
        memory = store.memories[request.memory_id]
        analysis, scan, team_records = self.analysed(evidence, memory, team)
        return Item(
            kind=self.kind,
            id=request.id,
            title=f"{self.verb}: {memory.display_title}",
            opened_at=request.requested_at,
            store=store,
            scope=memory.scope,
            subject=memory.subject,
            records=(evidence.of(memory),),
            request=request,
            team_records=team_records,
            scan=scan,
            analysis=analysis,
        )

    def analysed(
        self, evidence: Evidence, memory: Memory, team: Store | None
    ) -> tuple[Analysis, tuple[ScanHit, ...], tuple[RecordEvidence, ...]]:
        """The item's analysis, its secret scan and the team's records beside it."""
        raise NotImplementedError
