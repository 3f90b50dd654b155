"""Secrets past the push guard (issue 35, item 4), written as the attacks.

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

import random
import string
import unicodedata
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
