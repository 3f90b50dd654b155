"""Proposals: a team write by someone who is not a maintainer, as a branch of the remote.

A contributor's promotion request (a private record the team should have, a team
memory an agent wrote) is pushed to the team's remote as the branch
``memgov/proposals/<request id>``: one commit on top of the team's main that adds
what approval would add (the team record, the quoted log lines its sources point
at) and ``proposals/<request id>.json``, the evidence (who asks, why, from which
private record, what the secret scan found). A maintainer may review the same
branch as an ordinary pull request on a forge; memgov reads the branch.

After a sync, a maintainer's clone lists the remote's proposal branches
(:func:`read_proposals`, from ``refs/remotes/origin/memgov/proposals/*``). A branch
is untrusted input like any push: the proposal file and the record are read with
the same rules as the store's own files, the branch must add exactly one record
and only under ``memories/``, ``logs/`` and ``proposals/``, and one that does not is
reported with the file and what is wrong, never offered for approval.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.domain.data import AsData
from core.domain.errors import StoreError, ValidationError
from core.domain.record import Memory, parse_memory
from core.store import gitstore
from core.store.layout import MEMORY_DIR
from core.store.logs import LOG_DIR, MESSAGE_RE, lines_by_task

PROPOSAL_DIR = "proposals"
#: the branch of a proposal on the remote, and where a fetch puts it
BRANCH_PREFIX = "memgov/proposals/"
TRACKING_PREFIX = f"refs/remotes/origin/{BRANCH_PREFIX}"
MAX_PROPOSAL_BYTES = 256 * 1024
_FIELDS = ("id", "kind", "by", "reason", "requested_at", "private_record", "record")


@dataclass(frozen=True)
class Proposal(AsData):
    """One proposal branch as the remote has it."""

    id: str
    ref: str  # the branch on the remote: memgov/proposals/<id>
    tip: str
    base: str  # where it leaves the team's main
    by: str
    reason: str
    requested_at: str
    private_record: str
    memory: Memory = field(metadata={"skip": True})
    record_path: str = ""
    #: the branch's daily logs, as it has them (the quoted lines travel with it)
    logs: dict[str, str] = field(default_factory=dict, metadata={"skip": True})
    #: the message lines the record's sources point at, as the branch's logs hold them
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class BadProposal(AsData):
    ref: str
    problem: str


def proposal_json(
    *, request_id: str, by: str, reason: str, requested_at: str, private_record: str, record: str
) -> bytes:
    data = {
        "id": request_id,
        "kind": "promotion",
        "by": by,
        "reason": reason,
        "requested_at": requested_at,
        "private_record": private_record,
        "record": record,
    }
    return (json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def closed_json(
    *, request_id: str, approved: bool, decision: str, actor: str, reason: str, by: str
) -> str:
    """What the team's main keeps of a decided proposal (``proposals/<id>.json``): how
    it ended. The contributor's sync reads it to close their private request."""
    data = {
        "id": request_id,
        "status": "approved" if approved else "rejected",
        "decision": decision,
        "decided_by": actor,
        "reason": reason,
        "by": by,
    }
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def closed_proposal(root: Path, request_id: str) -> dict[str, str] | None:
    """How the proposal ``request_id`` ended, as the team's main (the working tree)
    records it; None while it is open (or the file is not what memgov writes)."""
    path = root / PROPOSAL_DIR / f"{request_id}.json"
    if path.is_symlink() or not path.is_file():
        return None
    try:
        data = json.loads(path.read_bytes()[:MAX_PROPOSAL_BYTES])
    except (OSError, ValueError):
        return None
    keys = ("id", "status", "decision", "decided_by", "reason")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in keys):
        return None
    if data["id"] != request_id or data["status"] not in ("approved", "rejected"):
        return None
    return {k: data[k] for k in keys}


def proposal_refs(root: Path) -> list[tuple[str, str]]:
    """(proposal id, tip) of every proposal branch the last fetch brought."""
    out = gitstore.run(
        root, "for-each-ref", "--format=%(refname)%00%(objectname)", TRACKING_PREFIX, check=False
    )
    found = []
    for line in out.decode("utf-8", "replace").splitlines():
        ref, _, sha = line.partition("\0")
        found.append((ref.removeprefix(TRACKING_PREFIX), sha))
    return found


