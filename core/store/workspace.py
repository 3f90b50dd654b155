"""Which stores a command works on: a user's private store and the team store.

``--store PATH`` names a store folder, or a folder holding ``private/`` and
``team/`` stores (the demo lays them out so). A private store's config may
name its team store (``team_store``, relative to the private store).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from core.domain.errors import StoreError, ValidationError, shown_id
from core.store.config import CONFIG_FILE, load_config
from core.store.store import Clock, Store


@dataclass
class Workspace:
    stores: list[Store] = field(default_factory=list)

    @property
    def private(self) -> Store | None:
        return next((s for s in self.stores if s.config.scope == "private"), None)

    @property
    def team(self) -> Store | None:
        return next((s for s in self.stores if s.config.scope == "team"), None)

    def for_scope(self, scope: str) -> Store:
        store = next((s for s in self.stores if s.config.scope == scope), None)
        if store is None:
            names = ", ".join(f"{s.root} ({s.config.scope})" for s in self.stores) or "none"
            raise StoreError(
                f"no {scope} store among the stores given ({names}); pass it with --store"
            )
        return store

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Every store's lock, in a fixed order (by path) so that two deciders never
        wait on each other, each store recovered and re-read under its lock: what is
        checked inside is the stores as they are now, and stays so until the end."""
        with contextlib.ExitStack() as stack:
            for store in sorted(self.stores, key=lambda s: str(s.root)):
                stack.enter_context(store.locked())
            for store in self.stores:
                store.reread()
            yield

    def find_memory(self, memory_id: str) -> Store:
        for store in self.stores:
            if memory_id in store.memories:
                return store
        raise StoreError(
            f"no memory with id {shown_id(memory_id)} in "
            + ", ".join(str(s.root) for s in self.stores)
        )


def store_roots(paths: Iterable[Path | str]) -> list[Path]:
    """The stores' folders ``paths`` name: a store's folder, or a folder holding
    ``private/`` and ``team/`` stores (each once, in order)."""
    roots: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if (path / CONFIG_FILE).is_file():
            roots.append(path.resolve())
            continue
        nested = [
            path / name for name in ("private", "team") if (path / name / CONFIG_FILE).is_file()
        ]
        if not nested:
            raise StoreError(
                f"{path}: not a memgov store (no {CONFIG_FILE}, nor private/ "
                f"or team/ stores inside); create one with 'memgov init "
                f"--store {path}' or 'memgov demo --store {path}'"
            )
        roots.extend(p.resolve() for p in nested)
    return list(dict.fromkeys(roots))


def default_actor(paths: Iterable[Path | str]) -> str | None:
    """The actor the private stores ``paths`` name in their config (``default_actor``:
    the demo's user), read from their ``memgov.yaml`` alone; None when none names one.
    A team store's setting is never read: its config is what others push, and who acts
    is never theirs to choose. Two stores naming different actors is an error naming
    both files: say who acts."""
    named = {}
    try:
        roots = store_roots(paths)
    except StoreError:
        return None  # the command that opens them says what is wrong
    for root in roots:
        try:
            config = load_config(root)
        except (StoreError, ValidationError):
            continue  # as above: the store's own opening names the file and field
        if config.scope == "private" and config.default_actor:
            named[root / CONFIG_FILE] = config.default_actor
    if len(set(named.values())) > 1:
        where = "; ".join(f"{path}: {actor}" for path, actor in named.items())
        raise ValidationError(
            f"the stores name different default actors ({where})",
            field="default_actor",
            hint="pass --as USER or set MEMGOV_ACTOR to say who acts",
        )
    return next(iter(named.values()), None)


def open_workspace(paths: Iterable[Path | str], *, clock: Clock | None = None) -> Workspace:
    workspace = Workspace()
    for root in store_roots(paths):
        workspace.stores.append(Store(root, clock=clock))
    private = workspace.private
    if private is not None and workspace.team is None and private.config.team_store:
        team_root = (private.root / private.config.team_store).resolve()
        if (team_root / CONFIG_FILE).is_file():
            workspace.stores.append(Store(team_root, clock=clock))
    return workspace
