"""Erasure (SPEC section 3): deleted means the content is gone for good.

After the erasing commit, :func:`purge_history` rewrites every commit of a
private store so that no reachable object holds the memory's file or its
content, then expires the reflog and prunes. The new commits keep their
authors, dates and messages; only trees that held the content change. Team
stores are never rewritten (clones already pushed keep their history: the desk
says so plainly).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

ERASED = b"[erased]"


def needles_for(content: str, quotes: Iterable[str] = ()) -> list[bytes]:
    """What must not survive: the content, each of its lines long enough to identify
    it (12 bytes: four CJK characters), and the source quotes it was drawn from."""
    found = {content.strip(), *(q.strip() for q in quotes)}
    found.update(line.strip() for line in content.splitlines())
    encoded = {n.encode("utf-8") for n in found}
    return sorted((n for n in encoded if len(n) >= 12), key=len, reverse=True)


def scrub(data: bytes, needles: Iterable[bytes]) -> bytes:
    for needle in needles:
        data = data.replace(needle, ERASED)
    return data


class _Git:
    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, *args: str, data: bytes | None = None) -> bytes:
        result = subprocess.run(
            ["git", *args], cwd=self.root, input=data, capture_output=True, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"git {args[0]} failed: {result.stderr.decode('utf-8', 'replace').strip()}"
            )
        return result.stdout


class _Rewriter:
    def __init__(self, root: Path, drop: set[str], needles: list[bytes]) -> None:
        self.git = _Git(root)
        self.drop = drop
        self.needles = needles
        self.blobs: dict[bytes, bytes] = {}
        self.trees: dict[tuple[bytes, str], bytes] = {}
        self.objects = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, sha: bytes) -> bytes:
        assert self.objects.stdin is not None and self.objects.stdout is not None
        self.objects.stdin.write(sha + b"\n")
        self.objects.stdin.flush()
        header = self.objects.stdout.readline().split()
        size = int(header[2])
        data = self.objects.stdout.read(size)
        self.objects.stdout.read(1)
        return data

    def write(self, kind: str, data: bytes) -> bytes:
        return self.git.run("hash-object", "-t", kind, "-w", "--stdin", data=data).strip()

    def blob(self, sha: bytes) -> bytes:
        if sha not in self.blobs:
            data = self.read(sha)
            cleaned = scrub(data, self.needles)
            self.blobs[sha] = sha if cleaned == data else self.write("blob", cleaned)
        return self.blobs[sha]

    def tree(self, sha: bytes, prefix: str) -> bytes:
        key = (sha, prefix)
        if key in self.trees:
            return self.trees[key]
        listing = self.git.run("ls-tree", "-z", sha.decode())
        entries = []
        changed = False
        for raw in filter(None, listing.split(b"\0")):
            meta, name = raw.split(b"\t", 1)
            mode, kind, old = meta.split(b" ")
            path = prefix + name.decode("utf-8", "surrogateescape")
            if path in self.drop:
                changed = True
                continue
            new = old
            if kind == b"tree":
                new = self.tree(old, path + "/")
            elif kind == b"blob":
                new = self.blob(old)
            changed |= new != old
            entries.append(mode + b" " + kind + b" " + new + b"\t" + name)
        result = sha
        if changed:
            result = self.git.run("mktree", "-z", data=b"\0".join(entries) + b"\0").strip()
        self.trees[key] = result
        return result

    def close(self) -> None:
        if self.objects.stdin:
            self.objects.stdin.close()
        self.objects.wait()


def purge_history(root: Path, *, drop_paths: Iterable[str], needles: list[bytes]) -> int:
    """Rewrite all history without these paths and needles; return commits rewritten."""
    rewriter = _Rewriter(root, set(drop_paths), needles)
    git = rewriter.git
    mapping: dict[bytes, bytes] = {}
    try:
        order = git.run("rev-list", "--reverse", "--topo-order", "--all").split()
        for sha in order:
            raw = rewriter.read(sha)
            head, _, message = raw.partition(b"\n\n")
            lines = head.split(b"\n")
            out = []
            for line in lines:
                if line.startswith(b"tree "):
                    out.append(b"tree " + rewriter.tree(line[5:], ""))
                elif line.startswith(b"parent "):
                    parent = line[7:]
                    out.append(b"parent " + mapping.get(parent, parent))
                else:
                    out.append(line)
            new_raw = b"\n".join(out) + b"\n\n" + message
            mapping[sha] = sha if new_raw == raw else rewriter.write("commit", new_raw)
        refs = git.run("for-each-ref", "--format=%(objectname) %(objecttype) %(refname)")
        for ref_line in refs.decode().splitlines():
            obj, kind, ref = ref_line.split(" ", 2)
            target = obj.encode()
            if kind == "commit" and mapping.get(target, target) != target:
                git.run("update-ref", ref, mapping[target].decode(), obj)
            elif kind == "tag":
                raw = rewriter.read(target)
                first, _, rest = raw.partition(b"\n")
                pointed = first[len(b"object ") :]
                if mapping.get(pointed, pointed) != pointed:
                    new_tag = rewriter.write("tag", b"object " + mapping[pointed] + b"\n" + rest)
                    git.run("update-ref", ref, new_tag.decode(), obj)
    finally:
        rewriter.close()
    for leftover in ("ORIG_HEAD", "FETCH_HEAD"):
        (root / ".git" / leftover).unlink(missing_ok=True)
    git.run("reflog", "expire", "--expire=now", "--all")
    git.run("gc", "--prune=now", "--quiet")
    return sum(1 for old, new in mapping.items() if old != new)
