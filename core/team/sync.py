"""``memgov sync``: a team store and its remote brought together.

Under the store lock, in this order (:func:`sync_team`):

1. an interrupted change is finished or undone (the transaction journal, and the
   checkout journal of a sync killed mid-way: :func:`core.team.merge.recover_checkout`);
   hand edits not committed stop the sync, named, before anything is fetched;
2. **fetch** the remote's branches (:mod:`core.team.remote`): nothing local changes
   yet, and a remote that cannot be reached stops here with local decisions kept;
3. **verify** the commits the remote brings against the maintainers' signing keys
   (:mod:`core.team.signing`): untrusted ones are recorded and reported;
4. **check** every file they change as memgov reads it: a broken record stops the
   sync with the file and the field (:func:`core.team.merge.remote_problems`);
5. **integrate** (:mod:`core.team.merge`): a fast-forward, or memgov's own merge
   (events by id, the remote winning a collision, local commits it undoes recorded);
6. **reindex**: ``MEMORY.md`` written again from the merged records (a maintainer's
   clone; nothing to write when the remote's is right);
7. **scan and push** (:mod:`core.team.guard`): every commit not yet on the remote,
   scanned for credentials; a hit blocks the push. A push the remote rejects because
   it moved on meanwhile starts again at 2 (three times at most).

Erasures that arrive are applied to the working tree like any decision; the clone's
own history still holds what they erased, and the report (and a local record that
``doctor`` reads) says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from core.domain import policy
from core.domain.data import AsData
from core.domain.errors import StoreError, ValidationError
from core.reports.reindex import reindex
from core.store import gitstore, team_state
from core.store.decisions import DECISION_DIR, decision_from
from core.store.proposals import BRANCH_PREFIX
from core.store.store import Store
from core.team import guard, merge, remote, signing, untrusted
from core.team.publish import Published, closed_branches, publish
from core.team.trust import resolved_by
from core.team.untrusted import Waiting

ATTEMPTS = 3

Progress = Callable[[str], None]


@dataclass
class SyncReport(AsData):
    store: str
    remote: str
    integration: merge.Integration | None = None
    pushed: int = 0  # commits sent
    verified: int = 0
    untrusted: list[signing.Verdict] = field(default_factory=list)
    waiting: list[Waiting] = field(default_factory=list)  # not taken: see untrusted
    self_declared: bool = False
    erased_here: list[str] = field(default_factory=list)  # memories erased by incoming decisions
    reindexed: bool = False
    notes: list[str] = field(default_factory=list)
    proposals: Published | None = None
    deleted_branches: list[str] = field(default_factory=list)  # decided proposals' branches

    def render(self) -> str:
        lines = [f"{self.store}: synced with {remote.shown_url(self.remote)}"]
        it = self.integration
        if it is not None:
            lines.append(
                {
                    "up-to-date": "  already up to date with the remote",
                    "ahead": "  nothing new on the remote",
                    "fast-forward": f"  took {it.incoming} commit(s) from the remote",
                    "merge": f"  merged {it.incoming} remote commit(s) with "
                    f"{it.outgoing} local one(s)",
                    "first-push": "  the remote was empty",
                }[it.kind]
            )
            lines += [f"  {u.render()}" for u in it.undone]
        if self.reindexed:
            lines.append("  MEMORY.md written again from the merged records")
        lines.append(f"  pushed {self.pushed} commit(s)" if self.pushed else "  nothing to push")
        if self.self_declared:
            lines.append(f"  note: {signing.SELF_DECLARED}")
        elif self.verified:
            lines.append(f"  {self.verified} incoming commit(s) signed by listed maintainers")
        waits = {w.verdict.commit for w in self.waiting}
        lines += [f"  untrusted: {v.render()}" for v in self.untrusted if v.commit not in waits]
        lines += [f"  untrusted, waiting: {w.render()}" for w in self.waiting]
        if self.erased_here:
            lines.append(
                f"  erased here: {', '.join(self.erased_here)}; the files are gone, but this "
                "clone's own git history (and every clone and fork made before) still holds "
                "their content"
            )
        lines += [f"  proposal branch deleted (decided): {b}" for b in self.deleted_branches]
        if self.proposals is not None:
            lines += [f"  {line}" for line in self.proposals.lines()]
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)


class SyncRefused(StoreError):
    """The sync stopped before changing anything: the message says why and what to do."""


def is_team_clone(store: Store) -> bool:
    return store.config.scope == "team" and remote.remote_url(store.root) is not None


def _dirty(store: Store) -> list[str]:
    return [p for p in gitstore.dirty(store.root) if not p.startswith(".memgov/")]


def sync_team(
    store: Store, *, actor: str, progress: Progress | None = None, private: Store | None = None
) -> SyncReport:
    """Fetch, verify, integrate, reindex, scan and push one team store; with the
    actor's ``private`` store, also their proposals (:mod:`core.team.publish`)."""
    say = progress or (lambda _text: None)
    if store.config.scope != "team":
        raise SyncRefused(f"{store.root}: not a team store; only a team store has a remote")
    root = store.root
    with store.locked():
        if merge.recover_checkout(root):
            say("finished an interrupted sync's checkout")
        store.reread()
        dirty = _dirty(store)
        if dirty:
            raise SyncRefused(
                f"{root}: files changed by hand and not committed: "
                f"{', '.join(dirty[:5])}{' ...' if len(dirty) > 5 else ''}; nothing was "
                "fetched or pushed. Commit them with git (a maintainer), or discard them "
                "('git -C STORE checkout -- FILE'), then sync again"
            )
        say("fetching")
        url = remote.fetch(root, progress)
        report = SyncReport(str(root), url, self_declared=not store.config.signers)
        if not policy.is_maintainer(store, actor):
            _contribute(store, report, url, say=say)
        for attempt in range(ATTEMPTS):
            if attempt:
                say("the remote moved on while pushing: fetching again")
                remote.fetch(root, progress)
            _integrate(store, report, actor=actor, say=say)
            if _push(store, report, url, say=say, progress=progress):
                break
        else:
            report.notes.append(
                f"the remote kept moving: not pushed after {ATTEMPTS} tries; run sync again"
            )
        if private is not None:
            say("proposals")
            report.proposals = publish(store, private, actor=actor, url=url)
        store.forget()
    return report


