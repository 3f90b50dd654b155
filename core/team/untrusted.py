"""Untrusted means untrusted: a change nobody trusted signed waits for a maintainer.

With ``signers:`` set, every commit the remote brings is verified
(:mod:`core.team.signing`). A commit that does not verify (unsigned, a key the list
does not have, a maintainer's key for someone else's commit) is *untrusted*, and
its changes are in effect nowhere until a maintainer re-decides it:

- **A sync stops before it** (:func:`stop_point`). The clone takes the remote's
  commits up to the one before the first untrusted commit that no later verified
  commit re-decided; that one and everything after it wait. So the working tree
  (what ``recall``, the MCP server, ``MEMORY.md``, ``export``, the desk and the next
  commit read) never holds an untrusted change, and nothing a maintainer commits
  launders one. While one waits on the remote's main, this clone's own commits
  cannot be pushed (the remote's main is not their ancestor): the report says so,
  and they are kept.
- **A maintainer ratifies or rejects it** (:func:`resolve`; ``memgov team ratify``,
  ``memgov team reject``, or the queue's "untrusted change" item). Both make one
  commit, signed by the maintainer's key, whose parents are the untrusted commit and
  the clone's main: *ratify* takes its changes (memgov's own merge with anything
  local), *reject* keeps the clone's tree as it is (the change is undone in the same
  commit that brings it in), each with an event naming the commit. The next sync
  pushes it; every other clone then finds the untrusted commit re-decided by a
  verified one (:func:`core.team.trust.resolved_by`) and takes both at once. The
  working tree goes from the clone's main to that commit in one journaled checkout,
  so a kill at any moment leaves either, never the untrusted change alone (the
  commit leaves the clone's list of those that wait just before; killed before
  ``main`` moved, the next sync lists it again).

A forged record, a pushed duplicate of a trusted record's id, and a ``git rm`` with
a forged ``erase`` event are all just untrusted commits: they wait like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.domain import policy
from core.domain.data import AsData
from core.domain.errors import NotFoundError, StoreError, ValidationError, shown_id
from core.review import untrusted as review
from core.review.items import Item, Kind, UntrustedAnalysis
from core.store import gitstore
from core.store.config import CONFIG_FILE
from core.store.decisions import Decision
from core.store.events import (
    Event,
    new_event_id,
)
from core.store.store import Store
from core.team import merge, signing

RATIFY = "ratify"
REJECT = "reject-commit"
#: a record a ratified commit added, removed or moved (its own commit recorded no event)
RATIFIED_RECORD = "ratify-record"


@dataclass(frozen=True)
class Waiting(AsData):
    """An untrusted commit on the remote's main and what waits behind it."""

    verdict: signing.Verdict
    behind: int  # commits after it on the remote's main, waiting with it

    def render(self) -> str:
        v = self.verdict
        after = f"; {self.behind} commit(s) after it wait with it" if self.behind else ""
        return (
            f"commit {v.commit[:10]} by {v.author} ({v.subject}): {v.why}; not taken: its "
            f"changes are in effect nowhere until a maintainer ratifies or rejects it "
            f"(memgov team ratify|reject {v.commit[:10]}){after}"
        )


@dataclass(frozen=True)
class Resolved(AsData):
    store: str
    commit: str
    author: str
    why: str
    ratified: bool
    resolution: str  # the commit that re-decided it
    changed: tuple[str, ...] = ()  # files the working tree changed for it

    def render(self) -> str:
        what = "ratified (its changes are taken)" if self.ratified else "rejected (undone)"
        return (
            f"{self.store}: commit {self.commit[:10]} by {self.author} ({self.why}) {what} in "
            f"{self.resolution[:10]}; 'memgov sync' sends it to the other clones"
        )


