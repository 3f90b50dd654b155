"""The team sync of the desk (``S``), in a worker: each team store with a remote
fetched, merged and pushed in turn, the steps on the status line."""

from __future__ import annotations

from collections.abc import Callable

from core.api.stores import Store
from core.domain.errors import MemgovError
from tui.render import failure_text
from tui.screens.desk import Desk


def sync_teams(desk: Desk, teams: list[Store], progress: Callable[[str], None]) -> None:
    """In a worker: each team store synced in turn (the steps and git's transfer
    counters through ``progress``, on the UI thread), each result a notification,
    then the queue read again."""
    from core.api.team import sync_team

    for store in teams:

        def step(text: str, name: str = store.root.name) -> None:
            desk.call_from_thread(progress, f"sync {name}: {text}")

        try:
            with desk.store_lock:
                report = sync_team(
                    store, actor=desk.actor, progress=step, private=desk.workspace.private
                )
        except MemgovError as exc:
            desk.call_from_thread(
                desk.notify, str(exc), title="Sync stopped", severity="error", timeout=15
            )
            continue
        except Exception as exc:  # a git failure: a notification, never an exit
            desk.call_from_thread(
                desk.notify, failure_text(exc), title="Sync failed", severity="error"
            )
            continue
        severity = "warning" if report.untrusted else "information"
        desk.call_from_thread(
            desk.notify, report.render(), title="Synced", severity=severity, timeout=12
        )
    desk.call_from_thread(progress, "")
    desk.call_from_thread(desk.stores_changed)
