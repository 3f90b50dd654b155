"""What reaches the agent: one rule, applied by every channel.

A record reaches an agent (its words are shown to it, in any form) only when
:func:`withheld` has no reason to keep it back:

1. **its status** is ``active``: a superseded, expired, conflicting or deleted
   record does not reach it (an erased record has no file left at all). Expiry is
   a status: ``memgov sweep`` marks a record past its ``expires_at`` expired, and
   every channel reads that status;
2. **it does not try to steer the agent**, unless a person kept it: the steering
   detector (:mod:`core.domain.steering`) flags it, weighed with the role of its
   source message and the store's known hosts, and no person vouched for its words
   (a *keep* of its ``steering-<id>`` item leaves a released mark of their hash,
   :mod:`core.store.quarantine`). A held candidate (``quarantine/<id>.json``) is
   no record: nothing of it reaches any channel until a person releases it;
3. **it is trusted** (:func:`untrusted`, the hook for an untrusted team commit).
   A record whose file an untrusted team commit brought is not in the working
   tree at all (the team sync keeps such a commit's changes out until a maintainer
   ratifies them), so no channel can read it and the hook answers False for every
   record it is given; it is named here so that a check that cannot wait for the
   tree (e.g. a record's provenance in the commit that wrote it) has its one place.

The channels, each through :class:`Reaching`: recall (core.writing.decay, the CLI
and the MCP tool), the MCP tools that show a record's words (get, list), the MCP
resources (core.reports.briefing.index_for_agents), the ``MEMORY.md`` every
transaction writes and reindex writes again (core.store.prepared.index_text), the
export to a Claude Code folder and the sync with one (core.importers.claude_code.export,
core.importers.claude_code.sync). The SessionStart hook (core.reports.session_start) is
one more channel: what it prints must be :func:`core.reports.briefing.index_for_agents`
(or records that :meth:`Reaching.reaches`), never the file read as it is.

Speed: the catalog keeps each record's steering *hint* (core.store.catalog
steering_hint: which of the detector's questions it raises, as bits). A record
without one is never flagged, and the index walks only rows; a hinted record whose
content rules did not fire is decided by its provenance and links alone (what
:func:`core.domain.steering.assess` adds to no content flag), so the detector's
rules run only for the few records whose text one of them matched, and their
verdict is remembered by the texts it read.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.domain.errors import ValidationError
from core.domain.provenance import outside_role
from core.domain.record import Memory, Source
from core.store.catalog import (
    STEERING_EXTERNAL,
    STEERING_LINK,
    STEERING_ORDER,
    STEERING_PREFERENCE,
    STEERING_RULES,
    Catalog,
    scanner_fingerprint,
    steering_hint,
    verdict_key,
)
from core.store.logs import Excerpt, message_role, resolve
from core.store.quarantine import (
    Quarantined,
    held_for,
    item_id,
    path_of,
    quarantined_from,
    text_hash,
)

if TYPE_CHECKING:
    from core.domain import steering
    from core.store.store import Store

#: the reasons :func:`withheld` gives
NOT_ACTIVE, STEERING, UNTRUSTED = "not-active", "steering", "untrusted"
#: the statuses that reach an agent
REACHING_STATUSES = ("active",)


# ------------------------------------------------------------------ the detector
@dataclass(frozen=True)
class Assessment:
    """The detector's flags on a text a record keeps, and the role they were weighed with."""

    flags: tuple[steering.Flag, ...]
    role: str | None


def source_role(source: Source | None, excerpt: Excerpt | None) -> str | None:
    """The role of the message a source points at, read from its log line (a file's
    source, an imported memory's, has none)."""
    if source is None or source.file is not None or excerpt is None:
        return None
    for number, text in excerpt.lines:
        if number == excerpt.line:
            return message_role(text)
    return None


def record_role(store: Store, memory: Memory) -> str | None:
    """The role the record's words are weighed with: the outside role its provenance
    names when its words came from outside the user (whatever message it cites), else
    the role of the message its first source points at."""
    if memory.provenance and memory.provenance.get("external"):
        return outside_role(memory.provenance.get("roles", ()))
    source = memory.source
    if source is None or source.file is not None:
        return None
    return source_role(source, resolve(store.root, source, context=0))


