"""The front-matter fast path agrees with YAML, and records round-trip.

``fastyaml.parse`` must either decline (None) or return exactly what
``yaml.safe_load`` returns, with the same types (``1`` is not ``True``, ``1`` is
not ``1.0``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.domain import fastyaml
from core.domain.record import (
    ID_RE,
    MULTI_LINE_BAD,
    ONE_LINE_BAD,
    SCOPES,
    STATUSES,
    TYPES,
    Memory,
    Source,
    parse_memory,
)

SETTINGS = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

#: Strings YAML gives a meaning of its own, or that need quoting.
TRICKY = [
    "123", "-7", "+5", "0", "012", "0o17", "0x1A", "1_000", "1.5", ".5", "1.", "1e3",
    "1.5e3", ".inf", "-.inf", ".nan", "yes", "no", "Yes", "NO", "on", "off", "y", "n",
    "true", "False", "null", "Null", "~", "", " ", "  x", "x  ", "2027-01-01",
    "2027-01-01T10:20:00+08:00", "2027-01-01 10:20", "10:20", "1:30:00", "190:20:30",
    "a: b", "a:b", "a:", ":a", "#x", "a #b", "a#b", "- a", "-a", "--", "---", "...",
    "'", "''", "'a'", '"', '"a"', "a'b", "@x", "`x", "!x", "!!str x", "&a", "*a", "|",
    ">", "%x", "?", "? a", ",", "[a]", "{a: b}", "[]", "{}", "=", "<<", "\t", "a\tb",
    "é", "中文 文档", "emoji 🚀", "a\nb", "a\n\nb", " a\n b ", "\n", "x\n", "\u2028",
    "\x85", "\ufeff", "\x00", "\x7f", "\x1b", "\r", "a\rb", "x\u2028y", "x\x85y",
    "x\u2029", "user:liys05/project:liyyro", "env=production",
]  # fmt: skip

any_text = st.one_of(st.sampled_from(TRICKY), st.text(max_size=30))
#: what a record's one-line field may hold (no control character, no line break, no
#: lone surrogate: core.domain.record refuses those), and its multi-line text
clean_text = any_text.filter(lambda s: ONE_LINE_BAD.search(s) is None)
multi_line_text = st.one_of(any_text, st.text(max_size=80)).filter(
    lambda s: MULTI_LINE_BAD.search(s) is None
)
#: normal form of a text field on read: stripped, not empty
normal_text = clean_text.map(str.strip).filter(bool)
optional_text = st.none() | normal_text
ids = st.from_regex(ID_RE, fullmatch=True).filter(lambda s: ".." not in s)
offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
moments = st.builds(
    lambda when, tz: when.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9998, 12, 31)),
    offsets,
)


def sources(evidence: st.SearchStrategy[str]) -> st.SearchStrategy[Source]:
    return st.builds(
        Source,
        task=normal_text,
        message_index=st.none() | st.integers(0, 10_000),
        evidence=evidence,
        log=st.none() | clean_text,
        file=st.none() | clean_text,
        line=st.none() | st.integers(1, 10_000),
    )


def memories(
    text: st.SearchStrategy[str], optional: st.SearchStrategy[str | None]
) -> st.SearchStrategy[Memory]:
    evidence = multi_line_text  # newlines included
    return st.builds(
        Memory,
        id=ids,
        type=st.sampled_from(TYPES),
        scope=st.sampled_from(SCOPES),
        status=st.sampled_from(STATUSES),
        subject=text,
        attribute=text,
        content=st.text(max_size=200)
        .filter(lambda s: MULTI_LINE_BAD.search(s) is None)
        .map(lambda s: s.strip("\n")),
        confidence=st.integers(0, 10_000).map(lambda i: i / 10_000),
        created_at=moments,
        verified_at=moments,
        condition=optional,
        source=st.none() | sources(evidence),
        sources=st.lists(sources(evidence), max_size=3).map(tuple),
        expires_at=st.none() | moments,
        supersedes=st.none() | ids,
        usage_count=st.integers(0, 10**9),
        last_used_at=st.none() | moments,
        title=optional,
        value=optional,
        environment=st.none()
        | st.dictionaries(
            st.sampled_from(["node", "pnpm", "python3", "a.b", "x y", "123"]),
            clean_text,
            min_size=1,
            max_size=3,
        ),
    )


def strict_equal(a: Any, b: Any) -> bool:
    """Equal values of equal types, all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def front_matter_block(memory: Memory) -> str:
    text = memory.to_markdown()
    assert text.startswith("---\n")
    end = text.index("\n---\n")
    return text[4:end]


LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