def _contribute(store: Store, report: SyncReport, url: str, *, say: Progress) -> None:
    """A contributor's own commits on main (a change of ``memgov.yaml`` by hand, any
    commit made with git) never go to the team's main: they are pushed as a proposal
    branch for a maintainer to review as a pull request, and the clone's main goes back
    to the remote's (the commits stay reachable from ``refs/memgov/contributed/``)."""
    root = store.root
    ours, theirs = gitstore.head(root), remote.tracking(root)
    base = merge.merge_base(root, ours, theirs) if theirs is not None else None
    if theirs is None or base is None or base == ours:
        return  # nothing of theirs own (an unrelated remote: the integration refuses it)
    branch = f"{BRANCH_PREFIX}change-{ours[:10]}"
    say(f"you are not a maintainer: your commits go to {branch}")
    guard.check_push(root, ours, theirs)
    rows = remote.push(root, [f"{ours}:refs/heads/{branch}"], url=url)
    if any(row.rejected for row in rows):
        raise SyncRefused(f"{root}: the remote refused the branch {branch}; nothing was changed")
    gitstore.run(root, "update-ref", f"refs/memgov/contributed/{ours[:10]}", ours)
    # back to where the clone left the team's main: the integration then takes the
    # remote's commits as for anyone, verified and read first
    merge.checkout(root, ours, base)
    store.forget()
    report.notes.append(
        f"your own commits are not a maintainer's: pushed as the branch {branch} for review "
        "(a pull request on your forge), and this clone's main is the team's again"
    )


