"""Verified maintainers: team commits signed with SSH keys, checked against the team config.

A team store's ``memgov.yaml`` lists each maintainer's signing key as git's
``allowed_signers`` lines (``signers:``). A clone set up with the user's key
(:func:`configure`: ``gpg.format=ssh``, ``user.signingkey``) has every commit memgov
makes there signed by git (``commit-tree -S``, which runs ``ssh-keygen -Y sign``).

On every sync the commits the remote brings are verified (:func:`verify`): each
against the signers of the config *its parent* had, so a change to the maintainer
list or to the keys must itself be signed by a maintainer who was listed before it.
git checks the signatures (``%G?`` and ``%GS`` with ``gpg.ssh.allowedSignersFile``,
through ``ssh-keygen -Y verify``); memgov checks that the principal who signed is a
maintainer of that config and is the commit's author (or memgov's own recovery).

A commit that fails is *untrusted* (:class:`Verdict`): unsigned, signed by a key the
list does not have (also one removed from it), a signature that does not verify,
signed by someone who is not a maintainer or for another author. Untrusted commits
are kept in the clone's local state (``.git/memgov/untrusted.json``), reported by the
sync, by ``memgov doctor`` and on the problems screen, and stay so until a maintainer
re-decides them: ``memgov team ratify COMMIT`` (a signed commit with a ``ratify``
event) or a revert of the decision it carried.

Without any signer in the config, nothing can be verified: memgov works as before
and says plainly that identity is self-declared.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from core.domain.data import AsData
from core.domain.errors import StoreError, ValidationError
from core.domain.policy import same_actor
from core.store import gitstore, team_state
from core.store.config import CONFIG_FILE, Config, load_config_text
from core.store.fsutil import atomic_write_bytes
from core.store.gitstore.objects import SIGNING_MARK

SELF_DECLARED = (
    "identity is self-declared: no maintainer has a signing key in memgov.yaml "
    "('signers'), so memgov cannot tell who made a team commit"
)
_WHY = {
    "N": "unsigned",
    "U": "signed by a key the maintainer list does not have",
    "B": "its signature does not verify (changed after signing)",
    "E": "its signature cannot be checked",
    "X": "signed with an expired signature",
    "Y": "signed by an expired key",
    "R": "signed by a revoked key",
}


def configure(root: Path, key: Path) -> str:
    """Sign this clone's commits with the SSH key ``key`` (a private key file, or a
    public one whose private half is in ssh-agent); the public key's line."""
    key = key.expanduser().resolve()
    if not key.is_file():
        raise ValidationError(
            "is not a file", path=key, field="signing key", hint="pass the path of an SSH key"
        )
    public = key if key.suffix == ".pub" else key.with_name(key.name + ".pub")
    if not public.is_file():
        raise ValidationError(
            "has no public half beside it (KEY.pub)",
            path=key,
            field="signing key",
            hint="ssh-keygen -y -f KEY > KEY.pub",
        )
    parts = public.read_text("utf-8", "replace").split()
    if len(parts) < 2 or not parts[0].startswith(("ssh-", "ecdsa-", "sk-")):
        raise ValidationError("is not an SSH public key", path=public, field="signing key")
    gitstore.run(root, "config", "gpg.format", "ssh")
    gitstore.run(root, "config", "user.signingkey", str(key))
    gitstore.run(root, "config", "commit.gpgsign", "true")
    atomic_write_bytes(root / SIGNING_MARK, b"")
    return f"{parts[0]} {parts[1]}"


def signing_key(root: Path) -> str | None:
    if not (root / SIGNING_MARK).is_file():
        return None
    out = gitstore.run(root, "config", "--get", "user.signingkey", check=False)
    return out.decode("utf-8", "replace").strip() or None


@dataclass(frozen=True)
class Verdict(AsData):
    """One commit checked against the signers its parent's config listed."""

    commit: str
    author: str
    signer: str | None
    status: str  # verified, self-declared, untrusted
    why: str = ""
    subject: str = ""
    files: tuple[str, ...] = ()

    def render(self) -> str:
        return (
            f"commit {self.commit[:10]} by {self.author} ({self.subject}): {self.why}; "
            f"its changes are untrusted until a maintainer re-decides them "
            f"(memgov team ratify {self.commit[:10]}, or revert its decision)"
        )


