"""doctor's secret scan of the history walks only what was committed since its last
walk (the tips it walked and the hits they reach: ``walked-history.json`` in the
store's local state), and gives what a cold walk of every object gives: after a
commit, a branch deleted, a reset and a new commit that rewrite the walked tip away
(a credential planted in the new history), ``scrub-history``, and with the file
missing, of other rules, or garbage."""

from __future__ import annotations

import json
import random
import string
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core.api.doctor import diagnose, scrub_history
from core.domain import secrets
from core.store.secret_history import (
    CLEAN_FILE,
    WALKED_FILE,
    _tips,
    history_hits,
    new_objects,
)
from core.store.store import Store
from tests.conftest import ACTOR, git


def _token(seed: int) -> str:
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def _cold(root: Path) -> set[tuple[str, tuple[str, ...]]]:
    """Every blob of every ref's history that holds a credential, and its rules, found
    without memgov's walk: ``git rev-list --objects --all`` and the scanner."""
    ids = git(root, "rev-list", "--objects", "--all", "--no-object-names").split()
    out = set()
    for sha in ids:
        if git(root, "cat-file", "-t", sha).strip() != "blob":
            continue
        text = subprocess.run(
            ["git", "-C", str(root), "cat-file", "blob", sha], capture_output=True, check=True
        ).stdout.decode("utf-8", "replace")
        rules = tuple(sorted({f.rule_id for f in secrets.scan(text)}))
        if rules:
            out.add((sha, rules))
    return out


def _seen(store: Store) -> set[tuple[str, tuple[str, ...]]]:
    return {(h.blob, h.rules) for h in history_hits(store)}


def _commit(store: Store, rel: str, text: str, message: str) -> None:
    path = store.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    git(store.root, "add", rel)
    git(store.root, "commit", "-q", "-m", message)


def _log(day: int, words: str) -> tuple[str, str]:
    rel = f"logs/2025/01/2025-01-{day:02d}.md"
    return rel, f"# 2025-01-{day:02d}\n\n## task t{day}\n\n- [0] 10:00 user: {words}\n"


def _walked(store: Store) -> dict[str, Any]:
    data = json.loads((store.state_dir / WALKED_FILE).read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_each_change_gives_what_a_cold_walk_gives(store: Store) -> None:
    root = store.root
    assert _seen(store) == _cold(root) == set()
    assert _walked(store)["tips"] == _tips(root)
    # a commit that holds a credential, and one that takes it out: found in the history
    rel, text = _log(2, f"token {_token(1)}")
    _commit(store, rel, text, "a token")
    first = _seen(store)
    assert len(first) == 1 and first == _cold(root)
    _commit(store, rel, _log(2, "token (removed)")[1], "out by hand")
    assert _seen(store) == first == _cold(root)
    assert set(_walked(store)["hits"]) == {blob for blob, _r in first}
    # a branch with a credential of its own: found; the branch deleted: gone
    git(root, "checkout", "-q", "-b", "side")
    _commit(store, *_log(3, f"another {_token(2)}"), "side token")
    git(root, "checkout", "-q", "-")
    assert len(_seen(store)) == 2 and _seen(store) == _cold(root)
    git(root, "branch", "-q", "-D", "side")
    assert _seen(store) == first == _cold(root)
    # a rewrite that takes the walked tip away: the token's commits reset away, and a
    # credential planted in a new history below the new tip
    git(root, "reset", "-q", "--hard", "HEAD~2")
    _commit(store, *_log(4, f"planted {_token(3)}"), "planted")
    _commit(store, *_log(5, "a clean day"), "clean")
    planted = _seen(store)
    assert planted == _cold(root) and len(planted) == 1 and planted != first
    # the cache deleted, of other rules, garbage: each rebuilt, the same answer
    for garbage in (None, b"", b"{", b"[]", b"\x00\xff", json.dumps({"rules": "rules 00"})):
        path = store.state_dir / WALKED_FILE
        if garbage is None:
            path.unlink()
        else:
            path.write_bytes(garbage if isinstance(garbage, bytes) else garbage.encode())
        assert _seen(store) == planted
        assert _walked(store)["tips"] == _tips(root)


@pytest.mark.parametrize(
    "forged",
    [
        {"tips": ["0" * 40]},  # names no object
        {"tips": ["not an id"]},
        {"tips": []},
        {"hits": {"abc": ["github-pat"]}},
        {"hits": {"1" * 40: "github-pat"}},
        {"hits": {"1" * 40: ["GITHUB PAT; rm -rf /"]}},
    ],
)
def test_a_cache_of_the_wrong_shape_is_walked_again(
    store: Store, forged: dict[str, object]
) -> None:
    rel, text = _log(2, f"token {_token(4)}")
    _commit(store, rel, text, "a token")
    expected = _cold(store.root)
    assert _seen(store) == expected
    data = {**_walked(store), **forged}
    (store.state_dir / WALKED_FILE).write_text(json.dumps(data), "utf-8")
    (store.state_dir / CLEAN_FILE).unlink()  # so a walk that trusted the file finds nothing
    assert _seen(store) == expected


def test_a_tip_rewritten_away_is_never_trusted(store: Store) -> None:
    """The walked tip still exists as an object (unreachable, before a gc) after a
    reset; what the new history plants below the new tip is found, with the cache
    naming the old tip (what the walk excludes is only what that tip reaches)."""
    root = store.root
    _commit(store, *_log(2, "clean"), "clean")
    assert _seen(store) == set()
    old = _walked(store)["tips"]
    git(root, "reset", "-q", "--hard", "HEAD~1")
    _commit(store, *_log(3, f"planted {_token(5)}"), "planted")
    _commit(store, *_log(4, "clean again"), "clean again")
    # the cache as if it had walked the new tip's parent: still the old tip's
    data = {**_walked(store), "tips": old, "hits": {}}
    (store.state_dir / WALKED_FILE).write_text(json.dumps(data), "utf-8")
    found = _seen(store)
    assert len(found) == 1 and found == _cold(root)


def test_a_commit_since_the_last_walk_is_all_that_is_listed(store: Store) -> None:
    root = store.root
    _commit(store, *_log(2, "one"), "one")
    assert _seen(store) == set()
    walked = _walked(store)["tips"]
    assert isinstance(walked, list)
    _commit(store, *_log(3, "two"), "two")
    since = sorted(new_objects(root, _tips(root), walked))
    expected = git(root, "rev-list", "--objects", "--no-object-names", "HEAD", "^HEAD~1").split()
    assert [i.decode() for i in since] == sorted(expected)
    assert 0 < len(since) < len(git(root, "rev-list", "--objects", "--all").splitlines())
    assert new_objects(root, _tips(root), _tips(root)) == []


def test_doctor_finds_a_credential_committed_since_and_none_after_a_scrub(store: Store) -> None:
    root = store.root
    assert not [f for f in diagnose(store) if "credential" in f.reason]
    rel, text = _log(2, f"token {_token(6)}")
    _commit(store, rel, text, "a token")
    _commit(store, rel, _log(2, "gone")[1], "gone")
    found = [f for f in diagnose(store) if f.path == rel]
    assert len(found) == 1 and "earlier version" in found[0].reason
    assert scrub_history(store, actor=ACTOR).versions == 1
    assert not [f for f in diagnose(store) if f.path == rel]
    assert _seen(store) == _cold(root) == set()
