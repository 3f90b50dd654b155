"""After a history purge: the index and the working tree, tried as a user with work
in progress would find them.

The purge makes the index and the clean files follow a rewritten HEAD. It must touch
only the paths the rewrite changed (the old HEAD's tree against the new one), and
only where the index entry and the file were still as the old HEAD had them: a
file staged but never committed, a staged change, a change not staged, all stay
exactly as the user left them. Also after a crash between the rewrite and the
sync, when the rerun no longer sees the old HEAD. And packs marked ``.keep`` are
no hiding place for erased text. Real git repositories in tmp_path.
"""

from __future__ import annotations

import os
import subprocess
import zlib
from pathlib import Path

import pytest

from core.store.erase import purge as purge_module
from core.store.erase import purge_history
from core.store.store import Store

EVIDENCE = "my address is 12 quibble lane flat four"
NEEDLE = EVIDENCE.encode()


def git(root: Path, *args: str, data: bytes | None = None) -> bytes:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ana Li",
        "GIT_AUTHOR_EMAIL": "ana@example.com",
        "GIT_COMMITTER_NAME": "memgov",
        "GIT_COMMITTER_EMAIL": "memgov@localhost",
        "GIT_AUTHOR_DATE": "2027-01-05T09:00:00+08:00",
        "GIT_COMMITTER_DATE": "2027-01-05T09:00:00+08:00",
    }
    done = subprocess.run(
        ["git", *args], cwd=root, input=data, capture_output=True, check=True, env=env
    )
    return done.stdout


def commit(root: Path, files: dict[str, bytes], message: str) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        git(root, "add", "--", rel)
    git(root, "commit", "-q", "-m", message)


def entry(root: Path, rel: str) -> bytes:
    """The index entry of ``rel`` ("mode blob stage"), b"" when there is none."""
    return git(root, "ls-files", "-s", "--", rel).split(b"\t")[0]


def blob_id(root: Path, data: bytes) -> bytes:
    return git(root, "hash-object", "--stdin", data=data).strip()


def leaks(root: Path, needle: bytes) -> list[str]:
    """Where the needle still is: any object git lists (every pack, kept or not, and
    loose ones), any loose object decompressed, any other file under .git."""
    found = []
    if needle in git(root, "cat-file", "--batch-all-objects", "--batch"):
        found.append("an object")
    for path in (root / ".git").rglob("*"):
        if not path.is_file():
            continue
        data = path.read_bytes()
        parts = path.relative_to(root / ".git").parts
        if len(parts) == 3 and parts[0] == "objects" and len(parts[1]) == 2:
            data = zlib.decompress(data)
        if needle in data:
            found.append(path.relative_to(root).as_posix())
    return found


def work_in_progress(root: Path) -> dict[str, bytes]:
    """A store whose HEAD still holds the needle in two files (the rewrite changes
    them), and a user's work in progress around them."""
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(
        root,
        {
            "notes/held.md": f"- user: {EVIDENCE}\n".encode(),
            "notes/held-staged.md": f"- user: {EVIDENCE}\n".encode(),
            "notes/held-edited.md": f"- user: {EVIDENCE}\n".encode(),
            "notes/clean-staged.md": b"clean\n",
            "notes/clean-edited.md": b"clean\n",
        },
        "log",
    )
    mine = {
        "notes/draft.md": b"a new file, staged, never committed\n",
        "notes/held-staged.md": b"- user: (the user's own staged wording)\n",
        "notes/clean-staged.md": b"clean, then changed and staged\n",
    }
    for rel, data in mine.items():
        (root / rel).write_bytes(data)
        git(root, "add", "--", rel)
    edited = {
        "notes/held-edited.md": b"- user: being edited, not staged\n",
        "notes/clean-edited.md": b"clean, then changed, not staged\n",
    }
    for rel, data in edited.items():
        (root / rel).write_bytes(data)
    return {**mine, **edited}


