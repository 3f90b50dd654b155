"""Deciding a held memory: what an import or a sync did not write on its own.

The items are the private store's open held files (:mod:`core.importers.held`);
each shows the agent's file as it is now beside what was found (the lines with an
internal address, the erasure of the memory written again, or the record memgov
changed). A decision closes the item and imports that one file again, in the
same transaction (:func:`core.importers.session.run_entries` with the decided
item), which then does what the decision says:

==============  ===================  =============================================
reason          approve (option)     reject
==============  ===================  =============================================
sensitive       redact (default),    drop: not imported
                keep (private)
relearned       learn                forget: not imported; a sync deletes the file
both-changed    agent                memgov: a sync writes memgov's version
gate            keep (the gate's     drop: not imported
                doubt overruled)
consent         keep (written back   drop: the folder keeps the approved version
                to the folder and
                imported)
==============  ===================  =============================================

What the import wrote is the decision's ``created``: a revert of the decision
takes those records back out (core.review.revert: erased as never written, which
an import does not take for a person's erasure) and the item waits again as before
the decision (:func:`reopen_on_revert`); a consent item's records stay superseded,
and its folder is put back (:func:`folder_after_revert`).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.domain import secrets
from core.domain.errors import ValidationError
from core.importers.claude_code import consent
from core.importers.claude_code import consent_notes as notes
from core.importers.folder_state import folder_key
from core.importers.folder_write import write_agent_file
from core.importers.formats import format_named
from core.importers.held import (
    Held,
    agent_text,
    file_hash,
    load_held,
    marked_lines,
    option_for,
    read_held,
)
from core.importers.report import ImportItem
from core.importers.session import run_entries
from core.review.evidence import Evidence
from core.review.items import HeldAnalysis, Item, Kind
from core.review.session import Session
from core.store.decisions import (
    Decision,
    decision_for,
    front,
    load_decisions,
    new_decision_id,
    record_decision,
)
from core.store.store import Store
from core.store.transaction import Transaction
from core.store.workspace import Workspace


def held_items(evidence: Evidence, store: Store, ids: list[str] | None = None) -> list[Item]:
    """The store's open held items (``ids``: only those)."""
    if store.config.scope != "private":
        return []
    if ids is not None:
        found = []
        for held_id in ids:
            try:
                found.append(read_held(store, held_id))
            except Exception:  # absent or unreadable: not an open item
                continue
    else:
        found, _problems = load_held(store)
    return [held_item(evidence, store, h) for h in found if h.status == "open"]


def held_item(evidence: Evidence, store: Store, held: Held) -> Item:
    text = consent.pending_text(store, held) if held.reason == "consent" else agent_text(held)
    marked = tuple((n, tuple(found)) for n, _line, found in marked_lines(text or ""))
    memory = store.memories.get(held.memory_id or "")
    records = (evidence.of(memory),) if memory is not None else ()
    return Item(
        kind=Kind.HELD,
        id=held.id,
        title=f"{held.named}: {held.title or held.file}",
        opened_at=held.held_at,
        store=store,
        analysis=HeldAnalysis(
            reason=held.reason,
            named=held.named,
            folder=held.folder,
            file=held.file,
            line=held.line,
            detail=held.detail,
            options=held.options,
            meanings=held.meanings,
            agent_text=text,
            marked=marked if held.reason == "sensitive" else (),
            memory_id=held.memory_id,
            key=held.key,
        ),
        scope="private",
        subject=held.key.split(" ")[2] if held.key.count(" ") >= 2 else "",
        records=records,
    )