def check_agrees(block: str) -> Any:
    """None, or what YAML reads (the pure-Python loader and libyaml's, which
    core.domain.record falls back to)."""
    fast = fastyaml.parse(block)
    if fast is None:
        return None
    for loader in LOADERS:
        try:
            slow = yaml.load(block, Loader=loader)
        except yaml.YAMLError as exc:
            raise AssertionError(f"fast path accepted what YAML rejects: {exc}") from None
        assert strict_equal(fast, slow), (block, fast, slow, loader)
    return fast


# ----------------------------------------------------------- fast path == YAML
@SETTINGS
@given(memories(clean_text, st.none() | clean_text))
def test_fast_path_agrees_with_yaml_on_what_memgov_writes(memory: Memory) -> None:
    check_agrees(front_matter_block(memory))


def test_the_fast_path_is_actually_taken_for_plain_records() -> None:
    when = datetime(2027, 3, 14, 10, 20, tzinfo=timezone(timedelta(hours=8)))
    memory = Memory(
        id="m1", type="preference", scope="private", status="active",
        subject="user:liys05/project:liyyro", attribute="output_format",
        content="Tables.", confidence=0.9, created_at=when, verified_at=when,
        source=Source(task="tr_1", message_index=7, evidence="use tables"),
        sources=(Source(task="tr_2", evidence="again"),),
        environment={"node": "20.11"},
    )  # fmt: skip
    parsed = check_agrees(front_matter_block(memory))
    assert parsed is not None
    assert parsed["source"] == {"task": "tr_1", "message_index": 7, "evidence": "use tables"}
    assert parsed["sources"] == [{"task": "tr_2", "message_index": None, "evidence": "again"}]
    assert parsed["environment"] == {"node": "20.11"}


scalar_raw = st.one_of(st.sampled_from(TRICKY), st.text(max_size=12)).filter(
    lambda s: "\n" not in s and "\r" not in s
)
keys = st.sampled_from(["id", "type", "a", "b_2", "_x", "task", "message_index", "A"])
lines = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", keys, scalar_raw),
    st.builds(lambda k: f"{k}:", keys),
    st.builds(lambda k, v: f"  {k}: {v}", keys, scalar_raw),
    st.builds(lambda k, v: f"- {k}: {v}", keys, scalar_raw),
    st.builds(lambda k, v: f"{k}:{v}", keys, scalar_raw),
    st.sampled_from(["", "  ", "# comment", "---", "-", "- ", "  - a: b", "a: 'x", "a: 'x''y'"]),
)


@SETTINGS
@given(st.lists(lines, max_size=8).map("\n".join))
@example("a: 1\nb: 1.0\nc: true\nd: ~\ne: 0o17\nf: 012")
@example("a: x\n  b: y")  # nested under a scalar: invalid YAML
@example("a:\n- b: 1\n  c: 2\n- b: 3")
@example("a:\n  b: 1\nc: 'it''s'")
@example("")
@example("\n\n")
@example("a: x\x1by")
@example("a: x\u2028y")
@example("a: 'x\ry'")
def test_fast_path_agrees_with_yaml_on_any_block(block: str) -> None:
    check_agrees(block)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("123", 123),
        ("+5", 5),
        ("1.5", 1.5),
        ("1.", 1.0),
        ("null", None),
        ("~", None),
        ("0o17", "0o17"),  # YAML 1.1: not an octal, text
        ("1e3", "1e3"),  # YAML 1.1: a float needs a dot, so text
        ("'123'", "123"),
        ("'it''s'", "it's"),
        ("''", ""),
        ("[]", []),
        ("{}", {}),
        ("user:liys05", "user:liys05"),
        ("中文", "中文"),
    ],
)
def test_scalars_the_fast_path_reads(raw: str, value: Any) -> None:
    parsed = fastyaml.parse(f"key: {raw}")
    assert parsed is not None and strict_equal(parsed, {"key": value})
    assert strict_equal(yaml.safe_load(f"key: {raw}"), {"key": value})


@pytest.mark.parametrize(
    "raw",
    ["yes", "true", "0x1A", "012", "1_000", "2027-01-01", "10:20", "1.5e+3", ".inf", '"x"',
     "a #b", "a: b", "- a", "'a", "!x", "&a", "*a", "|", ">", "@x"],
)  # fmt: skip
def test_scalars_the_fast_path_leaves_to_yaml(raw: str) -> None:
    assert fastyaml.parse(f"key: {raw}") is None