def _allowed(config: Config) -> list[str]:
    return [line for line in config.signers if config_lists(config, line.split()[0])]


def config_lists(config: Config, principal: str) -> bool:
    return any(same_actor(principal, m) for m in config.maintainers)


def _config_blob(root: Path, spec: str) -> str | None:
    out = gitstore.run(root, "rev-parse", "--verify", "--quiet", spec, check=False)
    return out.decode().strip() or None


def _config_of(root: Path, blob: str | None) -> Config | None:
    if blob is None:
        return None
    try:
        data = gitstore.read_blob_ids(root, [blob.encode()])[blob.encode()]
        return load_config_text(data.decode("utf-8"), path=CONFIG_FILE)
    except (ValidationError, UnicodeDecodeError, StoreError, KeyError):
        return None


def verify(root: Path, commits: list[str], *, since: str | None = None) -> list[Verdict]:
    """Each commit's verdict, in the order given (parents before children).

    The keys a commit is checked against are those of the last *trusted* config:
    the one this clone recorded after its last verification (local state), else the
    config at ``since`` (the commit the clone already had), else the first commit's
    own (a fresh clone trusts its first commit, as ssh trusts a host on first use);
    then each config change that verified. A change to the list that does not verify
    changes nothing, now or at a later sync: the commits after it are still checked
    against the old keys, so a forged maintainer cannot sign their way in."""
    if not commits:
        return []
    state = root / ".git" / "memgov"
    blob = team_state.trusted_config_blob(state)
    if blob is None or _config_of(root, blob) is None:
        blob = _config_blob(root, f"{since or commits[0]}:{CONFIG_FILE}")
    current = _config_of(root, blob)
    changes = _config_changes(root, commits)
    verdicts: list[Verdict] = []
    segment: list[str] = []
    for at, commit in enumerate(commits):
        segment.append(commit)
        if commit not in changes and at + 1 < len(commits):
            continue
        signers = tuple(_allowed(current)) if current is not None else ()
        judged = {
            row.commit: _judge(row, current, signers) for row in _signatures(root, segment, signers)
        }
        verdicts += [judged[c] for c in segment]
        if commit in changes and judged[commit].status != "untrusted":
            changed = _config_blob(root, f"{commit}:{CONFIG_FILE}")
            config = _config_of(root, changed)
            if config is not None:
                blob, current = changed, config
        segment = []
    if blob is not None:
        team_state.trust_config_blob(state, blob)
    return verdicts


def _described(root: Path, commits: list[str], fmt: str, *options: str) -> str:
    """``git log`` of exactly ``commits`` in their order, each described by ``fmt`` and
    followed by the files its own diff (a merge's against its first parent) names."""
    return gitstore.run(
        root,
        *options,
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--name-only",
        "-z",
        "--diff-merges=first-parent",
        f"--format={fmt}",
        data="".join(c + "\n" for c in commits).encode(),
    ).decode("utf-8", "replace")


def _config_changes(root: Path, commits: list[str]) -> set[str]:
    """The commits whose own diff (a merge's against its first parent) changes the
    config. Not ``git log -- memgov.yaml``: that also lists a merge whose config only
    came from its other parent, which its signer did not write."""
    token = f"<{os.urandom(12).hex()}>"
    out = _described(root, commits, f"{token}%H{token}")
    found = set()
    parts = out.split(token)
    for commit, names in zip(parts[1::2], parts[2::2], strict=False):
        if CONFIG_FILE in (n.strip("\n") for n in names.split("\0")):
            found.add(commit)
    return found


def trust_config_at(root: Path, commit: str) -> None:
    """``commit``'s config is the trusted one: a maintainer re-decided (ratified) it,
    or it is a new team store's first (``memgov team init``, ``HEAD``)."""
    blob = _config_blob(root, f"{commit}:{CONFIG_FILE}")
    if blob is not None:
        team_state.trust_config_blob(root / ".git" / "memgov", blob)


def has_trusted_config(root: Path) -> bool:
    return team_state.trusted_config_blob(root / ".git" / "memgov") is not None