def assessed(
    store: Store,
    content: str,
    memory_type: str,
    role: str | None,
    extra: tuple[tuple[str, str | None], ...],
    *,
    external: bool = False,
    own_words: bool = False,
    seen: Iterable[str] = (),
) -> Assessment:
    """The flags on ``content`` (their spans index it), then those on each other text a
    record keeps, once a rule: a flag found there names the field and spans nothing.
    ``external``: the words came from outside the user (core.domain.provenance), so a
    link or a path to credentials in them is a flag too; ``own_words``: they are the
    user's own (:func:`own_words`), so only what the user could not have meant is
    flagged (:func:`never_meant`); ``seen``: the hosts of its links a person saw and
    kept in its task (:func:`core.domain.provenance.seen_hosts`), no flag."""
    from core.domain import steering  # its rules compile on import: only when they run

    hosts = store.config.known_hosts
    flags = steering.assess(content, memory_type=memory_type, role=role, known_hosts=hosts)
    if external:
        flags += external_flags(content, role, (*(hosts or ()), *seen))
    seen = {f.rule for f in flags}
    voiced = steering.users_own_words(memory_type, role)
    for name, text in extra:
        if not text:
            continue
        for flag in steering.assess(text, memory_type=None, role=role, known_hosts=hosts):
            if voiced and _weak(flag.rule):
                continue  # the record's words are the user's: as its content is weighed
            if flag.rule not in seen:
                seen.add(flag.rule)
                flags.append(
                    steering.Flag(flag.rule, flag.family, 0, 0, f"{name}: {flag.shown}", flag.why)
                )
    if own_words:
        flags = [f for f in flags if never_meant(f.rule, f.family)]
    return Assessment(tuple(flags), role)


def _weak(rule: str) -> bool:
    """Whether a flag is a weak content rule's (a sign only when the words are not known
    to be the user's own)."""
    from core.domain import steering

    return any(r.id == rule and r.strength == "weak" for r in steering.RULES)


#: the content rules that hold even the user's own words: what no person writes to
#: their own agent meaning it (hidden text aside, which is its own family)
NEVER_MEANT = frozenset({"override-instructions", "role-marker", "reveal-prompt", "persist-itself"})


def never_meant(rule: str, family: str) -> bool:
    """Whether a flag holds words known to be the user's own: hidden text, an order aimed
    at the agent's own instructions, and a link to a host the store's config does not
    list (the store's own policy, whoever wrote it). Any other (an action, a standing
    order, a scripted answer) is what users tell their agents, and the user said it."""
    return family in ("hidden", "link") or rule in NEVER_MEANT


def own_words(memory_provenance: Mapping[str, object] | None, role: str | None) -> bool:
    """Whether a memory's words are known to be the user's own: it cites the user's
    message and its provenance names the user among its roles, not external."""
    if role != "user" or not memory_provenance or memory_provenance.get("external"):
        return False
    roles = memory_provenance.get("roles")
    return isinstance(roles, list | tuple) and "user" in roles


def external_flags(
    text: str, role: str | None, known_hosts: Iterable[str] = ()
) -> list[steering.Flag]:
    """What words from outside the user may not carry into a memory unseen: a link to
    follow later (not one into the user's own network or to a host the config lists:
    :func:`core.domain.provenance.private_link`), or a path to where credentials are
    kept."""
    from core.domain import steering
    from core.domain.provenance import CREDENTIAL_PATH, LINK, private_link

    where = role or "an outside message"
    found = []
    for rule, pattern, what in (
        ("external-link", LINK, "a link"),
        ("external-credential-path", CREDENTIAL_PATH, "a path to credentials"),
    ):
        match = next(
            (
                m
                for m in pattern.finditer(text)
                if rule != "external-link" or not private_link(m.group(0), known_hosts)
            ),
            None,
        )
        if match is not None:
            found.append(
                steering.Flag(
                    rule,
                    "provenance",
                    match.start(),
                    match.end(),
                    match.group(0)[:120],
                    f"{what} in words that came from a {where} message: a person decides "
                    "whether the agent may follow it later",
                )
            )
    return found


def is_external(memory: Memory) -> bool:
    return bool(memory.provenance and memory.provenance.get("external"))


def seen_of(memory: Memory) -> tuple[str, ...]:
    """The hosts of an external record's links that a person saw and kept."""
    seen = (memory.provenance or {}).get("seen") or ()
    return tuple(str(h) for h in seen) if is_external(memory) else ()


def record_assessment(store: Store, memory: Memory) -> Assessment:
    """The detector's flags on a stored record (content, title, value), weighed with
    the role of its words (:func:`record_role`)."""
    extra = (("title", memory.title), ("value", memory.value))
    role = record_role(store, memory)
    return assessed(
        store,
        memory.content,
        memory.type,
        role,
        extra,
        external=is_external(memory),
        own_words=own_words(memory.provenance, role),
        seen=seen_of(memory),
    )


