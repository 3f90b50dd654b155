"""``memgov doctor``: exit status, findings with file and reason, --json, --strict."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ACTOR, FakeClock, MakeMemory, add_memories, git, record_file, snapshot_files

from core.domain.errors import ValidationError
from core.domain.record import Source
from core.reports.doctor import diagnose
from core.store.events import FIRST_SHARD
from core.store.index import INDEX_FILE
from core.store.journal import JOURNAL_FILE
from core.store.layout import memory_path
from core.store.store import Store
from core.store.transaction import transaction
from tui.cli import main


def doctor(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, Any]:
    code = main(["doctor", "--store", str(root), "--json", *extra])
    out = capsys.readouterr().out
    return code, json.loads(out)


def doctor_text(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> tuple[int, str]:
    code = main(["doctor", "--store", str(root), *extra])
    return code, capsys.readouterr().out


@pytest.fixture
def clean_store(stored: Callable[..., Store], make_memory: MakeMemory) -> Store:
    """Three memories, mem-3 superseding mem-2; doctor finds nothing."""

    def build(store: Store, clock: FakeClock) -> None:
        add_memories(
            store,
            make_memory(id="mem-1"),
            make_memory(id="mem-2", attribute="lang", type="semantic", condition="env=prod"),
        )
        with transaction(store, actor=ACTOR, message="supersede") as tx:
            tx.create(
                make_memory(
                    id="mem-3",
                    attribute="lang",
                    supersedes="mem-2",
                    source=make_memory(id="mem-2").source,  # the log line add_memories wrote
                ),
                action="create",
                reason="newer",
            )
            tx.transition("mem-2", "superseded", action="supersede", reason="newer evidence")

    return stored(build)


def test_a_fresh_store_is_clean(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = doctor_text(capsys, store.root)
    assert code == 0
    assert text.strip() == f"{store.root}: clean (0 memories)"


def test_a_store_written_by_memgov_is_clean(
    clean_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot_files(clean_store.root)
    code, data = doctor(capsys, clean_store.root)
    assert code == 0
    assert data == {
        "clean": True,
        "stores": [{"store": str(clean_store.root), "memories": 3, "findings": []}],
    }
    assert snapshot_files(clean_store.root) == before  # doctor changes nothing


def test_long_and_multi_line_titles_keep_the_index_clean(
    store: Store, make_memory: MakeMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    add_memories(
        store,
        make_memory(id="mem-1", title="A very long title " * 16),  # under the 300 a title has
        make_memory(id="mem-2", attribute="lang", title="Two [bracketed] words"),
    )
    with pytest.raises(ValidationError) as info:  # a title is one line
        make_memory(id="mem-3", title="Two\nlines")
    assert info.value.field == "title"
    lines = (store.root / INDEX_FILE).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert all(len(line) <= 150 for line in lines)
    code, data = doctor(capsys, store.root, "--strict")
    assert (code, data["stores"][0]["findings"]) == (0, [])


# ---------------------------------------------------------------- each finding
def _broken_file(store: Store, make: MakeMemory) -> None:
    (store.root / "memories" / "broken.md").write_text("---\nid: [x\n---\n")


def _index_points_nowhere(store: Store, make: MakeMemory) -> None:
    with (store.root / INDEX_FILE).open("a") as handle:
        handle.write("- [Ghost](memories/ghost.md) — gone\n")


def _index_points_at_superseded(store: Store, make: MakeMemory) -> None:
    with (store.root / INDEX_FILE).open("a") as handle:
        handle.write(f"- [Old]({memory_path('mem-2')}) — old\n")


def _index_line_missing(store: Store, make: MakeMemory) -> None:
    index = store.root / INDEX_FILE
    kept = [line for line in index.read_text().splitlines() if "mem-1.md" not in line]
    index.write_text("".join(line + "\n" for line in kept))


def _torn_event(store: Store, make: MakeMemory) -> None:
    with (store.root / FIRST_SHARD).open("ab") as handle:
        handle.write(b'{"id":"ev-torn"')


def _no_event(store: Store, make: MakeMemory) -> None:
    (store.root / "memories" / "stray.md").write_text(
        make(id="stray", attribute="stray", source=None).to_markdown()
    )


def _status_disagrees(store: Store, make: MakeMemory) -> None:
    path = record_file(store, "mem-3")
    path.write_text(path.read_text().replace("status: active", "status: expired"))


def _cycle(store: Store, make: MakeMemory) -> None:
    path = record_file(store, "mem-2")
    path.write_text(path.read_text().replace("supersedes: null", "supersedes: mem-3"))


def _dangling(store: Store, make: MakeMemory) -> None:
    path = record_file(store, "mem-1")
    path.write_text(path.read_text().replace("supersedes: null", "supersedes: nowhere"))


def _source_unresolved(store: Store, make: MakeMemory) -> None:
    path = record_file(store, "mem-1")
    path.write_text(path.read_text().replace("message_index: 0", "message_index: 99"))


def _journal(store: Store, make: MakeMemory) -> None:
    (store.state_dir / JOURNAL_FILE).write_text("{}")


ERRORS = [
    ("unreadable file", _broken_file, "memories/broken.md", None, "not valid YAML"),
    ("index to nothing", _index_points_nowhere, INDEX_FILE, None, "not a readable memory"),
    ("index to superseded", _index_points_at_superseded, INDEX_FILE, None, "superseded"),
    ("no index line", _index_line_missing, INDEX_FILE, None, "mem-1 has no index line"),
    ("torn event", _torn_event, "events/000001.jsonl", None, "torn last line"),
    ("no event", _no_event, "memories/stray.md", "status", "no event records"),
    ("status vs events", _status_disagrees, memory_path("mem-3"), "status", "last event says"),
    ("supersedes cycle", _cycle, memory_path("mem-2"), "supersedes", "supersedes cycle"),
    ("dangling supersedes", _dangling, memory_path("mem-1"), "supersedes", "not in the store"),
    ("unresolved source", _source_unresolved, memory_path("mem-1"), "source", "does not resolve"),
    ("unusable journal", _journal, ".git/memgov/txn.json", None, "crash journal cannot be used"),
]


@pytest.mark.parametrize(
    ("break_it", "path", "field", "words"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
def test_each_error_fails_with_file_and_reason(
    clean_store: Store,
    make_memory: MakeMemory,
    capsys: pytest.CaptureFixture[str],
    break_it: Callable[[Store, MakeMemory], None],
    path: str,
    field: str | None,
    words: str,
) -> None:
    break_it(clean_store, make_memory)
    code, data = doctor(capsys, clean_store.root)
    assert code == 1
    assert data["clean"] is False
    findings = data["stores"][0]["findings"]
    matching = [f for f in findings if f["path"] == path and words in f["reason"]]
    assert matching, findings
    assert matching[0]["severity"] == "error"
    assert matching[0]["field"] == field
    # the text form names the file and the reason too
    code, text = doctor_text(capsys, clean_store.root)
    assert code == 1
    assert re.search(r"\d+ findings? in", text)
    assert any(
        line.strip().startswith("error") and path in line and words in line
        for line in text.splitlines()
    )


def _large_memory(store: Store, make: MakeMemory) -> None:
    add_memories(store, make(id="big", attribute="big", content="word " * 9_000))


def _index_too_long(store: Store, make: MakeMemory) -> None:
    config = store.root / "memgov.yaml"
    config.write_text(config.read_text().replace("index_max_lines: 200", "index_max_lines: 1"))
    git(store.root, "commit", "-q", "-am", "tighter index limit")


def _uncommitted(store: Store, make: MakeMemory) -> None:
    path = record_file(store, "mem-1")
    path.write_text(path.read_text().replace("Use tables", "Use big tables"))


WARNINGS = [
    ("large memory", _large_memory, memory_path("big"), "over 40,000"),
    ("index limits", _index_too_long, INDEX_FILE, "over the 1-line cap"),
    ("uncommitted edit", _uncommitted, memory_path("mem-1"), "not committed"),
]


@pytest.mark.parametrize(
    ("break_it", "path", "words"),
    [case[1:] for case in WARNINGS],
    ids=[case[0] for case in WARNINGS],
)
def test_warnings_pass_unless_strict(
    clean_store: Store,
    make_memory: MakeMemory,
    capsys: pytest.CaptureFixture[str],
    break_it: Callable[[Store, MakeMemory], None],
    path: str,
    words: str,
) -> None:
    break_it(clean_store, make_memory)
    code, data = doctor(capsys, clean_store.root)
    findings = data["stores"][0]["findings"]
    assert [(f["severity"], f["path"]) for f in findings] == [("warning", path)]
    assert words in findings[0]["reason"]
    assert (code, data["clean"]) == (0, True)
    code, data = doctor(capsys, clean_store.root, "--strict")
    assert (code, data["clean"]) == (1, False)


def test_json_shape(
    clean_store: Store, make_memory: MakeMemory, capsys: pytest.CaptureFixture[str]
) -> None:
    _broken_file(clean_store, make_memory)
    code, data = doctor(capsys, clean_store.root)
    assert code == 1
    assert set(data) == {"clean", "stores"}
    (entry,) = data["stores"]
    assert set(entry) == {"store", "memories", "findings"}
    assert entry["store"] == str(clean_store.root)
    assert entry["memories"] == 3
    for finding in entry["findings"]:
        assert set(finding) == {"severity", "path", "field", "reason"}
        assert finding["severity"] in ("error", "warning")
        assert isinstance(finding["reason"], str) and finding["reason"]


def test_doctor_checks_every_store_given(
    clean_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = Store.init(tmp_path / "team", scope="team", actor=ACTOR)
    (other.root / "memories" / "broken.md").write_text("nothing\n")
    code = main(["doctor", "--store", str(clean_store.root), "--store", str(other.root), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [s["store"] for s in data["stores"]] == [str(clean_store.root), str(other.root)]
    errors = [
        [f["path"] for f in s["findings"] if f["severity"] == "error"] for s in data["stores"]
    ]
    assert errors == [[], ["memories/broken.md"]]


def test_diagnose_lists_findings_with_render(clean_store: Store, make_memory: MakeMemory) -> None:
    _dangling(clean_store, make_memory)
    findings = [f for f in diagnose(clean_store) if f.severity == "error"]
    assert [f.render() for f in findings] == [
        f"error   {memory_path('mem-1')}: field 'supersedes': "
        "supersedes nowhere, which is not in the store"
    ]


def test_a_deleted_predecessor_is_not_a_dangling_pointer(
    clean_store: Store, make_memory: MakeMemory
) -> None:
    """mem-3 supersedes mem-2; once mem-2 is erased the pointer is history, not an error."""
    with transaction(clean_store, actor=ACTOR, message="erase") as tx:
        tx.erase("mem-2", action="erase", reason="user asked")
    assert not record_file(clean_store, "mem-2").exists()
    assert [f for f in diagnose(clean_store) if f.severity == "error"] == []


def test_sources_pointing_at_files_resolve(store: Store, make_memory: MakeMemory) -> None:
    (store.root / "notes").mkdir()
    (store.root / "notes" / "CLAUDE.md").write_text("line one\nuse pnpm\n")
    source = Source(task="import", file="notes/CLAUDE.md", line=2, evidence="use pnpm")
    add_memories(store, make_memory(source=source))
    git(store.root, "add", "notes")
    git(store.root, "commit", "-qm", "notes")
    assert diagnose(store) == []
    bad = Source(task="import", file="notes/CLAUDE.md", line=9)
    with transaction(store, actor=ACTOR, message="x") as tx:
        tx.update("mem-1", action="edit", reason="x", source=bad)
    assert [f.field for f in diagnose(store)] == ["source"]


def test_entries_memgov_never_reads_are_found_under_any_name(store: Store) -> None:
    """A link, a pipe and a name with a control character, in folders whose names are
    plain ASCII, accented, or escaped; each path shown escaped, never the raw bytes;
    the entries under a folder with a hostile name are not listed (the folder is)."""
    import os

    base = store.root / "notes"
    (base / "a" / "b").mkdir(parents=True)
    (base / "é").mkdir()
    (base / "a" / "ok.md").write_text("plain\n")
    (base / "a" / "link").symlink_to("/etc")
    os.mkfifo(base / "a" / "b" / "pipe")
    os.mkfifo(base / "é" / "pipe")
    (base / "é" / "ctl\x01name").write_text("x")
    hostile = os.fsencode(base) + b"/bad\xff"
    os.makedirs(hostile + b"/sub")
    os.mkfifo(hostile + b"/sub/pipe")
    found = {f.path: f.reason for f in diagnose(Store(store.root))}
    expected = {
        "notes/a/link": "is a symbolic link",
        "notes/a/b/pipe": "is a named pipe (FIFO)",
        "notes/é/pipe": "is a named pipe (FIFO)",
        "notes/é/ctl\\x01name": "its name holds a control character (U+0001)",
        "notes/bad\\xff": "its name is not UTF-8",
    }
    for path, reason in expected.items():
        assert found.get(path, "").startswith(reason), (path, found)
    assert not any("sub" in path for path in found)