def changes_config(verdict: Verdict) -> bool:
    return CONFIG_FILE in verdict.files


@dataclass(frozen=True)
class _Signature:
    commit: str
    code: str
    principal: str
    author: str
    subject: str
    files: tuple[str, ...] = field(default=())


def _signatures(root: Path, commits: list[str], signers: tuple[str, ...]) -> list[_Signature]:
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=root / ".git", prefix="memgov-signers-", delete=False
    ) as handle:
        handle.write(
            "".join(f'{line.split()[0]} namespaces="git" {_key(line)}\n' for line in signers)
        )
    # records and fields are cut by a token drawn now: a commit's subject or author (the
    # pusher's own bytes) cannot forge a row of this output
    record, sep = f"<{os.urandom(12).hex()}>", f"<{os.urandom(12).hex()}>"
    try:
        out = _described(
            root,
            commits,
            f"{record}%H{sep}%G?{sep}%GS{sep}%an{sep}%ae{sep}%s{sep}",
            "-c",
            f"gpg.ssh.allowedSignersFile={handle.name}",
        )
    finally:
        os.unlink(handle.name)
    wanted = set(commits)
    rows: dict[str, _Signature] = {}
    for chunk in out.split(record)[1:]:
        fields = chunk.split(sep)
        if len(fields) != 7:
            continue
        commit, code, principal, name, email, subject, names = fields
        if commit not in wanted or commit in rows:
            continue
        files = tuple(p.strip("\n") for p in names.split("\0") if p.strip("\n"))
        rows[commit] = _Signature(
            commit, code, principal, gitstore.actor_of(name, email), subject.strip(), files
        )
    # a commit git did not describe is checked as one without a signature
    return [rows.get(c, _Signature(c, "E", "", "?", "", ())) for c in commits]


def _key(line: str) -> str:
    """The key part of an allowed_signers line: what follows the principal (and any
    options, which memgov replaces by its own ``namespaces="git"``)."""
    parts = line.split()
    at = next(i for i, p in enumerate(parts) if p.startswith(("ssh-", "ecdsa-", "sk-")))
    return " ".join(parts[at : at + 2])


def _judge(row: _Signature, config: Config | None, signers: tuple[str, ...]) -> Verdict:
    def verdict(status: str, why: str = "", signer: str | None = None) -> Verdict:
        return Verdict(row.commit, row.author, signer, status, why, row.subject, row.files)

    if config is None:
        return verdict("untrusted", "the config before it cannot be read, so no key can be checked")
    if not signers:
        return verdict("self-declared")
    if row.code != "G":
        return verdict("untrusted", _WHY.get(row.code, f"signature status {row.code}"))
    if not config_lists(config, row.principal):
        return verdict(
            "untrusted", f"signed by {row.principal}, who is not a maintainer", row.principal
        )
    if row.author != gitstore.COMMITTER[0] and not same_actor(row.author, row.principal):
        return verdict(
            "untrusted",
            f"signed by {row.principal} for another author ({row.author})",
            row.principal,
        )
    return verdict("verified", signer=row.principal)


# ------------------------------------------------------------------ local record
def untrusted(state_dir: Path) -> list[Verdict]:
    """The untrusted commits this clone has seen and no maintainer re-decided."""
    return [
        Verdict(
            str(row["commit"]),
            str(row.get("author", "")),
            row.get("signer") if isinstance(row.get("signer"), str) else None,
            "untrusted",
            str(row["why"]),
            str(row.get("subject", "")),
            tuple(str(f) for f in row.get("files", []) if isinstance(f, str)),
        )
        for row in team_state.untrusted_rows(state_dir)
    ]


def remember_untrusted(
    state_dir: Path, verdicts: Iterable[Verdict], resolved: set[str]
) -> list[Verdict]:
    """Add these untrusted verdicts to the record, drop the ``resolved`` commits; the
    record as it now is."""
    kept = {v.commit: v for v in untrusted(state_dir) if v.commit not in resolved}
    for v in verdicts:
        if v.status == "untrusted" and v.commit not in resolved:
            kept[v.commit] = v
    team_state.write_rows(
        state_dir, team_state.UNTRUSTED_FILE, [v.to_dict() for v in kept.values()]
    )
    return list(kept.values())
