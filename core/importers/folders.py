"""The folders importers read and exporters write: checked, and read as text lines.

:func:`check_folder` says why a path cannot be imported from (missing, not a
folder) and what to pass instead; :func:`read_lines` reads one file of it as
UTF-8 lines, refusing binary, oversized and undecodable files with a
:class:`FolderError` that names the file. An imported folder is only ever read.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from core.domain.errors import MemgovError
from core.domain.words import counted
from core.importers.mapping import MAPPING_FILE

MAX_FILE_BYTES = 1024 * 1024  # a file larger than this is not read


class FolderError(MemgovError):
    """A folder to import from or export to cannot be used; says why and what to do."""


def read_lines(path: Path, origin: str, warnings: list[str] | None = None) -> list[str]:
    """A text file's lines, numbered as core.store.logs.resolve numbers them
    (:func:`read_text`, split)."""
    return read_text(path, origin, warnings).splitlines()


def read_text(path: Path, origin: str, warnings: list[str] | None = None) -> str:
    """A text file's text, without a byte order mark.

    Bytes that are not UTF-8 cost themselves, not the file: they are left out and
    ``warnings`` gets a line saying how many and where (without ``warnings``, such a
    file is refused)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise FolderError(
                f"{origin}: {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES // 1024} "
                "KiB a memory file may have; split it, or skip it in "
                f"{MAPPING_FILE}"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise FolderError(
            f"{origin}: cannot be read ({exc.strerror}); check its permissions"
        ) from None
    if b"\0" in data:
        raise FolderError(f"{origin}: a binary file, not Markdown; move it out of the folder")
    text, lost = decoded(data)
    if lost:
        if warnings is None:
            raise FolderError(f"{origin}: not UTF-8 (byte {lost[0][0] + 1}); re-save it as UTF-8")
        count = sum(n for _at, n in lost)
        more = f" and {len(lost) - 1} more places" if len(lost) > 1 else ""
        warnings.append(
            f"{origin}: {counted(count, 'byte')} that {'is' if count == 1 else 'are'} not "
            f"UTF-8 (at byte "
            f"{lost[0][0] + 1:,}{more}) left out; the rest of the file was read"
        )
    return text.removeprefix("\ufeff")


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
