"""Secrets past the push guard, written as the attacks.

Two classes. A token with a combining accent after every fifth character (or
the same letters precomposed, or any other combining mark) is folded by the
scanner as it folds the other evasions, so ``remember`` refuses it in every
field. And what ``memgov sync`` pushes is scanned as it leaves: every path, the
author's and committer's name and e-mail, the message and every blob, decoded
(UTF-16/32, gzip, bzip2, xz; base64 as the scanner reads it). Those tests run
the real CLI (``memgov team init``, ``team clone``, ``sync``) on a real bare
remote in ``tmp_path``, commit by hand with git, and check that the push is
refused naming the commit, the field and the rule, never the value, and that
the remote did not move. Tokens are built at run time from a prefix and a seeded
random body (none is written in this file).
"""

from __future__ import annotations

import base64
import bz2
import gzip
import lzma
import os
import random
import shutil
import string
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path
from typing import Any

import pytest

from core.domain import secrets
from core.domain.errors import SecretBlocked, ValidationError
from core.domain.record import Source
from core.store import logs
from core.store.store import Store
from core.writing.candidate import Candidate
from core.writing.pipeline import remember

ALNUM = string.ascii_letters + string.digits
AWS_BODY = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def github_token(seed: int) -> str:
    """A made-up GitHub token: ``ghp_`` and 36 alphanumerics."""
    rng = random.Random(seed)
    token = "gh" + "p_" + "".join(rng.choice(ALNUM) for _ in range(36))
    assert secrets.scan(token)
    return token


def aws_key(seed: int) -> str:
    """A made-up AWS access key id: ``AKIA`` and 16 of its alphabet."""
    rng = random.Random(seed)
    token = "AK" + "IA" + "".join(rng.choice(AWS_BODY) for _ in range(16))
    assert secrets.scan(token)
    return token


def accented(token: str, mark: str = "\u0301", every: int = 5) -> str:
    """``mark`` after every ``every``-th character (the attack: a combining acute)."""
    return "".join(c + mark * ((i + 1) % every == 0) for i, c in enumerate(token))


# ---------------------------------------------------------------- combining marks
HIDINGS = {
    "acute every 5th": lambda t: accented(t),
    "acute on each": lambda t: accented(t, every=1),
    "two marks every 3rd": lambda t: accented(t, "\u0308\u0301", 3),
    "precomposed every 5th": lambda t: unicodedata.normalize("NFC", accented(t)),
    "precomposed on each": lambda t: unicodedata.normalize("NFC", accented(t, every=1)),
    "enclosing circle": lambda t: accented(t, "\u20dd", 2),
    "hebrew point": lambda t: accented(t, "\u05b0"),
    "cyrillic titlo": lambda t: accented(t, "\u0483", 4),
    "thai vowel": lambda t: accented(t, "\u0e31"),
    "extended marks": lambda t: accented(t, "\u1ab0\u1dc0", 3),
    "half marks": lambda t: accented(t, "\ufe20"),
    "musical (plane 1)": lambda t: accented(t, "\U0001d167", 4),
}
PLACES = {
    "alone": "{}",
    "prose": "the deploy key is {} for now",
    "accented prose": "Le déploiement utilise {} après la révision",
    "quoted": 'token: "{}"\n',
    "json escape": None,  # the marks written as \\uXXXX
    "hebrew prose": "שלום {} עולם",
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("hiding", HIDINGS)
@pytest.mark.parametrize("make", [github_token, aws_key])
def test_a_token_with_combining_marks_is_found_as_combining(
    make: Any, hiding: str, place: str
) -> None:
    token = make(len(hiding) + len(place))
    hidden = HIDINGS[hiding](token)
    form = PLACES[place]
    if form is None:
        text = '{"token": "' + hidden.encode("ascii", "backslashreplace").decode() + '"}'
        text = text.replace("\\U0001d167", "\\ud834\\udd67")
    else:
        text = form.format(hidden)
    findings = secrets.scan(text)
    assert findings, f"{hiding} in {place} was not found"
    expected = "escape" if form is None else "combining"
    assert {getattr(f, "via", "") for f in findings} == {expected}
    assert not secrets.is_clean(text)
    assert token not in secrets.redact(text) and token[:8] not in secrets.redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "Le déploiement se fait après la révision; l'équipe vérifie la sécurité.",
        "Überprüfungsverfahren für Änderungen: die Größe der Übertragung wird geprüft.",
        unicodedata.normalize("NFD", "Überprüfungsverfahren, naïve café résumé, ёлка"),
        "Ещё одна ёлка: ключ не хранится в заметках.",
        "שָׁלוֹם עוֹלָם, नमस्ते दुनिया, สวัสดีชาวโลก",
        "Straße_2024 Überprüfungsverfahren_v2 déploiement-42",
    ],
)
def test_accented_prose_is_no_secret(text: str) -> None:
    assert secrets.scan(text) == []


