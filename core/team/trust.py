"""Re-deciding an untrusted commit: ``memgov team ratify COMMIT``.

A commit on the team's main branch that no listed maintainer signed
(:mod:`core.team.signing`) stays untrusted in every clone until a maintainer
re-decides it: ratifying accepts its changes as the maintainer's own (a ``ratify``
event naming the commit, in a commit the maintainer signs), and reverting the
decision it carried undoes them (``memgov revert``). Either, once synced, clears
the commit from every clone's untrusted list (:func:`resolved_by`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from core.domain import policy
from core.domain.data import AsData
from core.domain.errors import NotFoundError, shown_id
from core.store import gitstore
from core.store.config import CONFIG_FILE
from core.store.decisions import DECISION_DIR
from core.store.events import EVENTS_DIR, EVENTS_FILE, is_event_log
from core.store.store import Store
from core.team import signing
from core.team.guard import added_lines

RATIFY = "ratify"


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
    policy.check_maintainer(store, actor, f"ratify a commit of the team store {store.root}")
    full = gitstore.resolve(store.root, commit)
    found = {v.commit: v for v in signing.untrusted(store.state_dir)}
    if full is None or full not in found:
        raise NotFoundError(
            f"{store.root}: {shown_id(commit)} is not an untrusted commit of this clone "
            "('memgov doctor' lists them)"
        )
    verdict = found[full]
    with store.transaction(actor=actor, message=f"ratify: commit {full[:10]}") as tx:
        tx.event(
            RATIFY,
            reason=reason,
            details={"commit": full, "author": verdict.author, "was": verdict.why},
        )
    signing.remember_untrusted(store.state_dir, [], {full})
    if CONFIG_FILE in verdict.files:  # its change to the people now holds
        signing.trust_config_at(store.root, full)
    return Ratified(str(store.root), full, verdict.author, verdict.why)


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
            if RATIFY not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("action") == RATIFY:
                commit = (event.get("details") or {}).get("commit")
                if isinstance(commit, str):
                    resolved.add(commit)
    return resolved