def check_work_in_progress(root: Path, mine: dict[str, bytes]) -> None:
    for rel, data in mine.items():
        assert (root / rel).read_bytes() == data, rel
    staged = ("notes/draft.md", "notes/held-staged.md", "notes/clean-staged.md")
    for rel in staged:  # the staged blob is still what the index holds
        assert entry(root, rel) == b"100644 " + blob_id(root, mine[rel]) + b" 0", rel
    # what the user staged is still staged, what they changed is still changed
    status = git(root, "status", "--porcelain", "--untracked-files=all").decode()
    assert sorted(status.splitlines()) == [
        " M notes/clean-edited.md",
        " M notes/held-edited.md",
        "A  notes/draft.md",
        "M  notes/clean-staged.md",
        "M  notes/held-staged.md",
    ]
    # the clean file the rewrite changed follows HEAD, in the index too
    assert (root / "notes/held.md").read_bytes() == b"- user: [erased]\n"
    held = git(root, "rev-parse", "HEAD:notes/held.md").strip()
    assert entry(root, "notes/held.md") == b"100644 " + held + b" 0"
    # a file changed but not staged: its index entry follows HEAD (the old blob
    # held the needle and nothing else keeps it), the file is the user's
    edited = git(root, "rev-parse", "HEAD:notes/held-edited.md").strip()
    assert entry(root, "notes/held-edited.md") == b"100644 " + edited + b" 0"
    assert git(root, "show", "HEAD:notes/held-edited.md") == b"- user: [erased]\n"
    assert leaks(root, NEEDLE) == []


def test_purge_keeps_what_the_user_staged_or_changed(tmp_path: Path) -> None:
    root = tmp_path / "store"
    mine = work_in_progress(root)
    assert purge_history(root, drop_paths=[], needles=[NEEDLE]) == 1
    check_work_in_progress(root, mine)


def test_purge_keeps_a_staged_new_file_at_a_path_no_commit_has(tmp_path: Path) -> None:
    """The plainest case: nothing but a new file staged (diff-index shows it added,
    the file is as the index has it)."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"notes/held.md": f"{EVIDENCE}\n".encode()}, "log")
    (root / "todo.md").write_bytes(b"my plan\n")
    git(root, "add", "--", "todo.md")
    staged = entry(root, "todo.md")
    purge_history(root, drop_paths=[], needles=[NEEDLE])
    assert (root / "todo.md").read_bytes() == b"my plan\n"
    assert entry(root, "todo.md") == staged
    assert git(root, "diff", "--cached", "--name-status") == b"A\ttodo.md\n"


@pytest.mark.parametrize("marker", ["kept", "lost"])
def test_purge_rerun_after_a_crash_before_the_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str
) -> None:
    """Killed after the refs moved and before the index and files followed: the
    rerun rewrites nothing, and still brings the index and the clean files to the
    new HEAD without touching the user's work. With the note of the old HEAD lost
    too, the rerun recognises the old HEAD's entries by rewriting them itself."""
    root = tmp_path / "store"
    mine = work_in_progress(root)

    def crash(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(purge_module, "sync_worktree", crash)
    with pytest.raises(KeyboardInterrupt):
        purge_history(root, drop_paths=[], needles=[NEEDLE])
    monkeypatch.undo()
    assert (root / "notes/held.md").read_bytes() == f"- user: {EVIDENCE}\n".encode()
    notes = list((root / ".git").glob("memgov-purge*"))
    if marker == "lost":
        for note in notes:
            note.unlink()
    assert purge_history(root, drop_paths=[], needles=[NEEDLE]) == 0
    check_work_in_progress(root, mine)
    assert not list((root / ".git").glob("memgov-purge*"))


def test_purge_rewrites_a_kept_pack(tmp_path: Path) -> None:
    """A pack with a ``.keep`` file is skipped by ``git repack -a -d``: holding the
    erased text, it would outlive the purge. It is rewritten like any other."""
    root = tmp_path / "store"
    Store.init(root, owner="ana@example.com", actor="ana@example.com")
    commit(root, {"notes/held.md": f"{EVIDENCE}\n".encode()}, "log")
    commit(root, {"notes/held.md": b"moved on\n"}, "later")
    git(root, "repack", "-a", "-d", "-q")
    packs = list((root / ".git/objects/pack").glob("pack-*.pack"))
    assert len(packs) == 1
    packs[0].with_suffix(".keep").write_text("kept by the user\n")
    commit(root, {"notes/other.md": b"after the keep\n"}, "after")
    assert leaks(root, NEEDLE) == ["an object"]
    purge_history(root, drop_paths=[], needles=[NEEDLE])
    assert leaks(root, NEEDLE) == []
    assert not packs[0].exists()
    assert git(root, "show", "HEAD~2:notes/held.md") == b"[erased]\n"
    assert git(root, "show", "HEAD:notes/other.md") == b"after the keep\n"
    git(root, "fsck", "--strict", "--no-dangling")
