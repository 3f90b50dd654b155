"""The history purge of an erasure, tried as someone digging through ``.git`` would.

Real git repositories in tmp_path: a store's history with every trace an erasure
must remove (a short value in an old MEMORY.md, an index hook cut at 150
characters, an old decision file, earlier wording before a correction and a
consolidation rewrite, a reason quoting the content), on several refs (main, a
second branch, a consolidation batch branch, an annotated baseline tag). After
the purge no object anywhere in ``.git`` holds any of it, and everything else
about the history is as it was. Then the purge is killed with SIGKILL at random
moments and run again, and must end exactly where an uninterrupted one ends.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from core.domain.record import Memory, Source
from core.store.erase import (
    ERASED,
    ERASED_KEEP,
    history_needles,
    needles_for,
    purge_history,
    scrub_file,
)
from core.store.index import index_line
from core.store.store import Store

ROOT = Path(__file__).resolve().parents[2]
MID = "home-address-1a2b3c4d"
PATH = f"memories/{MID}.md"
OTHER = "editor-9f8e7d6c"
TITLE = "Zorbl home"  # 10 bytes: under the needle minimum
VALUE = "Elm St 9"  # 8 bytes: likewise
LONG_LINE = (
    "Lives at 12 Quibble Lane, flat 4, near the old mill by the canal, where the blue "
    "gate sticks in winter and the parcel box hides behind the third bin on the left side"
)
WORDING_1 = f"{LONG_LINE}.\nPrefers deliveries after six, never before."
WORDING_2 = "Lives at 14 Quibble Lane, flat 2, by the river bend café.\nRing twice, then wait."
WORDING_3 = "Home: 14 Quibble Lane flat 2 (river bend side), ring twice."
EVIDENCE = "my address is 12 quibble lane flat four"
REASON = "moved house: Lives at 14 Quibble Lane, flat 2, by the river bend café."


# ------------------------------------------------------------------ building
IDENTITY = {  # tags and merges made here, on a machine without a git identity
    "GIT_COMMITTER_NAME": "Tagger Tam",
    "GIT_COMMITTER_EMAIL": "tam@example.com",
    "GIT_COMMITTER_DATE": "2027-01-06T12:00:00+02:00",
}


def git(
    root: Path, *args: str, data: bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    result = subprocess.run(
        ["git", *args],
        cwd=root,
        input=data,
        capture_output=True,
        check=True,
        env={**os.environ, **IDENTITY, **(env or {})},
    )
    return result.stdout


def commit(
    root: Path,
    files: dict[str, bytes | None],
    message: str,
    *,
    author: tuple[str, str] = ("Ana Li", "ana@example.com"),
    when: str = "2027-01-05T09:00:00+08:00",
) -> None:
    for rel, data in files.items():
        target = root / rel
        if data is None:
            target.unlink(missing_ok=True)
            git(root, "rm", "-q", "--cached", "--ignore-unmatch", "--", rel)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        git(root, "add", "--", rel)
    env = {
        "GIT_AUTHOR_NAME": author[0],
        "GIT_AUTHOR_EMAIL": author[1],
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_NAME": "memgov",
        "GIT_COMMITTER_EMAIL": "memgov@localhost",
        "GIT_COMMITTER_DATE": when,
    }
    git(root, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", message, env=env)


def memory(content: str, *, usage: int = 0, memory_id: str = MID, **extra: object) -> Memory:
    when = datetime.fromisoformat("2027-01-05T09:00:00+08:00")
    fields: dict[str, Any] = {
        "id": memory_id,
        "type": "semantic",
        "scope": "private",
        "status": "active",
        "subject": "user:ana",
        "attribute": "home_address" if memory_id == MID else "editor",
        "content": content,
        "confidence": 0.9,
        "created_at": when,
        "verified_at": when,
        "usage_count": usage,
        "path": f"memories/{memory_id}.md",
    }
    if memory_id == MID:
        fields.update(
            title=TITLE,
            value=VALUE,
            source=Source(task="tr_0001", message_index=3, evidence=EVIDENCE),
        )
    fields.update(extra)
    return Memory(**fields)


EDITOR = memory("Uses helix with the default keymap for every repository.", memory_id=OTHER)


def index(*records: Memory) -> bytes:
    return "".join(index_line(m, 150) + "\n" for m in records).encode()


def decision(number: int, before: Memory, after: Memory, store: Path, reason: str) -> bytes:
    def front(m: Memory) -> dict[str, object]:
        data = m.front_matter()
        data["path"] = m.path
        return data

    record = {
        "id": f"dec-2027010{number}",
        "action": "correct",
        "reason": reason,
        "before": {before.id: front(before)},
        "after": {after.id: front(after)},
        "touched": [
            {"store": str(store), "id": after.id, "before": front(before), "after": front(after)}
        ],
    }
    return (json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def event(number: int, action: str, reason: str, *, ascii_only: bool = False) -> bytes:
    line = {
        "id": f"ev-{number:04d}",
        "ts": "2027-01-05T09:00:00+08:00",
        "actor": "ana@example.com",
        "action": action,
        "memory_ids": [MID],
        "reason": reason,
    }
    return (json.dumps(line, ensure_ascii=ascii_only, separators=(",", ":")) + "\n").encode()


def build_store(root: Path) -> dict[str, Any]:
    """A private store whose history holds every trace of one memory; returns the
    arguments of its erasure."""
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    v1 = memory(WORDING_1)
    v1_used = memory(WORDING_1, usage=1)
    v2 = memory(WORDING_2)
    v3 = memory(WORDING_3)
    events = event(1, "create", "remembered from tr_0001")
    log = f"# 2027-01-05\n\n- tr_0001 #3 user: {EVIDENCE}\n".encode()
    commit(
        root,
        {
            PATH: v1.to_markdown().encode(),
            EDITOR.path: EDITOR.to_markdown().encode(),
            "MEMORY.md": index(EDITOR, v1),
            "events.jsonl": events,
            "logs/2027/01/2027-01-05.md": log,
        },
        "remember home_address\n\nactor: ana@example.com\n",
        when="2027-01-05T09:00:00+08:00",
    )
    events += event(2, "use", "recalled")
    commit(
        root,
        {PATH: v1_used.to_markdown().encode(), "events.jsonl": events},
        "use: 1 memory",
        author=("Bo Wang", "bo@example.org"),
        when="2027-01-06T10:30:00-05:00",
    )
    git(root, "tag", "-a", "baseline/0001", "-m", "baseline 1: before consolidation\n\nkept\n")
    # a second branch, made from here, that still carries the first wording
    git(root, "branch", "side")
    # the correction: the first wording goes, the second comes, a decision records it
    events += event(3, "correct", REASON)
    events += event(4, "correct", REASON, ascii_only=True)
    commit(
        root,
        {
            PATH: v2.to_markdown().encode(),
            "MEMORY.md": index(EDITOR, v2),
            "events.jsonl": events,
            "decisions/dec-20270101.json": decision(1, v1_used, v2, root, REASON),
        },
        "decide: correct home_address — ünïcode message\n\n\n",
        when="2027-01-07T08:00:00+09:00",
    )
    # a pending consolidation batch rewrites the wording again
    main_tip = git(root, "rev-parse", "HEAD").decode().strip()
    git(root, "checkout", "-q", "-b", "memgov/batch/b-0001")
    commit(
        root,
        {PATH: v3.to_markdown().encode(), "MEMORY.md": index(EDITOR, v3)},
        "consolidate: batch b-0001",
        author=("memgov", "memgov@localhost"),
        when="2027-01-08T01:00:00+00:00",
    )
    git(root, "checkout", "-q", "side")
    commit(
        root,
        {"notes.md": b"side work\n"},
        "side: unrelated",
        author=("Cai", "cai@example.net"),
        when="2027-01-06T11:00:00+01:00",
    )
    git(root, "checkout", "-q", "main")
    assert git(root, "rev-parse", "HEAD").decode().strip() == main_tip
    # the erasure itself: the store's commit, with the working tree cleaned by the
    # same rules the purge applies to history
    quotes = [EVIDENCE, REASON]
    needles = needles_for(WORDING_2, quotes)
    needles += history_needles(root, [PATH], keep=[EDITOR.to_markdown().encode()])
    cleaned = {
        rel: scrub_file(rel, (root / rel).read_bytes(), needles, [MID])
        for rel in ("events.jsonl", "decisions/dec-20270101.json", "logs/2027/01/2027-01-05.md")
    }
    events_clean = cleaned["events.jsonl"] + event(5, "erase", "the user asked")
    commit(
        root,
        {
            PATH: None,
            "MEMORY.md": index(EDITOR),
            "events.jsonl": events_clean,
            "decisions/dec-20270101.json": cleaned["decisions/dec-20270101.json"],
            "logs/2027/01/2027-01-05.md": cleaned["logs/2027/01/2027-01-05.md"],
        },
        "erase home_address",
        when="2027-01-09T12:00:00+08:00",
    )
    return {"drop_paths": [PATH], "needles": needles, "erased_ids": [MID]}


def traces() -> list[bytes]:
    """Every string that must be gone from every object: the needles' sources, the
    short title and value, the cut index hook, each wording's lines."""
    out = [TITLE.encode(), VALUE.encode(), EVIDENCE.encode(), LONG_LINE[:60].encode()]
    for wording in (WORDING_1, WORDING_2, WORDING_3):
        out += [line.encode() for line in wording.splitlines()]
    out.append(b"Lives at 14 Quibble Lane, flat 2, by the river bend caf\\u00e9")
    return out