def stop_point(
    incoming: list[str], verdicts: list[signing.Verdict], resolved: set[str]
) -> int | None:
    """The index in ``incoming`` (the remote's first-parent commits, oldest first) of
    the first untrusted commit no verified commit re-decided; None when none waits."""
    status = {v.commit: v.status for v in verdicts}
    for at, commit in enumerate(incoming):
        if status.get(commit) == "untrusted" and commit not in resolved:
            return at
    return None


def resolve(store: Store, commit: str, *, ratify: bool, actor: str, reason: str) -> Resolved:
    """Ratify or reject an untrusted commit of the remote's main (this module's docstring).
    Refused unless ``actor`` is a maintainer and the commit is the first that waits."""
    verb = "ratify" if ratify else "reject"
    policy.check_maintainer(store, actor, f"{verb} a commit of the team store {store.root}")
    if not reason.strip():
        raise ValidationError(
            f"{store.root}: say why you {verb} it (--reason)", field="reason", hint="--reason WHY"
        )
    root = store.root
    with store.locked():
        merge.recover_checkout(root)  # a checkout killed mid-way: back to HEAD first
        dirty = [p for p in gitstore.dirty(root) if not p.startswith(".memgov/")]
        if dirty:  # as a sync: the checkout would fail on them, its recovery discard them
            raise StoreError(
                f"{root}: files changed by hand and not committed: "
                f"{', '.join(dirty[:5])}{' ...' if len(dirty) > 5 else ''}; nothing was "
                f"decided. Commit them with git, or discard them "
                "('git -C STORE checkout -- FILE'), then decide again"
            )
        full = gitstore.resolve(root, commit)
        found = {v.commit: v for v in signing.untrusted(store.state_dir)}
        if full is None or full not in found:
            raise NotFoundError(
                f"{root}: {shown_id(commit)} is not an untrusted commit of this clone "
                "('memgov queue --kind untrusted' lists them)"
            )
        verdict = found[full]
        ours = gitstore.head(root)
        parent = review.first_parent(root, full)
        if parent is None or not review.is_ancestor(root, parent, ours):
            first = review.first_waiting(store)
            before = f" ({first.commit[:10]} comes first)" if first is not None else ""
            raise ValidationError(
                f"{root}: commit {full[:10]} comes after another change this clone has not "
                f"taken{before}; decide that one first, then sync",
                field="commit",
            )
        if ratify:  # what memgov cannot read is never taken, ratified or not
            changes = gitstore.changed_blobs(root, parent, full)
            problems = merge.remote_problems(root, parent, full, changes)
            if problems:
                raise ValidationError(
                    f"{root}: commit {full[:10]} has files memgov cannot read, so it cannot be "
                    f"ratified: {'; '.join(problems[:5])}; reject it instead",
                    field="commit",
                )
        now = store.now()
        if ratify and merge.merge_base(root, ours, full) == ours:
            files: dict[str, bytes | None] = {}
            source = full  # nothing of this clone's own since: the change as it is
        elif ratify:
            base = merge.merge_base(root, ours, full) or parent
            files, _undone = merge.plan_merge(root, ours, full, base, actor=actor, now=now)
            source = full
        else:
            files, source = {}, ours  # rejected: the tree stays this clone's own
        event = Event(
            id=new_event_id(now, f"{verb}|{full}"),
            ts=now.isoformat(),
            actor=actor,
            action=RATIFY if ratify else REJECT,
            memory_ids=_memory_ids(verdict.files),
            reason=reason,
            details={
                "commit": full,
                "author": verdict.author,
                "was": verdict.why,
                "files": list(verdict.files)[:200],
            },
        )
        transitions = _ratified(root, ours, source, files, verdict.files) if ratify else []
        merge.append_events(
            root,
            source,
            files,
            [
                event.line(),
                *(
                    Event(
                        id=new_event_id(now, f"{verb}|{full}|{memory_id}"),
                        ts=now.isoformat(),
                        actor=actor,
                        action=RATIFIED_RECORD,
                        memory_ids=(memory_id,),
                        from_status=before,
                        to_status=after,
                        reason=reason,
                        details={"commit": full, "author": verdict.author},
                    ).line()
                    for memory_id, before, after in transitions
                ),
            ],
        )
        tree = merge.write_tree(root, source, files)
        message = f"{verb}: commit {full[:10]} by {verdict.author}\n\n{reason}\n\nevent: {event.id}"
        resolution = merge.merge_commit(
            root, tree, full, ours, actor=actor, when=now, message=message
        )
        # off the list before main moves: a kill after it never leaves the commit decided
        # yet waiting (doctor's error, a second decision); a kill before it, the next
        # sync finds it waiting again, as it is
        signing.remember_untrusted(store.state_dir, [], {full})
        changed = merge.checkout(root, ours, resolution)
        if ratify and CONFIG_FILE in verdict.files:  # its change to the people now holds
            signing.trust_config_at(root, full)
        store.forget()
        store.reread()
    return Resolved(
        str(root), full, verdict.author, verdict.why, ratify, resolution, tuple(changed)
    )


