"""What is shown is redacted once per content: :func:`core.domain.secrets.redact`
answers a text it has seen from a bounded cache keyed by the rules' version and
a digest, and the cache never holds the secret.

Scans are counted by the cache's own counter (``RedactionCache.scans``), not a mock.
"""

from __future__ import annotations

import random
import string

import pytest

from core.domain import secrets
from core.domain.secrets import redaction
from core.domain.secrets.redaction import CACHE, RedactionCache


def token(seed: int) -> str:
    """A fake GitHub token: prefix + a random body (built here, never a real one)."""
    rng = random.Random(seed)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def test_the_same_text_twice_is_scanned_once_and_gives_the_same_result() -> None:
    cache = RedactionCache()
    text = f"deploy with token {token(1)} on staging"
    first = cache.redact(text)
    assert cache.scans == 1
    second = cache.redact(text)
    assert second == first
    assert (cache.scans, cache.hits) == (1, 1)
    # an equal text that is another object is the same content
    assert cache.redact("".join(list(text))) == first
    assert (cache.scans, cache.hits) == (1, 2)


def test_redact_goes_through_the_process_cache() -> None:
    text = f"a text only this test shows: {token(2)} (#{random.random()})"
    scans = CACHE.scans
    shown = secrets.redact(text)
    assert secrets.redact(text) == shown
    assert CACHE.scans == scans + 1
    assert shown == redaction._redact_uncached(text)


def test_different_texts_are_not_confused() -> None:
    cache = RedactionCache()
    texts = [
        "uses pnpm for installs",
        "uses npm for installs.",  # same length as the next one
        "uses yarn for install",
        f"token {token(3)}",
        f"token {token(4)}",  # same length, another secret
        "",
    ]
    expected = [redaction._redact_uncached(t) for t in texts]
    for _round in range(3):
        assert [cache.redact(t) for t in texts] == expected
    assert cache.scans == len(texts)
    assert expected[0] == texts[0]  # a clean text comes back as it is
    assert expected[3] == expected[4] == "token [secret: github-pat]"


def test_a_secret_is_never_shown_and_the_cache_does_not_hold_it() -> None:
    cache = RedactionCache()
    secret = token(5)
    text = f"the CI token is {secret}\nkeep it safe"
    for _ in range(3):
        shown = cache.redact(text)
        assert secret not in shown
        assert secret[4:20] not in shown
        assert "[secret: github-pat]" in shown
    held = list(cache._results.items())
    assert len(held) == 1
    (version, length, digest), value = held[0]
    assert value == shown
    assert (version, length) == (redaction.RULES_VERSION, len(text))
    assert len(digest) == 16 and secret.encode() not in digest


def test_another_rules_version_is_never_served(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = RedactionCache()
    text = f"token {token(6)}"
    cache.redact(text)
    monkeypatch.setattr(redaction, "RULES_VERSION", b"other rules")
    cache.redact(text)
    assert cache.scans == 2  # scanned again under the new rules
    monkeypatch.undo()
    cache.redact(text)
    assert cache.scans == 2  # the first rules' result is still there


def test_the_rules_version_is_a_digest_of_the_rules() -> None:
    assert redaction._rules_version() == redaction.RULES_VERSION
    assert len(redaction.RULES_VERSION) == 16


def test_the_cache_is_bounded_in_entries_and_characters() -> None:
    cache = RedactionCache(max_entries=3, max_chars=1000, max_text=500)
    for n in range(10):
        cache.redact(f"text number {n}")
    assert len(cache) == 3
    cache.redact("text number 9")  # the most recent is kept
    assert cache.scans == 10
    cache.redact("text number 0")  # the least recent went first
    assert cache.scans == 11

    cache = RedactionCache(max_entries=100, max_chars=1000, max_text=500)
    for n in range(10):
        cache.redact(f"{n:03d}" + "x" * 297)  # 300 characters each
    assert len(cache) == 3 and cache.chars == 900

    big = "y" * 501  # longer than max_text: scanned every time, never kept
    cache.clear()
    cache.redact(big)
    cache.redact(big)
    assert (cache.scans, len(cache), cache.chars) == (12, 0, 0)