# ---------------------------------------------------------------- inspecting
def history(root: Path) -> dict[str, object]:
    """Everything the purge must keep: each commit's identity fields and message,
    each ref and what it points at (by kind), tag messages, HEAD."""
    log = git(
        root,
        "log",
        "--all",
        "--date-order",
        "--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%P%x00%B%x01",
        "--date=raw",
    )
    commits = [entry.split(b"\0") for entry in log.split(b"\x01\n") if entry]
    # parents by position only (ids change): how many each commit has
    shaped = [(*c[:6], len(c[6].split()), c[7]) for c in commits]
    # and each commit object byte for byte, but for its tree and parent ids
    ids = git(root, "log", "--all", "--date-order", "--format=%H").split()
    raw = git(root, "cat-file", "--batch", data=b"\n".join(ids) + b"\n")
    objects = []
    pos = 0
    for _ in ids:
        end = raw.index(b"\n", pos)
        size = int(raw[pos:end].split()[2])
        body = raw[end + 1 : end + 1 + size]
        pos = end + 2 + size
        head, _sep, message = body.partition(b"\n\n")
        kept = [x for x in head.split(b"\n") if not x.startswith((b"tree ", b"parent "))]
        objects.append((kept, message))
    refs = git(root, "for-each-ref", "--format=%(refname) %(objecttype) %(contents)").decode()
    counts = {
        ref: git(root, "rev-list", "--count", ref).strip()
        for ref in git(root, "for-each-ref", "--format=%(refname)").decode().split()
    }
    return {
        "commits": shaped,
        "objects": objects,
        "refs": refs,
        "counts": counts,
        "head": git(root, "symbolic-ref", "HEAD").strip(),
    }


