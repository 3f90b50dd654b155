"""Input hygiene, written as the attack: events.jsonl and request files.

Nothing in events.jsonl or a request file can crash a reader: each bad line or file
is reported by its place and skipped; control characters are refused in a request's
fields; and no error message ever holds a value (a fake token is fed in and searched
for).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ACTOR, FIXED_NOW, FakeClock, MakeMemory, add_memories, fake_token

from core.domain.errors import ValidationError
from core.reports import metrics
from core.store.events import FIRST_SHARD, MAX_LINE_BYTES, Event, read_events
from core.store.requests import REQUEST_DIR, Request, file_request, load_requests, request_problems
from core.store.store import Store
from core.store.transaction import transaction

REPO = Path(__file__).resolve().parents[2]


#: fed into every field and searched for in every error (seeded: every pytest-xdist
#: worker collects the same ids)
TOKEN = fake_token("ghp_", 36, seed=20261201)


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
    log = tmp_path / "events.jsonl"
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
    with (store.root / FIRST_SHARD).open("ab") as handle:
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
    with transaction(other, actor=ACTOR, message="expire") as tx:
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
root, go, memory_id, reason, ready = sys.argv[2:7]
store = Store(root)
store.load()
Path(ready).write_text("")  # the store opened: waiting at the line
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
                    str(tmp_path / f"ready-{n}-{who}"),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=os.environ.copy(),
            )
            for who in "ab"
        ]
        # both have opened the store and wait at the line (each says so with a file)
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready-{n}-{who}").exists() for who in "ab"):
            assert all(r.poll() is None for r in racers), [r.communicate() for r in racers]
            assert time.monotonic() < deadline, "the racers never opened the store"
            time.sleep(0.01)
        go.write_text("")
        outputs = [racer.communicate(timeout=120) for racer in racers]
        assert all(r.returncode == 0 for r in racers), [err for _, err in outputs]
        ids = {out.strip() for out, _ in outputs}
        assert len(ids) == 1, ids  # the second got the first's request
        filed = [r for r in load_requests(store) if r.memory_id == f"mem-{n}"]
        assert [r.id for r in filed] == list(ids)
    events, _ = Store(store.root).events()
    assert sum(e.action == "request-delete" for e in events) == rounds