def decide_held(
    session: Session,
    workspace: Workspace,
    item: Item,
    approve: bool,
    *,
    actor: str,
    reason: str,
    option: str | None,
) -> Decision:
    """Close the held item with the option taken, and import its file again in the same
    transaction: the import does what the closed item says."""
    store = item.store
    held = read_held(store, item.id)
    chosen = option_for(held, approve, option)
    reason = reason.strip() or held.meanings[chosen]
    decision_id = new_decision_id(store, f"{held.id}|{chosen}")
    at = store.now().isoformat(timespec="seconds")
    closed = held.decided(chosen, actor=actor, at=at, reason=reason)
    folder = Path(held.folder)
    if not folder.is_dir():
        raise ValidationError(
            f"the agent's folder {folder} is not here any more",
            field="folder",
            where=held.id,
            hint="decide it on the machine that holds the folder",
        )
    if held.reason == "consent" and (session.dry_run or not approve):
        return _close_only(session, store, held, closed, decision_id, actor)
    prior = _prior(held) if held.reason == "consent" else ""
    if held.reason == "consent":
        _write_back(store, held)
    reading = format_named(held.format).reading(workspace, folder, actor)
    made: list[Decision] = []

    def record(tx: Transaction, items: list[ImportItem]) -> None:
        created = []
        before: dict[str, dict[str, Any]] = {}
        for it in items:
            target = workspace.team if it.scope == "team" else store
            if it.outcome in ("written", "conflict") and target is not None:
                for i in it.memory_ids:
                    if held.reason == "consent" and target is store and i in store.memories:
                        # the record the kept words contradict: changed, not made (a
                        # revert puts it back as it was, never erases it)
                        before.setdefault(i, front(store.memories[i]))
                        continue
                    created.append({"store": str(target.root), "id": i})
        memory = store.memories.get(held.memory_id or "")
        if memory is not None:
            before[memory.id] = front(memory)
        if held.reason == "consent" and not created:
            before |= _kept_again(tx, held, decision_id, reason)
        decision = decision_for(
            tx,
            decision_id,
            item=held.id,
            kind="held",
            option=chosen,
            actor=actor,
            reason=reason,
            before=before,
            after={k: front(tx.view[k]) for k in before if k in tx.view},
            created=created,
        )
        if held.reason == "consent":
            _approved_copy(tx, held, prior)
        made.append(record_decision(tx, decision))

    run_entries(
        workspace,
        reading,
        fmt=held.format,
        folder=folder,
        actor=actor,
        dry_run=False,
        only=frozenset({held.file}),
        decided=closed,
        opener=session.transaction,
        on_decided=record,
        decision_id=decision_id,
    )
    return made[0]


# ------------------------------------------------------------------ consent
def _close_only(
    session: Session, store: Store, held: Held, closed: Held, decision_id: str, actor: str
) -> Decision:
    """Drop a consent item (or preview keeping it): the item closes, nothing is
    imported, and the folder keeps the approved version it has."""
    with session.transaction(store, actor=actor, message=f"decide {held.id}") as tx:
        tx.decision = decision_id
        tx.write_file(closed.path, closed.to_yaml())
        tx.event(
            "held-decided",
            reason=f"{closed.named}: {closed.decision} ({closed.decision_reason})",
            details={"held": closed.id, "decision": closed.decision, "file": closed.file},
        )
        decision = decision_for(
            tx,
            decision_id,
            item=held.id,
            kind="held",
            option=closed.decision or "",
            actor=actor,
            reason=closed.decision_reason or "",
            before={},
            after={},
        )
        return record_decision(tx, decision)


def _prior(held: Held) -> str:
    """What the folder held for a consent item before keeping it (``held/<id>.prior``):
    whether the file was there, and its line of the index (credentials redacted)."""
    folder = Path(held.folder)
    if notes.is_index(held.file):
        return notes.place_text(None, None)
    index, link = consent.index_of(held.file)
    listed = consent.folder_bytes(folder, index)
    text = listed.decode("utf-8", "replace") if listed is not None else ""
    found = consent.linking(text, link)
    line = secrets.redact(text.splitlines()[found[0]]) if found else None
    there = consent.folder_bytes(folder, held.file) is not None
    return json.dumps({"existed": there, "line": line}, ensure_ascii=False) + "\n"


