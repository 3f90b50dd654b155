"""An import streams: what made it fast decides nothing differently.

An import of thousands of files goes through one transaction and one commit per
store. What makes that fast is held here to the slow path it replaced, which each
test builds itself:

- a transaction's view reads a key's local records through an index
  (``tests/store/test_view_index.py`` drives it at random; here, the whole import);
- the files of a large change are written, synced together (``syncfs``), then
  renamed, not written and fsynced one by one;
- the scanner remembers the findings of the short texts it scanned last;
- a Claude Code front matter libyaml refuses is read line by line before PyYAML's
  own (slow) parser is asked;
- a file's bytes are hashed for a held item only when a held item of that file exists.

The whole import of a folder mixing every shape (the fixture folder, plain topics,
the same key twice with two values, the same words twice, a gate doubt, a certain
and a likely credential, a team file naming an internal address, a symbolic link, a
front matter never closed, bytes that are not UTF-8, an empty file) gives the same
records, held items, events and report both ways; and the CLI's import killed with
SIGKILL at any moment leaves a store doctor finds clean, which a second run
completes into what an uninterrupted run made.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import FakeClock, fake_token

from core.domain.record import Memory
from core.domain.secrets import scanner
from core.importers import CLAUDE_CODE, ImportReport, import_folder
from core.importers.claude_code import files as topic_files
from core.importers.folders import FolderError
from core.store import fsutil
from core.store.fsutil import HostileEntry, atomic_write_many, is_temp_name
from core.store.records import View
from core.store.store import Store
from core.store.workspace import Workspace, open_workspace

PROJECT = Path(__file__).resolve().parents[2]
FIXTURE = PROJECT / "tests" / "fixtures" / "claude_code" / "liyyro"
ACTOR = "alice@example.com"
TOKEN = fake_token("ghp_", 36, seed=17)


@pytest.fixture(autouse=True)
def _scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))


# ----------------------------------------------------------------- the slow paths
def _old_front_matter(lines: list[str], rel: str) -> tuple[dict[str, Any], int]:
    """The front matter read as before: libyaml, then PyYAML, then line by line."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FolderError(
            f"{rel}:1: the front matter has no closing '---' line; add one after the fields"
        )
    text = "\n".join(lines[1:end])
    try:
        try:
            meta = yaml.load(text, Loader=topic_files._LOADER)
        except yaml.YAMLError:
            meta = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        fields = topic_files.line_fields(lines[1:end])
        if fields is not None:
            return fields, end + 1
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "cannot be parsed"
        raise FolderError(
            f"{rel}:{line}: the front matter is not valid YAML ({problem}); fix it, or "
            "quote the value"
        ) from None
    if meta is None:
        return {}, end + 1
    if not isinstance(meta, dict):
        raise FolderError(f"{rel}:2: the front matter is not a mapping of fields (name: ...)")
    return meta, end + 1


def _every_local(view: View, key: tuple[str, str, str, str | None]) -> list[Memory]:
    """A key's local records, reading every local record (no index)."""
    return [m for m in view.local.values() if m.key == key]


def slow_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fsutil, "SYNC_ONCE_FROM", 10**9)
    monkeypatch.setattr(View, "_local_by_key", _every_local)
    monkeypatch.setattr(scanner, "_SEEN_CHARS", -1)
    monkeypatch.setattr(topic_files, "split_front_matter", _old_front_matter)


# -------------------------------------------------------------------- front matter
def _outcome(read: Callable[[list[str], str], Any], lines: list[str]) -> object:
    try:
        return read(lines, "t.md")
    except FolderError as exc:
        return f"error: {exc}"


SHAPES = [
    *"ab: -#'\"\t,.?!%@&*[]{}|>`~=\\/",
    "é", "\u00a0", "\u2028", "\x85", "\ufeff", "\x07", "10", "true", "null", "0x1f",
    ": ", " #", "2026-01-15", "~", "- x", "? x",
]  # fmt: skip


