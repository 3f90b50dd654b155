"""Held memories: what an import or a sync found in an agent's folder and did not
write on its own, waiting for a person (review items of kind ``held``).

An import or a sync holds a memory instead of writing it when

- ``sensitive``: a team memory (from the folder's ``team/``) holds an internal
  address (a private IP, an ``.internal`` host), which is not a credential but
  would leave the machine with the team store: a person may *redact* it (each
  address replaced by ``[internal-ip-address]``), *keep* it as a private memory,
  or drop it (reject). A private memory keeps its internal addresses: its store
  never leaves the machine;
- ``relearned``: a person erased a memory with the same key or the same words
  (the erasure event keeps a hash of them, never the words) and the agent wrote
  it again: a person may *learn* it again (approve) or *forget* it (reject: it
  is not imported, and a sync deletes the agent's file);
- ``both-changed``: a sync found the file changed in the agent's folder and its
  record changed in memgov since the last sync: a person takes the *agent*'s
  version (approve: imported as new evidence) or keeps *memgov*'s (reject: the
  sync writes it to the file);
- ``gate``: the write gate doubts it: derivable content (an exclusion: in-progress
  task state, a bare path, a commit hash, a stack trace, a command's output) or
  s1/s2 under the store's theta. Only a secret and a memory without a source are
  never written (the seed); anything else a person could still want is theirs to
  decide: *keep* it (approve: imported as it is, the gate's doubt overruled) or
  *drop* it (reject: not imported).
- ``consent``: the store asks for consent (``agent_memory_consent: true``) and the
  agent created or changed the file: a sync takes it out of the folder (or puts
  the approved version back) until a person *keeps* it (approve: written back and
  imported) or *drops* it (reject: the folder keeps the approved version)
  (:mod:`core.importers.claude_code.consent`).

A held item is a small YAML file in the private store (``held/<id>.yaml``). It
points at the file, its line and the hash of its bytes, and never holds the
memory's words: an erased memory written again must not come back into the
store by the back door. A consent item is the one exception: the sync takes the
file out of the agent's folder, so its bytes (credentials redacted) wait beside
the item (``held/<id>.md``) until a person decides. The desk and ``memgov show``
read any other file from the agent's folder (:func:`agent_text`), and only while
its hash still matches.

The decision itself is carried out by the importer (:mod:`core.importers.session`):
deciding closes the item and imports that one file again, in one transaction,
and that run does what the closed item says. An item stays decided for the
file's bytes: the same bytes are not held again; changed bytes are new evidence.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from core.domain import gate, secrets
from core.domain.errors import MemgovError, NotFoundError, ValidationError
from core.domain.record import check_text, id_problem
from core.store.fsutil import HostileEntry, UnsafePath, check_relative, read_entry
from core.store.store import Store

HELD_DIR = "held"
PREFIX = "held-"
REASONS = ("sensitive", "relearned", "both-changed", "gate", "consent")
STATUSES = ("open", "approved", "rejected")
#: what approving (first) and rejecting (last) an item of each reason does
OPTIONS: dict[str, tuple[str, ...]] = {
    "sensitive": ("redact", "keep", "drop"),
    "relearned": ("learn", "forget"),
    "both-changed": ("agent", "memgov"),
    "gate": ("keep", "drop"),
    "consent": ("keep", "drop"),
}
#: what each option means, in a sentence (the desk, the CLI)
MEANING = {
    "redact": "import it with each internal address replaced by a mark",
    "keep": "import it as it is, as a private memory",
    "drop": "do not import it",
    "learn": "learn it again: import it",
    "forget": "keep it forgotten: not imported, and the agent's file is deleted",
    "agent": "take the agent's version: imported as new evidence for the record",
    "memgov": "keep memgov's version: written back to the agent's file",
}
#: what an option means for a reason where it says more than :data:`MEANING`
MEANING_FOR = {
    ("consent", "keep"): "let it reach the agent: written back to its folder and imported",
    ("consent", "drop"): "drop it for good: the agent's folder keeps the approved version",
}
MAX_HELD_BYTES = 64 * 1024
MAX_FILE_BYTES = 1024 * 1024
_SENSITIVE = {"internal-ip-address", "internal-hostname"}


class HeldError(MemgovError):
    """A held item cannot be read or decided; says which and why."""


def is_sensitive_only(rules: tuple[str, ...]) -> bool:
    """Whether a refusal's rules are all internal addresses (no credential among them)."""
    return bool(rules) and set(rules) <= _SENSITIVE


