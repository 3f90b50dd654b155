"""Errors that say which file, which field, and what to do about it."""

from __future__ import annotations

from pathlib import Path


class MemgovError(Exception):
    """Base class: every error memgov raises on purpose."""


class ValidationError(MemgovError):
    """A record or config value is wrong.

    ``path`` is the file (may be None for a candidate not yet written),
    ``field`` the front-matter field, ``hint`` what to do. ``where`` names what
    was wrong when it is no file (a review item's id); without either, the error
    is a candidate's.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        field: str | None = None,
        hint: str | None = None,
        where: str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.where = where
        self.field = field
        self.message = message
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        where = self.path or self.where or "<candidate>"
        if self.field:
            where += f": field '{self.field}'"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


class TransitionError(MemgovError):
    """A lifecycle transition the state machine does not allow."""


class StoreError(MemgovError):
    """The store cannot do what was asked (missing, locked, not a store...)."""


class NotFoundError(StoreError):
    """No memory, item or decision with that id."""


class AuthorizationError(MemgovError):
    """The actor may not make this decision."""


class AlreadyDecided(MemgovError):
    """The item was decided (or the decision reverted) by someone else first.

    Checked under the store lock, so of two people deciding one item exactly one
    succeeds; the other gets who decided, when, and which decision.
    """

    def __init__(self, what: str, *, actor: str, ts: str, decision: str) -> None:
        self.actor = actor
        self.ts = ts
        self.decision = decision
        super().__init__(
            f"{what}: already decided by {actor} at {ts} (decision {decision}); "
            "nothing was changed. Reload the queue to see it as it is now."
        )


class ItemChanged(MemgovError):
    """The item changed between what a person was shown and the decision, under the
    lock (a bait-and-switch, or another write in between): nothing was decided.

    ``changes`` says what differs, when the caller had the item it showed; the item
    stays open, to be shown again as it is now."""

    def __init__(self, item: str, *, shown: str, now: str, changes: tuple[str, ...] = ()) -> None:
        self.item, self.shown, self.now, self.changes = item, shown, now, changes
        what = ("; ".join(changes[:5]) + ("; ..." if len(changes) > 5 else "")) if changes else ""
        super().__init__(
            f"{item} changed since it was shown (shown {shown[:12]}, now {now[:12]})"
            + (f": {what}" if what else "")
            + "; nothing was decided. Look at it again (memgov show "
            + item
            + ") and decide what it says now."
        )


class SecretBlocked(MemgovError):
    """A secret scan hit blocked a write. Carries rule ids, never the value."""

    def __init__(self, where: str, rules: list[str]) -> None:
        self.rules = sorted(set(rules))
        super().__init__(
            f"{where}: blocked by the secret scanner (rules: "
            f"{', '.join(self.rules)}); remove the credential and try again. "
            f"The value is not shown."
        )


class AddressBlocked(SecretBlocked):
    """An internal address blocked words bound for a team store (a promotion, a
    proposal): it is no credential, and a private store keeps it, but a team store
    takes it off the machine. Carries rule ids, never the address."""

    def __init__(self, where: str, rules: list[str]) -> None:
        MemgovError.__init__(
            self,
            f"{where}: blocked: it names an internal address (rules: "
            f"{', '.join(sorted(set(rules)))}), which a team store would take off this "
            "machine; keep the memory private, or correct it without the address and ask "
            "again. The address is not shown.",
        )
        self.rules = sorted(set(rules))


_re = __import__("re")
_ID_SHAPE = _re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,119}")
_SEGMENTS = _re.compile(r"[-_.:/]")


def _token_like(value: str) -> bool:
    """Whether an id-shaped text looks like a credential rather than an id: a run of
    16+ letters and digits with upper and lower case and digits (base62, as tokens
    are), a run of 24+ mixing letters and digits, or a hit of the secret scanner.
    memgov's own ids are words and short digests (``deploy-command-792aaccf``,
    ``dec-20261117T123000-6c1a1e``), none of which is any of these."""
    for run in _SEGMENTS.split(value):
        if len(run) < 16:
            continue
        has_digit = any(c.isdigit() for c in run)
        has_alpha = any(c.isalpha() for c in run)
        if len(run) >= 24 and has_digit and has_alpha:
            return True
        if has_digit and any(c.islower() for c in run) and any(c.isupper() for c in run):
            return True
    if len(value) < 16:
        return False
    from core.domain import secrets  # compiles its rules on first use: errors only

    return bool(secrets.scan(value))


def id_shaped(value: object) -> bool:
    """Whether ``value`` has an id's shape: letters, digits, ``._:/-``, at most 120
    characters, no ``..``, and nothing that looks like a credential."""
    return (
        isinstance(value, str)
        and _ID_SHAPE.fullmatch(value) is not None
        and ".." not in value
        and not _token_like(value)
    )


def shown_id(value: object) -> str:
    """An id as an error message may show it: quoted when it has the shape of an id
    (:func:`id_shaped`), else described, so a pasted secret or a path never reaches a
    message or a log. For an unknown id of every route, CLI and MCP alike."""
    if id_shaped(value):
        return repr(value)
    size = len(value) if isinstance(value, str) else 0
    return f"(not an id: {size} characters, not shown)"
