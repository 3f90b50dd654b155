"""A team store with a git remote: ``memgov team init --remote URL`` and ``team clone``.

``init`` makes a new team store whose first commit is pushed to an empty remote;
``clone`` brings an existing one. Both install the ``pre-push`` hook
(:mod:`core.team.guard`) and, given the user's SSH key, have the clone sign its
commits (:mod:`core.team.signing`). A clone's history is verified at once: a
commit no listed maintainer signed is reported from the first moment.

Nothing half made is left behind: a clone that fails, or that is not a team store,
is removed again (only a folder this command created).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from core.domain.data import AsData
from core.domain.errors import StoreError, ValidationError
from core.store import gitstore
from core.store.config import CONFIG_FILE, load_config
from core.store.creation import create_store
from core.store.fsutil import escaped_name
from core.store.store import Clock, Store
from core.team import guard, remote, signing
from core.team.sync import SyncReport, sync_team


@dataclass
class TeamSetup(AsData):
    store: str
    remote: str
    hook: str
    signing_key: str | None = None  # the public key this clone signs with
    untrusted: list[signing.Verdict] = field(default_factory=list)
    self_declared: bool = False
    sync: SyncReport | None = None

    def render(self) -> str:
        lines = [
            f"team store {self.store}, remote {remote.shown_url(self.remote)}",
            f"  pre-push hook: {self.hook} (a plain 'git push' is scanned for credentials)",
        ]
        if self.signing_key:
            lines.append(f"  commits signed with {self.signing_key[:40]}...")
        if self.self_declared:
            lines.append(f"  note: {signing.SELF_DECLARED}")
        lines += [f"  untrusted: {v.render()}" for v in self.untrusted]
        if self.sync is not None:
            lines.append(self.sync.render())
        return "\n".join(lines)


def init_team(
    root: Path,
    *,
    url: str,
    maintainers: tuple[str, ...],
    actor: str,
    key: Path | None = None,
    clock: Clock | None = None,
) -> TeamSetup:
    """A new team store at ``root`` whose remote is ``url`` (empty, or new)."""
    root = root.expanduser()
    if (root / CONFIG_FILE).exists():
        raise StoreError(
            f"{root}: a store already exists here; give it a remote with "
            f"'git -C {root} remote add origin URL' and run 'memgov sync'"
        )
    signers: tuple[str, ...] = ()
    public: str | None = None
    created = not root.exists()
    try:
        root.mkdir(parents=True, exist_ok=True)
        gitstore.init_repo(root)
        remote.set_remote(root, url)
        remote.fetch(root)
        if remote.tracking(root) is not None:
            raise StoreError(
                f"{remote.shown_url(url)} already holds a branch main; clone it instead: "
                f"memgov team clone {remote.shown_url(url)} {root}"
            )
        if key is not None:
            public = signing.configure(root, key)
            signers = (f"{actor} {public}",)
        store = create_store(
            root,
            scope="team",
            owner=None,
            maintainers=maintainers,
            team_store=None,
            actor=actor,
            clock=clock,
            signers=signers,
        )
    except BaseException:
        if created:
            shutil.rmtree(root, ignore_errors=True)
        raise
    hook = guard.install_hook(root)
    signing.trust_config_at(root, "HEAD")
    report = sync_team(store, actor=actor)
    return TeamSetup(
        str(store.root), url, str(hook), public, self_declared=not signers, sync=report
    )


#: the empty tree of each object format: a clone's whole tree is its change from it
_EMPTY_TREE = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}


def tree_problems(root: Path, commit: str = "HEAD") -> list[str]:
    """Every entry of ``commit``'s tree memgov would not read, as a sync checks what it
    takes from a remote (:func:`core.team.merge.remote_problems`: links, submodules,
    names that are not UTF-8, records, requests, decisions and the config that do
    not parse), and a folder where memgov keeps a file (``MEMORY.md/``, a shard of
    the log, a daily log or a record as a folder)."""
    from core.store.events import is_event_log
    from core.store.index import INDEX_FILE
    from core.team import merge

    form = gitstore.run(root, "rev-parse", "--show-object-format").decode().strip() or "sha1"
    empty = _EMPTY_TREE.get(form, _EMPTY_TREE["sha1"])
    head = gitstore.run(root, "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()
    changes = gitstore.changed_blobs(root, empty, head)
    problems = merge.remote_problems(root, empty, head, changes)
    folders: set[str] = set()
    for path, _old, _new in changes:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder in folders:
                continue
            if (
                folder in (INDEX_FILE, CONFIG_FILE)
                or is_event_log(folder)
                or folder.endswith((".md", ".yaml", ".json", ".jsonl"))
            ):
                folders.add(folder)
                problems.append(f"{escaped_name(folder)}: is a folder where memgov keeps a file")
    return problems


def clone_team(url: str, root: Path, *, key: Path | None = None) -> TeamSetup:
    """Clone the team store at ``url`` into ``root`` (new or empty) and verify it."""
    root = root.expanduser()
    if root.exists() and any(root.iterdir()):
        raise StoreError(f"{root}: the folder is not empty; choose a new or empty folder")
    created = not root.exists()
    try:
        remote.clone(url, root)
        try:
            config = load_config(root)
        except ValidationError as exc:
            raise StoreError(
                f"{remote.shown_url(url)} is not a memgov store ({exc}); nothing was kept"
            ) from None
        if config.scope != "team":
            raise StoreError(
                f"{remote.shown_url(url)} holds a {config.scope} store, not a team store; "
                "nothing was kept (a private store is never shared through a remote)"
            )
        gitstore.run(root, "config", "core.quotepath", "false")
        problems = tree_problems(root)
        if problems:
            raise StoreError(
                f"{remote.shown_url(url)} has files memgov cannot read, so nothing was kept: "
                + "; ".join(problems[:5])
                + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
                + ". A maintainer fixes the files on the remote (or reverts the commit that "
                "broke them), then clone again"
            )
        public = signing.configure(root, key) if key is not None else None
    except BaseException:
        if created:
            shutil.rmtree(root, ignore_errors=True)
        else:
            for child in root.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink()
        raise
    hook = guard.install_hook(root)
    store = Store(root)
    commits = (
        gitstore.run(root, "rev-list", "--first-parent", "--reverse", "--topo-order", "HEAD")
        .decode()
        .split()
    )
    verdicts = signing.verify(root, commits)
    bad = signing.remember_untrusted(
        store.state_dir, [v for v in verdicts if v.status == "untrusted"], set()
    )
    return TeamSetup(
        str(store.root),
        url,
        str(hook),
        public,
        untrusted=bad,
        self_declared=not store.config.signers,
    )
