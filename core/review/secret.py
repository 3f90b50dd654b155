"""Deciding a "secret in a record" item: a credential already in a stored record.

Found by core.store.secret_files (rule ids, lines and columns, never the value);
decided here:

* ``erase``: the record is erased for good, as an approved deletion erases
  (file, index line, and in a private store every reachable git object: the
  history purge also scrubs the secret itself from every blob, wherever else
  it was quoted);
* ``correct``: a new record replaces it, with the secret spans replaced by
  ``[secret: rule-id]`` (or with the content the person wrote), and the old
  record is *erased*, not superseded, so no file on disk and no reachable
  object of a private store keeps the token;
* reject (``defer``): nothing changes, the item stays open; the decision is
  recorded.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Any

from core.domain import secrets
from core.domain.errors import AlreadyDecided, NotFoundError, SecretBlocked, ValidationError
from core.domain.record import Memory, Source
from core.review.items import Item
from core.review.promotion import move_requests
from core.review.session import Session
from core.store.decisions import (
    TEAM_HISTORY_NOTE,
    Decision,
    decision_for,
    erase_record,
    front,
    key_only,
    last_decision_for,
    new_decision_id,
    record_decision,
)
from core.store.requests import Request, open_requests
from core.store.store import MAX_FILE_BYTES, Store, new_memory_id
from core.store.transaction import Transaction
from core.store.workspace import Workspace

#: what a person may do with a record that holds a credential
OPTIONS = ("erase", "correct")
#: statuses whose record can be replaced by a corrected one (an expired or a
#: superseded record is no longer used: it is erased)
CORRECTABLE = ("active", "conflict")
#: the shortest secret that is also scrubbed from history on its own
MIN_NEEDLE_BYTES = 8
_MARK = re.compile(r"\[secret: [A-Za-z0-9_.-]+\]")


def options_for(memory: Memory) -> tuple[str, ...]:
    """What may be done with a record that holds a credential."""
    return OPTIONS if memory.status in CORRECTABLE else ("erase",)


# ------------------------------------------------------------------------ redaction
def secret_values(text: str) -> list[str]:
    """The secrets in text, as :func:`secrets.redact` replaced them (to scrub from
    history; never shown). Empty when the text cannot be lined up with its
    redaction (a literal ``[secret: ...]`` in it): the content itself is then
    still erased, line by line."""
    redacted = secrets.redact(text)
    if redacted == text:
        return []
    literals = _MARK.split(redacted)
    if not text.startswith(literals[0]) or not text.endswith(literals[-1]):
        return []
    found: list[str] = []
    pos = len(literals[0])
    for index, literal in enumerate(literals[1:], start=1):
        last = index == len(literals) - 1
        if last:
            end = len(text) - len(literal)
        elif literal:
            end = text.find(literal, pos + 1)
        else:
            return []  # two secrets side by side: where one ends is not known
        if end <= pos:
            return []
        found.append(text[pos:end])
        pos = end + len(literal)
    rebuilt = literals[0] + "".join(s + lit for s, lit in zip(found, literals[1:], strict=True))
    return found if rebuilt == text else []


def _redact_source(source: Source) -> Source:
    """The source with a secret in any of its text fields replaced (a quote, a task)."""
    return dataclasses.replace(
        source,
        task=secrets.redact(source.task),
        evidence=secrets.redact(source.evidence),
        log=secrets.redact(source.log) if source.log else source.log,
        file=secrets.redact(source.file) if source.file else source.file,
    )


def corrected(old: Memory, content: str | None, now: Any, decision: str) -> Memory:
    """The record that replaces ``old``: ``content`` (or the old content with every
    secret span replaced by ``[secret: rule-id]``), the title, sources and
    environment redacted, a value that held a secret dropped."""
    text = (content if content is not None else secrets.redact(old.content)).strip()
    if not text:
        raise ValidationError(
            "the corrected content is empty", field="content", hint="erase the record instead"
        )
    value = old.value if old.value and secrets.is_clean(old.value) else None
    return old.with_changes(
        # from the decision's id: its preview names the id the decision writes
        id=new_memory_id(old.attribute, f"secret|{old.id}|{text}|{decision}"),
        path="",
        content=text,
        title=secrets.redact(old.title) if old.title else old.title,
        value=value,
        source=_redact_source(old.source) if old.source else None,
        sources=tuple(_redact_source(s) for s in old.sources),
        environment=(
            {k: secrets.redact(v) for k, v in old.environment.items()}
            if old.environment
            else old.environment
        ),
        # the imported file as it was held the secret: an export writes the record anew
        origin={k: v for k, v in old.origin.items() if k in ("format", "folder", "slot", "file")}
        if old.origin
        else None,
        created_at=now,
        verified_at=now,
        usage_count=0,
        last_used_at=None,
    )


# -------------------------------------------------------------------------- deciding
DEFAULT_REASONS = {
    "erase": "the record holds a credential: erased for good",
    "correct": "the record held a credential: replaced by a copy without it",
    "defer": "deferred: the credential stays until someone erases or corrects it",
}


def decide_secret(
    session: Session,
    workspace: Workspace,
    item: Item,
    approve: bool,
    *,
    actor: str,
    reason: str,
    option: str | None,
    content: str | None = None,
) -> Decision:
    """Decide a "secret in a record" item: ``approve`` with ``option`` ``erase`` or
    ``correct``; reject defers (nothing changes, the item stays open).

    ``content`` (``correct`` only): what the new record says instead; by default
    the old content with every secret span replaced by ``[secret: rule-id]``. It
    is scanned: a correction that still holds a credential is refused.

    Checked again under the store lock: the record must still exist and still
    hold a credential; if it was erased or corrected meanwhile, the second
    decider gets :class:`AlreadyDecided` and nothing changes.
    """
    chosen = option if approve else "defer"
    if chosen not in (*OPTIONS, "defer"):
        raise ValidationError(
            "say what to do with the record" if chosen is None else "unknown option",
            field="option",
            hint="--option erase or --option correct (--reject leaves it open)",
        )
    if content is not None and chosen != "correct":
        raise ValidationError(
            "a content goes with the option correct only", field="content", hint="drop it"
        )
    reason = reason.strip() or DEFAULT_REASONS[chosen]
    rules = [f.rule_id for f in secrets.scan(reason)]
    if rules:
        raise SecretBlocked(f"the reason for {item.id}", rules)
    if content is not None:
        rules = [f.rule_id for f in secrets.scan(content)]
        if rules:
            raise SecretBlocked(f"the corrected content for {item.id}", rules)
    memory_id = item.records[0].memory.id
    store = item.store
    decision_id = new_decision_id(store, f"{item.id}|{chosen}")
    with session.transaction(store, actor=actor, message=f"decide {item.id}: {chosen}") as tx:
        current = tx.view.get(memory_id)
        file_text = _read_text(store.root / current.path) if current is not None else None
        if current is None or file_text is None or not secrets.scan(file_text):
            raise _decided_before(workspace, item.id, memory_id, store)
        if chosen == "correct" and current.status not in CORRECTABLE:
            raise ValidationError(
                f"{memory_id} is {current.status}: it is no longer used, so there is nothing "
                "to correct",
                path=current.path,
                field="status",
                hint="erase it (--option erase)",
            )
        kept = {memory_id: key_only(front(current))}
        if chosen == "defer":
            decision = decision_for(
                tx,
                decision_id,
                item=item.id,
                kind="secret",
                option="defer",
                actor=actor,
                reason=reason,
                before=kept,
                after=kept,
            )
            return record_decision(tx, decision)
        created: list[dict[str, str]] = []
        after: dict[str, dict[str, Any]] = {}
        replacement: Memory | None = None
        if chosen == "correct":
            open_deletions = [r.id for r in _open_requests(store, memory_id) if r.kind == "delete"]
            if open_deletions:
                raise ValidationError(
                    f"a deletion of {memory_id} is requested ({', '.join(open_deletions)}): "
                    "a correction would keep what it asks to erase",
                    field="option",
                    hint="erase it (--option erase), or reject the deletion request first",
                )
            replacement = corrected(current, content, tx.now, decision_id)
            rules = [f.rule_id for f in secrets.scan(replacement.to_markdown())]
            if rules:  # the secret sits in a field a correction keeps (the key)
                raise SecretBlocked(
                    f"the corrected record of {memory_id} (erase it instead)", rules
                )
            tx.create(
                replacement,
                action="correct",
                reason=reason,
                request=item.id,
                decision=decision_id,
                details={"corrects": memory_id},
            )
            created = [{"store": str(store.root), "id": replacement.id}]
            after = {replacement.id: front(tx.view[replacement.id])}
        secret_needles = _needles(tx, current, file_text)
        if replacement is not None:  # a promotion asked for goes on, for the correction
            move_requests(
                tx,
                current,
                replacement.id,
                actor=actor,
                decision=decision_id,
                why="held a credential and was replaced by",
            )
        # before the erasure, which closes what is still open with a plainer reason
        _close_requests(tx, memory_id, decision_id, actor, replacement)
        erase_record(
            tx,
            memory_id,
            action="erase",
            reason=reason,
            request=item.id,
            decision=decision_id,
            details={"replaced_by": replacement.id} if replacement else None,
        )
        tx.needles += [n for n in secret_needles if n not in tx.needles]
        decision = decision_for(
            tx,
            decision_id,
            item=item.id,
            kind="secret",
            option=chosen,
            actor=actor,
            reason=reason,
            before=kept,
            after=after,
            created=created,
            erased=[memory_id],
            note=TEAM_HISTORY_NOTE if store.config.scope == "team" else None,
        )
        return record_decision(tx, decision)


def _read_text(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            return handle.read(MAX_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def _needles(tx: Transaction, memory: Memory, file_text: str) -> list[bytes]:
    """The secrets themselves, to scrub from every blob of the history (the index
    line as it was cut, an earlier wording, a quote in a reason), unless another
    live record still holds one: that record is its own item."""
    values = {v.strip() for text in (file_text, memory.to_markdown()) for v in secret_values(text)}
    encoded = {v.encode("utf-8") for v in values if len(v.encode("utf-8")) >= MIN_NEEDLE_BYTES}
    kept = [n for n in encoded if not tx.view.holding_text(n.decode("utf-8"), besides=memory.id)]
    return sorted(kept, key=len, reverse=True)


def _open_requests(store: Store, memory_id: str) -> list[Request]:
    return open_requests(store, memory_id)


def _close_requests(
    tx: Transaction, memory_id: str, decision_id: str, actor: str, replacement: Memory | None
) -> None:
    """Open requests about the erased record close with this decision: a deletion is
    done, a promotion is not (ask again for the corrected record)."""
    for request in _open_requests(tx.store, memory_id):
        if request.path in tx.files:  # moved to the corrected record already
            continue
        if request.kind == "delete":
            status, why = "approved", "erased: it held a credential"
        elif replacement is not None:
            status, why = (
                "rejected",
                f"it held a credential and was replaced by {replacement.id}; ask again for that",
            )
        else:
            status, why = "rejected", "it held a credential and was erased"
        closed = request.with_changes(
            status=status, decision=decision_id, decided_by=actor, decision_reason=why
        )
        from core.store.erase import scrub  # an erasure's scrub: only when one is

        text = scrub(closed.to_yaml().encode("utf-8"), tx.needles).decode("utf-8")
        tx.write_file(request.path, text)
        tx.event(
            "request-closed", (memory_id,), reason=why, request=request.id, decision=decision_id
        )


def _decided_before(workspace: Workspace, item: str, memory_id: str, store: Store) -> Exception:
    """The error for a second decider: who erased or corrected the record, when."""
    earlier = last_decision_for(workspace.stores, item)
    if earlier is not None and earlier.option in OPTIONS:
        return AlreadyDecided(item, actor=earlier.actor, ts=earlier.ts, decision=earlier.id)
    return NotFoundError(
        f"{item}: {memory_id} is no longer in {store.root} or no longer holds a credential; "
        "reload the queue"
    )
