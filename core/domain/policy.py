"""Who may do what: actors, a private store's owner, a team store's maintainers.

Identity is self-declared today. The actor is whatever ``--as``,
``MEMGOV_ACTOR`` or git's ``user.email`` says; memgov does not authenticate
it. What this module guarantees is narrower and exact: a decision or a team
write is allowed only for an actor that matches the store's config *exactly*,
so a look-alike name, another domain or an empty config never grants anything.

Matching (:func:`same_actor`), one rule, no exceptions:

- outer whitespace is ignored; an actor or a listed name that is empty, or
  holds a control, format (zero-width, bidi) or unpaired surrogate character,
  matches nothing;
- an **email** (exactly one ``@``, something on both sides) matches only the
  same email: local part and domain compared with ASCII letters
  case-insensitive, every other character exactly;
- a **name** (no ``@``) matches only the same name, compared the same way;
- a name never matches an email, nor an email a name: ``liys05`` listed does
  not admit ``liys05@example.com`` or ``liys05@evil.example``. To accept an
  email, list the email. Anything else with an ``@`` (``a@``, ``@b``,
  ``a@b@c``) matches nothing.

No Unicode case folding or normalisation: the Kelvin sign is not ``k`` and a
full-width ``ｌ`` is not ``l``, so what a store lists is what must be typed.

Who decides, one rule for everything that decides (:func:`check_decider`,
:func:`may_decide`):

- a private store's items: its ``owner`` (:func:`check_owner`). A private
  store with no owner refuses every decision until one is set;
- team items and team writes: the team store's ``maintainers``
  (:func:`check_maintainer`). A team store that lists nobody refuses everyone.

A store is anything with a ``root`` and a ``config`` holding ``owner``,
``maintainers`` and ``scope`` (:class:`GovernedStore`; a
:class:`core.store.store.Store` is one): the rules need no store code.

Every refusal is a :class:`core.domain.errors.AuthorizationError` naming the store's
``memgov.yaml``, the field, and what to do. An actor that looks like a
credential, or is long or unprintable, is not echoed.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Protocol

from core.domain.errors import AuthorizationError
from core.domain.kinds import Scope

#: an actor longer than this is not echoed in a message
SHOWN_MAX = 80
#: the file in a store's root that holds its config (core.store.config writes it)
CONFIG_FILE = "memgov.yaml"


class StoreConfig(Protocol):
    """What the rules read of a store's config."""

    @property
    def scope(self) -> str: ...  # "private" or "team"
    @property
    def owner(self) -> str | None: ...  # a private store's owner
    @property
    def maintainers(self) -> tuple[str, ...]: ...  # a team store's maintainers


class GovernedStore(Protocol):
    """A store as the rules see it: where it is, and its config."""

    @property
    def root(self) -> Path: ...
    @property
    def config(self) -> StoreConfig: ...


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _usable(text: str) -> bool:
    """Not empty, and no control, format, surrogate or unassigned character."""
    return bool(text) and not any(
        unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text
    )


def canonical(who: str) -> str | None:
    """The form :func:`same_actor` compares, or None when ``who`` matches nothing."""
    if not isinstance(who, str):
        return None
    text = who.strip()
    if not _usable(text):
        return None
    if "@" in text:
        local, _, domain = text.partition("@")
        if not local or not domain or "@" in domain:
            return None  # not one email: a@, @b, a@b@c
    return text.translate(_ASCII_LOWER)


def same_actor(actor: str, name: str) -> bool:
    """Whether ``actor`` is the person a store's config lists as ``name`` (see the module
    docstring): equal emails or equal names, ASCII case-insensitive, never across forms."""
    a, b = canonical(actor), canonical(name)
    if a is None or b is None:
        return False
    return a == b  # an email and a name differ in their '@', so never match


def shown(actor: str) -> str:
    """An actor for a message: as given, unless it may be a credential or is unprintable."""
    text = actor.strip() if isinstance(actor, str) else ""
    if not text:
        return "an empty actor"
    from core.domain import secrets  # the scanner: only for an actor that is shown

    if len(text) > SHOWN_MAX or not _usable(text) or secrets.scan(text):
        return f"an actor of {len(text)} characters (not shown)"
    return text


def _config_path(store: GovernedStore) -> Path:
    return store.root / CONFIG_FILE


def is_maintainer(team_store: GovernedStore, actor: str) -> bool:
    """Whether ``actor`` is listed in the store's ``maintainers`` (exact match)."""
    return any(same_actor(actor, m) for m in team_store.config.maintainers)


def is_owner(store: GovernedStore, actor: str) -> bool:
    """Whether ``actor`` is the private store's ``owner`` (exact match; no owner: nobody)."""
    owner = store.config.owner
    return bool(owner and owner.strip()) and same_actor(actor, owner or "")


def check_maintainer(
    team_store: GovernedStore, actor: str, what: str, *, hint: str | None = None
) -> None:
    """Refuse unless ``actor`` is a maintainer of ``team_store``.

    ``what`` is what was attempted, as a verb phrase ("decide team item X",
    "sweep the team store"); ``hint`` says what the actor can do instead.
    """
    if is_maintainer(team_store, actor):
        return
    listed = ", ".join(shown(m) for m in team_store.config.maintainers) or "nobody"
    text = (
        f"{shown(actor)} may not {what}: only the team store's maintainers may "
        f"({listed}; listed in {_config_path(team_store)}, field 'maintainers'; "
        f"names and emails match exactly)"
    )
    raise AuthorizationError(text + (f". {hint}" if hint else ""))


def check_owner(store: GovernedStore, actor: str, what: str) -> None:
    """Refuse unless ``actor`` is the owner of the private ``store``.

    A private store with no owner refuses everyone. A team store has no owner:
    its items are its maintainers' (this is then :func:`check_maintainer`).
    """
    if store.config.scope == Scope.TEAM:
        check_maintainer(store, actor, what)
        return
    owner = store.config.owner
    if not owner or not owner.strip():
        raise AuthorizationError(
            f"nobody may {what}: this private store has no owner; set one with "
            f"`owner: NAME` (your name or email, as you pass it with --as) in "
            f"{_config_path(store)}, or create the store with `memgov init --owner NAME`"
        )
    if not same_actor(actor, owner):
        raise AuthorizationError(
            f"{shown(actor)} may not {what}: private items are decided by the store's "
            f"owner, {shown(owner)} (field 'owner' in {_config_path(store)}; names and "
            f"emails match exactly)"
        )


def check_decider(store: GovernedStore, actor: str, what: str) -> None:
    """Refuse unless ``actor`` may decide an item of ``store``: the one rule of who
    decides. A team store's items: its maintainers (:func:`check_maintainer`); a
    private store's: its owner, and nobody while it has none (:func:`check_owner`).

    ``what`` is what was attempted, as a verb phrase ("decide team item X").
    """
    if store.config.scope == Scope.TEAM:
        check_maintainer(store, actor, what)
    else:
        check_owner(store, actor, what)


def check_may_decide_in(store: GovernedStore, actor: str, subject: str) -> None:
    """:func:`check_decider` for deciding ``subject`` (an item id, a rollback) in
    ``store``, the refusal saying "decide team item X" or "decide X"."""
    team = store.config.scope == Scope.TEAM
    check_decider(store, actor, f"decide team item {subject}" if team else f"decide {subject}")


def may_decide(store: GovernedStore, actor: str) -> bool:
    """Whether :func:`check_decider` lets ``actor`` decide an item of ``store``."""
    if store.config.scope == Scope.TEAM:
        return is_maintainer(store, actor)
    return is_owner(store, actor)