def test_only_the_null_and_boolean_words_start_with_a_letter_and_are_not_text() -> None:
    """The fast path types a plain scalar that starts with a letter as text, unless it
    is a null or boolean word, without PyYAML's resolver: true only while that resolver
    keys nothing but its bool and null patterns on a letter, and those words are the
    ones these patterns match. Checked against PyYAML itself, so an upgrade that
    changed it fails here."""
    from yaml.resolver import Resolver

    letters = [chr(c) for c in range(ord("A"), ord("z") + 1) if chr(c).isalpha()]
    keyed = {
        tag for first in letters for tag, _regex in Resolver.yaml_implicit_resolvers.get(first, [])
    }
    assert keyed == {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
    assert None not in Resolver.yaml_implicit_resolvers  # no pattern for every scalar
    words: set[str] = set()
    for first in letters:
        for tag, regex in Resolver.yaml_implicit_resolvers.get(first, []):
            for word in fastyaml.NULL_WORDS | fastyaml.BOOL_WORDS | {"y", "n", "Y", "N", "nil"}:
                if regex.match(word):
                    words.add(word)
                    assert tag.endswith("null") == (word in fastyaml.NULL_WORDS), word
    assert words == fastyaml.NULL_WORDS | fastyaml.BOOL_WORDS
    for raw in [*TRICKY, *fastyaml.NULL_WORDS, *fastyaml.BOOL_WORDS, "y", "N", "nil", "Off2"]:
        if "\n" not in raw:
            check_agrees(f"key: {raw}")


def test_the_fast_path_refuses_what_yamls_reader_refuses() -> None:
    from yaml.reader import Reader

    refused = [c for c in range(0x110000) if Reader.NON_PRINTABLE.match(chr(c))]
    ours = [c for c in range(0x110000) if fastyaml._NON_PRINTABLE.match(chr(c))]
    assert ours == refused
    assert 0x0 in ours and 0xD800 in ours and 0xFEFF not in ours


def test_a_plain_record_is_read_without_pyyaml() -> None:
    """The fast path imports no part of PyYAML (a command that reads records and
    memgov.yaml pays for none of it); a record it declines loads PyYAML then."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from core.domain.record import parse_memory\n"
        "text = '---\\nid: m1\\ntype: semantic\\nscope: private\\nstatus: active\\n"
        "subject: user:me\\nattribute: editor\\nconfidence: 0.9\\n"
        "created_at: \\'2027-01-01T10:00:00+08:00\\'\\n"
        "verified_at: \\'2027-01-01T10:00:00+08:00\\'\\n---\\nUses vim.\\n'\n"
        "parse_memory(text, path='m1.md')\n"
        "print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith('yaml.')))\n"
        "parse_memory(text.replace('type: semantic', 'type: \"semantic\"'), path='m1.md')\n"
        "print('yaml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "True"], done.stdout


def test_duplicate_keys_are_left_to_yaml() -> None:
    assert fastyaml.parse("a: 1\na: 2") is None
    assert fastyaml.parse("s:\n  a: 1\n  a: 2") is None


# ------------------------------------------------------------------ round trips
@SETTINGS
@given(memories(normal_text, optional_text))
@example(
    Memory(
        id="m", type="semantic", scope="team", status="conflict", subject="yes",
        attribute="123", content="    code\n\n  - item", confidence=0.0,
        created_at=datetime(2027, 1, 1, tzinfo=UTC),
        verified_at=datetime(2027, 1, 1, tzinfo=timezone(timedelta(hours=-9, minutes=-30))),
        condition="2027-01-01", title="null", value="a #b",
        source=Source(task="#x", evidence="line one\nline two: with colon\n- dash"),
    )
)  # fmt: skip
def test_parse_memory_of_to_markdown_is_the_memory(memory: Memory) -> None:
    back = parse_memory(memory.to_markdown())
    assert back == memory
    for name in ("subject", "attribute", "condition", "title", "value", "supersedes"):
        assert type(getattr(back, name)) is type(getattr(memory, name)), name
    assert back.sources == memory.sources
    assert back.source == memory.source


@SETTINGS
@given(memories(normal_text, optional_text))
def test_to_markdown_is_stable(memory: Memory) -> None:
    text = memory.to_markdown()
    assert parse_memory(text).to_markdown() == text


@pytest.mark.parametrize("empty", ["", " ", "   "])
def test_empty_optional_text_reads_back_as_none(empty: str) -> None:
    when = datetime(2027, 3, 14, 10, 20, tzinfo=UTC)
    memory = Memory(
        id="m", type="preference", scope="private", status="active", subject="s",
        attribute="a", content="x", confidence=1.0, created_at=when, verified_at=when,
        condition=empty, title=empty, value=empty,
    )  # fmt: skip
    back = parse_memory(memory.to_markdown())
    assert (back.condition, back.title, back.value) == (None, None, None)
