"""Integrating what the remote's main branch has into a clone's: memgov merges its own files.

Two clones of a team store decide items offline; at sync one of them holds commits
the other has not seen. git's textual merge would leave conflict markers in event
logs and records; memgov merges by what the files mean (:func:`integrate`):

- **the event log** (``events/*.jsonl``, ``events.jsonl``): the union of both
  sides' lines by event id, the remote's order first, no duplicate, nothing lost;
- **daily logs** (``logs/``): both sides' new lines (``git merge-file --union``);
- **the index** (``MEMORY.md``): the remote's, then written again from the merged
  records (the sync runs ``reindex``);
- **everything else** (records, requests, decisions, ``memgov.yaml``): a file changed
  on one side takes that side's version. A file changed on both sides differently
  is a collision, and **the remote wins**: it was pushed first.

What is undone is undone **decision by decision** (:class:`Part`): a local commit is
split into its decisions (a batch, ``decide -`` or the desk's ``D``, is one commit of
many), each owning its decision file and the files of its records, and the rest of
the commit. A decision of an item a remote decision already closed (the same item
decided twice), or a part that touched a colliding file, is *undone*: every file it
changed takes the remote's version, its events leave the merged log, and a
``sync-undone`` event records what was undone, why, and who decided the item first;
the batch's other decisions land. A part that touched a file an undone one touched is
undone with it (a file is this clone's last version or the remote's, never half of
the local changes), and a commit's rest undone takes its decisions with it. So
nothing is applied twice, and nothing is lost without a recorded event and a line
of the sync's report and of the merge commit's message.

Before anything is merged, every file the remote changed is read as memgov reads
it (:func:`remote_problems`): a record, request, decision or config that a hand edit
broke stops the integration with the file, the field and what to do; nothing local
changes, and the remote's commit is not merged blindly.

The merged tree is built in a temporary index (the working tree is untouched
until it is whole), committed with the remote's commit as its first parent (so the
shared line is the first-parent line and a push scans only what is new), then
checked out (:func:`checkout`) under a journal: a kill at any moment leaves the
store at the old commit or at the new one, never between (:func:`recover_checkout`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from core.domain.data import AsData
from core.domain.errors import ValidationError
from core.domain.record import parse_memory
from core.store import gitstore
from core.store.checkout import checkout, recover_checkout
from core.store.config import CONFIG_FILE, load_config_text
from core.store.decisions import DECISION_DIR, NOT_CLOSING, Decision, decision_from
from core.store.events import Event, is_event_log, new_event_id
from core.store.index import INDEX_FILE
from core.store.layout import MAX_FILE_BYTES, MEMORY_DIR
from core.store.logs import LOG_DIR, lines_by_task, with_message_line
from core.store.quarantine import QUARANTINE_DIR, quarantined_from
from core.store.request_files import request_from_mapping

UNDONE = "sync-undone"


@dataclass(frozen=True)
class RemoteDecision(AsData):
    id: str
    item: str
    request: str | None
    option: str
    actor: str
    ts: str


@dataclass(frozen=True)
class Undone(AsData):
    """A local decision (or a commit's changes besides its decisions) the integration
    undid: the remote changed the same files, or decided the same item first."""

    commit: str
    subject: str
    decision: str | None  # the local decision it carried, if any
    item: str | None
    paths: tuple[str, ...]
    why: str  # what the remote did first, in words
    winner: RemoteDecision | None = None

    def render(self) -> str:
        what = f"your decision {self.decision} on {self.item}" if self.decision else self.subject
        return f"undone: {what}: {self.why}"


@dataclass
class Integration(AsData):
    """What integrating the remote's main did."""

    kind: str  # "up-to-date", "ahead" (nothing to take), "fast-forward", "merge"
    ours: str
    theirs: str | None
    result: str
    incoming: int = 0  # commits taken from the remote
    outgoing: int = 0  # local commits not yet on the remote
    changed: tuple[str, ...] = ()  # files the working tree changed
    undone: list[Undone] = field(default_factory=list)


@dataclass(frozen=True)
class Unit:
    """A local commit (first-parent line) and the files it changed."""

    sha: str
    subject: str
    paths: tuple[str, ...]


def _git(root: Path, *args: str, **kwargs: Any) -> str:
    return gitstore.run(root, *args, **kwargs).decode("utf-8", "surrogateescape")


def merge_base(root: Path, ours: str, theirs: str) -> str | None:
    out = gitstore.run(root, "merge-base", ours, theirs, check=False)
    return out.decode().strip() or None


def count(root: Path, revisions: str) -> int:
    return int(_git(root, "rev-list", "--count", revisions).strip() or 0)


def _units(root: Path, base: str, ours: str) -> list[Unit]:
    """Local commits on the first-parent line, oldest first, with their files."""
    out = _git(
        root,
        "log",
        "--first-parent",
        "--reverse",
        "--no-renames",
        "--diff-merges=first-parent",
        "--name-only",
        "-z",
        "--format=%x01%H%x02%s",
        f"{base}..{ours}",
    )
    units = []
    for chunk in out.split("\x01")[1:]:
        head, _, rest = chunk.partition("\x02")
        subject, _, names = rest.partition("\0")
        paths = tuple(p.strip("\n") for p in names.split("\0") if p.strip("\n"))
        units.append(Unit(head.strip(), subject.strip(), paths))
    return units


def _mergeable(path: str) -> bool:
    """Files memgov merges by their meaning rather than taking one side's."""
    return is_event_log(path) or path.startswith(f"{LOG_DIR}/") or path == INDEX_FILE


def remote_problems(
    root: Path, base: str, theirs: str, changes: list[tuple[str, str | None, str | None]]
) -> list[str]:
    """Every file the remote changed that memgov would not read: the file, the field,
    what is wrong. A record, a request, a decision, the config; a link, a submodule or
    a name that is not UTF-8 anywhere."""
    import yaml

    problems = [
        f"{_shown(path)}: is {what}; a store holds plain files only"
        for path, what in gitstore.odd_entries(root, base, theirs)
    ]
    odd = {p for p in problems}
    for path, _old, _new in changes:
        if path != _shown(path):
            problems.append(f"{_shown(path)}: its name is not UTF-8")
    wanted = [(path, new) for path, _old, new in changes if new is not None]
    sizes = gitstore.blob_sizes(root, [new.encode() for _path, new in wanted])
    large = {p for p, new in wanted if sizes[new.encode()] > _limit(p)}
    problems += [
        f"{p}: is over {_limit(p) // (1 << 20)} MiB; it was not read" for p in sorted(large)
    ]
    wanted = [(p, new) for p, new in wanted if p not in large]
    blobs = gitstore.read_blob_ids(root, [new.encode() for _path, new in wanted])
    for path, new in wanted:
        if path != _shown(path) or any(o.startswith(f"{path}:") for o in odd):
            continue
        data = blobs.get(new.encode(), b"")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{path}: is not UTF-8")
            continue
        try:
            if path.startswith(f"{MEMORY_DIR}/") and path.endswith(".md"):
                parse_memory(text, path=path, rel_path=path)
            elif path == CONFIG_FILE:
                load_config_text(text, path=path)
            elif path.startswith(f"{DECISION_DIR}/") and path.endswith(".json"):
                decision_from(json.loads(text), path, Path(path).stem)
            elif path.startswith("requests/") and path.endswith(".yaml"):
                request_from_mapping(yaml.safe_load(text), path=path, stem=Path(path).stem)
            elif path.startswith(f"{QUARANTINE_DIR}/") and path.endswith(".json"):
                quarantined_from(json.loads(text), path)
        except ValidationError as exc:
            problems.append(str(exc))
        except (ValueError, yaml.YAMLError, RecursionError, TypeError) as exc:
            problems.append(f"{path}: cannot be read ({type(exc).__name__})")
    return problems


def _limit(path: str) -> int:
    """The largest file of this kind memgov reads from a remote (a record as a store
    reads one; anything else, a bounded shard or log, far below this)."""
    return MAX_FILE_BYTES if path.startswith(f"{MEMORY_DIR}/") else 64 << 20


def _shown(path: str) -> str:
    """A path as a message may show it (a name that is not UTF-8 escaped)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _event_id(line: bytes) -> str | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _lines(data: bytes | None) -> list[bytes]:
    return [line for line in (data or b"").split(b"\n") if line.strip()]


def union_events(
    base: bytes | None, theirs: bytes | None, ours: bytes | None, drop: set[str]
) -> bytes:
    """The remote's lines in their order, then each local line the remote lacks (by
    event id; a line that is no event by its bytes), less the ``drop``ped events."""
    kept = _lines(theirs)
    seen = {_event_id(line) or line.decode("utf-8", "replace") for line in kept}
    old = {_event_id(line) or line.decode("utf-8", "replace") for line in _lines(base)}
    for line in _lines(ours):
        key = _event_id(line) or line.decode("utf-8", "replace")
        if key in seen or key in drop:
            continue
        if key in old and key not in seen:
            continue  # the remote dropped it (an undone event): keep it dropped
        seen.add(key)
        kept.append(line)
    return b"".join(line + b"\n" for line in kept)


def _union_text(base: bytes | None, theirs: bytes | None, ours: bytes | None) -> bytes:
    """A daily log: the remote's, with each message line only this side added put
    under its own task's heading (:func:`core.store.logs.with_message_line`): a line
    keeps the task its source names."""

    def text(data: bytes | None) -> str:
        return (data or b"").decode("utf-8", "replace")

    old = set(text(base).splitlines())
    merged = text(theirs)
    have = set(merged.splitlines())
    day = ""
    for line in text(theirs).splitlines() + text(ours).splitlines():
        if line.startswith("# ") and not day:
            day = line[2:].strip()
    for task, line in lines_by_task(text(ours)):
        if line in old or line in have or not line.strip() or line.startswith("# "):
            continue
        if task:
            merged = with_message_line(merged or None, day=day, task=task, line=line)
        else:  # a line under no task heading: kept, at the end
            merged = (
                (merged if not merged or merged.endswith("\n") else merged + "\n") + line + "\n"
            )
        have.add(line)
    return merged.encode("utf-8")


@dataclass(frozen=True)
class Part:
    """What the merge lands or undoes as a whole: one decision of a local commit (the
    decision's file, the files of its records and its events; a batch's commit holds
    several), or a commit's changes that belong to no decision (a commit without
    decisions is one such part)."""

    unit: Unit
    decision: RemoteDecision | None
    paths: tuple[str, ...]
    rest: bool = False  # the commit's changes besides its decisions'


@dataclass(frozen=True)
class _Local:
    """A decision this clone made since the common commit: what it said and the ids of
    the records it changed (a file named for one of them is its)."""

    decision: RemoteDecision
    records: frozenset[str]


def _read_decision(data: bytes | None, path: str) -> Decision | None:
    if data is None or not path.startswith(f"{DECISION_DIR}/") or not path.endswith(".json"):
        return None
    try:
        return decision_from(json.loads(data), path, Path(path).stem)
    except (ValueError, ValidationError):
        return None


def _summary(decision: Decision) -> RemoteDecision:
    return RemoteDecision(
        decision.id,
        decision.item,
        decision.request,
        decision.option,
        decision.actor,
        decision.ts,
    )


def _added_decisions(
    root: Path, changes: dict[str, tuple[str | None, str | None]]
) -> dict[str, Decision]:
    """The decision files one side added since the common commit, read: {path: decision}."""
    added = [
        (p, b)
        for p, (a, b) in changes.items()
        if a is None and b is not None and p.startswith(f"{DECISION_DIR}/")
    ]
    blobs = gitstore.read_blob_ids(root, [b.encode() for _p, b in added])
    found = {p: _read_decision(blobs.get(b.encode()), p) for p, b in added}
    return {p: d for p, d in found.items() if d is not None}


def _remote_closings(
    root: Path, theirs_changes: dict[str, tuple[str | None, str | None]]
) -> dict[str, RemoteDecision]:
    """The items (and requests) the remote's new decisions closed and keep closed (not
    reverted there since), each by its first."""
    closed: dict[str, RemoteDecision] = {}
    for decision in _added_decisions(root, theirs_changes).values():
        if decision.option in NOT_CLOSING or decision.reverted_by:
            continue
        for key in (decision.item, decision.request):
            if key:
                closed.setdefault(key, _summary(decision))
    return closed


def _local_decisions(
    root: Path, ours_changes: dict[str, tuple[str | None, str | None]]
) -> dict[str, _Local]:
    """This clone's new decisions that close an item, by their file's path."""
    mine: dict[str, _Local] = {}
    for path, decision in _added_decisions(root, ours_changes).items():
        if decision.option in NOT_CLOSING:
            continue  # closes nothing: it lands with its commit's other changes
        records = {*decision.before, *decision.after, *decision.erased}
        records |= {str(e.get("id")) for e in (*decision.created, *decision.touched)}
        mine[path] = _Local(_summary(decision), frozenset(records))
    return mine


def _parts(units: list[Unit], mine: dict[str, _Local]) -> list[Part]:
    """Each local commit split by decision: a decision owns its file and every file
    named for one of its records (a batch's items never share a record); what no
    decision owns is the commit's rest. A commit of one decision is that decision's."""
    parts: list[Part] = []
    made: set[str] = set()  # a decision is the commit's that added its file, not a revert's
    for unit in units:
        decisions = [(p, mine[p]) for p in unit.paths if p in mine and p not in made]
        made.update(p for p, _local in decisions)
        if len(decisions) <= 1:
            only = decisions[0][1].decision if decisions else None
            parts.append(Part(unit, only, unit.paths, rest=only is None))
            continue
        owner = {record: path for path, local in decisions for record in local.records}
        owned: dict[str, list[str]] = {path: [path] for path, _local in decisions}
        for p in unit.paths:
            mine_of = None if _mergeable(p) else owner.get(_record_of(p) or "")
            if mine_of is not None and p not in owned:
                owned[mine_of].append(p)
        for path, local in decisions:
            parts.append(Part(unit, local.decision, tuple(owned[path])))
        taken = {p for paths in owned.values() for p in paths}
        rest = tuple(p for p in unit.paths if p not in taken)
        if rest:
            parts.append(Part(unit, None, rest, rest=True))
    return parts


def _record_of(path: str) -> str | None:
    """The record a file is named for (a record, its quarantine or held entry), if any."""
    if path.startswith(f"{DECISION_DIR}/") or "/" not in path:
        return None
    return Path(path).stem


def _collisions(
    ours_changes: dict[str, tuple[str | None, str | None]],
    theirs_changes: dict[str, tuple[str | None, str | None]],
) -> set[str]:
    """The files both sides changed differently that memgov does not merge by meaning."""
    return {
        p
        for p in set(ours_changes) & set(theirs_changes)
        if not _mergeable(p) and ours_changes[p][1] != theirs_changes[p][1]
    }


def _undone_first(
    parts: list[Part], closed: dict[str, RemoteDecision], collide: set[str]
) -> dict[int, Undone]:
    """The parts the remote overrules directly, each with its own reason: a decision of
    an item the remote decided first, or a part that changed a file the remote changed.
    The rest of a batch's commit undone undoes its decisions with it."""
    undone: dict[int, Undone] = {}
    for n, part in enumerate(parts):
        decision = part.decision
        winner = None
        if decision is not None:
            winner = closed.get(decision.item) or (
                closed.get(decision.request) if decision.request else None
            )
        hit = sorted(collide & set(part.paths))
        if winner is not None and decision is not None:
            why = (
                f"{decision.item} was already decided by {winner.actor} ({winner.option}, "
                f"decision {winner.id} at {winner.ts}); it stays as they decided"
            )
        elif hit and decision is not None:
            why = (
                f"the remote changed {', '.join(hit[:3])} first; {decision.item} stays "
                "as the remote has it"
            )
        elif hit:
            why = f"the remote changed {', '.join(hit[:3])} first"
        else:
            continue
        undone[n] = _undone(part, why, winner)
    for n in list(undone):
        if parts[n].rest:
            _undo_siblings(parts, undone, n)
    return undone


def _undone(part: Part, why: str, winner: RemoteDecision | None = None) -> Undone:
    decision = part.decision
    return Undone(
        part.unit.sha,
        part.unit.subject,
        decision.id if decision else None,
        decision.item if decision else None,
        part.paths,
        why,
        winner,
    )


def _undo_siblings(parts: list[Part], undone: dict[int, Undone], rest: int) -> None:
    """A commit's rest undone: its decisions go with it (they may need what it changed)."""
    shown = ", ".join([p for p in parts[rest].paths if not _mergeable(p)][:3])
    for n, part in enumerate(parts):
        if part.unit == parts[rest].unit and n not in undone and part.decision is not None:
            why = (
                f"its commit's changes to {shown} were undone ({undone[rest].why}); "
                f"{part.decision.item} stays as the remote has it"
            )
            undone[n] = _undone(part, why)


def _undone_with(parts: list[Part], undone: dict[int, Undone]) -> None:
    """A part that changed a file an undone part changed is undone with it: a file takes
    this clone's last version or the remote's, never half of the local changes."""
    order = {u.sha: n for n, u in enumerate(dict.fromkeys(p.unit for p in parts))}
    changed = True
    while changed:
        changed = False
        touched: dict[str, int] = {}
        for n in undone:
            for path in parts[n].paths:
                if not _mergeable(path):
                    touched.setdefault(path, n)
        for n, part in enumerate(parts):
            if n in undone:
                continue
            overlap = sorted(p for p in part.paths if p in touched)
            if not overlap:
                continue
            other = parts[touched[overlap[0]]]
            when = "after" if order[part.unit.sha] > order[other.unit.sha] else "before"
            why = f"it changed {', '.join(overlap[:3])} {when} a change that was undone"
            if part.decision is not None:
                why += f"; {part.decision.item} stays as the remote has it"
            undone[n] = _undone(part, why)
            if part.rest:
                _undo_siblings(parts, undone, n)
            changed = True


def _added_events(root: Path, unit: Unit) -> list[tuple[str, str | None]]:
    """The events a commit added: (event id, the decision it names)."""
    shards = [p for p in unit.paths if is_event_log(p)]
    if not shards:
        return []
    diff = _git(root, "diff", "-U0", "--no-color", f"{unit.sha}^1", unit.sha, "--", *shards)
    found = []
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            data = _event_data(line[1:].encode("utf-8", "surrogateescape"))
            if isinstance(data.get("id"), str):
                decision = data.get("decision")
                found.append((data["id"], decision if isinstance(decision, str) else None))
    return found


def _event_data(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _dropped_events(root: Path, parts: list[Part], undone: dict[int, Undone]) -> set[str]:
    """The ids of the events the undone parts added: all a commit added when all of it
    is undone, else those that name one of its undone decisions."""
    ids: set[str] = set()
    for unit in dict.fromkeys(parts[n].unit for n in undone):
        mine = [n for n, p in enumerate(parts) if p.unit == unit]
        whole = all(n in undone for n in mine)
        decisions = {undone[n].decision for n in mine if n in undone}
        for event, decision in _added_events(root, unit):
            if whole or (decision is not None and decision in decisions):
                ids.add(event)
    return ids


def _memory_ids(paths: Iterable[str]) -> tuple[str, ...]:
    return tuple(
        sorted(Path(p).stem for p in paths if p.startswith(f"{MEMORY_DIR}/") and p.endswith(".md"))
    )


def _undo_event(undone: Undone, *, actor: str, now: datetime, number: int) -> Event:
    details: dict[str, Any] = {"commit": undone.commit, "files": list(undone.paths)[:200]}
    if undone.winner is not None:
        details["first"] = {
            "decision": undone.winner.id,
            "actor": undone.winner.actor,
            "option": undone.winner.option,
            "ts": undone.winner.ts,
        }
    if undone.item is not None:
        details["item"] = undone.item
    return Event(
        id=new_event_id(now, f"{UNDONE}|{undone.commit}|{undone.decision}|{number}"),
        ts=now.isoformat(),
        actor=actor,
        action=UNDONE,
        memory_ids=_memory_ids(undone.paths),
        reason=undone.why,
        decision=undone.decision,
        details=details,
    )


def _last_shard(paths: Iterable[str]) -> str:
    from core.store.events import EVENTS_FILE, FIRST_SHARD, shard_name

    numbers = [
        int(Path(p).stem)
        for p in paths
        if is_event_log(p) and p.startswith("events/") and Path(p).stem.isascii()
    ]
    if numbers:
        return shard_name(max(numbers))
    return EVENTS_FILE if EVENTS_FILE in paths else FIRST_SHARD


def plan_merge(
    root: Path, ours: str, theirs: str, base: str, *, actor: str, now: datetime
) -> tuple[dict[str, bytes | None], list[Undone]]:
    """The files where the merged tree differs from the remote's, and what is undone:
    decision by decision (a batch's commit lands but for the decisions the remote
    overrules), each undone one with its own reason and event."""
    ours_changes = {p: (a, b) for p, a, b in gitstore.changed_blobs(root, base, ours)}
    theirs_changes = {p: (a, b) for p, a, b in gitstore.changed_blobs(root, base, theirs)}
    parts = _parts(_units(root, base, ours), _local_decisions(root, ours_changes))
    collide = _collisions(ours_changes, theirs_changes)
    undone = _undone_first(parts, _remote_closings(root, theirs_changes), collide)
    _undone_with(parts, undone)
    kept = {p for n, part in enumerate(parts) if n not in undone for p in part.paths}
    drop = _dropped_events(root, parts, undone)
    files = _merged_files(root, ours_changes, theirs_changes, kept - collide, drop)
    listed = [undone[n] for n in sorted(undone)]
    if listed:
        _note_undone(root, theirs, theirs_changes, files, listed, actor=actor, now=now)
    return files, listed


def _merged_files(
    root: Path,
    ours_changes: dict[str, tuple[str | None, str | None]],
    theirs_changes: dict[str, tuple[str | None, str | None]],
    kept: set[str],
    drop: set[str],
) -> dict[str, bytes | None]:
    """Each file this clone changed, merged: event logs by id (less ``drop``), daily
    logs line by line, the ``kept`` files as this clone has them."""
    final = gitstore.read_blob_ids(
        root,
        [
            sha.encode()
            for p in set(ours_changes) | set(theirs_changes)
            for sha in (*ours_changes.get(p, (None, None)), *theirs_changes.get(p, (None, None)))
            if sha
        ],
    )

    def blob(sha: str | None) -> bytes | None:
        return None if sha is None else final[sha.encode()]

    files: dict[str, bytes | None] = {}
    for path, (old, new) in ours_changes.items():
        if path == INDEX_FILE:
            continue  # the remote's; the sync writes it again from the records
        if is_event_log(path):
            their_new = theirs_changes.get(path, (old, old))[1]
            files[path] = union_events(blob(old), blob(their_new), blob(new), drop)
        elif path.startswith(f"{LOG_DIR}/") and path in theirs_changes:
            files[path] = _union_text(blob(old), blob(theirs_changes[path][1]), blob(new))
        elif path in kept:
            files[path] = blob(new)
    return files


def _note_undone(
    root: Path,
    theirs: str,
    theirs_changes: dict[str, tuple[str | None, str | None]],
    files: dict[str, bytes | None],
    undone: list[Undone],
    *,
    actor: str,
    now: datetime,
) -> None:
    """A ``sync-undone`` event for each undone part, at the end of the last shard."""
    lines = [_undo_event(u, actor=actor, now=now, number=n).line() for n, u in enumerate(undone)]
    also = {p for p in theirs_changes if is_event_log(p)}
    append_events(root, theirs, files, lines, also=also)


def append_events(
    root: Path,
    tree: str,
    files: dict[str, bytes | None],
    lines: list[bytes],
    *,
    also: Iterable[str] = (),
) -> None:
    """Event lines at the end of the last shard of ``tree`` as ``files`` change it
    (``also``: more shard paths to count), read from ``tree`` unless ``files`` has it."""
    listed = _git(root, "ls-tree", "--name-only", "-r", "-z", tree, "--", "events")
    shards = {p for p in listed.split("\0") if p} | set(also)
    shards |= {p for p in files if is_event_log(p)}
    shard = _last_shard(shards)
    current = files.get(shard)
    if current is None:
        current = gitstore.read_blobs(root, [f"{tree}:{shard}"])[f"{tree}:{shard}"] or b""
    if current and not current.endswith(b"\n"):
        current += b"\n"  # a torn last line stays alone: the new events start fresh
    files[shard] = current + b"".join(lines)


def write_tree(root: Path, theirs: str, files: dict[str, bytes | None]) -> str:
    """The remote's tree with ``files`` written (None: removed), built in a temporary
    index: the repository's own index and working tree are not touched."""
    index = root / ".git" / "memgov" / "merge-index"
    index.parent.mkdir(parents=True, exist_ok=True)
    env = {"GIT_INDEX_FILE": str(index)}
    for stale in (index, index.with_name(index.name + ".lock")):  # a killed sync's
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    gitstore.run(root, "read-tree", theirs, env=env)
    algorithm = _git(root, "rev-parse", "--show-object-format").strip() or "sha1"
    blobs = _stored_blobs(root, {p: d for p, d in files.items() if d is not None}, algorithm)
    null = "0" * (64 if algorithm == "sha256" else 40)
    entries = [
        f"0 {null}\t{path}\0" if data is None else f"100644 {blobs[path]}\t{path}\0"
        for path, data in sorted(files.items())
    ]
    if entries:
        gitstore.run(
            root,
            "update-index",
            "-z",
            "--index-info",
            data="".join(entries).encode("utf-8", "surrogateescape"),
            env=env,
        )
    tree = _git(root, "write-tree", env=env).strip()
    index.unlink()
    return tree


def _stored_blobs(root: Path, files: dict[str, bytes], algorithm: str) -> dict[str, str]:
    """Each file's blob id, written into the object store only when it is not there yet
    (a file the merge keeps as one side has it is there already): one process to look,
    one per new blob."""
    ids = {
        path: hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()
        for path, data in files.items()
    }
    unique = list(dict.fromkeys(ids.values()))
    if not unique:
        return ids
    out = gitstore.run(
        root, "cat-file", "--batch-check", data="".join(f"{i}\n" for i in unique).encode()
    )
    missing = {row.split()[0].decode() for row in out.splitlines() if row.endswith(b" missing")}
    for path, data in files.items():
        if ids[path] in missing:
            written = _git(root, "hash-object", "-w", "--stdin", data=data).strip()
            missing.discard(ids[path])
            ids[path] = written  # the same id (--stdin hashes the bytes as they are)
    return ids


def merge_commit(
    root: Path, tree: str, theirs: str, ours: str, *, actor: str, when: datetime, message: str
) -> str:
    """The merge commit: the remote's commit first, the local one second."""
    out = gitstore.run(
        root,
        "commit-tree",
        tree,
        "-p",
        theirs,
        "-p",
        ours,
        *sign_args(root),
        "-F",
        "-",
        data=message.encode("utf-8"),
        actor=actor,
        when=when,
    )
    return out.decode().strip()


def sign_args(root: Path) -> list[str]:
    """``-S`` when the clone signs its commits (core.team.signing set it up)."""
    from core.team.signing import signing_key

    return ["-S"] if signing_key(root) else []


__all__ = ["checkout", "recover_checkout"]
