"""Secrets in a record: a stored record whose file holds a credential
(core.review.secret, core.store.secret_files)."""

from __future__ import annotations

from core.domain import secrets
from core.review import secret
from core.review.evidence import Evidence
from core.review.items import Item, Kind, ScanHit, SecretAnalysis
from core.review.kinds.base import Choice, ReviewKind, Touch
from core.review.session import Session
from core.store.decisions import Decision
from core.store.secret_files import ITEM_PREFIX, Hit, record_hits, scan_file
from core.store.store import Store
from core.store.workspace import Workspace


class SecretKind(ReviewKind):
    kind = Kind.SECRET
    prefixes = (ITEM_PREFIX,)
    actions = ("erase", "correct", "defer")

    def touches(self, item: Item) -> Touch:
        return Touch(erases=("erase", "correct"))  # a correction erases the old file

    approve_options = secret.OPTIONS
    deferrable = True

    def build(self, evidence: Evidence, workspace: Workspace) -> list[Item]:
        return [secret_item(evidence, hit) for hit in record_hits(evidence.store)]

    def open_ids(self, store: Store) -> set[str]:
        return {f"{ITEM_PREFIX}{hit.memory.id}" for hit in record_hits(store) if hit.memory}

    def find(self, evidence: Evidence, workspace: Workspace, item_id: str) -> Item | None:
        store = evidence.store
        memory = store.memories.get(item_id.removeprefix(ITEM_PREFIX))
        if memory is None:
            return None
        findings = scan_file(store.root / memory.path)
        return secret_item(evidence, Hit(memory.path, findings, memory)) if findings else None

    def why_not(self, item: Item, action: str, workspace: Workspace) -> str | None:
        if action == "correct" and "correct" not in item.analysis_as(SecretAnalysis).options:
            status = item.records[0].memory.status
            return f"a {status} record is no longer used: erase it instead"
        return None

    def apply(
        self, session: Session, workspace: Workspace, item: Item, choice: Choice, *, actor: str
    ) -> Decision:
        return secret.decide_secret(
            session,
            workspace,
            item,
            choice.approve,
            actor=actor,
            reason=choice.reason,
            option=choice.option,
            content=choice.content,
        )


def secret_item(evidence: Evidence, hit: Hit) -> Item:
    """A record whose file holds a credential: its evidence, the scan (rule ids,
    lines and columns, never the value) and what may be done."""
    memory = hit.memory
    assert memory is not None
    return Item(
        kind=Kind.SECRET,
        id=f"{ITEM_PREFIX}{memory.id}",
        title=f"secret in a record: {secrets.redact(memory.display_title)}",
        opened_at=memory.created_at.isoformat(),
        store=evidence.store,
        scope=memory.scope,
        subject=memory.subject,
        records=(evidence.of(memory),),
        scan=tuple(ScanHit(f.rule_id, f.line, f.column) for f in hit.findings),
        analysis=SecretAnalysis(
            file=hit.path,
            status=memory.status,
            rules=tuple(hit.rules),
            options=secret.options_for(memory),
        ),
    )


KIND = SecretKind()
