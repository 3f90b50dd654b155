"""Input hygiene (issue 10), written as the attack.

A store is untrusted input: a team store is a repository other people push to, and
candidates come from agents. Control characters and lone surrogates are refused in
every text field of a record, a candidate, a source, a request and the config; size
limits are reported by the field that is too long; nothing in events.jsonl, a
request file, memgov.yaml or MEMORY.md can crash a reader; and no error message ever
holds a field's value (a fake token is fed into every field and searched for).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ACTOR, FIXED_NOW, FakeClock, add_memories, commit_count, fake_token

from core.domain.errors import StoreError, ValidationError
from core.domain.record import (
    TEXT_FIELDS,
    Memory,
    Source,
    check_field,
    parse_memory,
)
from core.reports import metrics
from core.store import logs
from core.store.config import CONFIG_FILE, MAX_CONFIG_BYTES, load_config
from core.store.events import EVENTS_FILE, MAX_LINE_BYTES, Event, read_events
from core.store.index import INDEX_FILE, parse_index, read_index_text
from core.store.requests import (
    REQUEST_DIR,
    Request,
    file_request,
    load_requests,
    request_problems,
)
from core.store.store import Store
from core.writing.pipeline import candidate_from_dict, remember

REPO = Path(__file__).resolve().parents[1]
PATH = "memories/mem-1.md"
MakeMemory = Callable[..., Memory]


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


# -------------------------------------------------------------------- 4. events.jsonl
def _good_event(n: int = 1, **changes: Any) -> dict[str, Any]:
    data = {
        "id": f"ev-{n:04d}",
        "ts": FIXED_NOW.isoformat(),
        "actor": ACTOR,
        "action": "create",
        "memory_ids": [f"mem-{n}"],
        "from": None,
        "to": "active",
        "reason": "written",
        "details": {"key": {"scope": "private", "subject": "s"}},
    }
    data.update(changes)
    return data


def _line(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=True).encode() + b"\n"


HOSTILE_LINES: dict[str, bytes] = {
    "deep-list": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "deep-dict": b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n",
    "deep-details": _line(_good_event(details=json.loads('{"a":' * 40 + "1" + "}" * 40))),
    "deep-unclosed": b"[" * 100_000 + b"\n",
    "huge": _line(_good_event(reason="x" * (MAX_LINE_BYTES + 10))),
    "not-utf8": b'{"id": "ev-1", "reason": "caf\xe9"}\n',
    "binary": bytes(range(256)).replace(b"\n", b"") + b"\n",
    "surrogate-reason": _line(_good_event()).replace(b'"written"', b'"w\\ud800"'),
    "nul-actor": _line(_good_event(actor="a\x00b")),
    "newline-actor": _line(_good_event(actor="a\nb")),
    "c1-details": _line(_good_event(details={"note": "x\x85y"})),
    "surrogate-key": _line(_good_event()).replace(b'"subject"', b'"\\udc80"'),
    "ids-as-string": _line(_good_event(memory_ids=TOKEN)),
    "id-with-path": _line(_good_event(id=f"../{TOKEN}")),
    "id-as-number": _line(_good_event(id=5)),
    "ts-token": _line(_good_event(ts=TOKEN)),
    "ts-naive": _line(_good_event(ts="2027-03-14T10:20:00")),
    "from-number": _line(_good_event(**{"from": 5})),
    "to-token": _line(_good_event(to=TOKEN)),
    "reason-list": _line(_good_event(reason=[TOKEN])),
    "actor-dict": _line(_good_event(actor={TOKEN: 1})),
    "details-string": _line(_good_event(details=TOKEN)),
    "details-list": _line(_good_event(details=[TOKEN])),
    "request-path": _line(_good_event(request=f"../../{TOKEN}")),
    "decision-list": _line(_good_event(decision=[TOKEN])),
    "nan": _line(_good_event()).replace(b'"details": {', b'"details": {"n": NaN, '),
    "big-int": _line(_good_event()).replace(
        b'"details": {', b'"details": {"n": ' + b"9" * 5000 + b", "
    ),
    "missing-action": _line({k: v for k, v in _good_event().items() if k != "action"}),
    "array": b"[1, 2, 3]\n",
    "token-string": json.dumps(TOKEN).encode() + b"\n",
}
#: the field each bad line's reason must name
LINE_FIELD = {
    "deep-details": "details",
    "surrogate-reason": "reason",
    "nul-actor": "actor",
    "newline-actor": "actor",
    "c1-details": "details.note",
    "surrogate-key": "details.key",
    "ids-as-string": "memory_ids",
    "id-with-path": "id",
    "id-as-number": "id",
    "ts-token": "ts",
    "ts-naive": "ts",
    "from-number": "from",
    "to-token": "to",
    "reason-list": "reason",
    "actor-dict": "actor",
    "details-string": "details",
    "details-list": "details",
    "request-path": "request",
    "decision-list": "decision",
    "missing-action": "action",
}


@pytest.mark.parametrize("name", HOSTILE_LINES)
def test_a_hostile_event_line_is_a_bad_line_never_a_crash(tmp_path: Path, name: str) -> None:
    log = tmp_path / EVENTS_FILE
    log.write_bytes(_line(_good_event(1)) + HOSTILE_LINES[name] + _line(_good_event(3)))
    started = time.monotonic()
    events, bad = read_events(log)
    assert time.monotonic() - started < 10
    assert [e.id for e in events] == ["ev-0001", "ev-0003"]  # the lines around it survive
    assert [b.line for b in bad] == [2]
    reason = bad[0].reason
    assert "unreadable" in reason and not bad[0].last
    if name in LINE_FIELD:
        assert f"field '{LINE_FIELD[name]}" in reason, reason
    assert TOKEN not in reason and TOKEN[4:20] not in reason
    assert len(reason) < 300


def test_an_event_that_could_not_be_read_back_is_never_built() -> None:
    """The same rules hold when memgov builds an event: a surrogate would make the
    append fail half-way (it cannot be encoded), a NUL would reach git."""
    base = Event.from_dict(_good_event())
    for change, field in (
        ({"reason": "quote \ud800"}, "reason"),
        ({"actor": "a\x00b"}, "actor"),
        ({"details": {"key": {"subject": "x\x00"}}}, "details.key.subject"),
        ({"details": {"subject": "x" * 30_000}}, "details.subject"),
        ({"memory_ids": ("../x",)}, "memory_ids[0]"),
        ({"to_status": "gone"}, "to"),
    ):
        with pytest.raises(ValidationError) as info:
            Event(**{**base.__dict__, **change})
        assert info.value.field == field, str(info.value)
    # the usual event builds and reads back unchanged
    assert Event.from_dict(json.loads(base.line())) == base


def test_a_store_with_hostile_event_lines_still_opens_and_reports_them(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())
    with (store.root / EVENTS_FILE).open("ab") as handle:
        for name in ("deep-list", "not-utf8", "ids-as-string", "surrogate-reason"):
            handle.write(HOSTILE_LINES[name])
    again = Store(store.root)
    events, bad = again.events()
    assert len(bad) == 4 and events
    health = metrics.health(again)  # reads every event: nothing crashes
    assert health.by_status["active"] == 1
    add_memories(again, make_memory(id="mem-2", attribute="lang"))  # still writable
    assert len(Store(store.root).events()[1]) == 4


# ----------------------------------------------------------------------- 5. requests
def _request(**changes: Any) -> dict[str, Any]:
    data = {
        "id": "delete-20270314-abc123",
        "kind": "delete",
        "memory_id": "mem-1",
        "reason": "no longer true",
        "requested_by": ACTOR,
        "requested_at": FIXED_NOW.isoformat(),
        "status": "open",
        "decision": None,
        "decided_by": None,
        "decision_reason": None,
    }
    data.update(changes)
    return data


BAD_REQUESTS: dict[str, tuple[bytes, str | None]] = {
    "reason-list": (yaml.safe_dump(_request(reason=[TOKEN])).encode(), "reason"),
    "reason-nul": (yaml.safe_dump(_request(reason=f"{TOKEN}\x00")).encode(), "reason"),
    "reason-huge": (yaml.safe_dump(_request(reason="x" * 5_000)).encode(), "reason"),
    "not-a-mapping": (yaml.safe_dump([TOKEN]).encode(), None),
    "a-string": (yaml.safe_dump(TOKEN).encode(), None),
    "empty": (b"", None),
    "id-not-file-name": (yaml.safe_dump(_request(id="delete-20270314-other")).encode(), "id"),
    "id-token-path": (yaml.safe_dump(_request(id=f"../{TOKEN}")).encode(), "id"),
    "memory-id-path": (yaml.safe_dump(_request(memory_id=f"../{TOKEN}")).encode(), "memory_id"),
    "memory-id-list": (yaml.safe_dump(_request(memory_id=[TOKEN])).encode(), "memory_id"),
    "unknown-status": (yaml.safe_dump(_request(status=TOKEN)).encode(), "status"),
    "status-word": (yaml.safe_dump(_request(status="withdrawn")).encode(), "status"),
    "unknown-kind": (yaml.safe_dump(_request(kind=TOKEN)).encode(), "kind"),
    "extra-key": (yaml.safe_dump(_request(**{TOKEN: 1})).encode(), None),
    "missing-reason": (yaml.safe_dump({**_request(), "reason": None}).encode(), "reason"),
    "requested-at-token": (yaml.safe_dump(_request(requested_at=TOKEN)).encode(), "requested_at"),
    "requested-by-newline": (
        yaml.safe_dump(_request(requested_by="a\nb")).encode(),
        "requested_by",
    ),
    "decided-by-dict": (yaml.safe_dump(_request(decided_by={TOKEN: 1})).encode(), "decided_by"),
    "decision-path": (yaml.safe_dump(_request(decision=f"../{TOKEN}")).encode(), "decision"),
    "decision-reason-c1": (
        yaml.safe_dump(_request(decision_reason="x\x9by")).encode(),
        "decision_reason",
    ),
    "not-utf8": (yaml.safe_dump(_request()).encode().replace(b"no longer", b"no l\xf6nger"), None),
    "binary": (bytes(range(256)), None),
    "deep": (b"a: " + b"[" * 5_000 + b"]" * 5_000 + b"\n", None),
    "alias-tag": (f"id: !{TOKEN} x\n".encode(), None),
    "huge": (b"reason: '" + b"x" * (100 * 1024) + b"'\n", None),
}


@pytest.mark.parametrize("name", BAD_REQUESTS)
def test_an_unreadable_request_is_skipped_and_reported(store: Store, name: str) -> None:
    folder = store.root / REQUEST_DIR
    folder.mkdir(exist_ok=True)
    good = _request(id="promote-20270314-good01", kind="promote")
    (folder / "promote-20270314-good01.yaml").write_text(yaml.safe_dump(good))
    data, field = BAD_REQUESTS[name]
    (folder / "delete-20270314-abc123.yaml").write_bytes(data)
    assert [r.id for r in load_requests(store)] == ["promote-20270314-good01"]
    problems = request_problems(store)
    assert [p for p, _ in problems] == [f"{REQUEST_DIR}/delete-20270314-abc123.yaml"]
    reason = problems[0][1]
    if field is not None:
        assert f"field '{field}'" in reason, reason
    assert TOKEN not in reason and TOKEN[4:20] not in reason


def test_a_request_file_named_outside_the_id_pattern_or_linked_is_refused(store: Store) -> None:
    folder = store.root / REQUEST_DIR
    folder.mkdir(exist_ok=True)
    outside = store.root.parent / "outside.yaml"
    outside.write_text(yaml.safe_dump(_request(id="delete-20270314-linked")))
    (folder / "delete-20270314-linked.yaml").symlink_to(outside)
    (folder / ".hidden.yaml").write_text(yaml.safe_dump(_request(id=".hidden")))
    assert load_requests(store) == []
    reasons = dict(request_problems(store))
    assert "symbolic link" in reasons[f"{REQUEST_DIR}/delete-20270314-linked.yaml"]
    assert "file name" in reasons[f"{REQUEST_DIR}/.hidden.yaml"]


def test_a_request_is_refused_before_anything_is_written(
    store: Store, make_memory: MakeMemory
) -> None:
    add_memories(store, make_memory())
    head = store.repo.head.commit.hexsha
    for kwargs, field in (
        ({"reason": f"because {TOKEN}\x00"}, "reason"),
        ({"reason": "because \ud800"}, "reason"),
        ({"reason": "x" * 5_000}, "reason"),
        ({"memory_id": f"../{TOKEN}"}, "memory_id"),
        ({"kind": TOKEN}, "kind"),
        ({"actor": "a\nb"}, "actor"),
    ):
        args = {"kind": "delete", "memory_id": "mem-1", "reason": "stale", "actor": ACTOR}
        with pytest.raises(ValidationError) as info:
            file_request(store, **{**args, **kwargs})
        assert info.value.field == field and TOKEN not in str(info.value)
    assert store.repo.head.commit.hexsha == head
    assert not (store.root / REQUEST_DIR).exists() or not any((store.root / REQUEST_DIR).iterdir())
    with pytest.raises(ValidationError) as info:  # a decision cannot close it with one either
        Request(**_request(decision_reason="ok\x00"))
    assert info.value.field == "decision_reason"


def test_file_request_checks_the_memory_as_it_is_under_the_lock(
    store: Store, make_memory: MakeMemory, clock: FakeClock
) -> None:
    """A Store object that read the memory before someone else expired it must not
    file a promotion of it: the state is checked in the transaction, not before."""
    add_memories(store, make_memory())
    assert store.get("mem-1").status == "active"  # this Store has read it
    other = Store(store.root, clock=clock)
    with other.transaction(actor=ACTOR, message="expire") as tx:
        tx.transition("mem-1", "expired", action="sweep", reason="stale")
    with pytest.raises(ValidationError) as info:
        file_request(store, kind="promote", memory_id="mem-1", reason="share it", actor=ACTOR)
    assert "expired" in info.value.message
    assert load_requests(store) == []


_RACER = r"""
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from core.store.requests import file_request
from core.store.store import Store
root, go, memory_id, reason = sys.argv[2:6]
store = Store(root)
store.load()
while not Path(go).exists():
    time.sleep(0.001)