def _integrate(store: Store, report: SyncReport, *, actor: str, say: Progress) -> None:
    _take(store, report, actor=actor, say=say)
    if policy.is_maintainer(store, actor):
        # also after a sync killed between its merge and its reindex
        report.reindexed = reindex(store, actor=actor).written


def _take(store: Store, report: SyncReport, *, actor: str, say: Progress) -> None:
    root = store.root
    ours = gitstore.head(root)
    theirs = remote.tracking(root)
    if theirs is None:
        report.integration = merge.Integration("first-push", ours, None, ours)
        return
    if theirs == ours:
        report.integration = merge.Integration("up-to-date", ours, theirs, ours)
        return
    base = merge.merge_base(root, ours, theirs)
    if base is None:
        raise SyncRefused(
            f"{root}: the remote's history shares no commit with this store's; nothing was "
            "merged. Clone the remote afresh ('memgov team clone URL PATH')"
        )
    if base == theirs:
        outgoing = merge.count(root, f"{theirs}..{ours}")
        report.integration = merge.Integration("ahead", ours, theirs, ours, outgoing=outgoing)
        return
    say("verifying the remote's commits")
    incoming = (
        gitstore.run(
            root, "rev-list", "--first-parent", "--reverse", "--topo-order", f"{base}..{theirs}"
        )
        .decode()
        .split()
    )
    stop = _verify(store, report, incoming, base)
    changes = gitstore.changed_blobs(root, base, theirs)
    problems = merge.remote_problems(root, base, theirs, changes)
    if problems:  # also in what waits: nothing of it is ever checked out
        raise SyncRefused(
            f"{root}: the remote has files memgov cannot read, so nothing was merged: "
            + "; ".join(problems[:5])
            + ". Your decisions are kept here. A maintainer fixes the file on the remote "
            "(or reverts the commit that broke it), then everyone syncs again"
        )
    if stop is not None:  # an untrusted change waits: take only what comes before it
        report.waiting = [
            Waiting(v, len(incoming) - stop - 1)
            for v in report.untrusted
            if v.commit == incoming[stop]
        ]
        incoming = incoming[:stop]
        theirs = incoming[-1] if incoming else base
        if theirs == base:
            kind = "up-to-date" if base == ours else "ahead"
            outgoing = merge.count(root, f"{base}..{ours}") if kind == "ahead" else 0
            report.integration = merge.Integration(kind, ours, theirs, ours, outgoing=outgoing)
            return
        changes = gitstore.changed_blobs(root, base, theirs)
    report.erased_here = _erasures(root, changes)
    if base == ours:
        say(f"taking {len(incoming)} commit(s)")
        changed = merge.checkout(root, ours, theirs)
        report.integration = merge.Integration(
            "fast-forward", ours, theirs, theirs, incoming=len(incoming), changed=tuple(changed)
        )
    else:
        say("merging")
        now = store.now()
        files, undone = merge.plan_merge(root, ours, theirs, base, actor=actor, now=now)
        tree = merge.write_tree(root, theirs, files)
        outgoing = merge.count(root, f"{base}..{ours}")
        message = (
            f"sync: merge the remote's main ({len(incoming)} commit(s)) with "
            f"{outgoing} local one(s)"
            + (f", {len(undone)} undone" if undone else "")
            + "".join(f"\n\n{u.render()}" for u in undone)
        )
        commit = merge.merge_commit(
            root, tree, theirs, ours, actor=actor, when=now, message=message
        )
        changed = merge.checkout(root, ours, commit)
        report.integration = merge.Integration(
            "merge",
            ours,
            theirs,
            commit,
            incoming=len(incoming),
            outgoing=outgoing,
            changed=tuple(changed),
            undone=undone,
        )
    store.forget()
    store.reread()
    if report.erased_here:
        _remember_history(store, report.erased_here, theirs)


