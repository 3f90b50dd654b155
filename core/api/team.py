"""Team stores: set one up or clone it, sync it, ratify or reject a change that
arrived unsigned, decide an untrusted change in the queue, and the push guard."""

# core.team
from core.team.guard import PushBlocked, check_hook_input
from core.team.setup import clone_team, init_team
from core.team.sync import is_team_clone, sync_team
from core.team.trust import ratify
from core.team.untrusted import decide_item, resolve

__all__ = [
    "PushBlocked",
    "check_hook_input",
    "clone_team",
    "decide_item",
    "init_team",
    "is_team_clone",
    "ratify",
    "resolve",
    "sync_team",
]