# ------------------------------------------------------------------- remember
SUBJECT = "project:liyyro"


def _candidate(store: Store, clock: Any, field: str, hidden: str) -> Candidate:
    task = "tr_1"
    if field == "task":
        task = f"tr_{hidden}"
    rel, _ = logs.append_message(
        store.root, task=task, index=1, role="user", text="the deploy key", when=clock.now
    )
    fields: dict[str, Any] = {
        "content": "Deploys read the key from the vault.",
        "type": "semantic",
        "scope": "team",
        "subject": SUBJECT,
        "attribute": "deploy_key",
        "value": "vault",
        "source": Source(task=task, message_index=1, evidence="the deploy key", log=rel),
        "s1": 0.9,
        "s2": 0.9,
        "confidence": 0.7,
    }
    if field == "content":
        fields["content"] = f"Deploy with {hidden} please"
    elif field == "title":
        fields["title"] = f"deploy {hidden}"
    elif field == "attribute":
        fields["attribute"] = f"key_{hidden}"
    elif field == "condition":
        fields["condition"] = f"when {hidden}"
    return Candidate(**fields)


@pytest.mark.parametrize("field", ["content", "title", "attribute", "condition", "task"])
@pytest.mark.parametrize("hiding", ["acute every 5th", "precomposed every 5th"])
def test_remember_refuses_a_token_with_combining_marks_in_any_field(
    tmp_path: Path, clock: Any, field: str, hiding: str
) -> None:
    team = Store.init(tmp_path / "team", scope="team", maintainers=("lead",), clock=clock)
    token = github_token(len(field))
    hidden = HIDINGS[hiding](token)
    try:
        outcome = remember(team, _candidate(team, clock, field, hidden), actor="lead")
    except (SecretBlocked, ValidationError) as refused:
        said = str(refused)
    else:
        assert outcome.kind == "refused", f"{field}: {outcome.kind}"
        said = repr(outcome) + str(outcome.to_dict())
    assert token not in said and hidden not in said
    assert Store(team.root).memories == {}
    for path in team.root.rglob("*"):
        if path.is_file() and ".git" not in path.parts and "logs" not in path.parts:
            text = path.read_text("utf-8", "replace")
            assert hidden not in text and token not in text, path


# ---------------------------------------------------------------- what a push sends
ROOT = Path(__file__).resolve().parents[2]
MAINTAINER = "lead@example.com"


def run_git(
    cwd: Path, *args: str, env: dict[str, str] | None = None, data: bytes | None = None
) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.decode("utf-8", "replace").strip()


