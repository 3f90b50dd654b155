"""The memory record (SPEC section 2): round trips and validation on read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import yaml

from core.domain import fastyaml
from core.domain.errors import ValidationError
from core.domain.record import (
    FIELD_ORDER,
    REQUIRED,
    Memory,
    Source,
    parse_memory,
    split_front_matter,
)

TZ = timezone(timedelta(hours=8))
WHEN = datetime(2027, 3, 14, 10, 20, tzinfo=TZ)
PATH = "memories/mem-1.md"


def full_memory() -> Memory:
    """Every field of SPEC section 2 set to a non-default value."""
    return Memory(
        id="deploy-command-1a2b",
        type="semantic",
        scope="team",
        status="superseded",
        subject="user:liys05/project:liyyro",
        attribute="deploy_command",
        condition="env=production",
        content="Deploy with `make release`.\n\n**Why:** the npm script was removed.\n\n"
        "**How to apply:** run it from the repo root.",
        confidence=0.85,
        created_at=WHEN,
        verified_at=WHEN + timedelta(days=2),
        expires_at=WHEN + timedelta(days=90),
        supersedes="deploy-command-0000",
        source=Source(
            task="tr_20270314_02",
            message_index=7,
            evidence="以后用 make release 部署",
            log="logs/2027/03/2027-03-14.md",
        ),
        sources=(
            Source(task="tr_20270301_01", message_index=3, evidence="npm run deploy is gone"),
            Source(task="tr_import", evidence="", file="CLAUDE.md", line=12),
        ),
        usage_count=4,
        last_used_at=WHEN + timedelta(days=3, hours=1, microseconds=250),
        title="Deploy command",
        value="make release",
        environment={"node": "20.11", "pnpm": "9"},
        origin={
            "format": "claude-code",
            "file": "feedback_x.md",
            "front": "name: x\ntype: feedback\n",
        },
        provenance={"roles": ["user", "web"], "external": True},
    )


def minimal_memory() -> Memory:
    return Memory(
        id="m1",
        type="preference",
        scope="private",
        status="active",
        subject="user:alice",
        attribute="output_format",
        content="Tables for comparisons.",
        confidence=1.0,
        created_at=WHEN,
        verified_at=WHEN,
    )


# ------------------------------------------------------------------ round trips
def test_every_field_round_trips() -> None:
    memory = full_memory()
    text = memory.to_markdown()
    back = parse_memory(text, path=PATH, rel_path=PATH)
    assert back == memory
    # field by field too, so a failure says which one
    for name in Memory.__dataclass_fields__:
        if name != "path":
            assert getattr(back, name) == getattr(memory, name), name
    assert back.path == PATH
    assert back.created_at.utcoffset() == timedelta(hours=8)


def test_minimal_record_round_trips_with_defaults() -> None:
    memory = minimal_memory()
    back = parse_memory(memory.to_markdown())
    assert back == memory
    assert back.usage_count == 0
    assert back.last_used_at is None
    assert back.expires_at is None
    assert back.condition is None
    assert back.sources == ()


def test_front_matter_is_written_in_the_fixed_field_order() -> None:
    meta, _ = split_front_matter(full_memory().to_markdown())
    assert list(meta) == [name for name in FIELD_ORDER if name in meta]
    assert list(meta) == list(FIELD_ORDER)  # every field present in the full record


def test_written_front_matter_is_plain_yaml() -> None:
    """What the fast path reads must be what a YAML loader reads."""
    text = full_memory().to_markdown()
    block = text.split("---\n")[1]
    fast, _ = split_front_matter(text)
    assert fast == yaml.safe_load(block)


def test_timestamps_keep_their_offset() -> None:
    text = full_memory().to_markdown()
    assert "created_at: '2027-03-14T10:20:00+08:00'" in text


def test_body_whitespace_survives_both_parse_paths() -> None:
    """A body starting with an indented code block keeps its indentation, whether
    the front matter is read by the fast path or by the full YAML loader."""
    body = "    make release\n\nthen check the dashboard  "
    plain = minimal_memory().with_changes(content=body)
    # a comment line (a hand edit) is outside the fast path's subset: the full YAML
    # loader reads it (a tab in the title did this once; one-line fields take none now)
    edited = plain.to_markdown().replace("---\n", "---\n# edited by hand\n", 1)
    assert fastyaml.parse(edited[4 : edited.index("\n---\n")]) is None
    assert parse_memory(plain.to_markdown()).content == body
    assert parse_memory(edited).content == body
    assert parse_memory(edited) == plain


@pytest.mark.parametrize("body", [" ", " \nstarts with a blank line", "\t\ttabs", "x\n\n   "])
def test_whitespace_at_the_start_of_the_body_is_kept_on_the_yaml_path(body: str) -> None:
    memory = minimal_memory().with_changes(content=body, title="needs YAML")
    edited = memory.to_markdown().replace("---\n", "---\n# edited by hand\n", 1)
    assert parse_memory(edited) == memory
    assert parse_memory(memory.with_changes(title="fast").to_markdown()).content == body


def test_hand_written_delimiters_and_line_endings() -> None:
    text = render(BASE).replace("\n", "\r\n").replace("---\r\n", "----  \r\n")
    memory = parse_memory(text, path=PATH)
    assert (memory.id, memory.status) == ("mem-1", "active")
    assert memory.content.strip() == "Tables for comparisons."
    # a closing delimiter at the very end of the file, no body
    assert parse_memory(render(BASE).split("---\nTables")[0] + "---").content == ""


def test_surrounding_newlines_of_the_body_are_not_content() -> None:
    text = minimal_memory().to_markdown().replace("---\nTables", "---\n\n\nTables") + "\n\n"
    assert parse_memory(text).content == "Tables for comparisons."


def test_hand_written_yaml_forms_are_accepted() -> None:
    """Unquoted YAML timestamps, bare task ids as sources, integer confidence."""
    text = (
        "---\n"
        "id: m1\n"
        "type: preference\n"
        "scope: private\n"
        "status: active\n"
        "subject: user:alice\n"
        "attribute: output_format\n"
        "source: tr_001\n"
        "sources: [tr_001, tr_014]\n"
        "confidence: 1\n"
        "created_at: 2027-03-14T10:20:00+08:00\n"
        "verified_at: 2027-03-14 10:20:00Z\n"
        "---\n"
        "Tables.\n"
    )
    memory = parse_memory(text, path=PATH)
    assert memory.source == Source(task="tr_001")
    assert [s.task for s in memory.sources] == ["tr_001", "tr_014"]
    assert [s.task for s in memory.all_sources] == ["tr_001", "tr_014"]  # no repeat
    assert memory.confidence == 1.0
    assert memory.created_at == WHEN
    assert memory.verified_at == datetime(2027, 3, 14, 10, 20, tzinfo=UTC)


def test_derived_properties() -> None:
    memory = full_memory()
    assert memory.key == ("team", "user:liys05/project:liyyro", "deploy_command", "env=production")
    assert memory.hook == "Deploy with `make release`."
    assert memory.display_title == "Deploy command"
    assert memory.with_changes(title=None).display_title == "Deploy command"
    assert memory.content_hash.startswith("sha256:")
    assert memory.content_hash != memory.with_changes(content="other").content_hash
    assert memory.to_dict()["content"] == memory.content


# ------------------------------------------------------------- validation on read
def render(fields: dict[str, str | None]) -> str:
    """Front matter from raw YAML values (None leaves the field out)."""
    lines = [f"{name}: {raw}" for name, raw in fields.items() if raw is not None]
    return "---\n" + "\n".join(lines) + "\n---\nTables for comparisons.\n"


BASE: dict[str, str | None] = {
    "id": "mem-1",
    "type": "preference",
    "scope": "private",
    "status": "active",
    "subject": "user:alice",
    "attribute": "output_format",
    "source": "{task: tr_1, message_index: 0, evidence: use tables}",
    "confidence": "0.9",
    "created_at": "'2027-03-14T10:20:00+08:00'",
    "verified_at": "'2027-03-14T10:20:00+08:00'",
}


def test_the_base_record_is_valid() -> None:
    memory = parse_memory(render(BASE), path=PATH)
    assert memory.id == "mem-1"
    assert memory.source == Source(task="tr_1", message_index=0, evidence="use tables")


def expect_error(changes: dict[str, str | None], field: str) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        parse_memory(render({**BASE, **changes}), path=PATH)
    error = info.value
    assert error.path == PATH
    assert error.field == field
    text = str(error)
    assert PATH in text and f"'{field}'" in text
    return error


@pytest.mark.parametrize("name", REQUIRED)
def test_each_missing_required_field_is_named(name: str) -> None:
    error = expect_error({name: None}, name)
    assert "required" in error.message


@pytest.mark.parametrize("name", REQUIRED)
def test_each_required_field_empty_is_named(name: str) -> None:
    expect_error({name: "''"}, name)


@pytest.mark.parametrize(
    ("name", "raw", "words"),
    [
        ("confidence", "high", "number"),
        ("confidence", "'0.9'", "number"),
        ("confidence", "true", "number"),
        ("confidence", "1.5", "from 0 to 1"),
        ("confidence", "-0.1", "from 0 to 1"),
        ("subject", "123", "text"),
        ("subject", "[a, b]", "text"),
        ("attribute", "yes", "text"),
        ("id", "123", "text"),
        ("condition", "5", "text"),
        ("title", "{a: b}", "text"),
        ("supersedes", "42", "text"),
        ("usage_count", "-1", "whole number"),
        ("usage_count", "'3'", "whole number"),
        ("usage_count", "2.5", "whole number"),
        ("sources", "tr_1", "list"),
        ("environment", "[node]", "mapping"),
    ],
)
def test_wrong_type_names_the_field(name: str, raw: str, words: str) -> None:
    error = expect_error({name: raw}, name)
    assert words in error.message


@pytest.mark.parametrize(
    ("name", "raw"),
    [("status", "archived"), ("status", "Active"), ("type", "fact"), ("scope", "public")],
)
def test_unknown_choice_names_the_field_and_the_choices(name: str, raw: str) -> None:
    error = expect_error({name: raw}, name)
    assert raw in error.message
    assert error.hint is not None and "one of" in error.hint


@pytest.mark.parametrize("name", ["created_at", "verified_at", "expires_at", "last_used_at"])
@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("2027-03-14T10:20:00", "offset"),  # a YAML timestamp without offset
        ("'2027-03-14T10:20:00'", "offset"),
        ("'2027-03-14 10:20'", "offset"),
        ("yesterday", "ISO 8601"),
        ("'14/03/2027 10:20'", "ISO 8601"),
        ("'2027-13-45T10:20:00+08:00'", "ISO 8601"),
        ("2027-03-14", "no time"),  # YAML reads this as a date
        ("'2027-03-14'", "no time"),
        ("1773454800", "timestamp"),
    ],
)
def test_bad_timestamp_names_the_field(name: str, raw: str, words: str) -> None:
    error = expect_error({name: raw}, name)
    assert words in error.message


@pytest.mark.parametrize(
    "raw",
    ["../x", "'../x'", "a/b", "-leading-dash", ".hidden", "x..y", "a b", "'é'", "x" * 97],
)
def test_bad_id_is_refused(raw: str) -> None:
    error = expect_error({"id": raw}, "id")
    assert "invalid id" in error.message


def test_bad_supersedes_pointer_names_supersedes_not_id() -> None:
    error = expect_error({"supersedes": "../other"}, "supersedes")
    assert "invalid id" in error.message


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ("5", "source"),
        ("[tr_1]", "source"),
        ("''", "source"),
        ("{}", "source.task"),
        ("{message_index: 1}", "source.task"),
        ("{task: ''}", "source.task"),
        ("{task: tr_1, message_index: -1}", "source.message_index"),
        ("{task: tr_1, message_index: seven}", "source.message_index"),
        ("{task: tr_1, message_index: true}", "source.message_index"),
        ("{task: tr_1, evidence: [a]}", "source.evidence"),
        ("{task: tr_1, line: 0}", "source.line"),
        ("{task: tr_1, file: 5}", "source.file"),
        ("{task: tr_1, log: [a]}", "source.log"),
    ],
)
def test_bad_source_names_the_field(raw: str, field: str) -> None:
    expect_error({"source": raw}, field)


def test_bad_merged_source_names_its_position() -> None:
    expect_error({"sources": "[tr_1, {message_index: 2}]"}, "sources[1].task")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("no front matter at all\n", "no YAML front matter"),
        ("---\nid: [mem-1\n---\nbody\n", "not valid YAML"),
        ("---\nid: mem-1\ntype: a: b\n---\nbody\n", "not valid YAML at line 3"),
        ("---\n---\nbody\n", "empty"),
        ("---\n- a\n- b\n---\nbody\n", "mapping"),
        ("---\nid: mem-1\n", "closing"),
        ("---x\nid: mem-1\n---\nbody\n", "first line must be '---'"),
    ],
)
def test_unreadable_front_matter_names_the_file(text: str, words: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_memory(text, path=PATH)
    assert info.value.path == PATH
    assert words in info.value.message
    assert str(info.value).startswith(PATH)


def test_error_without_a_file_says_candidate() -> None:
    with pytest.raises(ValidationError) as info:
        parse_memory(render({**BASE, "status": "nope"}))
    assert info.value.path is None
    assert str(info.value).startswith("<candidate>: field 'status'")


def test_impossible_yaml_timestamp_is_a_validation_error() -> None:
    """YAML's own timestamp constructor raises ValueError for month 13: that must
    become a ValidationError naming the file, not a crash of the whole store open."""
    text = render({**BASE, "created_at": "2027-13-45T10:20:00+08:00"})
    with pytest.raises(ValidationError) as info:
        parse_memory(text, path=PATH)
    assert info.value.path == PATH
    assert "month" in info.value.message


def test_environment_versions_must_be_scalars() -> None:
    expect_error({"environment": "{node: [20, 22]}"}, "environment.node")
    memory = parse_memory(render({**BASE, "environment": "{node: '20.11', pnpm: 9}"}))
    assert memory.environment == {"node": "20.11", "pnpm": "9"}


def test_alias_bomb_gets_a_short_abbreviated_message() -> None:
    """Nested YAML aliases expand to millions of items; the error message must
    describe them (type and size), not build the whole repr and cut it afterwards."""
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdef", "bcdefg", strict=True):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    text = render({**BASE, "subject": "*g"}).replace("---\n", "---\n" + "\n".join(levels) + "\n", 1)
    with pytest.raises(ValidationError) as info:
        parse_memory(text, path=PATH)
    assert info.value.field == "subject"
    assert "a list of 9 items" in info.value.message
    assert len(str(info.value)) < 300