def leaks(root: Path, strings: list[bytes]) -> list[str]:
    """Where any of these bytes still is: any object git can list, any loose object
    decompressed, any uncompressed file under .git."""
    found = []
    objects = git(root, "cat-file", "--batch-all-objects", "--batch")
    for s in strings:
        if s in objects:
            found.append(f"object: {s[:30]!r}")
    for path in (root / ".git").rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        rel = path.relative_to(root / ".git").as_posix()
        parts = rel.split("/")
        if len(parts) == 3 and parts[0] == "objects" and len(parts[1]) == 2:
            data = zlib.decompress(data)
        for s in strings:
            if s in data:
                found.append(f"{rel}: {s[:30]!r}")
    garbage = git(root, "count-objects", "-v").decode()
    if "garbage: 0" not in garbage:
        found.append("garbage: " + garbage.replace("\n", " "))
    return found


def refs_map(root: Path) -> str:
    return git(root, "for-each-ref", "--format=%(refname) %(objectname)").decode()


# --------------------------------------------------------------------- tests
def test_purge_leaves_no_trace_in_any_object(tmp_path: Path) -> None:
    root = tmp_path / "store"
    args = build_store(root)
    assert len(leaks(root, [TITLE.encode(), VALUE.encode()])) >= 2  # the traces are there
    before = history(root)
    head_tree = git(root, "rev-parse", "HEAD^{tree}")
    rewritten = purge_history(root, **args)
    assert rewritten == 6  # every commit from the first that held the record (not init)
    assert leaks(root, traces()) == []
    assert history(root) == before
    assert git(root, "rev-parse", "HEAD^{tree}") == head_tree
    assert git(root, "status", "--porcelain", "--untracked-files=all") == b""
    git(root, "fsck", "--strict", "--no-dangling")
    # what else the history said is still there, in every version
    old = git(root, "show", "baseline/0001:MEMORY.md").decode()
    assert old == index(EDITOR).decode()
    assert git(root, "show", f"baseline/0001:{EDITOR.path}") == EDITOR.to_markdown().encode()
    assert git(root, "show", "side:MEMORY.md") == index(EDITOR)
    dec = json.loads(git(root, "show", "main~1:decisions/dec-20270101.json"))
    assert set(dec["before"][MID]) <= set(ERASED_KEEP)
    assert dec["before"][MID]["subject"] == "user:ana"
    assert set(dec["touched"][0]["after"]) <= set(ERASED_KEEP)
    assert ERASED.decode() in dec["reason"]
    log = git(root, "show", "baseline/0001:logs/2027/01/2027-01-05.md").decode()
    assert "tr_0001 #3 user: [erased]" in log
    # the erased file is in no commit of any ref
    assert git(root, "log", "--all", "--format=%H", "--", PATH) == b""


def test_purge_again_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "store"
    args = build_store(root)
    purge_history(root, **args)
    refs = refs_map(root)
    assert purge_history(root, **args) == 0
    assert refs_map(root) == refs