def _write_back(store: Store, held: Held) -> None:
    """Keeping a consent item: its bytes back into the agent's folder, and its line
    into the folder's index, before the import reads them."""
    folder = Path(held.folder)
    data = consent.store_bytes(store, consent.pending_path(held.id))
    if data is None:
        raise ValidationError(
            f"the held version of {held.file} is not in the store any more",
            field="file",
            where=held.id,
            hint="drop it; the agent writes the memory again if it still needs it",
        )
    written: list[str] = []
    if notes.is_index(held.file):
        now = consent.folder_bytes(folder, held.file)
        text = now.decode("utf-8", "replace") if now is not None else ""
        place = notes.read_place(consent.store_bytes(store, notes.place_path(held.id)))
        again = notes.with_note(text, data.decode("utf-8", "replace").rstrip("\n"), *place)
        expected = None if now is None else file_hash(now)
        if again == text or write_agent_file(folder, held.file, again, expected, written):
            return
        raise ValidationError(
            f"the note could not be written back into {held.file}: {'; '.join(written)}",
            field="file",
            where=held.id,
            hint="sync the folder, then decide again",
        )
    now = consent.folder_bytes(folder, held.file)
    if now != data and not write_agent_file(
        folder, held.file, data, None if now is None else file_hash(now), written
    ):
        raise ValidationError(
            f"{held.file} could not be written back: {'; '.join(written)}",
            field="file",
            where=held.id,
            hint="sync the folder, then decide again",
        )
    line = consent.store_bytes(store, consent.line_path(held.id))
    index, link = consent.index_of(held.file)
    listed = consent.folder_bytes(folder, index)
    if line is None or listed is None:
        return
    text = listed.decode("utf-8", "replace")
    _replaces, after = notes.read_place(consent.store_bytes(store, notes.place_path(held.id)))
    again = consent.with_line(text, link, line.decode("utf-8", "replace").rstrip("\n"), after)
    if again != text:
        write_agent_file(folder, index, again, file_hash(listed), written)


def _approved_copy(tx: Transaction, held: Held, prior: str) -> None:
    """The kept bytes are the approved version now; the one before, and what the folder
    held before (``prior``), wait for a revert."""
    key = folder_key(Path(held.folder))
    rel = consent.approved_path(key, held.file)
    before = consent.store_bytes(tx.store, rel)
    tx.write_file(consent.before_path(held.id), (before or b"").decode("utf-8", "replace"))
    tx.write_file(prior_path(held.id), prior)
    data = consent.store_bytes(tx.store, consent.pending_path(held.id)) or b""
    if notes.is_index(held.file):  # the approved index with the note in its place
        place = notes.read_place(consent.store_bytes(tx.store, notes.place_path(held.id)))
        line = data.decode("utf-8", "replace").rstrip("\n")
        approved = (before or b"").decode("utf-8", "replace")
        tx.write_file(rel, notes.with_note(approved, line, *place))
        return
    tx.write_file(rel, data.decode("utf-8", "replace"))


def _kept_again(
    tx: Transaction, held: Held, decision_id: str, reason: str
) -> dict[str, dict[str, Any]]:
    """A consent item kept again after its keep was reverted: the same bytes import
    as the record that keep made, which its revert superseded; it is active again as
    that keep left it (what this decision changed, so its own revert supersedes it
    again). The records' states before."""
    earlier = [
        d
        for d in load_decisions(tx.store)
        if d.item == held.id and d.option == "keep" and d.reverted_by
    ]
    if not earlier:
        return {}
    last = max(earlier, key=lambda d: d.ts)
    out: dict[str, dict[str, Any]] = {}
    for made in last.created:
        memory = tx.view.get(made["id"]) if made["store"] == str(tx.store.root) else None
        if memory is None or memory.status != "superseded":
            continue
        out[memory.id] = front(memory)
        rivals = [  # what the pipeline makes of words differing from an active record's
            m
            for m in tx.view.values()
            if m.status == "active" and m.key == memory.key and m.content != memory.content
        ]
        for rival in rivals:
            out[rival.id] = front(rival)
            tx.transition(
                rival.id,
                "conflict",
                action="held-kept-again",
                reason=reason,
                decision=decision_id,
                details={"held": held.id},
            )
        tx.restore(
            memory.with_changes(status="conflict" if rivals else "active"),
            reason=reason,
            decision=decision_id,
            details={"held": held.id, "kept again": last.id},
            action="held-kept-again",
        )
    return out


def prior_path(held_id: str) -> str:
    return f"held/{held_id}.prior"