class Clone:
    """A team store's remote (a bare repository on disk) and a clone of it made by
    ``memgov team clone``, with the CLI run as a separate process."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.home = tmp / "home"
        self.home.mkdir()
        self.remote = tmp / "remote.git"
        run_git(tmp, "init", "-q", "--bare", "-b", "main", str(self.remote))
        self.cli("team", "init", "--remote", str(self.remote), "--store", str(tmp / "first"))
        self.root = tmp / "clone"
        self.cli("team", "clone", str(self.remote), str(self.root))

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "MEMGOV_ACTOR": MAINTAINER,
            "PYTHONPATH": str(ROOT),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "lead",
            "GIT_AUTHOR_EMAIL": MAINTAINER,
            "GIT_COMMITTER_NAME": "lead",
            "GIT_COMMITTER_EMAIL": MAINTAINER,
        }

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", *args],
            cwd=self.tmp,
            capture_output=True,
            text=True,
            env=self.env(),
        )
        assert not check or done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def git(self, *args: str, env: dict[str, str] | None = None, data: bytes | None = None) -> str:
        return run_git(self.root, *args, env={**self.env(), **(env or {})}, data=data)

    def remote_main(self) -> str:
        return run_git(self.tmp, "--git-dir", str(self.remote), "rev-parse", "refs/heads/main")

    def commit(self, files: dict[str, bytes], message: str = "by hand", **env: str) -> str:
        for rel, data in files.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_bytes(data)
            self.git("add", "--", rel)
        self.git("commit", "-q", "--no-verify", "-m", message, env=env)
        return self.git("rev-parse", "HEAD")

    def sync(self) -> subprocess.CompletedProcess[str]:
        return self.cli("sync", "--store", str(self.root), check=False)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A remote and its clone made once (``team init`` and ``team clone`` as separate
    processes, a few seconds); each test gets a copy of it."""
    folder = tmp_path_factory.mktemp("push-guard-template")
    Clone(folder)
    return folder


@pytest.fixture
def clone(template: Path, tmp_path: Path) -> Clone:
    """A copy of the template: its clone's origin set to the copy's own remote."""
    target = tmp_path / "team"
    shutil.copytree(template, target, symlinks=True)
    copied = Clone.__new__(Clone)
    copied.tmp, copied.home = target, target / "home"
    copied.remote, copied.root = target / "remote.git", target / "clone"
    copied.git("remote", "set-url", "origin", str(copied.remote))
    return copied


def refused(clone: Clone, before: str, commit: str, token: str, *said: str) -> str:
    """The sync was refused naming the commit, ``said`` (field and rule), never the
    token; nothing reached the remote."""
    done = clone.sync()
    assert done.returncode != 0, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "push blocked by the secret scanner" in out, out
    assert commit[:10] in out, out
    for part in said:
        assert part in out, out
    assert token not in out and token[4:16] not in out
    assert clone.remote_main() == before
    return out


def _utf16_in_binary(text: str) -> bytes:
    rng = random.Random(3)
    noise = bytes(rng.randrange(256) for _ in range(3000))
    return noise + text.encode("utf-16-le") + noise