def test_purge_scrubs_head_when_it_still_holds_a_needle(tmp_path: Path) -> None:
    """A working tree the caller did not clean: HEAD's tree changes, the clean file
    in the working tree follows it, the status stays clean."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"logs/2027/01/2027-01-05.md": f"- user: {EVIDENCE}\n".encode()}, "log")
    count = purge_history(root, drop_paths=[], needles=[EVIDENCE.encode()])
    assert count == 1
    assert (root / "logs/2027/01/2027-01-05.md").read_bytes() == b"- user: [erased]\n"
    assert git(root, "status", "--porcelain") == b""
    assert leaks(root, [EVIDENCE.encode()]) == []


def test_purge_leaves_a_changed_file_alone(tmp_path: Path) -> None:
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"notes.md": f"{EVIDENCE}\n".encode()}, "note")
    (root / "notes.md").write_bytes(b"someone is editing this\n")
    purge_history(root, drop_paths=[], needles=[EVIDENCE.encode()])
    assert (root / "notes.md").read_bytes() == b"someone is editing this\n"
    assert leaks(root, [EVIDENCE.encode()]) == []


def test_purge_keeps_a_detached_head_on_its_commit(tmp_path: Path) -> None:
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"a.md": f"{EVIDENCE}\n".encode()}, "one")
    commit(root, {"b.md": b"two\n"}, "two")
    git(root, "checkout", "-q", "--detach", "HEAD~1")
    git(root, "checkout", "-q", "main")
    commit(root, {"c.md": b"three\n"}, "three")
    git(root, "checkout", "-q", "--detach", "HEAD~1")
    purge_history(root, drop_paths=[], needles=[EVIDENCE.encode()])
    assert git(root, "log", "-1", "--format=%s", "HEAD") == b"two\n"
    assert git(root, "rev-parse", "HEAD") == git(root, "rev-parse", "main~1")
    assert leaks(root, [EVIDENCE.encode()]) == []


def test_purge_paths_with_odd_names(tmp_path: Path) -> None:
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    odd: dict[str, bytes | None] = {
        'notes/ä b"c.md': f"{EVIDENCE}\n".encode(),
        'notes/"q.md': b"kept\n",
    }
    commit(root, odd, "odd names")
    purge_history(root, drop_paths=[], needles=[EVIDENCE.encode()])
    assert git(root, "show", 'HEAD:notes/"q.md') == b"kept\n"
    assert git(root, "show", 'HEAD:notes/ä b"c.md') == b"[erased]\n"
    assert git(root, "status", "--porcelain") == b""


def test_purge_keeps_reachable_loose_objects_and_drops_the_rest(tmp_path: Path) -> None:
    """The purge packs what is reachable and deletes every loose object left (no
    second walk of the history): a second branch's loose commit stays readable, an
    unreachable loose blob holding a needle goes, and the commit graph that listed
    the rewritten commits is gone and can be written again."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"a.md": f"{EVIDENCE}\n".encode()}, "one")
    commit(root, {"b.md": b"two\n"}, "two")
    git(root, "commit-graph", "write", "--reachable", "--changed-paths", "--split")
    assert (root / ".git/objects/info/commit-graphs/commit-graph-chain").exists()
    git(root, "branch", "side")
    git(root, "checkout", "-q", "side")
    commit(root, {"c.md": b"on the side\n"}, "side only")
    git(root, "checkout", "-q", "main")
    side = git(root, "rev-parse", "side").strip().decode()
    assert (root / ".git/objects" / side[:2] / side[2:]).exists()  # loose, reachable
    stray = git(root, "hash-object", "-w", "--stdin", data=f"stray {EVIDENCE}".encode())
    stray_id = stray.strip().decode()
    purge_history(root, drop_paths=[], needles=[EVIDENCE.encode()])
    assert leaks(root, [EVIDENCE.encode()]) == []
    objects = root / ".git/objects"
    loose = [p for p in objects.glob("??/*") if p.parent.name not in ("info", "pack")]
    assert loose == []
    assert git(root, "show", "side:c.md") == b"on the side\n"
    assert subprocess.run(["git", "cat-file", "-e", stray_id], cwd=root).returncode != 0
    assert not (objects / "info/commit-graphs/commit-graph-chain").exists()
    assert not list((objects / "info").rglob("*.graph"))
    git(root, "fsck", "--strict", "--no-dangling")
    git(root, "commit-graph", "write", "--reachable", "--changed-paths", "--split")
    assert git(root, "log", "--format=%s", "--", "a.md") == b"one\n"