def reopen_on_revert(tx: Transaction, decision: Decision) -> None:
    """A revert of a held memory's decision opens its item again, waiting as it was
    before the decision: what its import wrote leaves the stores (the revert erases it,
    core.review.revert; an import of the file finds the item waiting again). A consent
    item's: a drop changed nothing else; a keep's records leave the store (the
    revert supersedes them) and its approved copies are the ones before it. The folder
    follows once this commits (:func:`folder_after_revert`; a revert killed before that
    leaves the folder to the next sync, which finds the open item's bytes there and
    puts the approved version back)."""
    if decision.kind != "held":
        return
    try:
        held = read_held(tx.store, decision.item)
    except Exception:  # absent or unreadable: nothing to open again
        return
    if held.status == "open":
        return
    again = replace(
        held, status="open", decision=None, decided_by=None, decided_at=None, decision_reason=None
    )
    if held.reason == "consent" and held.status == "approved":
        key = folder_key(Path(held.folder))
        if notes.is_index(held.file):
            _unkeep_note(tx, held, consent.approved_path(key, held.file))
        else:
            before = consent.store_bytes(tx.store, consent.before_path(held.id))
            tx.write_file(
                consent.approved_path(key, held.file), (before or b"").decode("utf-8", "replace")
            )
            index, link = consent.index_of(held.file)
            copy = consent.store_bytes(tx.store, consent.approved_path(key, index))
            if copy is not None:
                text = copy.decode("utf-8", "replace")
                existed, line = _read_prior(tx.store, held)
                again_text = consent.with_line(text, link, line if existed else None)
                tx.write_file(consent.approved_path(key, index), again_text)
    tx.write_file(again.path, again.to_yaml())
    tx.event(
        "held-reopened",
        reason=f"{held.named}: open again, its decision was reverted ({held.file})",
        details={"held": held.id, "file": held.file, "reverts": decision.id},
    )


def holds_words(store: Store, decision: Decision) -> bool:
    """Whether a reverted decision kept a consent item, whose held words wait for a
    person again: its records leave as superseded, never erased (an erasure would
    scrub the held words from the store, and hold them as re-learned)."""
    if decision.kind != "held":
        return False
    try:
        return read_held(store, decision.item).reason == "consent"
    except Exception:  # absent or unreadable: not a consent item
        return False


def _unkeep_note(tx: Transaction, held: Held, rel: str) -> None:
    copy = consent.store_bytes(tx.store, rel)
    if copy is None:
        return
    line = (consent.pending_text(tx.store, held) or "").rstrip("\n")
    replaces, _after = notes.read_place(consent.store_bytes(tx.store, notes.place_path(held.id)))
    tx.write_file(rel, notes.without_note(copy.decode("utf-8", "replace"), line, replaces))


def _read_prior(store: Store, held: Held) -> tuple[bool, str | None]:
    """(whether the file was in the folder, its index line) before the keep."""
    data = consent.store_bytes(store, prior_path(held.id))
    try:
        found = json.loads((data or b"{}").decode("utf-8", "replace"))
    except ValueError:
        found = {}
    if not isinstance(found, dict):
        found = {}
    line = found.get("line")
    return found.get("existed") is True, line if isinstance(line, str) else None


def folder_after_revert(store: Store, decision: Decision) -> list[str]:
    """The agent's folder as it was before a reverted keep of a consent item: the file
    as approved before it (or gone, for a new one) and its index line, or the note out
    of the index; only while the folder holds what the keep wrote (else the next sync
    settles it). Notes for the person (what could not be put back)."""
    said: list[str] = []
    if decision.kind != "held" or decision.option != "keep":
        return said
    try:
        held = read_held(store, decision.item)
    except Exception:  # absent or unreadable: nothing to put back
        return said
    folder = Path(held.folder)
    if held.reason != "consent" or held.status != "open" or not folder.is_dir():
        return said
    kept = consent.store_bytes(store, consent.pending_path(held.id))
    if kept is None:
        return said
    if notes.is_index(held.file):
        now = consent.folder_bytes(folder, held.file)
        if now is not None:
            text = now.decode("utf-8", "replace")
            replaces, _after = notes.read_place(
                consent.store_bytes(store, notes.place_path(held.id))
            )
            again = notes.without_note(text, kept.decode("utf-8", "replace").rstrip("\n"), replaces)
            if again != text:
                write_agent_file(folder, held.file, again, file_hash(now), said)
        return said
    existed, line = _read_prior(store, held)
    now = consent.folder_bytes(folder, held.file)
    if now == kept:
        before = consent.store_bytes(store, consent.before_path(held.id))
        if not existed:
            with contextlib.suppress(OSError):
                (folder / held.file).unlink()
        elif before:
            write_agent_file(folder, held.file, before, file_hash(now), said)
    index, link = consent.index_of(held.file)
    listed = consent.folder_bytes(folder, index)
    if listed is not None and (line is not None or not existed):
        text = listed.decode("utf-8", "replace")
        again = consent.with_line(text, link, line if existed else None)
        if again != text:
            write_agent_file(folder, index, again, file_hash(listed), said)
    return said
