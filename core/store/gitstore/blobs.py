"""Reading many blobs fast: one ``git cat-file --batch`` process, fed from a thread.

:class:`BlobStream` takes the blob ids up front and hands each blob back in the
same order, so a caller walking 10,000 versions pays for one process and never
waits on a round trip. :class:`BlobReader` reads one blob at a time, when which
one comes next depends on the last. :func:`blob_sizes` gives sizes without the
bytes. A missing object is a :class:`GitFailed` saying to run ``git fsck``.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from core.store.gitstore.run import GitFailed, popen, run


class BlobStream:
    """One ``git cat-file --batch``: blobs asked for in order, read back in order."""

    def __init__(self, root: Path, shas: Sequence[bytes]) -> None:
        self.proc = popen(
            root, "-c", "core.deltaBaseCacheLimit=512m", "cat-file", "--batch",
            stdout=subprocess.PIPE,
        )  # fmt: skip
        self.root = root
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.out: IO[bytes] = self.proc.stdout
        stdin = self.proc.stdin

        def feed() -> None:
            with contextlib.suppress(BrokenPipeError, ValueError):
                for start in range(0, len(shas), 512):
                    stdin.write(b"".join(s + b"\n" for s in shas[start : start + 512]))
                stdin.close()

        self.writer = threading.Thread(target=feed, daemon=True)
        self.writer.start()

    def next(self) -> bytes:
        header = self.out.readline().split()
        if len(header) != 3:
            raise GitFailed(
                f"{self.root}: git cat-file: object "
                f"{header[0].decode('ascii', 'replace') if header else '?'} is missing; "
                f"run 'git fsck' in the store"
            )
        data = self.out.read(int(header[2]))
        self.out.read(1)
        return data

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.out.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.writer.join(timeout=5)


class BlobReader:
    """One ``git cat-file --batch`` asked for one blob at a time (a round trip each)."""

    def __init__(self, root: Path) -> None:
        self.proc = popen(root, "cat-file", "--batch", stdout=subprocess.PIPE)
        self.root = root
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.into: IO[bytes] = self.proc.stdin
        self.out: IO[bytes] = self.proc.stdout

    def get(self, sha: bytes) -> bytes:
        self.into.write(sha + b"\n")
        self.into.flush()
        header = self.out.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise _missing(self.root, sha)
        data = self.out.read(int(header[2]))
        self.out.read(1)
        return data

    def close(self) -> None:
        for stream in (self.into, self.out):
            with contextlib.suppress(Exception):
                stream.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def blob_sizes(root: Path, shas: Sequence[bytes]) -> dict[bytes, int]:
    """``{blob id: size}`` for each of ``shas`` (all must be blobs), in one process,
    without reading their bytes."""
    if not shas:
        return {}
    out = run(root, "cat-file", "--batch-check", data=b"".join(s + b"\n" for s in shas))
    sizes: dict[bytes, int] = {}
    for sha, row in zip(shas, out.splitlines(), strict=False):
        parts = row.split()
        if len(parts) != 3 or parts[0] != sha or parts[1] != b"blob":
            raise _missing(root, sha)
        sizes[sha] = int(parts[2])
    if len(sizes) != len(set(shas)):
        raise _missing(root, next(s for s in shas if s not in sizes))
    return sizes


def _missing(root: Path, sha: bytes) -> GitFailed:
    return GitFailed(
        f"{root}: git cat-file: object {sha.decode('ascii', 'replace')} is missing or not "
        f"a blob; run 'git fsck' in the store"
    )


def read_blob_ids(root: Path, shas: Sequence[bytes]) -> dict[bytes, bytes]:
    """``{blob id: bytes}`` for each of ``shas`` (all must exist), in one process."""
    if not shas:
        return {}
    reader = BlobStream(root, shas)
    try:
        return {sha: reader.next() for sha in shas}
    finally:
        reader.close()