# ------------------------------------------------------------------------ helpers
def _memory_ids(paths: tuple[str, ...]) -> tuple[str, ...]:
    from core.domain.record import id_problem

    ids = []
    for path in paths:
        if path.startswith("memories/") and path.endswith(".md"):
            stem = Path(path).stem
            if id_problem(stem) is None:
                ids.append(stem)
    return tuple(sorted(set(ids)))[:200]


def _ratified(
    root: Path, ours: str, source: str, files: dict[str, bytes | None], paths: tuple[str, ...]
) -> list[tuple[str, str | None, str]]:
    """(id, status before, status after) of each record a ratified commit adds, removes
    or moves to another status: the transitions its own commit never recorded (a hand
    commit writes no event), so the event log says how each came to be."""
    from core.domain.record import parse_memory

    wanted = [p for p in paths if p.startswith("memories/") and p.endswith(".md")][:10_000]
    if not wanted:
        return []
    blobs = gitstore.read_blobs(
        root,
        [f"{rev}:{p}" for p in wanted for rev in (ours, source) if p not in files or rev == ours],
    )

    def status_of(data: bytes | None) -> tuple[str, str] | None:
        if data is None:
            return None
        try:
            memory = parse_memory(data.decode("utf-8"))
        except Exception:  # what memgov cannot read is doctor's to name
            return None
        return memory.id, memory.status

    out = []
    for path in wanted:
        before = status_of(blobs.get(f"{ours}:{path}"))
        after = status_of(files[path] if path in files else blobs.get(f"{source}:{path}"))
        if after is not None and (before is None or before[1] != after[1]):
            out.append((after[0], before[1] if before else None, after[1]))
        elif after is None and before is not None:
            out.append((before[0], before[1], "deleted"))
    return out


def decide_item(item: Item, approve: bool, *, actor: str, reason: str) -> Decision:
    """Decide a queue's ``untrusted`` item (:mod:`core.review.untrusted`): approve
    ratifies the commit, reject rejects it; the decision is the resolution commit."""
    analysis = item.analysis
    if not isinstance(analysis, UntrustedAnalysis):
        raise ValidationError(f"{item.id} is a {item.kind} item, not an untrusted change")
    if not analysis.first:
        raise ValidationError(
            f"{item.id} waits behind another untrusted change; decide that one first",
            field="item",
            hint="memgov queue --kind untrusted",
        )
    verb = "ratify" if approve else "reject"
    why = reason.strip() or (
        "ratified: its changes are right" if approve else "rejected: not a maintainer's change"
    )
    done = resolve(item.store, analysis.commit, ratify=approve, actor=actor, reason=why)
    return Decision(
        id=done.resolution[:12],
        item=item.id,
        kind=Kind.UNTRUSTED,
        option=verb,
        actor=actor,
        reason=why,
        ts=item.store.now().isoformat(),
        store=str(item.store.root),
        note=done.render(),
    )
