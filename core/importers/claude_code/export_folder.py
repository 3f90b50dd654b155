"""The folder an export writes: may it be written, and writing it all or nothing.

The folder must be new, empty, or a previous memgov export (its
``.memgov-export.json``, :data:`core.importers.folders.MARKER`, lists every file
it wrote, with a hash). A previous export that changed since (the agent wrote or
edited a file) is refused by :func:`check_target`: import it first, so nothing
the agent learnt is lost. :func:`write_export` writes every file and the marker
to a temporary folder next to PATH and renames it into place, so PATH holds the
old export or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets as _random
import shutil
import tempfile
from datetime import datetime
from pathlib import Path

from core.importers.claude_code.files import INDEX_FILE
from core.importers.folders import MARKER, FolderError
from core.store.fsutil import fsync_dir
from core.store.store import Store


def write_export(
    folder: Path,
    files: dict[str, str],
    stores: list[Store],
    now: datetime,
    records: dict[str, dict[str, str]] | None = None,
) -> None:
    """Write ``files`` (relative path -> text) and the marker listing them into ``folder``;
    ``records``: each file's record (id, type and key), so importing the export
    brings back the same records even where a file went back as the agent wrote it,
    without memgov's block in its front matter."""
    files = {**files, MARKER: _marker(files, stores, now, records or {})}
    _write_folder(folder, files)


def marked_records(folder: Path) -> dict[str, dict[str, str]]:
    """The records a memgov export's marker names for its files that are still as
    written (rel -> id, type and key); empty for any other folder. The marker is
    untrusted: only text fields are taken, and only for a file whose hash matches."""
    marker = folder / MARKER
    if marker.is_symlink() or not marker.is_file():
        return {}
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
        files, records = data.get("files"), data.get("records", {})
        if not isinstance(files, dict) or not isinstance(records, dict):
            return {}
    except (OSError, ValueError, AttributeError):
        return {}
    out: dict[str, dict[str, str]] = {}
    for rel, fields in records.items():
        path = folder / str(rel)
        if not isinstance(fields, dict) or path.is_symlink() or not path.is_file():
            continue
        try:
            if _digest(path.read_bytes()) != files.get(rel):
                continue
        except OSError:
            continue
        out[str(rel)] = {str(k): v for k, v in fields.items() if isinstance(v, str)}
    return out


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _marker(
    files: dict[str, str],
    stores: list[Store],
    now: datetime,
    records: dict[str, dict[str, str]],
) -> str:
    data: dict[str, object] = {
        "format": "memgov-export",
        "version": 1,
        "exported_at": now.isoformat(timespec="seconds"),
        "stores": [str(s.root) for s in stores],
        "files": {rel: _digest(text.encode("utf-8")) for rel, text in sorted(files.items())},
    }
    if records:
        data["records"] = {rel: records[rel] for rel in sorted(records)}
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def _tree(folder: Path) -> dict[str, str]:
    """rel path -> digest of every file under folder but the marker."""
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if rel == MARKER or rel.startswith(".git/"):
            continue
        if path.is_file() or path.is_symlink():
            found[rel] = _digest(path.read_bytes()) if path.is_file() else "symlink"
    return found


def check_target(folder: Path, stores: list[Store]) -> tuple[bool, list[str]]:
    """(whether a previous export is replaced, warnings); raises when PATH must not be written."""
    if folder.is_symlink():
        raise FolderError(f"{folder}: a symbolic link; pass the folder it points at")
    if folder.exists() and not folder.is_dir():
        raise FolderError(f"{folder}: a file, not a folder; choose a folder path")
    for store in stores:
        if folder == store.root or store.root in folder.parents:
            raise FolderError(
                f"{folder}: inside the memgov store {store.root}; export to a folder outside it"
            )
    if not folder.exists() or not any(folder.iterdir()):
        return False, []
    manifest = _previous_manifest(folder)
    current = _tree(folder)
    added = sorted(set(current) - set(manifest))
    changed = sorted(rel for rel in current if rel in manifest and current[rel] != manifest[rel])
    if added or changed:
        listed = "; ".join(
            f"{what}: {', '.join(rels[:5])}{' ...' if len(rels) > 5 else ''}"
            for what, rels in (("new", added), ("changed", changed))
            if rels
        )
        raise FolderError(
            f"{folder}: changed since memgov exported it ({listed}). Import it first "
            f"('memgov import claude-code {folder}') so nothing written there since is lost, "
            "then export again; or move the folder aside"
        )
    gone = sorted(set(manifest) - set(current) - {INDEX_FILE})
    warnings = [
        f"{rel} was deleted from the previous export; memgov still holds its record and "
        "wrote it again: delete the record in memgov if it should go"
        for rel in gone
    ]
    return True, warnings


def _previous_manifest(folder: Path) -> dict[str, str]:
    marker = folder / MARKER
    if not marker.is_file():
        raise FolderError(
            f"{folder}: not empty, and not a previous memgov export (no {MARKER}); memgov "
            f"does not overwrite it. Export into a new or empty folder, or move this one "
            f"aside first (e.g. mv {folder} {folder}.bak) and export again"
        )
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
        files = data["files"]
        if data.get("format") != "memgov-export" or not isinstance(files, dict):
            raise ValueError("not a memgov export marker")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise FolderError(
            f"{marker}: unreadable ({exc}); memgov does not overwrite the folder. Move it "
            "aside and export again"
        ) from None
    return {str(k): str(v) for k, v in files.items()}


def _write_folder(folder: Path, files: dict[str, str]) -> None:
    """Write every file into a temporary sibling folder, then rename it into place."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.export-", dir=folder.parent))
    try:
        mask = os.umask(0)
        os.umask(mask)
        tmp.chmod(0o777 & ~mask)
        for rel, text in files.items():
            _write_new(tmp / rel, text.encode("utf-8"))
        # the files are new, in a folder no one else knows yet: written straight, then
        # made durable at once before the folder is renamed into place (one sync of
        # the file system; a fsync for each of 10,000 files took 2.3 s)
        os.sync()
        _swap(tmp, folder)
        fsync_dir(folder.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (it must not exist; never through a link) holding ``data``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _swap(new: Path, folder: Path) -> None:
    if not folder.exists():
        os.rename(new, folder)
        return
    if not any(folder.iterdir()):
        os.replace(new, folder)  # renaming onto an empty folder replaces it
        return
    old = folder.with_name(f".{folder.name}.old-{_random.token_hex(4)}")
    os.rename(folder, old)
    try:
        os.rename(new, folder)
    except BaseException:
        os.rename(old, folder)
        raise
    with contextlib.suppress(OSError):
        shutil.rmtree(old)