def read_proposals(
    root: Path, ids: set[str] | None = None
) -> tuple[list[Proposal], list[BadProposal]]:
    """Every proposal branch of the team clone at ``root`` (``ids``: these only), read
    and checked."""
    good: list[Proposal] = []
    bad: list[BadProposal] = []
    for pid, tip in proposal_refs(root):
        if ids is not None and pid not in ids:
            continue
        ref = f"{BRANCH_PREFIX}{pid}"
        try:
            good.append(_read(root, pid, ref, tip))
        except (
            ValidationError,
            StoreError,
            ValueError,
            KeyError,
            UnicodeDecodeError,
            RecursionError,
        ) as exc:
            bad.append(
                BadProposal(
                    ref,
                    str(exc)
                    if isinstance(exc, ValidationError)
                    else f"cannot be read ({type(exc).__name__})",
                )
            )
    return good, bad


def _read(root: Path, pid: str, ref: str, tip: str) -> Proposal:
    base = gitstore.run(root, "merge-base", "HEAD", tip, check=False).decode().strip()
    if not base:
        raise ValidationError("shares no history with the team's main", where=ref)
    changes = gitstore.changed_blobs(root, base, tip)
    odd = gitstore.odd_entries(root, base, tip)
    if odd:
        raise ValidationError(
            f"adds {odd[0][1]} ({odd[0][0]!r}); a store holds plain files", where=ref
        )
    stray = [
        p
        for p, _old, _new in changes
        if not p.startswith((f"{MEMORY_DIR}/", f"{LOG_DIR}/", f"{PROPOSAL_DIR}/"))
    ]
    if stray:
        raise ValidationError(
            f"changes {', '.join(stray[:3])}: memgov reviews a proposal that adds a record "
            "(its log lines and evidence with it); review this one as a pull request with "
            "git or on your forge, and merge it signed by a maintainer",
            where=ref,
        )
    removed = [p for p, _old, new in changes if new is None]
    if removed:
        raise ValidationError(f"removes {', '.join(removed[:3])}", where=ref)
    blobs = gitstore.read_blob_ids(root, [new.encode() for _p, _o, new in changes if new])
    texts = {p: blobs[new.encode()] for p, _o, new in changes if new}
    meta_rel = f"{PROPOSAL_DIR}/{pid}.json"
    if meta_rel not in texts or len(texts[meta_rel]) > MAX_PROPOSAL_BYTES:
        raise ValidationError("has no proposal file (or one too large)", path=meta_rel, where=ref)
    meta: Any = json.loads(texts[meta_rel])
    if not isinstance(meta, dict) or not all(isinstance(meta.get(k), str) for k in _FIELDS):
        raise ValidationError(
            "must be an object with text fields " + ", ".join(_FIELDS), path=meta_rel
        )
    if meta["id"] != pid:
        raise ValidationError("does not match its branch", path=meta_rel, field="id")
    records = [p for p in texts if p.startswith(f"{MEMORY_DIR}/")]
    if len(records) != 1:
        raise ValidationError(f"adds {len(records)} records; a proposal adds one", where=ref)
    (rel,) = records
    if old_of(changes, rel) is not None:
        raise ValidationError("changes a record the team has; a proposal adds one", path=rel)
    memory = parse_memory(texts[rel].decode("utf-8"), path=rel, rel_path=rel)
    if memory.scope != "team" or memory.status != "active" or memory.id != meta["record"]:
        raise ValidationError(
            "must be the active team record the proposal file names", path=rel, field="scope"
        )
    logs = {p: texts[p].decode("utf-8") for p in texts if p.startswith(f"{LOG_DIR}/")}
    wanted = {(s.task, s.message_index) for s in memory.all_sources}
    evidence = tuple(
        line
        for text in logs.values()
        for task, line in lines_by_task(text)
        if (found := MESSAGE_RE.match(line)) and (task, int(found["index"])) in wanted
    )
    return Proposal(
        pid,
        ref,
        tip,
        base,
        meta["by"],
        meta["reason"],
        meta["requested_at"],
        meta["private_record"],
        memory,
        rel,
        logs,
        evidence,
    )


def old_of(changes: list[tuple[str, str | None, str | None]], rel: str) -> str | None:
    return next((old for p, old, _new in changes if p == rel), None)
