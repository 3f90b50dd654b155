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
from core.importers.mapping import MAPPING_FILE

MAX_FILE_BYTES = 1024 * 1024  # a file larger than this is not read


class FolderError(MemgovError):
    """A folder to import from or export to cannot be used; says why and what to do."""


def read_lines(path: Path, origin: str) -> list[str]:
    """A text file's lines, numbered as core.store.logs.resolve numbers them."""
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
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FolderError(f"{origin}: not UTF-8 (byte {exc.start}); re-save it as UTF-8") from None
    return text.removeprefix("\ufeff").splitlines()


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