@functools.lru_cache(maxsize=4096)
def _rules_flag(
    content: str,
    title: str | None,
    value: str | None,
    memory_type: str,
    role: str | None,
    hosts: tuple[str, ...] | None,
    mine: bool = False,
) -> bool:
    """Whether the full assessment flags these texts (a pure function of them: kept);
    ``mine``: the words are the user's own (:func:`own_words`)."""
    from core.domain import steering

    voiced = steering.users_own_words(memory_type, role)
    for text, kind in ((content, memory_type), (title, None), (value, None)):
        if not text:
            continue
        flags = steering.assess(text, memory_type=kind, role=role, known_hosts=hosts)
        if kind is None and voiced:
            flags = [f for f in flags if not _weak(f.rule)]
        if any(never_meant(f.rule, f.family) or not mine for f in flags):
            return True
    return False


def steering_flagged(store: Store, memory: Memory, hint: int | None = None) -> bool:
    """Whether the detector flags the record (not yet whether a person kept it), as
    :func:`record_assessment` would, from its catalog ``hint`` (None: computed here).
    Only a record whose text a content rule matched runs the rules; any other is
    flagged by its provenance (a preference, or an order for the agent, from another
    role than the user's) or by a link to a host the config does not know. The
    verdict is remembered in the catalog by what it was made of
    (:mod:`core.store.catalog.verdicts`): the detector is imported only for a
    record, a role or a host list it has not seen."""
    bits = steering_hint(memory) if hint is None else hint
    if not bits:
        return False
    hosts = store.config.known_hosts
    needs_role = bits & (STEERING_RULES | STEERING_PREFERENCE | STEERING_ORDER)
    role = record_role(store, memory) if needs_role else None
    fingerprint = scanner_fingerprint()
    key = verdict_key(
        fingerprint,
        (
            str(bits),
            memory.type,
            role,
            "mine" if own_words(memory.provenance, role) else "",
            None if hosts is None else "\n".join(hosts),
            memory.content,
            memory.title,
            memory.value,
        ),
    )
    catalog = store.memories.catalog
    found = catalog.verdict(key)
    if found is None:
        found = _assessed_flag(memory, bits, role, hosts)
        catalog.keep_verdict(key, found, fingerprint)
    return found


def _assessed_flag(
    memory: Memory, bits: int, role: str | None, hosts: tuple[str, ...] | None
) -> bool:
    """The detector's verdict on a hinted record (see :func:`steering_flagged`)."""
    if bits & STEERING_EXTERNAL:
        role = outside_role((memory.provenance or {}).get("roles", ()))
        return bool(
            _rules_flag(memory.content, memory.title, memory.value, memory.type, role, hosts)
            or external_flags(memory.content, role, (*(hosts or ()), *seen_of(memory)))
        )
    if bits & STEERING_RULES:
        mine = own_words(memory.provenance, role)
        return _rules_flag(
            memory.content, memory.title, memory.value, memory.type, role, hosts, mine
        )
    from core.domain import steering

    if steering.provenance_flags(memory.type, role, memory.content):
        return True
    if hosts is not None and bits & STEERING_LINK:
        texts = (memory.content, memory.title, memory.value)
        return any(steering.link_flags(t, hosts) for t in texts if t)
    return False


def vouched(store: Store, memory: Memory, pending: Mapping[str, str] | None = None) -> bool:
    """Whether a person kept these words (a released mark of their hash). ``pending``:
    the files a transaction is about to write (a keep's own mark, or its revert)."""
    digest = text_hash(memory.content)
    rel = path_of(item_id(digest))
    mark: Quarantined | None
    if pending is not None and rel in pending:
        try:
            mark = quarantined_from(json.loads(pending[rel]), rel)
        except (ValueError, ValidationError):
            mark = None
        if mark is not None and mark.status == "reverted":
            mark = None
    else:
        mark = held_for(store, digest)
    return mark is not None and mark.status == "released"


def untrusted(store: Store, memory_ids: Iterable[str]) -> set[str]:
    """The hook for records an untrusted team commit brought: which of these records
    are untrusted. Such a file is not in the working tree at all (the team sync keeps
    it out until a maintainer ratifies the commit), so no record a channel is given
    is: the answer is empty. Every channel asks it (by id, so the index asks without
    building a record); see the module's docstring."""
    return set()