def test_purge_a_version_that_comes_back(tmp_path: Path) -> None:
    """The rewrite reads each version once, at its first commit: a version with a
    needle that a later commit brings back (the same blob), on a second branch too,
    gets the same clean version there; a clean one that comes back stays as it was."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    dirty, clean = f"note: {EVIDENCE}\n".encode(), b"nothing to see\n"
    commit(root, {"a.md": clean}, "clean")
    commit(root, {"a.md": dirty, "b.md": clean}, "dirty")
    commit(root, {"a.md": clean}, "clean again")
    git(root, "branch", "side")
    commit(root, {"a.md": dirty}, "dirty again")
    git(root, "checkout", "-q", "side")
    commit(root, {"c.md": dirty}, "dirty elsewhere")
    git(root, "checkout", "-q", "main")
    first = git(root, "rev-parse", "main~3")
    purge_history(root, drop_paths=[], needles=[EVIDENCE.encode()])
    assert leaks(root, [EVIDENCE.encode()]) == []
    scrubbed = git(root, "rev-parse", "main~2:a.md")
    assert git(root, "show", "main~2:a.md") == b"note: [erased]\n"
    assert git(root, "rev-parse", "main:a.md") == scrubbed
    assert git(root, "rev-parse", "side:c.md") == scrubbed
    assert git(root, "show", "main~1:a.md") == clean
    assert git(root, "rev-parse", "main~3") == first  # before the content: as it was
    git(root, "fsck", "--strict", "--no-dangling")


def test_dropped_paths_are_the_files_and_what_is_inside_the_folders() -> None:
    from core.store.erase.export import dropped

    drop = frozenset({"memories/ab/x.md", "notes"})
    assert dropped("memories/ab/x.md", drop)
    assert dropped("notes", drop) and dropped("notes/deep/y.md", drop)
    assert not dropped("notes.md", drop) and not dropped("notesx/y.md", drop)
    assert not dropped("memories/ab/x.md.bak", drop)
    assert not dropped("memories/ab/x.md", frozenset())


# ------------------------------------------------------------ scrub_file rules
def test_scrub_file_drops_the_index_line_whatever_its_hook() -> None:
    cut = index(EDITOR, memory(WORDING_1))
    assert "…" in cut.decode()  # the hook was cut at 150 characters
    out = scrub_file("MEMORY.md", cut, [], [MID])
    assert out == index(EDITOR)
    # another file that merely mentions the link is not an index
    assert scrub_file("notes.md", cut, [], [MID]) == cut


def test_scrub_file_reduces_decision_front_matter() -> None:
    v1, v2 = memory(WORDING_1), memory(WORDING_2)
    data = decision(1, v1, v2, Path("/s"), "no reason")
    out = json.loads(scrub_file("decisions/dec-1.json", data, [], [MID]))
    for front in (out["before"][MID], out["after"][MID], *out["touched"][0].values()):
        if isinstance(front, dict):
            assert set(front) <= set(ERASED_KEEP)
    assert out["before"][MID]["attribute"] == "home_address"
    text = scrub_file("decisions/dec-1.json", data, [], [MID]).decode()
    assert text == json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    assert TITLE not in text and VALUE not in text
    # an unreadable decision file is left to the needles
    broken = b'{"before": {"' + MID.encode() + b'": ' + WORDING_2.encode()
    scrubbed = scrub_file("decisions/dec-2.json", broken, needles_for(WORDING_2), [MID])
    assert WORDING_2.splitlines()[0].encode() not in scrubbed


def test_scrub_file_finds_json_escaped_needles() -> None:
    line = event(3, "correct", REASON) + event(4, "correct", REASON, ascii_only=True)
    out = scrub_file("events.jsonl", line, needles_for(WORDING_2), [])
    assert b"Quibble" not in out
    assert [json.loads(x)["reason"] for x in out.splitlines()] == ["moved house: [erased]"] * 2


def test_history_needles_reads_every_version(tmp_path: Path) -> None:
    root = tmp_path / "store"
    build_store(root)
    found = history_needles(root, [PATH], keep=[EDITOR.to_markdown().encode()])
    for wording in (WORDING_1, WORDING_2, WORDING_3):
        assert wording.encode() in found
    assert EVIDENCE.encode() in found
    assert TITLE.encode() not in found and VALUE.encode() not in found  # under 12 bytes
    assert all(len(n) >= 12 for n in found)
    # a needle a live record still says is not one
    shared = history_needles(root, [PATH], keep=[b"x " + WORDING_3.encode()])
    assert WORDING_3.encode() not in shared
    assert history_needles(root, ["memories/never-was.md"]) == []


def test_history_needles_of_a_broken_version(tmp_path: Path) -> None:
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(
        root, {PATH: b"---\nid: [broken\n---\nThe body of a broken record stays a needle.\n"}, "x"
    )
    assert b"The body of a broken record stays a needle." in history_needles(root, [PATH])


# ----------------------------------------------------------- kill and rerun
PURGE = """
import json, sys
sys.path.insert(0, {root!r})
from core.store.erase import purge_history
args = json.load(open(sys.argv[1]))
purge_history(args["root"], drop_paths=args["drop"], needles=[bytes.fromhex(n) for n in
    args["needles"]], erased_ids=args["ids"])
