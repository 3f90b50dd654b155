"""The content rules in one table (:data:`RULES`), and the plain scan (:func:`detect`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import attrgetter

from core.domain.steering.authority import (
    CLAIMED_AUTHORITY,
    FOREIGN_AUTHORITY,
    INJECT_CONTENT,
    REVEAL_PROMPT,
)
from core.domain.steering.encoded import ENCODED_TEXT, IMAGE_CARRIES_DATA, OTHER_ENCODING
from core.domain.steering.engine import Flag, Rule, _Lazy, _may_find
from core.domain.steering.exfiltration import SEND_DATA_OUT, SHOW_SECRETS
from core.domain.steering.fetching import FETCH_AND_RUN, INSTALL_FROM_URL
from core.domain.steering.firsts import _first
from core.domain.steering.hidden import (
    _BIDI,
    _TAGS,
    _ZERO_WIDTH,
    BIDI_OVERRIDE,
    HTML_COMMENT,
    LOOK_ALIKE_LETTERS,
    MARKDOWN_COMMENT,
    TAG_CHARACTERS,
    ZERO_WIDTH,
)
from core.domain.steering.judgement import (
    PERSIST_ITSELF,
    SKIP_CONFIRMATION,
    STEER_JUDGEMENT,
    SUPPRESS_WARNINGS,
)
from core.domain.steering.markers import INSTRUCTION_HEADING, ROLE_MARKER
from core.domain.steering.override import LIFT_RESTRICTIONS, OVERRIDE_INSTRUCTIONS
from core.domain.steering.plan import _running
from core.domain.steering.secrecy import DECEIVE_USER, KEEP_FROM_USER, SCRIPTED_ANSWER
from core.domain.steering.standing import DELAYED_TRIGGER, FROM_NOW_ON
from core.domain.steering.weakening import (
    CHANGE_CREDENTIALS,
    DESTRUCTIVE_COMMAND,
    DISABLE_CHECKS,
    WEAKEN_SECURITY,
)

RULES: tuple[Rule, ...] = (
    OVERRIDE_INSTRUCTIONS,
    LIFT_RESTRICTIONS,
    FOREIGN_AUTHORITY,
    FROM_NOW_ON,
    ROLE_MARKER,
    INSTRUCTION_HEADING,
    DELAYED_TRIGGER,
    INJECT_CONTENT,
    CLAIMED_AUTHORITY,
    REVEAL_PROMPT,
    KEEP_FROM_USER,
    SKIP_CONFIRMATION,
    SUPPRESS_WARNINGS,
    FETCH_AND_RUN,
    SEND_DATA_OUT,
    DISABLE_CHECKS,
    DESTRUCTIVE_COMMAND,
    INSTALL_FROM_URL,
    CHANGE_CREDENTIALS,
    DECEIVE_USER,
    SCRIPTED_ANSWER,
    PERSIST_ITSELF,
    SHOW_SECRETS,
    STEER_JUDGEMENT,
    WEAKEN_SECURITY,
    OTHER_ENCODING,
    ZERO_WIDTH,
    BIDI_OVERRIDE,
    TAG_CHARACTERS,
    LOOK_ALIKE_LETTERS,
    HTML_COMMENT,
    MARKDOWN_COMMENT,
    IMAGE_CARRIES_DATA,
    ENCODED_TEXT,
)


_BY_ID = {rule.id: rule for rule in RULES}
_FINDERS = tuple(rule.find for rule in RULES)
_SHOWN_INVISIBLE = _Lazy(_ZERO_WIDTH + "|" + _BIDI + "|" + _TAGS)


def _named(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


def _shown(span: str) -> str:
    head = span[:120]
    if not head.isascii():  # every invisible character is outside ASCII
        head = _SHOWN_INVISIBLE.sub(_named, head)
    return head + ("…" if len(span) > 120 else "")


def _rule_flags(text: str, rule: Rule, ascii: bool | None = None, may: bool = False) -> list[Flag]:
    """The first flag of ``rule`` on ``text`` (``may``: the caller knows it may find one)."""
    if not may and not _may_find(rule.find, text, ascii):
        return []
    span = _first(rule.find, text)
    if span is None:
        return []
    start, end = span
    return [Flag(rule.id, rule.family, start, end, _shown(text[start:end]), rule.why)]


#: a flag's place in the order flags are given in: by position, then rule id
by_place = attrgetter("start", "rule")


def detect(text: str, *, rules: Iterable[Rule] = RULES) -> list[Flag]:
    """Every rule that fires on ``text``, each with its first span (in text order).
    No weighing: weak rules fire as strong ones do (see :func:`assess`)."""
    rules = rules if isinstance(rules, tuple) else tuple(rules)
    finders = _FINDERS if rules is RULES else tuple(r.find for r in rules)
    runs = _running(finders, text, text.isascii())
    flags: list[Flag] = []
    while runs:  # the rules that may fire, in their order
        low = runs & -runs
        runs ^= low
        one = rules[low.bit_length() - 1]
        span = _first(one.find, text)
        if span is not None:
            start, end = span
            flags.append(Flag(one.id, one.family, start, end, _shown(text[start:end]), one.why))
    if len(flags) > 1:
        flags.sort(key=by_place)
    return flags


def rule(rule_id: str) -> Rule:
    return _BY_ID[rule_id]
