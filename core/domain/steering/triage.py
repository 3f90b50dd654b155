"""Triage: which held memory a person sees first, and the one line that says why.

The detector no longer decides alone what a memory may become (where its words came
from does: core.domain.provenance); what it still does is order and explain. Each
flag falls in one level, the most urgent first, and a held memory is ranked by its
most urgent flag:

0. ``hidden text``: words a person reading the memory does not see;
1. ``an action or the agent's own instructions``: a step that sends, runs, installs,
   deletes or disables something, a path to credentials, or an order aimed at the
   agent's instructions (what no user writes to their own agent meaning it);
2. ``a standing order or a link``: an order worded to stand over later tasks, an
   authority claimed, a link to a host nobody listed;
3. ``from outside the user``: a preference, an order or a fact whose words came from a
   page, a file, a tool or another agent, with nothing worse in them;
4. ``a weak sign``: words that read like an order, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

#: each level's label, the most urgent first
LEVELS = (
    "hidden text",
    "an action or the agent's own instructions",
    "a standing order or a link",
    "from outside the user",
    "a weak sign",
)
#: the rules that aim at the agent's own instructions (what no user means)
_AGAINST_INSTRUCTIONS = frozenset(
    {"override-instructions", "role-marker", "reveal-prompt", "persist-itself"}
)
_BY_RULE = {
    "external-credential-path": 1,
    "external-link": 2,
    "unknown-host": 2,
}


class _Flagged(Protocol):
    @property
    def rule(self) -> str: ...
    @property
    def family(self) -> str: ...


def level(flag: _Flagged) -> int:
    """The triage level of one flag (see the module's docstring)."""
    from core.domain.steering.rules import _BY_ID

    if flag.family == "hidden":
        return 0
    if flag.family == "action" or flag.rule in _AGAINST_INSTRUCTIONS:
        return 1
    if flag.rule in _BY_RULE:
        return _BY_RULE[flag.rule]
    if flag.family == "link":
        return 2
    if flag.family == "provenance":
        return 3
    rule = _BY_ID.get(flag.rule)
    if rule is not None and rule.strength == "strong":
        return 2
    return 4


def triage(flags: Iterable[_Flagged]) -> tuple[int, str]:
    """The rank of a held memory by its most urgent flag, and that level's label (a
    memory with no flag ranks last)."""
    rank = min((level(f) for f in flags), default=len(LEVELS) - 1)
    return rank, LEVELS[rank]