"""


def grow(root: Path, commits: int) -> None:
    """Many commits after the erased record appeared: growing events and index,
    memory files, quick to build with one fast-import."""
    tip = git(root, "rev-parse", "HEAD").decode().strip()
    events = git(root, "show", "HEAD:events.jsonl")
    lines = [f"- [Memory {i}](memories/m-{i}.md) — filler line {i}\n" for i in range(commits)]
    out = []
    for i in range(commits):
        events += event(100 + i, "use", f"filler {i} " + "x" * 200)
        if i == commits // 3:
            events += event(100 + i, "note", REASON)
        files = {
            "events.jsonl": events,
            "MEMORY.md": "".join(sorted(lines[: i + 1])).encode(),
            f"memories/m-{i % 40}.md": f"memory {i} ".encode() * 20,
        }
        out.append(b"commit refs/heads/main\n")
        out.append(b"committer Ana <ana@example.com> %d +0800\n" % (1800000000 + i * 60))
        message = b"filler %d\n" % i
        out.append(b"data %d\n%s" % (len(message), message))
        out.append(b"from %s\n" % tip.encode() if i == 0 else b"")
        for rel, data in files.items():
            out.append(b"M 100644 inline %s\ndata %d\n" % (rel.encode(), len(data)) + data + b"\n")
        out.append(b"\n")
    git(root, "fast-import", "--quiet", data=b"".join(out))
    git(root, "reset", "-q", "--hard", "main")
    git(root, "repack", "-a", "-d", "-q")


def test_purge_killed_at_random_moments_then_rerun(tmp_path: Path) -> None:
    base = tmp_path / "base"
    args = build_store(base)
    grow(base, 250)
    needles: list[bytes] = args["needles"]
    reference, victim = tmp_path / "reference", tmp_path / "victim"
    for copy in (reference, victim):
        subprocess.run(["cp", "-a", str(base), str(copy)], check=True)
    started = time.perf_counter()
    purge_history(reference, **args)
    took = time.perf_counter() - started
    script = tmp_path / "purge.py"
    script.write_text(PURGE.format(root=str(ROOT)))
    spec = tmp_path / "args.json"
    spec.write_text(
        json.dumps(
            {
                "root": str(victim),
                "drop": [PATH],
                "needles": [n.hex() for n in needles],
                "ids": [MID],
            }
        )
    )
    # what one whole run takes as a subprocess (start-up included), on this machine now
    timing = tmp_path / "timing"
    subprocess.run(["cp", "-a", str(base), str(timing)], check=True)
    timed = json.loads(spec.read_text())
    spec_timing = tmp_path / "timing.json"
    spec_timing.write_text(json.dumps({**timed, "root": str(timing)}))
    started = time.perf_counter()
    subprocess.run([sys.executable, str(script), str(spec_timing)], check=True)
    whole = time.perf_counter() - started
    rng = random.Random(10)
    kills = 0
    expected = refs_map(reference)
    for attempt in range(16):
        if attempt >= 6 and kills >= 4:
            break
        # each round from the unpurged store: killed once or twice, then run again
        subprocess.run(["rm", "-rf", str(victim)], check=True)
        subprocess.run(["cp", "-a", str(base), str(victim)], check=True)
        for _ in range(1 + attempt % 2):
            proc = subprocess.Popen(
                [sys.executable, str(script), str(spec)],
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            # the kills spread over the whole run, start-up included
            time.sleep(rng.uniform(0.05, 0.9 * whole))
            if proc.poll() is None:
                if attempt % 3 == 1:
                    os.killpg(proc.pid, signal.SIGKILL)  # a power cut: every process at once
                else:
                    os.kill(proc.pid, signal.SIGKILL)  # memgov alone: its git children follow
                kills += 1
            else:  # it ended first (the machine is faster now): draw the next kill earlier
                whole *= 0.7
            proc.wait()
        done = subprocess.run([sys.executable, str(script), str(spec)], capture_output=True)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert refs_map(victim) == expected  # exactly where an unbroken run ends
        assert leaks(victim, traces()) == []
        assert git(victim, "status", "--porcelain") == b""
        git(victim, "fsck", "--strict", "--no-dangling")
    assert kills >= 4, (kills, whole, took)


@pytest.mark.parametrize("delay", [0.0, 0.3])
def test_purge_after_a_kill_with_leftovers(tmp_path: Path, delay: float) -> None:
    """What a killed git leaves (a stale ref lock, a temporary pack, a fast-import
    keep file and crash report) does not stop the rerun."""
    root = tmp_path / "store"
    args = build_store(root)
    gitdir = root / ".git"
    (gitdir / "refs/heads/main.lock").write_text("0" * 40 + "\n")
    (gitdir / "packed-refs.lock").write_text("")
    (gitdir / "objects/pack/tmp_pack_abc").write_bytes(b"PACK" + EVIDENCE.encode())
    (gitdir / f"fast_import_crash_{os.getpid()}").write_text(f"M 100644 x {EVIDENCE}\n")
    (gitdir / "gc.pid").write_text(f"{os.getpid()} {os.uname().nodename}")
    time.sleep(delay)
    purge_history(root, **args)
    assert leaks(root, traces()) == []
    assert not (gitdir / "refs/heads/main.lock").exists()


def test_purge_search_of_a_changed_version_matches_a_full_search() -> None:
    """The purge searches a large version only where it differs from the previous
    one; on random edits of random files that must find exactly what a full
    search finds (needles cut by the edit, next to it, inside removed lines)."""
    from core.store.erase.scrub import Version, edits_since, patterns, rule_edits

    rng = random.Random(7)
    needles = [b"Quibble Lane flat", b"river bend side x", "café au lait".encode() * 2]
    pats = patterns(tuple(needles), (MID, "other-1"))
    pieces = [
        *needles,
        f"- [T](memories/{MID}.md) — hook\n".encode(),
        b"- [U](memories/other-1.md) - x\n",
        b"\n",
        b"plain words ",
        b"Quibble ",
        b"Lane flat",
        b"xyz" * 7,
    ]
    for _ in range(400):
        a = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))
        b = bytearray(a)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(b))
            cut = rng.randint(0, min(40, len(b) - at))
            b[at : at + cut] = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
        b_bytes = bytes(b)
        for kind in ("plain", "index"):
            old = Version(a, rule_edits(kind, a, pats))
            assert edits_since(kind, b_bytes, old, pats) == rule_edits(kind, b_bytes, pats)


def commit_ids(root: Path) -> list[str]:
    return git(root, "rev-list", "--reverse", "--topo-order", "HEAD").decode().split()


def test_purge_keeps_the_commits_before_the_content_as_they_were(tmp_path: Path) -> None:
    """Commits before the first one that held the record keep their ids, and so do
    refs that only reach them; the rewrite starts at the record's first commit."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    for n in range(4):
        commit(root, {f"notes/n{n}.md": b"clean %d\n" % n}, f"clean {n}")
    git(root, "branch", "old-work")
    git(root, "tag", "-a", "baseline/0000", "-m", "before the record\n")
    before = commit_ids(root)
    commit(root, {PATH: memory(WORDING_1).to_markdown().encode()}, "remember")
    commit(root, {"notes/after.md": b"after\n"}, "after")
    commit(root, {PATH: None}, "erase")
    refs = {
        name: git(root, "rev-parse", name).strip()
        for name in ("old-work", "baseline/0000", "baseline/0000^{commit}")
    }
    original = commit_ids(root)
    rewritten = purge_history(root, drop_paths=[PATH], needles=[LONG_LINE.encode()])
    assert rewritten == 3
    after = commit_ids(root)
    assert after[: len(before)] == before
    later = zip(original[len(before) :], after[len(before) :], strict=True)
    assert all(old != new for old, new in later)
    for name, oid in refs.items():
        assert git(root, "rev-parse", name).strip() == oid
    assert git(root, "log", "--all", "--format=%H", "--", PATH) == b""
    assert leaks(root, [LONG_LINE[:60].encode()]) == []
    git(root, "fsck", "--strict", "--no-dangling")


