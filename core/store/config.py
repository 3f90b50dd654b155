"""The store's config file, ``memgov.yaml``: thresholds, time constants, people.

The file is untrusted input (a team store is a repository others push to): every
value is checked for its type and range, text for control characters and length,
and a file too large, not UTF-8, or nested too deeply is refused with the file named
and what to do, never a traceback. No message quotes a value.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.domain import fastyaml
from core.domain.errors import StoreError, ValidationError
from core.domain.record import check_text, describe, shown_word, yaml_error
from core.store.fsutil import HostileEntry, open_entry

CONFIG_FILE = "memgov.yaml"
#: a config is a few hundred bytes; a file over this is not read
MAX_CONFIG_BYTES = 256 * 1024
MAX_PERSON_CHARS = 320  # an owner or maintainer: a name or an email address
MAX_PATH_CHARS = 4_096
MAX_MAINTAINERS = 1_000
#: the values of ``desk_reason`` (Config.desk_reason)
DESK_REASONS = ("ask", "prefilled")
#: unknown settings are kept as they are; how much of them is read, all levels together
MAX_EXTRA_VALUES = 10_000
MAX_EXTRA_DEPTH = 32


class UnreadableConfig(ValidationError, StoreError):
    """``memgov.yaml`` cannot be read at all (too large, not UTF-8, binary, a link):
    the store cannot open (a StoreError), and the error names the file as a
    ValidationError does."""


@dataclass(frozen=True)
class Config:
    """Everything a store can be tuned by. Defaults follow the spec and the seed."""

    scope: str = "private"  # which scope this store holds: private or team
    owner: str | None = None  # private store: the user it belongs to (subject user:<owner>)
    maintainers: tuple[str, ...] = ()  # team store: who decides team items
    #: team store: each maintainer's SSH signing key, as git's allowed_signers lines
    #: (``alice@example.com ssh-ed25519 AAAA...``); empty: identity is self-declared
    signers: tuple[str, ...] = ()
    #: hosts a memory may link to without being held for review (core.domain.steering:
    #: ``example.com`` admits ``docs.example.com``); once listed (even empty), a link to
    #: any other host holds it. None (not in the file): links are not judged by host
    known_hosts: tuple[str, ...] | None = None
    team_store: str | None = None  # private store: path of the team store it promotes to
    theta: float = 0.6  # write gate threshold (SPEC 5)
    w0: float = 1.0  # decay: initial weight (SPEC 7)
    tau1_days: float = 30.0  # decay: time constant for days since last use
    tau2_days: float = 60.0  # decay: for days since verification (2 * tau1 by default)
    unused_days: int = 30  # not a consolidation input after this many days unused
    index_line_chars: int = 150
    index_max_lines: int = 200
    index_max_bytes: int = 25_000
    #: how many memories the desk draws a period for the labelled measures
    #: (precision and stale citations)
    sample_size: int = 20
    #: private store: a memory file the agent creates or changes in its own folder is
    #: held at sync until a person approves it (core.importers.claude_code.consent)
    agent_memory_consent: bool = False
    #: who the command line acts as when neither ``--as`` nor ``$MEMGOV_ACTOR`` names
    #: anyone, before git's ``user.email``: the demo's stores name their user
    #: (``memgov demo``); ``memgov init`` writes none, so a real store acts as the
    #: person at the keyboard
    default_actor: str | None = None
    #: the desk's decisions: ``ask`` (the reason dialog opens, prefilled; enter
    #: accepts) or ``prefilled`` (a decision key decides at once with its prefilled
    #: reason; a decision that erases for good or changes anything besides its own
    #: records still asks). Read from the store of the item decided
    desk_reason: str = "ask"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_yaml(self) -> str:
        data = asdict(self)
        data["maintainers"] = list(self.maintainers)
        data["signers"] = list(self.signers)
        if not self.signers:
            del data["signers"]
        if not self.agent_memory_consent:
            del data["agent_memory_consent"]
        if self.known_hosts is None:
            del data["known_hosts"]
        else:
            data["known_hosts"] = list(self.known_hosts)
        if self.default_actor is None:
            del data["default_actor"]
        if self.desk_reason == "ask":
            del data["desk_reason"]
        extra = data.pop("extra")
        data.update(extra)
        import yaml  # a config written: PyYAML loads here, not for every command

        head = "# memgov store configuration. Changes to a team store's config go through review.\n"
        return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


MAX_KNOWN_HOSTS = 10_000
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?$")


def _hosts(raw: Any, path: Path) -> tuple[str, ...] | None:
    """``known_hosts``: a list of host names (no scheme, no path), each checked; None
    when the file does not set it."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_KNOWN_HOSTS:
        raise ValidationError(
            f"must be a list of host names, got {describe(raw)}",
            path=path,
            field="known_hosts",
            hint="e.g. known_hosts: [github.com, docs.example.com]",
        )
    for number, host in enumerate(raw):
        name = f"known_hosts[{number}]"
        _clean_text(host, path=path, field=name, limit=253)
        if not _HOST.match(host):
            raise ValidationError(
                "is not a host name",
                path=path,
                field=name,
                hint="write the host alone, e.g. docs.example.com (no https://, no path)",
            )
    return tuple(h.lower().rstrip(".") for h in raw)


