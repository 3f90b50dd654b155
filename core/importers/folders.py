"""The folders importers read and exporters write: checked, and read as text lines.

:func:`check_folder` says why a path cannot be imported from (missing, not a
folder) and what to pass instead; :func:`read_lines` reads one file of it as
UTF-8 lines, refusing binary, oversized and undecodable files with a
:class:`FolderError` that names the file. An imported folder is only ever read.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from core.domain.errors import MemgovError
from core.domain.words import counted
from core.importers.mapping import MAPPING_FILE
from core.store.fsutil import HostileEntry, escaped_name, read_entry

MAX_FILE_BYTES = 1024 * 1024  # a file larger than this is not read
#: the file a memgov export writes into its folder: an import of that folder that
#: changes nothing leaves the store as it is (core.importers.claude_code.export_folder)
MARKER = ".memgov-export.json"


class FolderError(MemgovError):
    """A folder to import from or export to cannot be used; says why and what to do."""


def read_lines(path: Path, origin: str, warnings: list[str] | None = None) -> list[str]:
    """A text file's lines, numbered as core.store.logs.resolve numbers them
    (:func:`read_text`, split)."""
    return read_text(path, origin, warnings).splitlines()


def read_text(path: Path, origin: str, warnings: list[str] | None = None) -> str:
    """A text file's text, without a byte order mark.

    The file is read by :func:`core.store.fsutil.read_entry`, the one reader of a
    store's or an agent folder's entries: a name that is not UTF-8 or holds a control
    character, a link, a folder, a named pipe (opening one would wait forever), a
    device or a file over :data:`MAX_FILE_BYTES` is a :class:`FolderError` naming the
    file (escaped). Front matter nested deeper than :data:`MAX_NESTING` is refused
    too (:func:`nesting_problem`): YAML would recurse once a level.

    Bytes that are not UTF-8 cost themselves, not the file: they are left out and
    ``warnings`` gets a line saying how many and where (without ``warnings``, such a
    file is refused)."""
    shown = escaped_name(origin)
    try:
        data = read_entry(path, limit=MAX_FILE_BYTES, shown=origin)
    except HostileEntry as exc:
        if exc.oversize:
            size = _size(path)
            raise FolderError(
                f"{shown}: {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
                "KiB a memory file may have; split it, or skip it in "
                f"{MAPPING_FILE}"
            ) from None
        raise FolderError(f"{shown}: {exc.problem}") from None
    except OSError as exc:
        raise FolderError(
            f"{shown}: cannot be read ({exc.strerror}); check its permissions"
        ) from None
    if data is None:
        raise FolderError(f"{shown}: cannot be read (it is gone); import again")
    if b"\0" in data:
        raise FolderError(f"{shown}: a binary file, not Markdown; move it out of the folder")
    text, lost = decoded(data)
    if lost:
        if warnings is None:
            raise FolderError(f"{shown}: not UTF-8 (byte {lost[0][0] + 1}); re-save it as UTF-8")
        count = sum(n for _at, n in lost)
        more = f" and {len(lost) - 1} more places" if len(lost) > 1 else ""
        warnings.append(
            f"{shown}: {counted(count, 'byte')} that {'is' if count == 1 else 'are'} not "
            f"UTF-8 (at byte "
            f"{lost[0][0] + 1:,}{more}) left out; the rest of the file was read"
        )
    text = text.removeprefix("\ufeff")
    problem = nesting_problem(front_matter_block(text))
    if problem is not None:
        raise FolderError(f"{shown}: the front matter {problem}; flatten it")
    return text


def _size(path: Path) -> int:
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


#: how deeply front matter may nest (Claude Code writes flat fields): YAML parses a
#: level by recursion, so ``name: [[[...]]]`` 50,000 deep is a RecursionError
MAX_NESTING = 64


def front_matter_block(text: str) -> str:
    """The YAML between a leading ``---`` line and the next ``---``/``...`` line ('' when
    the text has no front matter)."""
    if not text.startswith("---"):
        return ""
    lines = text.split("\n", 1)
    if lines[0].rstrip() != "---" or len(lines) == 1:
        return ""
    body = lines[1]
    for marker in ("\n---", "\n..."):
        if body.startswith(marker[1:]):
            return ""
    ends = [at for at in (body.find("\n---"), body.find("\n...")) if at >= 0]
    return body[: min(ends)] if ends else body


def nesting_problem(yaml_text: str, limit: int = MAX_NESTING) -> str | None:
    """Why ``yaml_text`` nests too deeply to parse safely, or None: an upper bound on
    its depth, from flow brackets (carried across lines), block indentation and
    ``- ``/``? `` markers, without parsing it (so a bomb costs one pass)."""
    flow = 0
    deepest = 0
    for line in yaml_text.split("\n"):
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 2  # a level takes one space at least
        rest = stripped
        while rest[:2] in ("- ", "? ") or rest in ("-", "?"):
            depth += 1
            rest = rest[2:].lstrip(" ")
        quote = ""
        for ch in rest:
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch in "[{":
                flow += 1
                deepest = max(deepest, flow + depth)
            elif ch in "]}":
                flow = max(flow - 1, 0)
            elif ch == "#":
                break
        deepest = max(deepest, depth + flow)
        if deepest > limit:
            return f"nests over {limit} levels deep (memgov reads at most {limit})"
    return None


def decoded(data: bytes) -> tuple[str, list[tuple[int, int]]]:
    """``data`` as UTF-8 text without the bytes that are not UTF-8, and where those
    were: (offset, length) for each run left out."""
    parts: list[str] = []
    lost: list[tuple[int, int]] = []
    at = 0
    while True:
        try:
            parts.append(data[at:].decode("utf-8"))
            return "".join(parts), lost
        except UnicodeDecodeError as exc:
            parts.append(data[at : at + exc.start].decode("utf-8"))
            lost.append((at + exc.start, exc.end - exc.start))
            at += exc.end


def check_folder(path: Path, *, what: str, example: str) -> Path:
    folder = Path(path).expanduser().absolute()
    if not folder.is_dir():
        problem = "does not exist" if not folder.exists() else "is not a folder"
        raise FolderError(f"{folder}: {problem}; pass the {what}, e.g. {example}")
    return folder


def shown_path(path: str | None, folder: Path) -> str:
    if path is None:
        return ""
    with contextlib.suppress(ValueError):
        return Path(path).relative_to(folder).as_posix()
    return path
