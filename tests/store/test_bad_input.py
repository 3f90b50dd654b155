"""Bad input in a store: it still opens, the bad file is reported as a Problem
with a reason (and a field where there is one), the other memories still load,
and nothing is rewritten."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ACTOR, FakeClock, MakeMemory, add_memories, git_status, snapshot_files

from core.reports.doctor import Finding, diagnose
from core.store.events import FIRST_SHARD
from core.store.index import INDEX_FILE
from core.store.layout import memory_path
from core.store.store import MAX_FILE_BYTES, Store
from core.store.transaction import transaction


@pytest.fixture
def good_store(stored: Callable[..., Store], make_memory: MakeMemory) -> Store:
    """A committed store with two valid memories."""

    def build(store: Store, clock: FakeClock) -> None:
        add_memories(store, make_memory(id="good-1"), make_memory(id="good-2", attribute="lang"))

    return stored(build)


@dataclass(frozen=True)
class Case:
    name: str
    rel: str  # the bad file, relative to the store
    write: Callable[[Path, MakeMemory], None]
    reason: str  # words the Problem's reason must contain
    field: str | None = None


def _text(text: str) -> Callable[[Path, MakeMemory], None]:
    return lambda path, make: path.write_text(text, encoding="utf-8")


def _broken_yaml(path: Path, make: MakeMemory) -> None:
    path.write_text("---\nid: [bad-yaml\ntype: preference\n---\nbody\n")


def _binary(path: Path, make: MakeMemory) -> None:
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))


def _latin1(path: Path, make: MakeMemory) -> None:
    path.write_bytes(
        make(id="latin", content="Café au lait, s'il vous plaît.").to_markdown().encode("latin-1")
    )


def _huge(path: Path, make: MakeMemory) -> None:
    text = make(id="huge").to_markdown()
    with path.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.write("x" * (10 * 1024 * 1024))


def _symlink_outside(path: Path, make: MakeMemory) -> None:
    outside = path.parents[2] / "outside.md"  # tmp_path/outside.md, beside the store
    outside.write_text(make(id="outside").to_markdown())
    path.symlink_to(outside)


def _symlink_dangling(path: Path, make: MakeMemory) -> None:
    path.symlink_to("/nonexistent/target.md")


def _symlink_folder(path: Path, make: MakeMemory) -> None:
    outside = path.parents[2] / "outside-folder"
    outside.mkdir()
    (outside / "inner.md").write_text(make(id="inner").to_markdown())
    path.symlink_to(outside, target_is_directory=True)


def _dot_dot_id(path: Path, make: MakeMemory) -> None:
    path.write_text(make().to_markdown().replace("id: mem-1", "id: ../x"))


def _same_id(path: Path, make: MakeMemory) -> None:
    path.write_text(make(id="good-1", content="a second file claiming good-1").to_markdown())


def _wrong_type(path: Path, make: MakeMemory) -> None:
    path.write_text(make(id="wrong").to_markdown().replace("confidence: 0.9", "confidence: high"))


def _bad_date(path: Path, make: MakeMemory) -> None:
    text = make(id="baddate").to_markdown()
    path.write_text(
        text.replace(
            "created_at: '2027-03-14T10:20:00+08:00'", "created_at: 2027-13-45T10:20:00+08:00"
        )
    )


CASES = [
    Case("broken YAML", "memories/bad-yaml.md", _broken_yaml, "not valid YAML"),
    Case(
        "no front matter",
        "memories/note.md",
        _text("Just a note I wrote.\n"),
        "no YAML front matter",
    ),
    Case("binary", "memories/image.md", _binary, "binary"),
    Case("not UTF-8", "memories/latin.md", _latin1, "not UTF-8"),
    Case("10 MB", "memories/huge.md", _huge, "MB"),
    Case("symlink outside", "memories/link.md", _symlink_outside, "outside the store"),
    Case("symlink to a folder", "memories/linked", _symlink_folder, "outside the store"),
    Case("dangling symlink", "memories/dangling.md", _symlink_dangling, "symbolic link"),
    Case("id with ../", "memories/escape.md", _dot_dot_id, "invalid id", "id"),
    Case(
        "two files, one id", "memories/copy-of-good-1.md", _same_id, "duplicate id 'good-1'", "id"
    ),
    Case("wrong type", "memories/wrong.md", _wrong_type, "number", "confidence"),
    Case("impossible date", "memories/baddate.md", _bad_date, "month"),
    Case(
        "nested folder",
        "memories/sub/deeper/bad.md",
        _text("---\nid: x\n---\n"),
        "required",
        "type",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_file_is_a_problem_and_nothing_else_breaks(
    good_store: Store, make_memory: MakeMemory, case: Case
) -> None:
    root = good_store.root
    target = root / case.rel
    target.parent.mkdir(parents=True, exist_ok=True)
    case.write(target, make_memory)
    outside = root.parent / "outside.md"
    outside_before = outside.read_bytes() if outside.exists() else None
    files_before = snapshot_files(root)
    status_before = git_status(root)
    assert status_before and all(line.startswith("??") for line in status_before)

    # it opens, twice (the second time from the cache)
    for _ in range(2):
        opened = Store(root)
        snap = opened.load()
        problems = [p for p in snap.problems if p.path == case.rel]
        assert len(problems) == 1, snap.problems
        problem = problems[0]
        assert case.reason in problem.reason
        assert problem.field == case.field
        assert set(snap.memories) == {"good-1", "good-2"}
        assert snap.memories["good-1"].path == memory_path("good-1")

    # doctor reports it as an error naming the file
    findings = diagnose(Store(root))
    assert Finding("error", case.rel, problem.reason, case.field) in findings

    # a write to the store goes through and leaves the bad file alone
    with transaction(opened, actor=ACTOR, message="unrelated change") as tx:
        tx.transition("good-2", "expired", action="sweep", reason="x")
    assert Store(root).get("good-2").status == "expired"

    files_after = snapshot_files(root)
    changed = {rel for rel in files_before if files_after.get(rel) != files_before[rel]}
    assert changed == {memory_path("good-2"), INDEX_FILE, FIRST_SHARD}
    assert git_status(root) == status_before
    if outside_before is not None:
        assert outside.read_bytes() == outside_before
    if target.is_symlink():
        assert os.readlink(target)  # still the link the user made


def test_the_size_cap_is_checked_before_reading(
    good_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = good_store.root / "memories" / "huge.md"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: size without content
    opened: list[str] = []
    real_open = open

    def watching_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", watching_open)
    problems = Store(good_store.root).load(use_cache=False).problems
    assert [p.path for p in problems] == ["memories/huge.md"]
    assert str(path) not in opened


def test_two_files_with_one_id_keep_the_file_named_after_it(
    store: Store, make_memory: MakeMemory
) -> None:
    memories = store.root / "memories"
    (memories / "a-copy.md").write_text(make_memory(id="twin", content="copy").to_markdown())
    (memories / "twin.md").write_text(make_memory(id="twin", content="original").to_markdown())
    snap = Store(store.root).load()
    assert snap.memories["twin"].content == "original"
    assert [(p.path, p.field) for p in snap.problems] == [("memories/a-copy.md", "id")]
    assert "also in memories/twin.md" in snap.problems[0].reason


def test_supersedes_cycle_is_reported_by_doctor(store: Store, make_memory: MakeMemory) -> None:
    memories = store.root / "memories"
    (memories / "c1.md").write_text(make_memory(id="c1", supersedes="c2").to_markdown())
    (memories / "c2.md").write_text(make_memory(id="c2", supersedes="c3").to_markdown())
    (memories / "c3.md").write_text(make_memory(id="c3", supersedes="c1").to_markdown())
    before = snapshot_files(store.root)
    snap = Store(store.root).load()
    assert set(snap.memories) == {"c1", "c2", "c3"}  # a cycle is not a read problem
    findings = [f for f in diagnose(Store(store.root)) if f.field == "supersedes"]
    assert len(findings) == 1  # one cycle, reported once
    assert findings[0].severity == "error"
    assert findings[0].reason == "supersedes cycle: c1 -> c2 -> c3 -> c1"
    assert snapshot_files(store.root) == before


def test_dangling_supersedes_is_reported_by_doctor(store: Store, make_memory: MakeMemory) -> None:
    add_memories(store, make_memory(id="newer", supersedes="ghost"))
    findings = [f for f in diagnose(store) if f.field == "supersedes"]
    assert [(f.path, f.reason) for f in findings] == [
        (memory_path("newer"), "supersedes ghost, which is not in the store")
    ]


def test_torn_event_line_is_reported_by_doctor(good_store: Store) -> None:
    events = good_store.root / FIRST_SHARD
    with events.open("ab") as handle:
        handle.write(b'{"id":"ev-torn","ts":"2027-03-14T1')
    before = snapshot_files(good_store.root)
    opened = Store(good_store.root)
    assert set(opened.memories) == {"good-1", "good-2"}
    found = [
        f for f in diagnose(opened) if f.path == "events/000001.jsonl" and f.severity == "error"
    ]
    assert len(found) == 1
    assert found[0].severity == "error"
    assert "line 3" in found[0].reason and "torn" in found[0].reason
    assert snapshot_files(good_store.root) == before


def test_index_over_every_limit_is_warned_about(good_store: Store) -> None:
    index = good_store.root / INDEX_FILE
    line = "- [Long](memories/good-1.md) — " + "x" * 170
    index.write_text("\n".join([line] * 210) + "\n", encoding="utf-8")
    size = len(index.read_bytes())
    assert size > 25_000
    before = snapshot_files(good_store.root)
    warnings = [f for f in diagnose(Store(good_store.root)) if f.severity == "warning"]
    index_warnings = [
        f.reason for f in warnings if f.path == INDEX_FILE and "git status" not in f.reason
    ]
    assert len(index_warnings) == 3, index_warnings
    byte_warning, line_warning, length_warning = index_warnings
    assert f"{size:,} bytes" in byte_warning and "25,000-byte cap" in byte_warning
    assert "210 lines" in line_warning and "200-line cap" in line_warning
    assert "210 lines over 150 characters" in length_warning
    assert snapshot_files(good_store.root) == before


def test_a_write_never_overwrites_an_unreadable_file(
    good_store: Store, make_memory: MakeMemory
) -> None:
    path = good_store.root / "memories" / "mem-9.md"
    path.write_text("---\nid: [mem-9\nnotes the user is still fixing\n---\n")
    before = path.read_bytes()
    with pytest.raises(Exception), transaction(good_store, actor=ACTOR, message="x") as tx:  # noqa: B017
        tx.create(make_memory(id="mem-9"), action="create", reason="x")
    assert path.read_bytes() == before


def test_a_mangled_index_does_not_block_writes(good_store: Store) -> None:
    index = good_store.root / INDEX_FILE
    index.write_bytes(index.read_bytes() + b"\xff\xfe hand edit\n")
    with transaction(good_store, actor=ACTOR, message="x") as tx:
        tx.transition("good-2", "expired", action="sweep", reason="x")
    assert b"\xff" not in index.read_bytes()
