"""The front-matter writing fast path writes what ``yaml.dump`` writes, byte for byte.

:func:`core.domain.fastdump.dump` either declines (None) or returns exactly the text
of ``yaml.dump`` with the arguments :meth:`Memory.to_markdown` passes (libyaml's
emitter, as every record is written). Thousands of random records of the front
matter's shape are compared, their strings made of the pieces YAML treats apart:
its indicators, its own words (null, booleans, numbers, dates), quotes, line breaks
of every kind, spaces beside breaks, unicode inside and outside the BMP, control
characters, and lines long enough to fold.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from core.domain import fastdump
from core.domain.record import Memory, Source
from core.domain.record.model import yaml_front

#: the pieces random strings are made of
PIECES = [
    *("a", "Z", "q", "word", "The quick brown fox", "0", "9", "_", "."),
    *(" ", "  ", "\n", "\n\n", "\n\n\n", ":", ": ", "#", " #", "-", "- ", "?", "? "),
    *("'", "''", '"', "\\", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@"),
    *("`", "---", "...", "~", "=", "<<", "+"),
    *("null", "Null", "NULL", "true", "False", "yes", "No", "on", "OFF", "y", "n"),
    *("1", "1.5", "-3", "+4", "0x1F", "0o17", "017", "1_000", "1:30", "190:20:30"),
    *("2024-01-02", "2024-01-02T03:04:05Z", "2026-01-02T03:04:05.678901+00:00"),
    *(".inf", "-.Inf", ".NaN", "1e3", "1.0e+3", "6.8523015e+5"),
    *("é", "中文", "—", "\u00a0", "\u2027", "\u202a", "\ud7ff", "\ue000", "\ufefe"),
    *("\uff00", "\ufffd", "\u2028", "\u2029", "\x85", "\ufeff", "\ufffe", "\x7f", "\x80"),
    *("\t", "\r", "\r\n", "\x07", "\x00", "\x1b", "😀", "\U00010000"),
    *("https://example.com/a?b=c#d", "claude-code:shop/user_topic_00001.md"),
    *("- [Topic 3](user_topic_00003.md) — module m3", "name: x\ndescription: Topic 3: y\n"),
]


#: pieces the fast path writes itself (most of them plain, some quoted)
TAME = [p for p in PIECES if fastdump.dump({"k": p}) is not None]


def random_string(rng: random.Random, wild: float = 1.0) -> str:
    """A random string: ``wild`` the chance it may hold any piece (else only pieces
    the fast path writes, so a whole record of them takes it)."""
    if rng.random() >= wild:
        return "".join(rng.choice(TAME) for _ in range(rng.randint(1, 8)))
    roll = rng.random()
    if roll < 0.05:
        return ""
    if roll < 0.12:  # long: near and past the width libyaml folds at, and the fast path's cap
        words = [
            rng.choice(["word", "longer", "x", " ", "\n"]) for _ in range(rng.randint(60, 400))
        ]
        return " ".join(words)
    if roll < 0.40:  # plain-looking text, as most fields are
        return " ".join(
            rng.choice(["run", "the", "checks", "m12", "Topic", "é", "—"])
            for _ in range(rng.randint(1, 8))
        )
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))


def random_scalar(rng: random.Random, wild: float = 1.0) -> Any:
    roll = rng.random()
    if roll < 0.70:
        return random_string(rng, wild)
    if roll < 0.78:
        return None
    if roll < 0.84:
        return rng.choice([True, False])
    if roll < 0.92:
        return rng.choice([0, 1, -1, 7, 10**20, -(10**30), rng.randint(-1000, 10**6)])
    return rng.choice(
        [
            0.7,
            0.0,
            -0.0,
            1.0,
            1e-05,
            1e20,
            1.5e300,
            float("inf"),
            float("-inf"),
            float("nan"),
            round(rng.random(), 4),
            rng.random() * 10 ** rng.randint(-30, 30),
        ]
    )


def random_key(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.9:
        return rng.choice(
            ["task", "evidence", "file", "line", "format", "front", "head", "a_b", "K9"]
        )
    return rng.choice(["null", "yes", "on", "1", "x y", "k:", "-k", "", "é", "a" * 130, 3, None])


def random_mapping(rng: random.Random, depth: int, wild: float = 1.0) -> dict[Any, Any]:
    data: dict[Any, Any] = {}
    for _ in range(rng.randint(0 if rng.random() < wild * 0.05 else 1, 6)):
        key = random_key(rng) if rng.random() < wild else "k" + str(rng.randint(0, 9))
        data[key] = random_value(rng, depth + 1, wild)
    return data


def random_value(rng: random.Random, depth: int, wild: float = 1.0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.12:
        return random_mapping(rng, depth, wild)
    if depth < 3 and roll < 0.2:
        items = rng.randint(0 if rng.random() < wild * 0.1 else 1, 4)
        return [
            random_mapping(rng, depth, wild)
            if rng.random() < 0.7
            else random_value(rng, depth + 1, wild)
            for _ in range(items)
        ]
    return random_scalar(rng, wild)


def random_front_matter(rng: random.Random) -> dict[str, Any]:
    """A record's front matter's shape: its fields in order, a source, sources, an
    origin and a provenance, each field's value random: in most records each string
    may hold any piece only now and then (so some records take the fast path whole)."""
    wild = rng.choice([0.0, 0.02, 0.1, 1.0])
    data: dict[str, Any] = {
        "id": rng.choice(["topic-00271-c536aa53", random_string(rng, wild)]),
        "title": random_string(rng, wild),
        "type": rng.choice(["semantic", "preference", random_string(rng, wild)]),
        "scope": "private",
        "status": rng.choice(["active", "conflict"]),
        "subject": random_string(rng, wild),
        "attribute": random_string(rng, wild),
        "condition": rng.choice([None, random_string(rng, wild)]),
        "value": random_scalar(rng, wild),
        "source": {
            "task": random_string(rng, wild),
            "message_index": rng.choice([None, 3]),
            "evidence": random_string(rng, wild),
            "file": random_string(rng, wild),
            "line": rng.randint(1, 999),
        },
        "sources": [random_mapping(rng, 1, wild) for _ in range(rng.randint(0, 2))],
        "confidence": round(rng.random(), 4),
        "created_at": "2026-01-02T03:04:05.678901+00:00",
        "usage_count": 0,
        "origin": random_mapping(rng, 1, wild),
        "provenance": random_value(rng, 1, wild),
    }
    for name in rng.sample(list(data), rng.randint(0, 3)):
        del data[name]
    return data


def slow_dump(data: Any) -> str:
    """What :meth:`Memory.to_markdown` wrote before the fast path: ``yaml.dump``."""
    return yaml_front(data)


def test_random_front_matters_are_written_as_yaml_dump_writes_them() -> None:
    rng = random.Random(20261207)
    fast = 0
    for _ in range(4000):
        data = random_front_matter(rng)
        written = fastdump.dump(data)
        if written is not None:
            fast += 1
            assert written == slow_dump(data), data
    assert fast > 800  # the fast path is taken, not declined every time


def test_random_strings_alone_are_written_as_yaml_dump_writes_them() -> None:
    rng = random.Random(7)
    fast = 0
    for _ in range(20000):
        value = random_string(rng)
        data = {"key": value, "nested": {"inner": value}, "listed": [{"item": value}, value]}
        written = fastdump.dump(data)
        if written is not None:
            fast += 1
            assert written == slow_dump(data), repr(value)
    assert fast > 8000


def test_every_short_string_of_two_pieces() -> None:
    """Each pair of pieces (an indicator after a space, a break after a quote...), as
    a top-level value and as a nested one."""
    for first in PIECES:
        for second in PIECES:
            value = first + second
            data = {"key": value, "map": {"k": value}, "seq": [value, {"k": value}]}
            written = fastdump.dump(data)
            if written is not None:
                assert written == slow_dump(data), repr(value)


def test_a_shared_mapping_an_empty_one_and_odd_types_are_left_to_yaml() -> None:
    shared = {"a": "b"}
    assert fastdump.dump({"x": shared, "y": shared}) is None  # an anchor and an alias
    assert fastdump.dump({"x": {}}) is None
    assert fastdump.dump({"x": []}) is None
    assert fastdump.dump({"x": (1, 2)}) is None
    assert fastdump.dump({"x": datetime(2026, 1, 2, tzinfo=UTC)}) is None
    assert fastdump.dump({}) is None


def test_records_written_by_to_markdown_are_what_yaml_dump_wrote() -> None:
    rng = random.Random(11)
    for number in range(500):
        memory = Memory(
            id=f"topic-{number:05d}-c536aa53",
            title="".join(c for c in random_string(rng) if c.isprintable()).strip()[:200] or "t",
            type="semantic",
            scope="private",
            status="active",
            subject="project:shop",
            attribute=f"topic_{number:05d}",
            condition=None,
            value=None,
            source=Source(task="claude-code:shop/a.md", evidence="Rule 1: run the checks.", line=7),
            confidence=0.7,
            created_at=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
            verified_at=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
            origin={"format": "claude-code", "front": "name: a\ndescription: b: c\n"},
            content="Rule 1: run the checks.\n",
        )
        front = memory.front_matter()
        assert memory.to_markdown() == f"---\n{slow_dump(front)}---\nRule 1: run the checks.\n"