# ------------------------------------------------------------------ the rule
class Reaching:
    """What reaches the agent from one store, asked record by record (see the module's
    docstring). Reads the catalog's steering hints once, on the first question;
    ``pending``: the files a transaction is about to write (its index is written with
    them, before they are on disk)."""

    def __init__(
        self,
        store: Store,
        *,
        catalog: Catalog | None = None,
        pending: Mapping[str, str] | None = None,
    ) -> None:
        self.store = store
        self._catalog = catalog
        self.pending = pending
        self._hints: dict[str, int] = {}  # id -> its hint bits (0: none), as asked
        self._complete = False  # every hinted record's bits are in _hints
        self._verdicts: dict[tuple[str, str], bool] = {}

    def hints(self, ids: Iterable[str] | None = None) -> dict[str, int]:
        """{id: steering hint bits} of the readable records the detector may flag (of
        ``ids`` only, when given: one indexed look-up for each 500 of them; a record
        without a hint is not in the answer)."""
        catalog = self._catalog or self.store.memories.catalog
        if ids is None:
            if not self._complete:
                self._hints = self._query(catalog, "", [])
                self._complete = True
            return {i: b for i, b in self._hints.items() if b}
        wanted = list(dict.fromkeys(ids))
        unknown = [] if self._complete else [i for i in wanted if i not in self._hints]
        for start in range(0, len(unknown), 500):
            chunk = unknown[start : start + 500]
            self._hints.update(dict.fromkeys(chunk, 0))
            found = self._query(catalog, f" AND id IN ({', '.join('?' * len(chunk))})", chunk)
            self._hints.update(found)
        return {i: self._hints[i] for i in wanted if self._hints.get(i)}

    @staticmethod
    def _query(catalog: Catalog, where: str, args: list[str]) -> dict[str, int]:
        """The hinted active and conflicting rows' bits (the catalog's partial index on
        hinted rows), a file claiming another's id or'd in."""
        found: dict[str, int] = {}
        # some ids: their rows by the id index (the planner would walk every hinted row)
        index = " INDEXED BY entries_id" if args else ""
        for memory_id, bits in catalog._query(
            f"SELECT id, steering FROM entries{index} WHERE steering != 0 AND reason IS NULL "
            "AND status IN ('active', 'conflict')" + where + " ORDER BY rel",
            args,
        ):
            found[memory_id] = found.get(memory_id, 0) | int(bits)
        return found

    def withheld(
        self, memory: Memory, *, statuses: Iterable[str] = REACHING_STATUSES
    ) -> str | None:
        """Why the record does not reach the agent (:data:`NOT_ACTIVE`,
        :data:`STEERING`, :data:`UNTRUSTED`), None when it does. ``statuses``: the
        statuses a channel shows (only the sync's folder index keeps a line in
        conflict: the agent's own line, which nobody decided yet)."""
        if memory.status not in tuple(statuses):
            return NOT_ACTIVE
        if self.untrusted([memory.id]):
            return UNTRUSTED
        if self.steering(memory):
            return STEERING
        return None

    def held_back(self, memory: Memory, *, hint: int | None = None) -> bool:
        """Whether a record is withheld whatever its status: untrusted, or flagged by
        the steering detector and kept by no person (what the tools that show an
        earlier record's words ask; ``hint`` as for :meth:`steering`)."""
        return bool(self.untrusted([memory.id])) or self.steering(memory, hint=hint)

    def untrusted(self, memory_ids: Iterable[str]) -> set[str]:
        """Which of these records are untrusted (the hook :func:`untrusted`)."""
        return untrusted(self.store, memory_ids)

    def reaches(self, memory: Memory) -> bool:
        return self.withheld(memory) is None

    def steering(self, memory: Memory, *, hint: int | None = None) -> bool:
        """Whether the record is flagged by the steering detector and no person kept it.
        ``hint``: its hint bits when it is not the catalog's row (a record a
        transaction changes); else the catalog's (which hints only active and
        conflicting records: another's is computed here, for the tools that show an
        earlier record's words)."""
        if hint is None and memory.status in ("active", "conflict"):
            hint = self.hints([memory.id]).get(memory.id, 0)
        elif hint is None:
            hint = steering_hint(memory)
        if not hint:
            return False
        key = (memory.id, memory.path)
        found = self._verdicts.get(key)
        if found is None:
            found = steering_flagged(self.store, memory, hint) and not vouched(
                self.store, memory, self.pending
            )
            self._verdicts[key] = found
        return found


def reaches(store: Store, memory: Memory) -> bool:
    """Whether the record reaches the agent (one record: :class:`Reaching` for many)."""
    return Reaching(store).reaches(memory)