def file_hash(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Held:
    id: str
    reason: str  # one of REASONS
    format: str
    folder: str  # the agent's folder (absolute)
    file: str  # relative to it
    line: int
    hash: str  # of the file's bytes when it was held
    held_at: str
    held_by: str
    title: str = ""
    key: str = ""  # type, scope, subject, attribute: what the import would write
    detail: str = ""  # what was found: patterns and lines, or the erasure
    memory_id: str | None = None  # the record concerned (erased, or changed in memgov)
    status: str = "open"
    decision: str | None = None  # the option taken
    decided_by: str | None = None
    decided_at: str | None = None
    decision_reason: str | None = None

    @property
    def path(self) -> str:
        return f"{HELD_DIR}/{self.id}.yaml"

    @property
    def options(self) -> tuple[str, ...]:
        return OPTIONS[self.reason]

    @property
    def named(self) -> str:
        if self.reason == "sensitive" and "likely a credential" in self.detail:
            return "likely credential"
        return {
            "sensitive": "internal address",
            "relearned": "re-learned after deletion",
            "both-changed": "changed on both sides",
            "gate": "doubted by the write gate",
            "consent": "waiting for consent",
        }[self.reason]

    @property
    def meanings(self) -> dict[str, str]:
        """What each of the item's options does, in a sentence."""
        return {o: MEANING_FOR.get((self.reason, o), MEANING[o]) for o in self.options}

    def to_yaml(self) -> str:
        return yaml.safe_dump(asdict(self), sort_keys=False, allow_unicode=True, width=1000)

    def decided(self, option: str, *, actor: str, at: str, reason: str) -> Held:
        approve = option != self.options[-1]
        return replace(
            self,
            status="approved" if approve else "rejected",
            decision=option,
            decided_by=actor,
            decided_at=at,
            decision_reason=reason,
        )


def new_held_id(folder: str, file: str, data_hash: str, reason: str, when: str) -> str:
    digest = hashlib.sha256(f"{folder}|{file}|{data_hash}|{reason}".encode()).hexdigest()[:8]
    return f"{PREFIX}{when[:10].replace('-', '')}-{digest}"


def _check(held: Held, rel: str) -> None:
    def bad(name: str, what: str) -> HeldError:
        return HeldError(f"{rel}: field {name} {what}; remove the file if it is not memgov's")

    if id_problem(held.id) or not held.id.startswith(PREFIX):
        raise bad("id", "is not a held item's id (held-YYYYMMDD-xxxxxxxx)")
    if rel != held.path:
        raise bad("id", "does not match the file's name")
    if held.reason not in REASONS:
        raise bad("reason", f"must be one of {', '.join(REASONS)}")
    if held.status not in STATUSES:
        raise bad("status", f"must be one of {', '.join(STATUSES)}")
    if held.decision is not None and held.decision not in held.options:
        raise bad("decision", f"must be one of {', '.join(held.options)}")
    try:
        if check_relative(held.file) != held.file:
            raise UnsafePath(held.file)
    except UnsafePath:
        raise bad("file", "must name a file inside the agent's folder") from None
    if not held.file.endswith(".md") or not Path(held.folder).is_absolute():
        raise bad("file", "must name a Markdown file of an absolute folder")
    for name in ("format", "folder", "file", "hash", "held_at", "held_by", "title", "key"):
        try:
            check_text(getattr(held, name), field=name, limit=4096, multiline=False)
        except ValidationError:
            raise bad(name, "must be one line of text") from None
    try:
        check_text(held.detail, field="detail", limit=4096, multiline=True)
    except ValidationError:
        raise bad("detail", "must be text") from None


def _from_mapping(data: Any, rel: str) -> Held:
    if not isinstance(data, dict):
        raise HeldError(f"{rel}: not a mapping of fields; remove it")
    names = set(Held.__dataclass_fields__)
    unknown = [k for k in data if k not in names]
    if unknown:
        raise HeldError(f"{rel}: unknown field {str(unknown[0])[:40]!r}; remove it")
    try:
        held = Held(**data)
    except TypeError:
        raise HeldError(f"{rel}: a field is missing; remove the file") from None
    types = {"line": int}
    for name in names:
        value = getattr(held, name)
        want = types.get(name, str)
        optional = name in ("memory_id", "decision", "decided_by", "decided_at", "decision_reason")
        if not (isinstance(value, want) and not isinstance(value, bool)) and not (
            optional and value is None
        ):
            raise HeldError(f"{rel}: field {name} has the wrong type; remove the file")
    _check(held, rel)
    return held


def read_held(store: Store, held_id: str) -> Held:
    if id_problem(held_id) or not held_id.startswith(PREFIX):
        raise NotFoundError(f"no held item {held_id[:80]!r}; see memgov queue --kind held")
    rel = f"{HELD_DIR}/{held_id}.yaml"
    path = store.root / rel
    if path.is_symlink() or not path.is_file():
        raise NotFoundError(f"no held item {held_id}; see memgov queue --kind held")
    if path.stat().st_size > MAX_HELD_BYTES:
        raise HeldError(f"{rel}: over {MAX_HELD_BYTES:,} bytes; remove it")
    try:
        raw = read_entry(path, limit=MAX_HELD_BYTES, shown=rel)
        data = yaml.safe_load((raw or b"").decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):  # HostileEntry is an OSError's kin
        raise HeldError(f"{rel}: not readable YAML; remove it") from None
    except HostileEntry as exc:
        raise HeldError(f"{exc}; remove it") from None
    return _from_mapping(data, rel)


def load_held(store: Store | None) -> tuple[list[Held], list[str]]:
    """Every readable held item of the store, by id, and a line per unreadable file."""
    if store is None:
        return [], []
    store.settle()  # an item a killed transaction left is not one (Store.settle)
    folder = store.root / HELD_DIR
    if folder.is_symlink() or not folder.is_dir():
        return [], []
    found: list[Held] = []
    problems: list[str] = []
    for path in sorted(folder.glob(f"{PREFIX}*.yaml")):
        try:
            found.append(read_held(store, path.stem))
        except (HeldError, NotFoundError) as exc:
            problems.append(str(exc))
    return found, problems


def held_for(items: list[Held], folder: str, file: str, data_hash: str) -> Held | None:
    """The held item for these bytes of this file (the latest), if any."""
    mine = [h for h in items if h.folder == folder and h.file == file and h.hash == data_hash]
    return max(mine, key=lambda h: (h.held_at, h.id)) if mine else None


def agent_text(held: Held) -> str | None:
    """The file as the agent's folder holds it now, when its bytes are still the ones
    held (None: gone, changed since, a link, or too large). Read inside the folder
    only, never through a symbolic link."""
    folder = Path(held.folder)
    path = folder / held.file
    try:
        steps = [folder / p for p in reversed(Path(held.file).parents) if str(p) != "."]
        if any(p.is_symlink() for p in (folder, *steps, path)):
            return None
        data = read_entry(path, limit=MAX_FILE_BYTES)  # never a pipe, never past the cap
    except (OSError, ValueError, HostileEntry):
        return None
    if data is None:
        return None
    if file_hash(data) != held.hash:
        return None
    return data.decode("utf-8", "replace")


def marked_lines(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number, line, patterns) of each line holding an internal address or a
    likely credential (the line shown with the credential's value left out)."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        found = gate.sensitive_patterns(line) + sorted({f.rule_id for f in secrets.scan(line)})
        if found:
            out.append((number, secrets.redact(line), found))
    return out


_MARKS = {"internal-ip-address": "[internal-ip-address]", "internal-hostname": "[internal-host]"}


def redacted(text: str) -> str:
    """``text`` with each internal address and each likely credential replaced by a
    mark."""
    return gate.redact_sensitive(secrets.redact(text), _MARKS)


def option_for(held: Held, approve: bool, option: str | None) -> str:
    """The option a decision takes: approving names one of the item's (its first by
    default), rejecting takes the last."""
    options = held.options
    if not approve:
        if option not in (None, options[-1]):
            raise ValidationError(
                f"rejecting a held item means {options[-1]!r}",
                field="option",
                where=held.id,
                hint=f"--reject, or --approve --option {'|'.join(options[:-1])}",
            )
        return options[-1]
    chosen = option or options[0]
    if chosen not in options[:-1]:
        raise ValidationError(
            "unknown option" if chosen not in options else f"{chosen!r} is a rejection",
            field="option",
            where=held.id,
            hint=f"--approve --option {'|'.join(options[:-1])}, or --reject ({options[-1]})",
        )
    return chosen


def describe_found(text: str, first_line: int = 1) -> str:
    """The detail of a sensitive hold: each pattern and line, never the address
    (``first_line``: the file's line the text begins at)."""
    lines = marked_lines(text)
    parts = [
        f"{', '.join(found)} at line {number + first_line - 1}"
        for number, _line, found in lines[:12]
    ]
    more = f" and {len(lines) - 12} more lines" if len(lines) > 12 else ""
    return "; ".join(parts) + more
