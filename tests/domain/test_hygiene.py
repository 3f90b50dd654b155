"""Input hygiene, written as the attack: the fields of a record.

A store is untrusted input: a team store is a repository other people push to, and
candidates come from agents. Control characters and lone surrogates are refused in
every text field of a record, a candidate and a source; size limits are reported by
the field that is too long; and no error message ever holds a field's value (a fake
token is fed into every field and searched for). The store's other files are in
``test_hygiene_events.py`` (events.jsonl, requests) and ``test_hygiene_config.py``
(memgov.yaml, MEMORY.md).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ACTOR, FIXED_NOW, MakeMemory, add_memories, commit_count, fake_token

from core.domain.errors import ValidationError
from core.domain.record import TEXT_FIELDS, Source, check_field, parse_memory
from core.store import logs
from core.store.store import Store
from core.writing.pipeline import candidate_from_dict, remember

PATH = "memories/mem-1.md"


#: fed into every field and searched for in every error (seeded: every pytest-xdist
#: worker collects the same ids)
TOKEN = fake_token("ghp_", 36, seed=20261201)


#: characters no one-line field may hold, by name (for the test ids)
ONE_LINE_BAD = {
    "nul": "\x00",
    "bell": "\x07",
    "backspace": "\x08",
    "tab": "\t",
    "newline": "\n",
    "cr": "\r",
    "escape": "\x1b",
    "unit-sep": "\x1f",
    "del": "\x7f",
    "c1-nel": "\x85",
    "c1-csi": "\x9b",
    "c1-last": "\x9f",
    "line-sep": "\u2028",
    "high-surrogate": "\ud800",
    "low-surrogate": "\udcff",  # what surrogateescape makes of a byte 0xff
}
#: and no multi-line text (content, evidence, reasons): tab and newline are allowed there
MULTI_LINE_BAD = {k: v for k, v in ONE_LINE_BAD.items() if k not in ("tab", "newline", "line-sep")}


def front(make: MakeMemory, **changes: Any) -> dict[str, Any]:
    data = make().front_matter()
    for key, value in changes.items():
        if value is _DROP:
            data.pop(key, None)
        else:
            data[key] = value
    return data


_DROP = object()


def render(meta: dict[str, Any], body: str = "Use tables.\n") -> str:
    """A memory file as a hand (or a hostile push) might write it: YAML escapes carry
    control characters and lone surrogates through the double-quoted style."""
    block = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{block}---\n{body}"


def refused(text: str, field: str | None) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        parse_memory(text, path=PATH, rel_path=PATH)
    error = info.value
    assert error.path == PATH
    if field is not None:
        assert error.field == field, str(error)
    assert TOKEN not in str(error)
    return error


# --------------------------------------------------- 1. control characters, surrogates
@pytest.mark.parametrize("name", ["subject", "attribute", "condition", "value", "title"])
@pytest.mark.parametrize("bad", ONE_LINE_BAD.values(), ids=ONE_LINE_BAD.keys())
def test_one_line_record_fields_refuse_control_characters(
    make_memory: MakeMemory, name: str, bad: str
) -> None:
    text = render(front(make_memory, **{name: f"{TOKEN}{bad}tail"}))
    error = refused(text, None)
    # named by the field itself, or (for what YAML refuses while reading) by the line
    assert error.field == name, str(error)
    # and building the record in code (what a candidate becomes) is refused too
    with pytest.raises(ValidationError) as info:
        make_memory(**{name: f"{TOKEN}{bad}tail"})
    assert info.value.field == name and TOKEN not in str(info.value)


@pytest.mark.parametrize("bad", ONE_LINE_BAD.values(), ids=ONE_LINE_BAD.keys())
def test_ids_refuse_control_characters(make_memory: MakeMemory, bad: str) -> None:
    for name in ("id", "supersedes"):
        text = render(front(make_memory, **{name: f"mem{bad}1"}))
        assert refused(text, None).field == name
        with pytest.raises(ValidationError) as info:
            make_memory(**{name: f"mem{bad}1"})
        assert info.value.field == name


@pytest.mark.parametrize("bad", MULTI_LINE_BAD.values(), ids=MULTI_LINE_BAD.keys())
def test_content_refuses_control_characters_but_keeps_tabs_and_lines(
    make_memory: MakeMemory, bad: str
) -> None:
    with pytest.raises(ValidationError) as info:
        make_memory(content=f"line one\n{TOKEN}{bad}")
    assert info.value.field == "content" and TOKEN not in str(info.value)
    if bad not in ("\ud800", "\udcff"):  # a file cannot hold a surrogate: it is not UTF-8
        refused(render(front(make_memory), body=f"line one\n{TOKEN}{bad}x\n"), "content")
    ok = make_memory(content="col\tcol\n\tindented\nlast")
    assert parse_memory(ok.to_markdown()).content == ok.content


def test_windows_line_ends_read_as_lines_but_a_lone_cr_is_refused(make_memory: MakeMemory) -> None:
    text = make_memory(content="one\ntwo").to_markdown().replace("\n", "\r\n")
    assert parse_memory(text).content == "one\ntwo"
    refused(render(front(make_memory), body="one\rtwo\n"), "content")


@pytest.mark.parametrize(
    ("key", "multi"),
    [("task", False), ("evidence", True), ("log", False), ("file", False)],
)
@pytest.mark.parametrize("bad", ONE_LINE_BAD.values(), ids=ONE_LINE_BAD.keys())
def test_source_fields_refuse_control_characters(
    make_memory: MakeMemory, key: str, multi: bool, bad: str
) -> None:
    if multi and bad in ("\t", "\n", "\u2028"):
        return  # evidence is a quote: it may span lines
    good = {"task": "tr_1", "message_index": 0, "evidence": "said"}
    bad_source = {**good, key: f"{TOKEN}{bad}x"}
    assert refused(render(front(make_memory, source=bad_source)), None).field == f"source.{key}"
    merged = front(make_memory, sources=[good, bad_source])
    assert refused(render(merged), None).field == f"sources[1].{key}"
    with pytest.raises(ValidationError) as info:
        make_memory(source=Source(**{**good, key: f"{TOKEN}{bad}x"}))  # type: ignore[arg-type]
    assert info.value.field == f"source.{key}" and TOKEN not in str(info.value)


@pytest.mark.parametrize("bad", ["\x00", "\n", "\x1b", "\ud800"])
def test_environment_refuses_control_characters_in_tools_and_versions(
    make_memory: MakeMemory, bad: str
) -> None:
    error = refused(render(front(make_memory, environment={"node": f"20{bad}"})), None)
    assert error.field == "environment.node"
    error = refused(render(front(make_memory, environment={f"no{bad}de": "20"})), None)
    assert error.field is not None and error.field.startswith("environment")
    with pytest.raises(ValidationError):
        make_memory(environment={"node": f"20{bad}"})


def _tree(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if not p.relative_to(root).as_posix().startswith(".git/")
    )


@pytest.mark.parametrize("gate_passes", [True, False], ids=["written", "refused"])
@pytest.mark.parametrize(
    "data",
    [
        {"subject": "user:alice\x00evil"},
        json.loads('{"subject": "user:alice\\ud800"}'),  # a lone surrogate, from JSON
        {"subject": "user:alice\udcff"},  # surrogateescape'd bytes from an argument
        {"condition": "env=prod\x1b[2J"},
    ],
    ids=["nul", "json-surrogate", "surrogateescape", "escape-sequence"],
)
def test_a_candidate_with_a_nul_in_its_subject_writes_nothing(
    store: Store, make_memory: MakeMemory, data: dict[str, str], gate_passes: bool
) -> None:
    """A NUL in a subject once reached a commit message through the crash journal and
    bricked the store. Whether the candidate would be written (the record refuses it)
    or refused by the gate (the refusal event refuses it), nothing is written, and the
    store takes the next write."""
    store.log_message(task="tr_1", index=0, role="user", text="use tables", actor=ACTOR)
    head, commits, files = (
        store.repo.head.commit.hexsha,
        commit_count(store.root),
        _tree(store.root),
    )
    candidate = {
        "content": "Use tables for comparisons.",
        "type": "preference",
        "scope": "private",
        "subject": "user:alice",
        "attribute": "output_format",
        "source": {"task": "tr_1", "message_index": 0, "evidence": "use tables",
                   "log": logs.log_path(FIXED_NOW)},
        "s1": 0.9 if gate_passes else 0.1,
        "s2": 0.9,
        "confidence": 0.9,
        **data,
    }  # fmt: skip
    with pytest.raises(ValidationError) as info:
        remember(store, candidate_from_dict(candidate), actor=ACTOR)
    (name,) = data
    assert info.value.field in (name, f"details.key.{name}"), str(info.value)
    assert store.repo.head.commit.hexsha == head and commit_count(store.root) == commits
    assert _tree(store.root) == files
    add_memories(store, make_memory())  # the store is not bricked
    assert Store(store.root).get("mem-1").subject == "user:alice/project:demo"


def test_a_candidate_is_refused_by_field_before_the_gate() -> None:
    with pytest.raises(ValidationError) as info:
        candidate_from_dict(
            {"content": "x", "type": "semantic", "scope": "private", "subject": "s",
             "attribute": "a\nb", "source": {"task": "t"}}
        )  # fmt: skip
    assert info.value.field == "attribute"


# ----------------------------------------------------------------- 3. size by field
@pytest.mark.parametrize(
    ("name", "limit"),
    [("subject", 512), ("attribute", 512), ("condition", 512), ("value", 4_000), ("title", 300)],
)
def test_each_one_line_field_has_a_limit_reported_by_that_field(
    make_memory: MakeMemory, name: str, limit: int
) -> None:
    assert TEXT_FIELDS[name][0] == limit
    make_memory(**{name: "x" * limit})  # at the limit: fine
    with pytest.raises(ValidationError) as info:
        make_memory(**{name: "x" * (limit + 1)})
    assert info.value.field == name and f"{limit:,}" in info.value.message


def test_a_ten_megabyte_subject_is_reported_as_the_subject(
    store: Store, make_memory: MakeMemory
) -> None:
    head = store.repo.head.commit.hexsha
    huge = "user:" + "x" * (10 * 1024 * 1024)
    started = time.monotonic()
    with pytest.raises(ValidationError) as info:
        add_memories(store, make_memory(subject=huge))
    assert info.value.field == "subject" and "10,485,765 characters" in info.value.message
    assert time.monotonic() - started < 5
    assert store.repo.head.commit.hexsha == head
    error = refused(render(front(make_memory, subject=huge)), "subject")
    assert len(str(error)) < 400


@pytest.mark.parametrize(
    ("key", "limit"), [("task", 512), ("evidence", 16_000), ("log", 1_024), ("file", 1_024)]
)
def test_source_fields_are_bounded(make_memory: MakeMemory, key: str, limit: int) -> None:
    good = {"task": "tr_1", "message_index": 0, "evidence": "said"}
    refused(render(front(make_memory, source={**good, key: "x" * (limit + 1)})), f"source.{key}")


def test_candidate_fields_go_through_the_same_rules() -> None:
    """``check_field`` is the one rule for anything that becomes a record field."""
    assert check_field("user:alice", "subject") == "user:alice"
    with pytest.raises(ValidationError) as info:
        check_field(TOKEN + "\x00", "subject")
    assert info.value.field == "subject" and info.value.path is None
    assert "U+0000" in info.value.message and TOKEN not in str(info.value)
    with pytest.raises(ValidationError) as info:
        check_field("x" * 513, "source.task", field="sources[3].task")
    assert info.value.field == "sources[3].task"


# ------------------------------------------------------- 2. no value in any message
def _wrong_values() -> Iterator[tuple[str, Any, str | None]]:
    """(field, a wrong value holding the token, the field the error must name)."""
    t = TOKEN
    for name in ("subject", "attribute", "condition", "value", "title"):
        yield name, [t], name
        yield name, {t: t}, name
        yield name, t + "\x00", name
        yield name, t * 200, name
    for name in ("type", "scope", "status"):
        yield name, t, name
        yield name, [t], name
    yield "id", f"{t}/../x", "id"
    yield "id", [t], "id"
    yield "id", t * 3, "id"
    yield "supersedes", f"../{t}", "supersedes"
    yield "confidence", t, "confidence"
    yield "confidence", 1.5, "confidence"
    yield "usage_count", t, "usage_count"
    for name in ("created_at", "verified_at", "expires_at", "last_used_at"):
        yield name, t, name
        yield name, f"2027-03-14T10:20:00 {t}", name
        yield name, [t], name
    yield "source", {"task": [t]}, "source.task"
    yield "source", {"task": "tr", "message_index": t}, "source.message_index"
    yield "source", {"task": "tr", "evidence": [t]}, "source.evidence"
    yield "source", {"task": "tr", "line": t}, "source.line"
    yield "source", {"task": "tr", "log": {t: 1}}, "source.log"
    yield "source", {"task": "tr", "file": [t]}, "source.file"
    yield "source", [t], "source"
    yield "sources", t, "sources"
    yield "sources", [{"task": "tr"}, {"task": t, "message_index": t}], "sources[1].message_index"
    yield "environment", [t], "environment"
    yield "environment", {"node": [t]}, "environment.node"
    yield "environment", {t: [1]}, "environment[0]"


@pytest.mark.parametrize(
    ("name", "value", "field"), list(_wrong_values()), ids=lambda v: str(v)[:24]
)
def test_no_record_error_holds_the_value(
    make_memory: MakeMemory, name: str, value: Any, field: str | None
) -> None:
    error = refused(render(front(make_memory, **{name: value})), field)
    assert TOKEN not in error.message and TOKEN not in (error.hint or "")
    assert TOKEN[4:20] not in str(error)


@pytest.mark.parametrize(
    "block",
    [
        f"id: mem-1\nsubject: !{TOKEN} x\n",  # an unknown tag
        f"id: mem-1\nsubject: *{TOKEN}\n",  # an undefined alias
        f"id: mem-1\nsubject: &{TOKEN} x\nattribute: &{TOKEN} y\n",
        f'id: mem-1\nsubject: "{TOKEN}\\q"\n',  # an unknown escape
        f"id: mem-1\nsubject: [{TOKEN}\n",
        f"id: mem-1\ncreated_at: 2027-13-45T10:20:00+08:00\nsubject: {TOKEN}\n",
    ],
)
def test_no_yaml_error_holds_a_piece_of_the_file(block: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_memory(f"---\n{block}---\nbody\n", path=PATH)
    assert TOKEN not in str(info.value) and TOKEN[4:20] not in str(info.value)


def test_an_id_shaped_value_may_be_shown_once_its_shape_is_checked(
    make_memory: MakeMemory,
) -> None:
    """Ids and choices are quoted only after their shape passed; a word is a word."""
    error = refused(render(front(make_memory, status="archived")), "status")
    assert "'archived'" in error.message
    error = refused(render(front(make_memory, status=TOKEN)), "status")
    assert TOKEN not in error.message
