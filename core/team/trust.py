"""Re-deciding an untrusted commit: ``memgov team ratify COMMIT`` (and ``reject``).

A commit on the team's main branch that no listed maintainer signed
(:mod:`core.team.signing`) waits in every clone until a maintainer re-decides it
(:mod:`core.team.untrusted`): ratifying takes its changes as the maintainer's own,
rejecting undoes them, each in a commit the maintainer signs with an event naming
it. Either, once synced, clears the commit from every clone's untrusted list
(:func:`resolved_by`), and the clones take it with its resolution.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from core.domain.data import AsData
from core.store import gitstore
from core.store.decisions import DECISION_DIR
from core.store.events import EVENTS_DIR, EVENTS_FILE, is_event_log
from core.store.store import Store
from core.team import signing, untrusted
from core.team.guard import added_lines
from core.team.untrusted import RATIFY, REJECT


@dataclass(frozen=True)
class Ratified(AsData):
    store: str
    commit: str
    author: str
    why: str

    def render(self) -> str:
        return (
            f"{self.store}: ratified commit {self.commit[:10]} by {self.author} ({self.why}); "
            "'memgov sync' sends it to the other clones"
        )


def ratify(store: Store, commit: str, *, actor: str, reason: str) -> Ratified:
    """Take an untrusted commit's changes as the maintainer's own
    (:func:`core.team.untrusted.resolve`)."""
    done = untrusted.resolve(store, commit, ratify=True, actor=actor, reason=reason)
    return Ratified(done.store, done.commit, done.author, done.why)


def resolved_by(root: Path, verdicts: list[signing.Verdict]) -> set[str]:
    """The untrusted commits that verified incoming commits re-decided: a ``ratify``
    event naming one, or a change to a decision file one of them added (a revert)."""
    verified = [v for v in verdicts if v.status == "verified"]
    trusted_files = {f for v in verified for f in v.files}
    pending = signing.untrusted(root / ".git" / "memgov")
    resolved = {
        v.commit
        for v in pending
        if any(f.startswith(f"{DECISION_DIR}/") and f in trusted_files for f in v.files)
    }
    with_events = [v.commit for v in verified if any(is_event_log(f) for f in v.files)]
    if not with_events:
        return resolved
    out = gitstore.run(
        root,
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "-p",
        "-U0",
        "--no-color",
        "--diff-merges=first-parent",
        "--format=%x00%H",
        "--",
        EVENTS_FILE,
        EVENTS_DIR,
        data="".join(c + "\n" for c in with_events).encode(),
    )
    for _commit, _path, _numbers, lines in added_lines(out.decode("utf-8", "replace")):
        for line in lines:
            if RATIFY not in line and REJECT not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("action") in (RATIFY, REJECT):
                commit = (event.get("details") or {}).get("commit")
                if isinstance(commit, str):
                    resolved.add(commit)
    return resolved
