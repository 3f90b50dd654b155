"""The first pass over a text's line breaks (``tells._may_break``) never hides a break
tell: with it and without it, ``_break_tells`` gives the same positions.

The texts split every evading keyword (and tokens of its rule's shape) over a line
break at every place, with every separator ``before_break`` and ``_AFTER_BREAK`` take
(quotes, ``+`` and backslashes between spaces, ``\\r``), in upper and lower case, among
lines of front matter and prose (a text of few lines, which the pass leaves to the
look one by one, is passed through it here too); and the pass must say False for most records, or it
would be no first pass at all.
"""

from __future__ import annotations

import random
import string

import pytest

from core.domain.secrets import tells
from core.domain.secrets.matching import evading_keywords

BEFORE = ("", '"', "'", " \\", "\\", " +", '" +', "' +", "\r", '"\r', " \\\r")
AFTER = ("", "  ", "\t", "+ ", ' "', "'", '  + "', "+")
_TOKEN = string.ascii_letters + string.digits + "_-./+="


def _unfiltered(data: bytes, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    with monkeypatch.context() as patched:
        patched.setattr(tells, "_may_break", lambda _low: True)
        return tells._break_tells(data)


def _token(rng: random.Random, keyword: bytes) -> bytes:
    body = "".join(rng.choice(_TOKEN) for _ in range(rng.randint(4, 40)))
    if keyword == b"s.":
        body = "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(26))
    if keyword == b"ey":
        body = "J" + body
    word = keyword.decode()
    return (word.upper() if rng.random() < 0.3 else word).encode() + body.encode()


def _split_texts(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    texts = []
    for keyword in evading_keywords():
        token = _token(rng, keyword)
        for cut in range(1, len(token)):
            before, after = rng.choice(BEFORE), rng.choice(AFTER)
            head = "".join(rng.choice(_TOKEN) for _ in range(rng.randint(0, 12)))
            line = head.encode() + token[:cut] + before.encode() + b"\n" + after.encode()
            texts.append(b"key: " + line + token[cut:] + b"\nnext: value 12\n")
    return texts


def _record(rng: random.Random, n: int) -> bytes:
    ident = f"{rng.choice(['deploy', 'ci-provider', 'editor'])}-{n}-{rng.getrandbits(32):08x}"
    words = " ".join(rng.choice(["the", "Staging", "queue", "retry", "cache"]) for _ in range(30))
    return (
        f"---\nid: {ident}\ntype: semantic\nscope: private\nstatus: active\n"
        f"subject: user:u{n % 50}\nattribute: a_{n}\nvalue: retry {n}\nsource:\n"
        f"  task: tr_2022_{n:06d}\n  message_index: {n % 40}\n"
        f"created_at: '2022-06-10T00:00:00+08:00'\nconfidence: 0.{n % 100:02d}\n---\n"
        f"{words}.\n\n**Why:** {words[:60]}\n"
    ).encode()


@pytest.mark.parametrize("seed", range(3))
def test_a_split_keyword_is_found_with_the_first_pass_as_without(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tells, "_FIRST_PASS_BREAKS", 0)  # short texts too
    texts = _split_texts(seed)
    rng = random.Random(seed)
    joined = [b"\n".join(rng.sample(texts, 20)) for _ in range(40)]
    found = 0
    for data in texts + joined:
        expected = _unfiltered(data, monkeypatch)
        assert tells._break_tells(data) == expected, data
        found += bool(expected)
    assert found > len(texts) // 2  # the texts do hold break tells


def test_records_and_prose_give_the_same_tells_and_most_need_no_second_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(7)
    records = [_record(rng, n) for n in range(400)]
    looked = 0
    for data in records:
        assert tells._break_tells(data) == _unfiltered(data, monkeypatch)
        looked += tells._may_break(data.lower())
    assert looked < len(records) // 10