def test_front_matter_reads_as_it_did() -> None:
    """Random fields (colons, quotes, tabs, YAML's marks, control and odd Unicode
    characters, indented ones): the same fields or the same error, word for word."""
    rng = random.Random(3)
    fell_back = errors = 0
    for _ in range(3000):
        fields = []
        for _ in range(rng.randint(1, 4)):
            key = rng.choice(["name", "description", "type", "metadata", "  origin", "x.y"])
            value = "".join(rng.choice(SHAPES) for _ in range(rng.randint(0, 12)))
            fields.append(f"{key}:{rng.choice([' ', '', chr(9), '  '])}{value}")
        lines = ["---", *fields, "---", "body"]
        before = _outcome(_old_front_matter, lines)
        assert _outcome(topic_files.split_front_matter, lines) == before, lines
        errors += str(before).startswith("error")
        with contextlib.suppress(yaml.YAMLError):
            yaml.load("\n".join(fields), Loader=topic_files._LOADER)
            continue
        fell_back += 1
    assert fell_back > 500 and errors > 100  # both ways were taken, many times
    for path in sorted(FIXTURE.rglob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert topic_files.split_front_matter(lines, path.name) == _old_front_matter(
            lines, path.name
        )


# ------------------------------------------------------------------------ the scan
def test_remembered_scans_find_what_a_scan_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short texts with and without credentials, scanned again and again past the
    memo's size: the findings of a fresh scan, in a list of the caller's own."""
    monkeypatch.setattr(scanner, "_SEEN", {})
    monkeypatch.setattr(scanner, "_SEEN_MOST", 16)
    rng = random.Random(9)
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    texts = [
        f"token {TOKEN}",
        f"password: {''.join(rng.choice(alnum) for _ in range(14))}",
        "Use tables for comparisons.",
        "claude-code",
        "",
        "\n",
        "x" * 400,
        "x" * 401 + TOKEN,
        *(f"note {n}: AKIA{''.join(rng.choice(alnum[26:]) for _ in range(16))}" for n in range(30)),
    ]
    for _ in range(400):
        text = rng.choice(texts)
        found = scanner.scan(text)
        assert found == scanner.scan_text(text)
        found.clear()  # the caller's own list
        assert scanner.scan(text) == scanner.scan_text(text)
        assert len(scanner._SEEN) <= 16
    assert scanner.scan(f"token {TOKEN}") and not scanner.scan("claude-code")
    with pytest.raises(TypeError, match=r"scan\(\) expects str"):
        scanner.scan(b"token")  # type: ignore[arg-type]


def test_a_text_hash_is_what_it_was() -> None:
    """The hash that recognises a text sent again (core.store.quarantine.text_hash)
    skips the per-character look at ASCII text: the same hashes, ASCII or not."""
    import hashlib
    import unicodedata

    from core.store.quarantine import text_hash

    def slow(text: str) -> str:
        folded = unicodedata.normalize("NFKC", text).casefold()
        visible = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
        return hashlib.sha256(
            " ".join(visible.split()).encode("utf-8", "surrogatepass")
        ).hexdigest()

    rng = random.Random(4)
    marks = ["\u200b", "\u202e", "\U000e0041", "\u00ad", "\ufb01", "É", "ß", "\t", "\x00"]
    for _ in range(2000):
        text = "".join(
            rng.choice(marks) if rng.random() < 0.1 else chr(rng.randint(32, 126))
            for _ in range(rng.randint(0, 40))
        )
        assert text_hash(text) == slow(text), repr(text)


# -------------------------------------------------------------- writing many files
def test_many_files_are_written_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []

    def syncfs() -> Callable[[str], bool]:
        def sync(name: str) -> bool:  # every file written, none renamed yet
            synced.append(name)
            assert all(not (tmp_path / f"d{n % 3}" / f"f{n}.md").exists() for n in range(40))
            return True

        return sync

    monkeypatch.setattr(fsutil, "_syncfs", syncfs)
    files = [(tmp_path / f"d{n % 3}" / f"f{n}.md", f"file {n}\n".encode()) for n in range(40)]
    atomic_write_many(files)
    assert len(synced) == 1
    assert {p: p.read_bytes() for p, _ in files} == dict(files)
    assert not [p for p in tmp_path.rglob("*") if is_temp_name(p.name)]

    # no syncfs to answer: a fsync each
    monkeypatch.setattr(fsutil, "_syncfs", lambda: lambda name: False)
    atomic_write_many([(p, data + b"again\n") for p, data in files])
    assert all(p.read_bytes().endswith(b"again\n") for p, _ in files)

    # a folder where a file belongs: nothing renamed, nothing left over
    monkeypatch.setattr(fsutil, "_syncfs", syncfs)
    (tmp_path / "d1" / "f19.md").unlink()
    (tmp_path / "d1" / "f19.md").mkdir()
    fresh = [(tmp_path / "e" / f"g{n}.md", b"new\n") for n in range(38)]
    with pytest.raises(HostileEntry):
        atomic_write_many([*fresh[:20], (tmp_path / "d1" / "f19.md", b"x"), *fresh[20:]])
    assert not (tmp_path / "e").exists() or not any((tmp_path / "e").iterdir())
    assert not [p for p in tmp_path.rglob("*") if is_temp_name(p.name)]


# --------------------------------------------------------------- the whole import
def mixed_folder(root: Path) -> Path:
    """The fixture folder and every other shape an import meets."""
    folder = Path(shutil.copytree(FIXTURE, root / "shop" / ".claude" / "memory"))
    index = [(folder / "MEMORY.md").read_text(encoding="utf-8").rstrip("\n"), "", "## More"]
    for n in range(48):  # past SYNC_ONCE_FROM: written at once
        kind = ("user", "feedback", "project", "reference")[n % 4]
        name = f"{kind}_topic_{n:03d}"
        (folder / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: Topic {n}: what session {n} taught\n"
            f"type: {kind}\n---\n\nRule {n}: run the checks of module m{n} before pushing.\n"
            f"**Why:** module m{n} broke the build once.\n",
            encoding="utf-8",
        )
        index.append(f"- [Topic {n}]({name}.md) — module m{n}")
    shapes = {
        # the same key twice, two values (a conflict), and the same words twice (merged)
        "project_db_a.md": "---\nname: database\ntype: project\n---\n\nThe database: Postgres.\n",
        "project_db_b.md": "---\nname: database\ntype: project\n---\n\nThe database: MySQL.\n",
        "feedback_twice.md": "---\nname: terse\ntype: feedback\n---\n\nKeep answers short.\n",
        "feedback_twice_2.md": "---\nname: terse\ntype: feedback\n---\n\nKeep answers short.\n",
        # a doubt of the gate (derivable content): held for a person
        "project_layout.md": "---\nname: layout\ntype: project\n---\nsrc/app/main.py\n",
        # a certain credential (refused), a likely one (held)
        "reference_key.md": f"---\nname: key\ntype: reference\n---\n\nDeploy with {TOKEN}.\n",
        "reference_pw.md": "---\nname: pw\ntype: reference\n---\n\nThe staging password is "
        "Tr0ub4dor&3x!.\n",
        "project_unclosed.md": "---\nname: unclosed\ntype: project\n\nNo closing line.\n",
        "user_empty.md": "",
        "user_colons.md": "---\nname: Project: x: y\ndescription: a: b\ntype: user\n---\n\n"
        "Answers in English: always.\n",
    }
    for rel, text in shapes.items():
        (folder / rel).write_text(text, encoding="utf-8")
    (folder / "user_latin1.md").write_bytes(b"---\nname: x\ntype: user\n---\n\ncaf\xe9\n")
    (folder / "team" / "infra.md").write_text(
        "---\nname: infra\ntype: reference\n---\n\nThe build cache is at 10.2.3.4:8080.\n",
        encoding="utf-8",
    )
    outside = root / "outside.md"
    outside.write_text("---\nname: outside\ntype: user\n---\n\nNot in the folder.\n")
    (folder / "user_link.md").symlink_to(outside)
    (folder / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return folder


def workspace(root: Path, clock: FakeClock) -> Workspace:
    Store.init(root / "private", scope="private", owner="alice", team_store="../team", actor=ACTOR)
    Store.init(root / "team", scope="team", maintainers=(ACTOR,), actor=ACTOR)
    return open_workspace([root], clock=clock)


def outcome_of(ws: Workspace, report: ImportReport) -> dict[str, Any]:
    """Everything an import decides: the report, and per store every file it keeps
    (records, held items, the index, daily logs) and every event."""
    stores = {}
    for store in ws.stores:
        files = {
            p.relative_to(store.root).as_posix(): p.read_bytes()
            for p in sorted(store.root.rglob("*"))
            if p.is_file() and not p.relative_to(store.root).as_posix().startswith(".git/")
        }
        events, _ = store.events()
        stores[store.config.scope] = {"files": files, "events": [e.to_dict() for e in events]}
    return {"report": report.to_dict(), "stores": stores}


def test_a_streamed_import_decides_what_the_slow_path_decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = mixed_folder(tmp_path)
    done: list[dict[str, Any]] = []
    for way in ("streamed", "slow"):
        if way == "slow":
            slow_paths(monkeypatch)
        ws = workspace(tmp_path / "stores", FakeClock())  # the same paths both ways
        report = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
        again = import_folder(CLAUDE_CODE, ws, folder, actor=ACTOR)
        done.append({"first": outcome_of(ws, report), "again": again.to_dict()})
        monkeypatch.undo()
        (tmp_path / "stores").rename(tmp_path / way)
    streamed, slow = done
    outcomes = [i["outcome"] for i in streamed["first"]["report"]["items"]]
    for shape in ("written", "merged", "conflict", "held", "refused", "skipped"):
        assert shape in outcomes, shape  # the folder has every shape
    assert outcomes.count("written") > fsutil.SYNC_ONCE_FROM
    private = streamed["first"]["stores"]["private"]["files"]
    assert any(rel.startswith("held/") for rel in private)
    assert streamed == slow
    assert TOKEN not in json.dumps(streamed["first"]["report"])


# ------------------------------------------------------------------- killed at once
def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(PROJECT), "MEMGOV_ACTOR": ""}


def memgov(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        capture_output=True, text=True, env=env(), timeout=600, check=False,
    )  # fmt: skip


def records(root: Path) -> dict[str, tuple[str, str, str]]:
    return {
        m.id: (m.status, m.attribute, m.content)
        for m in Store(root).load(use_cache=False).memories.values()
    }


def memory_files(root: Path) -> int:
    return sum(1 for p in (root / "memories").rglob("*.md") if not is_temp_name(p.name))


def temp_files(root: Path) -> int:
    return sum(1 for p in (root / "memories").rglob("*") if is_temp_name(p.name))


#: moments to kill at: (name, reached(store root), a kill lands there every time)
POINTS: tuple[tuple[str, Callable[[Path], bool], bool], ...] = (
    ("reading the folder", lambda root: True, True),
    ("the journal written", lambda root: (root / ".git" / "memgov" / "txn.json").exists(), True),
    ("the files being written", lambda root: temp_files(root) > 0, False),
    ("half the files in place", lambda root: memory_files(root) > 150, False),
)


@pytest.mark.parametrize("point", range(len(POINTS)), ids=[p[0] for p in POINTS])
def test_an_import_killed_at_any_moment_finishes_on_the_next_run(
    point: int, tmp_path: Path
) -> None:
    name, reached, must_land = POINTS[point]
    folder = tmp_path / "shop" / ".claude" / "memory"
    folder.mkdir(parents=True)
    for n in range(300):
        (folder / f"project_topic_{n:03d}.md").write_text(
            f"---\nname: topic {n}\ndescription: Topic {n}: a note\ntype: project\n---\n\n"
            f"Rule {n}: run the checks of module m{n} before pushing.\n",
            encoding="utf-8",
        )
    template = tmp_path / "template"
    assert memgov("init", "--store", str(template), "--as", ACTOR).returncode == 0
    whole = Path(shutil.copytree(template, tmp_path / "whole", symlinks=True))
    argv = ("import", "claude-code", str(folder), "--as", ACTOR, "--json")
    assert memgov("--store", str(whole), *argv).returncode == 0
    expected = records(whole)
    assert len(expected) == 300

    landed = False
    for _attempt in range(4):
        root = tmp_path / f"killed-{_attempt}"
        shutil.copytree(template, root, symlinks=True)
        process = subprocess.Popen(
            [sys.executable, "-m", "tui.cli", "--store", str(root), *argv],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(),
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 300
        while process.poll() is None and time.monotonic() < deadline:
            if reached(root):
                break
            time.sleep(0.0005)
        landed = process.poll() is None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
        landed = landed and process.returncode == -signal.SIGKILL
        # the first reader finishes or undoes what the kill left: doctor finds nothing
        doctor = memgov("doctor", "--store", str(root), "--json")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert json.loads(doctor.stdout)["clean"], doctor.stdout
        now = records(root)
        assert set(now) <= set(expected) and len(now) in (0, 300), (name, len(now))
        # run again: it does the rest, and the store is what one run made
        again = memgov("--store", str(root), *argv)
        assert again.returncode == 0, again.stdout + again.stderr
        assert records(root) == expected
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        assert [line for line in status.splitlines() if not is_temp_name(Path(line).name)] == []
        if landed:
            break
    assert landed or not must_land, name