FILES: dict[str, tuple[str, Any, str]] = {
    # name: (path, bytes of the file made from the token, what the error says)
    "utf-16 with a BOM": (
        "notes/ops.txt",
        lambda t: f"a\nkey {t}\n".encode("utf-16"),
        "notes/ops.txt (utf16le):2: github-pat",
    ),
    "utf-16 BE, no BOM": (
        "notes/ops.txt",
        lambda t: f"a\nkey {t}\n".encode("utf-16-be"),
        "notes/ops.txt (utf16be):2: github-pat",
    ),
    "utf-16 LE, no BOM": (
        "ops.txt",
        lambda t: f"key {t}\n".encode("utf-16-le"),
        "ops.txt (utf16le):1: github-pat",
    ),
    "utf-32 with a BOM": (
        "ops.txt",
        lambda t: f"key {t}\n".encode("utf-32"),
        "ops.txt (utf32le):1: github-pat",
    ),
    "utf-32 BE, no BOM": (
        "ops.txt",
        lambda t: f"key {t}\n".encode("utf-32-be"),
        "ops.txt (utf32be):1: github-pat",
    ),
    "gzip": (
        "backup/notes.md.gz",
        lambda t: gzip.compress(f"x\ny\nkey {t}\n".encode()),
        "backup/notes.md.gz (gzip):3: github-pat",
    ),
    "gzip of utf-16": (
        "notes.gz",
        lambda t: gzip.compress(f"key {t}".encode("utf-16")),
        "notes.gz (gzip, utf16le):1: github-pat",
    ),
    "gzip in gzip": (
        "notes.gz.gz",
        lambda t: gzip.compress(gzip.compress(f"key {t}".encode())),
        "(gzip, gzip):1: github-pat",
    ),
    "two gzip members": (
        "notes.gz",
        lambda t: gzip.compress(b"clean\n") + gzip.compress(f"key {t}".encode()),
        "notes.gz (gzip):2: github-pat",
    ),
    "bzip2": (
        "notes.bz2",
        lambda t: bz2.compress(f"key {t}".encode()),
        "notes.bz2 (bzip2):1: github-pat",
    ),
    "xz": ("notes.xz", lambda t: lzma.compress(f"key {t}".encode()), "notes.xz (xz):1: github-pat"),
    "zlib": (
        "notes.z",
        lambda t: zlib.compress(f"key {t}".encode()),
        "notes.z (zlib):1: github-pat",
    ),
    "utf-16 inside binary": (
        "image.png",
        lambda t: _utf16_in_binary(f"key {t}"),
        "image.png (utf16le strings): github-pat",
    ),
    "ascii inside binary": (
        "image.png",
        lambda t: b"\x89PNG\0\0" + t.encode() + b"\0\xff",
        "image.png: github-pat",
    ),
    "base64": (
        "notes.md",
        lambda t: base64.b64encode(f"export KEY={t}\n".encode()) + b"\n",
        "notes.md:1: github-pat",
    ),
    "combining accents": (
        "notes.md",
        lambda t: f"key {accented(t)}\n".encode(),
        "notes.md:1: github-pat",
    ),
    "symlink target": ("", None, ""),  # made below, with os.symlink
}


@pytest.mark.parametrize("kind", FILES)
def test_a_token_in_a_file_of_any_encoding_is_not_pushed(clone: Clone, kind: str) -> None:
    token = github_token(100 + len(kind))
    before = clone.remote_main()
    rel, make, said = FILES[kind]
    if make is None:
        os.symlink(token, clone.root / "link")
        clone.git("add", "link")
        clone.git("commit", "-q", "--no-verify", "-m", "a link")
        commit, said = clone.git("rev-parse", "HEAD"), "link:1: github-pat"
    else:
        commit = clone.commit({rel: make(token)})
    refused(clone, before, commit, token, said)


PATHS = {
    "file name": lambda t: f"{t}",
    "folder name": lambda t: f"memories/{t}/note.md",
    "cut by a folder": lambda t: f"{t[:12]}/{t[12:]}.md",
    "accented name": lambda t: f"notes/{accented(t)}.md",
    "empty file": lambda t: f"notes/{t}.keep",
}


@pytest.mark.parametrize("kind", PATHS)
def test_a_token_in_a_path_is_not_pushed(clone: Clone, kind: str) -> None:
    token = aws_key(200 + len(kind))
    before = clone.remote_main()
    commit = clone.commit({PATHS[kind](token): b"" if kind == "empty file" else b"nothing\n"})
    out = refused(clone, before, commit, token, "(path)", "aws-access-token")
    if kind == "cut by a folder":
        assert "characters, not shown" in out and token[:12] not in out
    else:
        assert "[secret: aws-access-token]" in out


IDENTITIES = {
    "GIT_AUTHOR_NAME": "(author name): github-pat",
    "GIT_AUTHOR_EMAIL": "(author e-mail): github-pat",
    "GIT_COMMITTER_NAME": "(committer name): github-pat",
    "GIT_COMMITTER_EMAIL": "(committer e-mail): github-pat",
}


@pytest.mark.parametrize("variable", IDENTITIES)
def test_a_token_in_an_identity_is_not_pushed(clone: Clone, variable: str) -> None:
    token = github_token(300 + len(variable))
    before = clone.remote_main()
    value = f"{token}@example.com" if variable.endswith("EMAIL") else f"Eve {token}"
    commit = clone.commit({"notes.md": b"a hand note\n"}, **{variable: value})
    refused(clone, before, commit, token, IDENTITIES[variable])