_NUMBERS = {
    "theta": (0.0, 1.0),
    "w0": (0.0, 1e9),
    "tau1_days": (1e-9, 1e9),
    "tau2_days": (1e-9, 1e9),
    "unused_days": (0, 1e9),
    "index_line_chars": (1, 1e9),
    "index_max_lines": (1, 1e9),
    "index_max_bytes": (1, 1e9),
    "sample_size": (1, 1000),
}

#: index limits: a fraction would break slicing and line counting
_INTEGERS = {"index_line_chars", "index_max_lines", "index_max_bytes", "sample_size"}


def _read(path: Path) -> str:
    """The file's text; UnreadableConfig when it is not a small UTF-8 text file."""
    if path.is_symlink():
        raise UnreadableConfig(
            "is a symbolic link; memgov reads no store file through a link",
            path=path,
            hint="replace it by the file itself, or recreate it with 'memgov init'",
        )
    try:  # the one reader: a pipe, a device or a folder is never opened
        fd = open_entry(path)
    except HostileEntry as exc:
        raise UnreadableConfig(
            exc.problem, path=path, hint="replace it by the file, or recreate it with 'memgov init'"
        ) from None
    if fd is None:  # the caller says what to do
        raise FileNotFoundError(2, "No such file or directory", str(path))
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise UnreadableConfig(
            f"is over {MAX_CONFIG_BYTES // 1024} KiB; a config is a few lines, so it was not read",
            path=path,
            hint="restore it from git, or recreate it with 'memgov init'",
        )
    if b"\0" in data:
        raise UnreadableConfig(
            "is a binary file, not YAML",
            path=path,
            hint="restore it from git, or recreate it with 'memgov init'",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableConfig(
            f"is not UTF-8 (byte {exc.start + 1:,})",
            path=path,
            hint="re-save it as UTF-8",
        ) from None


def _clean_text(value: Any, *, path: Path, field: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError(f"must be text, got {describe(value)}", path=path, field=field)
    return check_text(value, path=path, field=field, limit=limit)


def _setting_name(key: Any) -> str:
    """How an error names an unknown setting: by its key when that is a plain name."""
    text = str(key) if isinstance(key, str | int) else ""
    return (
        text
        if text.isascii() and text.replace("_", "a").replace("-", "a").isalnum() and len(text) <= 24
        else ("(an unknown setting)")
    )


def _check_extra(key: Any, value: Any, path: Path) -> None:
    """Unknown settings are kept and written back: their text follows the same rules,
    and a YAML alias bomb or deep nesting is refused, not walked for minutes."""
    name = _setting_name(key)
    if isinstance(key, str):
        check_text(key, path=path, field=name, limit=200)
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > MAX_EXTRA_VALUES or depth > MAX_EXTRA_DEPTH:
            raise ValidationError(
                f"is too large or nested too deeply (over {MAX_EXTRA_VALUES:,} values "
                f"or {MAX_EXTRA_DEPTH} levels)",
                path=path,
                field=name,
                hint="remove the setting; memgov does not use it",
            )
        if isinstance(item, str):
            check_text(item, path=path, field=name, limit=MAX_PATH_CHARS, multiline=True)
        elif isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def load_config(root: Path) -> Config:
    path = root / CONFIG_FILE
    try:
        text = _read(path)
    except FileNotFoundError:
        raise ValidationError(
            "is missing", path=path, hint="run 'memgov init' to create a store here"
        ) from None
    except OSError as exc:
        raise UnreadableConfig(
            f"cannot be read ({exc.strerror or type(exc).__name__})",
            path=path,
            hint="check the file's permissions",
        ) from None
    return load_config_text(text, path=path)


def plain_config(text: str) -> dict[str, Any] | None:
    """``memgov.yaml`` as ``memgov init`` writes it (comment lines, ``key: scalar``
    lines, flat nested mappings) read by the front-matter fast path, which either
    declines (None) or gives exactly what YAML gives; a comment line is one YAML
    ignores wherever it stands in such a file (a line that could continue a quoted or
    multi-line value makes the fast path decline). PyYAML is not imported."""
    kept = [line for line in text.split("\n") if not line.lstrip(" ").startswith("#")]
    return fastyaml.parse("\n".join(kept))


def _yaml_config(text: str, path: Path) -> Any:
    """A config the fast path declines, read by PyYAML (imported here); {} when empty."""
    import yaml

    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        error = yaml_error(exc, path=path, what="the file")
        raise ValidationError(
            error.message, path=path, hint="fix the YAML or recreate it with 'memgov init'"
        ) from None
    except RecursionError:
        raise ValidationError(
            "is nested too deeply to read",
            path=path,
            hint="a config is flat settings; fix it or recreate it with 'memgov init'",
        ) from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a date that does not exist
        raise ValidationError(
            f"has a value YAML cannot read ({type(exc).__name__})",
            path=path,
            hint="fix the value, or quote it to keep it as text",
        ) from None


def load_config_text(text: str, *, path: Path | str) -> Config:  # noqa: C901
    """A config from its text (a version of ``memgov.yaml`` in git, or the file's)."""
    path = Path(path)
    raw = plain_config(text)
    if raw is None:
        raw = _yaml_config(text, path)
    if not isinstance(raw, dict):
        raise ValidationError(
            f"must be a mapping of settings, got {describe(raw)}",
            path=path,
            hint="write one 'name: value' setting a line",
        )
    known = {f for f in Config.__dataclass_fields__ if f != "extra"}
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            _check_extra(key, value, path)
            extra[str(key)] = value
            continue
        if key in _NUMBERS:
            low, high = _NUMBERS[key]
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not low <= value <= high
            ):
                raise ValidationError(
                    f"must be a number from {low:g} to {high:g}, got {describe(value)}"
                    + (" out of range" if isinstance(value, int | float) else ""),
                    path=path,
                    field=key,
                )
            if key in _INTEGERS and not isinstance(value, int):
                raise ValidationError(
                    f"must be a whole number, got {describe(value)} with a fraction",
                    path=path,
                    field=key,
                )
        values[key] = value
    scope = values.get("scope", "private")
    if not isinstance(scope, str) or scope not in ("private", "team"):
        shown = shown_word(scope) if isinstance(scope, str) else f"({describe(scope)})"
        raise ValidationError(
            f"unknown scope {shown}",
            path=path,
            field="scope",
            hint="a store holds private or team memories: scope: private, or scope: team",
        )
    maint = values.get("maintainers")
    if maint is None:
        maint = []
    if not isinstance(maint, list) or len(maint) > MAX_MAINTAINERS:
        raise ValidationError(
            f"must be a list of user names or emails, got {describe(maint)}",
            path=path,
            field="maintainers",
            hint="e.g. maintainers: [lead@example.com]",
        )
    for number, person in enumerate(maint):
        _clean_text(person, path=path, field=f"maintainers[{number}]", limit=MAX_PERSON_CHARS)
    values["maintainers"] = tuple(maint)
    signers = values.get("signers")
    if signers is None:
        signers = []
    if not isinstance(signers, list) or len(signers) > MAX_MAINTAINERS:
        raise ValidationError(
            f"must be a list of allowed_signers lines, got {describe(signers)}",
            path=path,
            field="signers",
            hint="e.g. signers: ['lead@example.com ssh-ed25519 AAAA...'], one a maintainer",
        )
    for number, line in enumerate(signers):
        name = f"signers[{number}]"
        _clean_text(line, path=path, field=name, limit=16_384)
        parts = line.split()
        if len(parts) < 3 or not any(p.startswith(("ssh-", "ecdsa-", "sk-")) for p in parts[1:]):
            raise ValidationError(
                "is not an allowed_signers line (principal, key type, key)",
                path=path,
                field=name,
                hint="write 'PRINCIPAL ssh-ed25519 AAAA...': the principal, then the public key",
            )
    values["signers"] = tuple(signers)
    values["known_hosts"] = _hosts(values.get("known_hosts"), path)
    consent = values.get("agent_memory_consent", False)
    if not isinstance(consent, bool):
        raise ValidationError(
            f"must be true or false, got {describe(consent)}",
            path=path,
            field="agent_memory_consent",
            hint="agent_memory_consent: true holds each memory the agent writes for a person",
        )
    reason = values.get("desk_reason", "ask")
    if reason not in DESK_REASONS:
        shown = shown_word(reason) if isinstance(reason, str) else f"({describe(reason)})"
        raise ValidationError(
            f"unknown setting {shown}",
            path=path,
            field="desk_reason",
            hint="desk_reason: ask (the reason dialog opens) or prefilled (a key decides "
            "with the prefilled reason)",
        )
    for key, limit in (
        ("owner", MAX_PERSON_CHARS),
        ("default_actor", MAX_PERSON_CHARS),
        ("team_store", MAX_PATH_CHARS),
    ):
        if values.get(key) is not None:
            _clean_text(values[key], path=path, field=key, limit=limit)
    if "tau1_days" in values and "tau2_days" not in values:
        values["tau2_days"] = 2 * float(values["tau1_days"])
    return Config(**values, extra=extra)