def _verify(store: Store, report: SyncReport, commits: list[str], base: str) -> int | None:
    """Verify the remote's commits, record the untrusted ones; the index of the first
    that waits for a maintainer (:func:`core.team.untrusted.stop_point`), if any."""
    verdicts = signing.verify(store.root, commits, since=base)
    report.verified = sum(v.status == "verified" for v in verdicts)
    resolved = resolved_by(store.root, verdicts)
    bad = [v for v in verdicts if v.status == "untrusted" and v.commit not in resolved]
    report.untrusted = bad
    earlier = {v.commit: v for v in signing.untrusted(store.state_dir)}
    signing.remember_untrusted(store.state_dir, bad, resolved)
    for commit in resolved:
        if commit in earlier and signing.changes_config(earlier[commit]):
            # a maintainer ratified a change to the people: it holds from now on
            signing.trust_config_at(store.root, commit)
    return untrusted.stop_point(commits, verdicts, resolved)


def _erasures(root: Path, changes: list[tuple[str, str | None, str | None]]) -> list[str]:
    """The memories the remote's new decisions erased."""
    added = [
        (p, new)
        for p, old, new in changes
        if old is None and new is not None and p.startswith(f"{DECISION_DIR}/")
    ]
    blobs = gitstore.read_blob_ids(root, [new.encode() for _p, new in added])
    erased: list[str] = []
    for path, new in added:
        try:
            decision = decision_from(json.loads(blobs[new.encode()]), path, Path(path).stem)
        except (ValueError, ValidationError):  # remote_problems reported it already
            continue
        erased += decision.erased
    return sorted(set(erased))


def _remember_history(store: Store, erased: list[str], commit: str) -> None:
    rows = team_state.history_rows(store.state_dir)
    rows.append({"erased": erased, "before": commit, "at": store.now().isoformat()})
    team_state.write_rows(store.state_dir, team_state.HISTORY_FILE, rows)


def _push(
    store: Store, report: SyncReport, url: str, *, say: Progress, progress: Progress | None
) -> bool:
    """Scan and push main, with the deletion of the proposal branches it decided; False
    when the remote moved on meanwhile (fetch again)."""
    root = store.root
    ours = gitstore.head(root)
    theirs = remote.tracking(root)
    if report.waiting:  # the remote's main holds an untrusted change this clone did not take
        if merge.count(root, f"{theirs}..{ours}" if theirs else ours):
            report.notes.append(
                "nothing pushed: the remote's main holds an untrusted change this clone did "
                "not take, so a push would carry it; your commits are kept and go out once a "
                "maintainer ratifies or rejects it (memgov queue --kind untrusted)"
            )
        return True
    if theirs is not None and theirs != ours and merge.merge_base(root, ours, theirs) != theirs:
        return False  # not a fast-forward yet: integrate first
    deletions = closed_branches(store)
    refspecs = list(deletions)
    count = 0
    if theirs != ours:
        say("scanning what the push sends")
        guard.check_push(root, ours, theirs)
        # this clone's own commits (its user's config changes among them) move the trusted
        # config on as any verified commit does; what a merge brought is already verified
        if signing.has_trusted_config(root):  # else the next incoming sync records one
            mine = f"{theirs}..{ours}" if theirs else ours
            own = gitstore.run(root, "rev-list", "--first-parent", "--reverse", mine)
            signing.verify(root, own.decode().split())
        count = merge.count(root, f"{theirs}..{ours}" if theirs else ours)
        refspecs.insert(0, f"{ours}:refs/heads/{remote.BRANCH}")
    if not refspecs:
        return True
    say(f"pushing {count} commit(s)")
    rows = remote.push(root, refspecs, url=url, progress=progress)
    if any(row.rejected for row in rows):
        return False
    gitstore.run(root, "update-ref", f"{remote.TRACKING}/{remote.BRANCH}", ours)
    for spec in deletions:
        gitstore.run(
            root, "update-ref", "-d", spec[1:].replace("refs/heads/", "refs/remotes/origin/", 1)
        )
    report.pushed += count
    report.deleted_branches += [d.removeprefix(":refs/heads/") for d in deletions]
    return True