def _forged(clone: Clone, headers: str, message: bytes) -> str:
    """A commit object written by hand on the clone's main (no git porcelain would)."""
    tree = clone.git("rev-parse", "HEAD^{tree}")
    parent = clone.git("rev-parse", "HEAD")
    ident = f"lead <{MAINTAINER}> 1700000000 +0000"
    body = f"tree {tree}\nparent {parent}\nauthor {ident}\ncommitter {ident}\n{headers}\n"
    sha = clone.git(
        "hash-object", "-t", "commit", "-w", "--stdin", "--literally", data=body.encode() + message
    )
    clone.git("update-ref", "refs/heads/main", sha)
    return sha


def test_a_token_in_a_message_after_a_nul_is_not_pushed(clone: Clone) -> None:
    token = github_token(401)
    before = clone.remote_main()
    commit = _forged(clone, "", b"a clean subject\n\0\nkey " + token.encode() + b"\n")
    refused(clone, before, commit, token, "(commit message)", "github-pat")


def test_a_token_in_a_header_of_its_own_is_not_pushed(clone: Clone) -> None:
    token = aws_key(402)
    before = clone.remote_main()
    commit = _forged(clone, f"x-deploy-key {token}\n", b"a clean message\n")
    refused(clone, before, commit, token, "(commit header x-deploy-key)", "aws-access-token")


def test_a_token_in_a_message_of_another_encoding_is_not_pushed(clone: Clone) -> None:
    token = github_token(403)
    before = clone.remote_main()
    message = f"subject\n\nkey {token}\n".encode("utf-16")
    commit = _forged(clone, "encoding UTF-16\n", message)
    refused(clone, before, commit, token, "(commit message)", "github-pat")


def test_a_compressed_bomb_is_refused_not_half_scanned(clone: Clone) -> None:
    token = github_token(404)
    before = clone.remote_main()
    engine = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = b"".join(engine.compress(b"\0" * (1 << 20)) for _ in range(70))
    data += engine.compress(f"key {token}".encode()) + engine.flush()
    commit = clone.commit({"big.gz": data})
    refused(clone, before, commit, token, "big.gz (gzip): too-large-to-scan")


def test_a_plain_git_push_of_a_tag_or_a_branch_is_scanned_too(clone: Clone) -> None:
    token = github_token(405)
    before = clone.remote_main()
    clone.git("tag", "-a", "v1", "-m", f"release key {token}")
    done = subprocess.run(
        ["git", "push", "origin", "v1"],
        cwd=clone.root,
        capture_output=True,
        text=True,
        env=clone.env(),
    )
    assert done.returncode != 0 and "(tag message):1: github-pat" in done.stderr, done.stderr
    assert token not in done.stderr
    done = subprocess.run(
        ["git", "push", "origin", f"HEAD:refs/heads/{token}"],
        cwd=clone.root, capture_output=True, text=True, env=clone.env(),
    )  # fmt: skip
    assert done.returncode != 0 and "(ref name)" in done.stderr, done.stderr
    assert token not in done.stderr
    assert clone.remote_main() == before
    assert token not in run_git(clone.tmp, "--git-dir", str(clone.remote), "for-each-ref")


def test_clean_files_of_every_encoding_are_pushed(clone: Clone) -> None:
    """No false alarm: the same kinds of files, with no token in them, go out."""
    text = "Le déploiement se fait après la révision; ключ в хранилище.\n"
    files = {
        "a.txt": text.encode("utf-16"),
        "b.txt": text.encode("utf-32-be"),
        "c.gz": gzip.compress(text.encode()),
        "d.xz": lzma.compress(text.encode("utf-16")),
        "e.bin": bytes(random.Random(5).randrange(256) for _ in range(20000)),
        "f.md": unicodedata.normalize("NFD", text).encode(),
    }
    commit = clone.commit(files, GIT_AUTHOR_NAME="Zoë Ångström")
    done = clone.sync()
    assert done.returncode == 0, done.stdout + done.stderr
    assert clone.remote_main() == commit