def test_purge_from_a_daily_log_older_than_the_record(tmp_path: Path) -> None:
    """The evidence quote was in a daily log before the record was written (and the
    log was rewritten since): the rewrite starts at the log's commit, the commits
    before it keep their ids, no object keeps the quote."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"notes/a.md": b"clean\n"}, "clean a")
    commit(root, {"notes/b.md": b"clean\n"}, "clean b")
    before = commit_ids(root)
    log = "logs/2027/01/2027-01-05.md"
    commit(root, {log: f"# 2027-01-05\n\n- user: {EVIDENCE}\n".encode()}, "log")
    commit(root, {log: b"# 2027-01-05\n\n- user: (moved away)\n"}, "log rewritten")
    commit(root, {"notes/c.md": b"clean\n"}, "clean c")
    commit(root, {PATH: memory(WORDING_1).to_markdown().encode()}, "remember")
    commit(root, {PATH: None}, "erase")
    needles = needles_for(WORDING_1, [EVIDENCE])
    rewritten = purge_history(root, drop_paths=[PATH], needles=needles, erased_ids=[MID])
    assert rewritten == 5
    assert commit_ids(root)[: len(before)] == before
    assert git(root, "show", f"HEAD~4:{log}") == b"# 2027-01-05\n\n- user: [erased]\n"
    assert git(root, "log", "--format=%s", "-1", "HEAD~4") == b"log\n"
    assert leaks(root, [EVIDENCE.encode(), LONG_LINE[:60].encode()]) == []
    git(root, "fsck", "--strict", "--no-dangling")


def test_export_read_in_one_go_is_read_as_line_by_line(tmp_path: Path) -> None:
    """The quick reading of a commit record gives what the line-by-line one gives, on
    the shapes fast-export writes: merges, tags, deletions, odd names, a message
    without a final newline, an encoding header, an empty commit, a root commit."""
    from core.store.erase.export import parse_export

    root = tmp_path / "store"
    build_store(root)
    commit(root, {'notes/ä b"c\nd.md': b"odd\n", "notes/x.md": b"x\n"}, "odd names")
    commit(root, {"notes/x.md": None}, "a deletion")
    commit(root, {}, "an empty commit")
    git(root, "checkout", "-q", "side")
    commit(root, {"notes/side.md": b"side\n"}, "on the side")
    git(root, "checkout", "-q", "main")
    tree = git(root, "rev-parse", "HEAD^{tree}").strip().decode()
    author = {"GIT_AUTHOR_NAME": "Ana Li", "GIT_AUTHOR_EMAIL": "ana@example.com"}
    made = {}
    for name, args, message in (
        ("merged", ("-p", "main", "-p", "side"), b"a merge\n"),
        ("bare", ("-p", "main"), b"no final newline"),
        ("latin", ("-p", "main"), "caf\xe9\n".encode("latin-1")),
    ):
        config = ("-c", "i18n.commitEncoding=ISO-8859-1") if name == "latin" else ()
        made[name] = git(root, *config, "commit-tree", tree, *args, data=message, env=author)
        git(root, "update-ref", f"refs/heads/{name}", made[name].strip().decode())
    stream = git(
        root, "-c", "core.quotepath=false", "fast-export", "--all", "--reencode=no",
        "--show-original-ids", "--no-data", "--signed-tags=verbatim", "--use-done-feature",
    )  # fmt: skip
    assert b"encoding ISO-8859-1" in stream and b"\nmerge :" in stream
    quick, slow = parse_export(stream), parse_export(stream, quick=False)
    assert [vars(c) for c in quick[0]] == [vars(c) for c in slow[0]]
    assert [vars(t) for t in quick[1]] == [vars(t) for t in slow[1]]
    assert len(quick[0]) == int(git(root, "rev-list", "--all", "--count"))
    paths = {path for c in quick[0] for _op, _m, _s, path in c.changes}
    assert 'notes/ä b"c\nd.md' in paths


def append_history(root: Path, rng: random.Random, needle: bytes) -> None:
    """A large file's versions, mostly appended to (as the event log's shards are),
    sometimes rewritten; the needle comes in at random places, also cut across the
    end of a version (the next one completes it), and is sometimes taken out by
    hand. Two such files, and a small one, each commit changing one or two."""
    tip = git(root, "rev-parse", "HEAD").decode().strip()
    files = {"events/000001.jsonl": b"x" * 20_000, "events/000002.jsonl": b"", "notes.md": b""}
    out = []
    for i in range(160):
        for rel in rng.sample(sorted(files), rng.randint(1, 2)):
            data = files[rel]
            roll = rng.random()
            if roll < 0.08:
                data = data + needle[: rng.randint(1, len(needle) - 1)]  # completed later
            elif roll < 0.16:
                data = data + needle + b"\n"
            elif roll < 0.22 and needle in data:
                data = data.replace(needle, b"(taken out)", 1)  # not an append
            elif roll < 0.25:
                data = data[: len(data) * 3 // 4] + b"rewritten %d\n" % i
            else:
                data = data + b'{"line": %d, "pad": "%s"}\n' % (i, b"y" * rng.randint(50, 2000))
            files[rel] = data
        out.append(b"commit refs/heads/main\n")
        out.append(b"committer Ana <ana@example.com> %d +0800\n" % (1800000000 + i * 60))
        out.append(b"data %d\nstep %d\n" % (len(b"step %d\n" % i), i))
        out.append(b"from %s\n" % tip.encode() if i == 0 else b"")
        for rel, data in files.items():
            out.append(b"M 100644 inline %s\ndata %d\n" % (rel.encode(), len(data)) + data + b"\n")
        out.append(b"\n")
    git(root, "fast-import", "--quiet", data=b"".join(out))
    git(root, "reset", "-q", "--hard", "main")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_purge_versions_proven_by_id_are_scrubbed_as_read_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """A large version that is the beginning of the next version of its path is never
    read: its object id proves it. The history that comes out is the one a purge
    reading every version writes, on appends, rewrites, needles taken out by hand
    and needles cut across the end of a version; and the proofs did happen."""
    from core.store.erase import purge as purge_module

    needle = b"Lives at 12 Quibble Lane, flat 4"
    base = tmp_path / "base"
    Store.init(base, owner="ana@example.com", actor="ana@example.com")
    append_history(base, random.Random(seed), needle)
    proven: list[int] = []
    walk = purge_module._Prover._walk

    def counting(self: Any, ats: list[int]) -> dict[int, Any]:
        found = walk(self, ats)
        proven.extend(at for at, v in found.items() if isinstance(v, purge_module._Prefix))
        return found

    results = []
    for proofs in (True, False):
        root = tmp_path / f"proofs-{proofs}"
        subprocess.run(["cp", "-a", str(base), str(root)], check=True)
        with monkeypatch.context() as patch:
            patch.setattr(purge_module._Prover, "_walk", counting)
            if not proofs:
                patch.setattr(purge_module, "_PROVE_MIN", 1 << 40)
            purge_history(root, drop_paths=[], needles=[needle])
        assert leaks(root, [needle]) == []
        git(root, "fsck", "--strict", "--no-dangling")
        results.append(refs_map(root))
    assert results[0] == results[1]
    assert len(proven) > 50


def test_purge_of_a_large_file_rewritten_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large file rewritten rather than appended to: after a few failed checks its
    earlier versions are read in one stream, not one round trip each, and the
    history that comes out is the one of a purge reading every version."""
    from core.store.erase import purge as purge_module
    from core.store.gitstore import BlobReader

    needle = b"Lives at 12 Quibble Lane, flat 4"
    base = tmp_path / "base"
    Store.init(base, owner="ana@example.com", actor="ana@example.com")
    tip = git(base, "rev-parse", "HEAD").decode().strip()
    rng = random.Random(5)
    out = []
    for i in range(40):
        lines = [b"%d line %d %s\n" % (i, n, b"z" * rng.randint(10, 80)) for n in range(400)]
        if i % 7 == 3:
            lines.insert(rng.randint(0, 399), needle + b"\n")
        data = b"".join(lines)
        out.append(b"commit refs/heads/main\ncommitter Ana <ana@example.com> %d +0800\n" % i)
        out.append(b"data 5\nstep\n" + (b"from %s\n" % tip.encode() if i == 0 else b""))
        out.append(b"M 100644 inline big.md\ndata %d\n%s\n\n" % (len(data), data))
    git(base, "fast-import", "--quiet", data=b"".join(out))
    git(base, "reset", "-q", "--hard", "main")
    gets: list[bytes] = []
    get = BlobReader.get

    def counting(self: BlobReader, sha: bytes) -> bytes:
        gets.append(sha)
        return get(self, sha)

    results = []
    for proofs in (True, False):
        root = tmp_path / f"proofs-{proofs}"
        subprocess.run(["cp", "-a", str(base), str(root)], check=True)
        with monkeypatch.context() as patch:
            patch.setattr(BlobReader, "get", counting)
            if not proofs:
                patch.setattr(purge_module, "_PROVE_MIN", 1 << 40)
            purge_history(root, drop_paths=[], needles=[needle])
        assert leaks(root, [needle]) == []
        results.append(refs_map(root))
    assert results[0] == results[1]
    assert len(gets) == purge_module._MISSES  # the last version, then the failed checks