request = file_request(store, kind="delete", memory_id=memory_id, reason=reason,
                       actor="tester@example.com")
print(request.id)
"""


def test_two_processes_filing_the_same_request_make_one(
    store: Store, make_memory: MakeMemory, tmp_path: Path
) -> None:
    rounds = 4
    add_memories(store, *(make_memory(id=f"mem-{n}", attribute=f"a{n}") for n in range(rounds)))
    script = tmp_path / "racer.py"
    script.write_text(_RACER)
    for n in range(rounds):
        go = tmp_path / f"go-{n}"
        racers = [
            subprocess.Popen(
                [
                    sys.executable,
                    str(script),
                    str(REPO),
                    str(store.root),
                    str(go),
                    f"mem-{n}",
                    f"reason from racer {who}",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=os.environ.copy(),
            )
            for who in "ab"
        ]
        time.sleep(1.5)  # both have opened the store and wait at the line
        go.write_text("")
        outputs = [racer.communicate(timeout=120) for racer in racers]
        assert all(r.returncode == 0 for r in racers), [err for _, err in outputs]
        ids = {out.strip() for out, _ in outputs}
        assert len(ids) == 1, ids  # the second got the first's request
        filed = [r for r in load_requests(store) if r.memory_id == f"mem-{n}"]
        assert [r.id for r in filed] == list(ids)
    events, _ = Store(store.root).events()
    assert sum(e.action == "request-delete" for e in events) == rounds


# ------------------------------------------------------------------------- 6. config
def _config(store: Store, text: str | bytes) -> Path:
    path = store.root / CONFIG_FILE
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (f"theta: {TOKEN}\n", "theta"),
        (f"theta: [{TOKEN}]\n", "theta"),
        ("theta: 7\n", "theta"),
        (f"w0: {{{TOKEN}: 1}}\n", "w0"),
        (f"index_max_lines: '{TOKEN}'\n", "index_max_lines"),
        ("index_max_lines: 12.5\n", "index_max_lines"),
        (f"scope: {TOKEN}\n", "scope"),
        (f"scope: [{TOKEN}]\n", "scope"),
        (f"owner: [{TOKEN}]\n", "owner"),
        (f'owner: "{TOKEN}\\0"\n', "owner"),
        (f'owner: "{TOKEN}\\ud800"\n', "owner"),
        ("owner: " + "x" * 400 + "\n", "owner"),
        (f"team_store: {{{TOKEN}: 1}}\n", "team_store"),
        (f'team_store: "../{TOKEN}\\n"\n', "team_store"),
        (f"maintainers: {TOKEN}\n", "maintainers"),
        (f"maintainers: [lead, [{TOKEN}]]\n", "maintainers[1]"),
        (f'maintainers: ["{TOKEN}\\nx"]\n', "maintainers[0]"),
        (f'future_setting: "{TOKEN}\\x07"\n', "future_setting"),
        (f'"{TOKEN}\\0": 1\n', "(an unknown setting)"),
    ],
)
def test_a_wrong_config_value_names_the_file_and_the_field(
    store: Store, text: str, field: str
) -> None:
    path = _config(store, text)
    with pytest.raises(ValidationError) as info:
        load_config(store.root)
    assert info.value.path == str(path) and info.value.field == field, str(info.value)
    assert str(info.value).startswith(str(path))
    assert TOKEN not in str(info.value) and TOKEN[4:20] not in str(info.value)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"owner: x\n" + b"# padding\n" * (MAX_CONFIG_BYTES // 10 + 1), "KiB"),
        ("owner: caf\u00e9\n".encode("latin-1"), "UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
    ],
)
def test_an_unreadable_config_is_a_clear_store_error(store: Store, data: bytes, words: str) -> None:
    path = _config(store, data)
    with pytest.raises(StoreError) as info:
        Store(store.root)
    assert isinstance(info.value, ValidationError) and info.value.path == str(path)
    assert words in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 5_000 + "]" * 5_000 + "\n",
        "a:\n" + "".join(" " * i + "b:\n" for i in range(1, 3_000)),
        # an alias bomb in an unknown setting: kept as a setting, refused, not walked
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n"
            for p, n in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        f"owner: !{TOKEN} x\n",
        f"owner: *{TOKEN}\n",
    ],
)
def test_a_hostile_config_never_makes_a_traceback(store: Store, text: str) -> None:
    _config(store, text)
    started = time.monotonic()
    with pytest.raises(ValidationError) as info:
        load_config(store.root)
    assert time.monotonic() - started < 10
    assert TOKEN not in str(info.value) and info.value.path is not None


def test_a_good_config_still_reads(store: Store) -> None:
    _config(store, "owner: alice\nmaintainers: [lead@example.com]\nfuture: {a: [1, 'two']}\n")
    config = load_config(store.root)
    assert (config.owner, config.maintainers, config.extra) == (
        "alice",
        ("lead@example.com",),
        {"future": {"a": [1, "two"]}},
    )


# ----------------------------------------------------------------------- 7. MEMORY.md
@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("- [Café](memories/mem-1.md) - x\n".encode("latin-1"), "not UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary"),
    ],
)
def test_a_non_utf8_or_binary_index_crashes_nothing(
    store: Store, make_memory: MakeMemory, data: bytes, words: str
) -> None:
    add_memories(store, make_memory())
    (store.root / INDEX_FILE).write_bytes(data)
    text, problem = read_index_text(store.root)
    assert text is None and problem is not None and words in problem and "reindex" in problem
    health = metrics.health(Store(store.root))
    assert any(words in w for w in health.index["warnings"])
    parse_index(data.decode("utf-8", "surrogateescape"))  # any text parses


def test_an_index_that_is_a_link_or_huge_is_not_read(store: Store) -> None:
    index = store.root / INDEX_FILE
    index.unlink()
    outside = store.root.parent / "elsewhere.md"
    outside.write_text("- [Secret](memories/x.md) — from outside\n")
    index.symlink_to(outside)
    text, problem = read_index_text(store.root)
    assert text is None and problem is not None and "symbolic link" in problem
    index.unlink()
    assert read_index_text(store.root) == (None, None)
    index.write_bytes(b"- [x](memories/x.md)\n" * 250_000)  # 5 MB
    text, problem = read_index_text(store.root)
    assert text is None and problem is not None and "MiB" in problem


def test_the_queue_builds_over_a_non_utf8_index(store: Store, make_memory: MakeMemory) -> None:
    """The item is still there; its record just has no index line to point at."""
    from core.review.queue import build_queue
    from core.store.workspace import Workspace

    add_memories(store, make_memory())
    request = file_request(
        store, kind="delete", memory_id="mem-1", reason="no longer true", actor=ACTOR
    )
    (store.root / INDEX_FILE).write_bytes(b"- [Caf\xe9](memories/mem-1.md)\n")
    (item,) = build_queue(Workspace(stores=[Store(store.root)]))
    assert (item.kind, item.id) == ("deletion", request.id)
    assert [r.pointers for r in item.records] == [(f"delete request {request.id} (open)",)]
