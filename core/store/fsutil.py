"""Small file-system helpers: atomic writes, the store lock, confined paths.

A store folder is untrusted input (a team store holds what anyone pushed), so
every path memgov reads or writes in it goes through :func:`confined`: relative,
no ``..``, nothing under ``.git``, and no symbolic link on the way. git itself
checks symbolic links out as links, so a committed ``logs -> /elsewhere`` would
otherwise send reads and writes out of the store.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from core.domain.errors import StoreError

#: the prefix and suffix of atomic_write_bytes' temporary files: a crash can leave one
TEMP_PREFIX = "."
TEMP_SUFFIX = ".tmp"


class UnsafePath(StoreError):
    """A path that would leave the store or pass through a symbolic link."""


def check_relative(rel: str) -> str:
    """``rel`` as a clean relative POSIX path inside a store, or UnsafePath."""
    if not isinstance(rel, str) or not rel or "\0" in rel or "\\" in rel:
        raise UnsafePath(
            f"refusing a path that is not a plain relative path ({len(str(rel))} chars)"
        )
    pure = PurePosixPath(rel)
    if pure.is_absolute() or rel.startswith("/"):
        raise UnsafePath(f"refusing an absolute path: {rel!r}")
    parts = pure.parts
    if any(p in ("..", ".") for p in rel.split("/")) or not parts:
        raise UnsafePath(f"refusing a path that leaves the store: {rel!r}")
    if parts[0] == ".git":
        raise UnsafePath(f"refusing a path inside .git: {rel!r}")
    return pure.as_posix()


def confined(root: Path, rel: str, *, final_may_be_missing: bool = True) -> Path:
    """The absolute path of ``rel`` under ``root``, checked component by component:
    no component may be a symbolic link (nor the file itself), none may leave root."""
    clean = check_relative(rel)
    current = root
    parts = clean.split("/")
    for i, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if final_may_be_missing:
                return root / clean  # the rest does not exist yet: nothing to follow
            raise
        if stat.S_ISLNK(st.st_mode):
            where = "/".join(parts[: i + 1])
            raise UnsafePath(
                f"{root}/{where} is a symbolic link; memgov never follows links in a store "
                f"(a link committed to a shared store could point anywhere). Replace it with "
                f"the real folder or file ('memgov doctor' lists every link)"
            )
        if i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
            raise UnsafePath(f"{root}/{'/'.join(parts[: i + 1])} is not a folder")
    return current


def read_confined(root: Path, rel: str, *, limit: int) -> bytes | None:
    """The bytes of a store file, or None when it does not exist. Never follows a
    link; anything but a regular file, or one over ``limit`` bytes, is an
    UnsafePath error naming it (:func:`read_entry`)."""
    return read_entry(confined(root, rel), limit=limit)


# ------------------------------------------------------------ reading an entry
# A store (what anyone pushed) and an agent's folder (what an agent wrote) are
# untrusted trees: a name may not be UTF-8 or may hold a newline, a file may be a
# named pipe (opening it for reading waits for a writer: every command would hang),
# a device, or a folder where a file belongs. Every read of such an entry goes
# through read_entry, and every name shown goes through escaped_name.

_UNESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4})")


def _bad_char(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF or ch == "\\"


def _plain(name: str) -> bool:
    """Whether ``name`` is printable ASCII with no backslash: no character of it is
    escaped or refused (the common case, checked in C rather than a character at a time)."""
    return name.isascii() and name.isprintable() and "\\" not in name


def escaped_name(name: str) -> str:
    """``name`` as it may be shown and stored: a byte that is not UTF-8 (a surrogate
    ``os`` decoded it to) is ``\\xNN``, a control character ``\\xNN`` or ``\\uNNNN``,
    a backslash ``\\\\``; any other name is itself. :func:`unescaped_name` undoes it."""
    if _plain(name) or not any(_bad_char(ch) for ch in name):
        return name
    out = []
    for ch in name:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif _bad_char(ch):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def unescaped_name(shown: str) -> str:
    """The name :func:`escaped_name` made ``shown`` from."""
    if "\\" not in shown:
        return shown

    def back(match: re.Match[str]) -> str:
        token = match.group(1)
        if token == "\\":
            return "\\"
        code = int(token[1:], 16)
        return chr(0xDC00 + code) if token[0] == "x" and code >= 0x80 else chr(code)

    return _UNESCAPE.sub(back, shown)


def name_problem(name: str) -> str | None:
    """Why memgov reads no entry of this name (not UTF-8, a control character, a
    backslash), or None. Says what, never the name."""
    if _plain(name):
        return None
    for ch in name:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            return "its name is not UTF-8"
        if code < 0x20 or 0x7F <= code < 0xA0:
            return f"its name holds a control character (U+{code:04X})"
        if ch == "\\":
            return "its name holds a backslash"
    return None


def kind_of(mode: int) -> str:
    """What a non-regular entry is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class HostileEntry(UnsafePath):
    """An entry memgov will not read: a name that is not UTF-8 or holds a control
    character, a link, a folder, a pipe, a device or a socket where a file belongs,
    or a file over the size memgov reads. The message names the path (escaped);
    ``problem`` is the message without it."""

    def __init__(self, where: str, problem: str, *, oversize: bool = False) -> None:
        self.where = where
        self.problem = problem
        self.oversize = oversize  # a regular file, over the size memgov reads
        super().__init__(f"{where}: {problem}")


def entry_problem(path: Path | str, mode: int | None = None) -> str | None:
    """Why ``path`` (its last component's name, and ``mode`` when given: an lstat's)
    is not an entry memgov reads, or None."""
    problem = name_problem(os.path.basename(str(path)))
    if problem is not None:
        return f"{problem}; rename it (git mv) or remove it"
    if mode is None or stat.S_ISREG(mode):
        return None
    what = kind_of(mode)
    if stat.S_ISLNK(mode):
        return (
            f"is {what}; memgov never follows links in a store or an agent's folder "
            "(a committed link could point anywhere): replace it with the real file"
        )
    return f"is {what} where a file belongs; memgov reads only regular files: remove it"


def _where(path: Path | str, shown: str | None) -> str:
    """The entry as an error names it (escaped only when there is an error to name)."""
    return escaped_name(shown if shown is not None else str(path))


def open_entry(path: Path | str, *, shown: str | None = None) -> int | None:
    """A read-only descriptor of one entry of a store or an agent's folder, or None
    when it does not exist (:func:`_open_entry`: what it refuses)."""
    opened = _open_entry(path, shown)
    return None if opened is None else opened[0]


def _open_entry(path: Path | str, shown: str | None) -> tuple[int, os.stat_result] | None:
    """A read-only descriptor of one entry of a store or an agent's folder and its
    fstat, or None when it does not exist: a name that is not UTF-8, a link, a folder,
    a pipe, a device or a socket is a :class:`HostileEntry` naming the path (``shown``,
    else ``path``, escaped). A non-regular file is never opened (lstat first; then
    opened non-blocking and checked again, in case it was swapped in between)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HostileEntry(_where(path, shown), f"cannot be read ({exc.strerror})") from None
    problem = entry_problem(path, st.st_mode)
    if problem is not None:
        raise HostileEntry(_where(path, shown), problem)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HostileEntry(_where(path, shown), f"cannot be read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        problem = entry_problem(path, st.st_mode) or "not a regular file"
        raise HostileEntry(_where(path, shown), problem)
    return fd, st


def read_entry(path: Path | str, *, limit: int, shown: str | None = None) -> bytes | None:
    """The bytes of one entry of a store or an agent's folder, or None when it does
    not exist: the one reader of such entries (:func:`open_entry`); a file over
    ``limit`` bytes is a :class:`HostileEntry` too (``oversize``)."""
    opened = _open_entry(path, shown)
    if opened is None:
        return None
    fd, st = opened
    try:
        size = st.st_size
        if size > limit:
            raise HostileEntry(
                _where(path, shown),
                f"{size:,} bytes, over the {limit:,} memgov reads from such a "
                f"file; move it out of the folder or split it",
                oversize=True,
            )
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise HostileEntry(
            _where(path, shown),
            f"grew past the {limit:,} bytes memgov reads while read",
            oversize=True,
        )
    return data


def check_writable(path: Path | str, shown: str | None = None) -> None:
    """A HostileEntry when ``path`` exists as anything but a regular file (a folder
    pushed where memgov writes a file, a pipe, a link): what to remove, named."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise HostileEntry(
            escaped_name(shown or str(path)), f"cannot be written ({exc.strerror})"
        ) from None
    if not stat.S_ISREG(st.st_mode):
        raise HostileEntry(
            escaped_name(shown or str(path)),
            f"is {kind_of(st.st_mode)} where memgov writes a file; remove it (git rm -r it if "
            "it is committed) and try again",
        )


def new_temp_file(
    folder: Path, prefix: str, suffix: str = "", mode: int = 0o600
) -> tuple[int, str]:
    """A file no one else has opened (created exclusively, never through a link) and
    its path: ``tempfile.mkstemp`` without importing ``tempfile``, ``shutil`` and
    ``random`` into every command's start-up. ``mode`` is masked by the umask."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _attempt in range(100):
        name = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, flags, mode), name
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no free temporary name after 100 tries")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same folder, fsync, then rename. A
    folder, a pipe or anything but a regular file where the file belongs is a
    HostileEntry naming the path: never replaced, never opened."""
    check_writable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the usual mode of a new file (0666 less the umask), as git and editors make them
    fd, tmp = new_temp_file(path.parent, f"{TEMP_PREFIX}{path.name}.", TEMP_SUFFIX, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


#: files written together from which one sync of the file system replaces a fsync each
SYNC_ONCE_FROM = 32


def atomic_write_many(files: list[tuple[Path, bytes]]) -> None:
    """:func:`atomic_write_bytes` of each file, in order, with its guarantee (a file's
    bytes are on disk before its name points at them), made durable together: every
    temporary file written, then one sync of their file system (Linux's ``syncfs``)
    instead of a fsync each, then the renames. A fsync costs a journal commit of the
    file system each: an import of thousands of files spent most of its writing time
    in them. Fewer than :data:`SYNC_ONCE_FROM` files, or no ``syncfs``: a fsync each,
    as :func:`atomic_write_bytes` does. An error leaves no temporary file behind."""
    syncfs = _syncfs() if len(files) >= SYNC_ONCE_FROM else None
    if syncfs is None:
        for path, data in files:
            atomic_write_bytes(path, data)
        return
    temps: list[tuple[str, Path]] = []
    devices: dict[int, str] = {}  # a file on each file system written to (a mount inside)
    renamed = 0
    try:
        for path, data in files:
            check_writable(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = new_temp_file(path.parent, f"{TEMP_PREFIX}{path.name}.", TEMP_SUFFIX, 0o666)
            temps.append((tmp, path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                devices.setdefault(os.fstat(handle.fileno()).st_dev, tmp)
        if not all([syncfs(tmp) for tmp in devices.values()]):  # unsure: a fsync each
            for tmp, _path in temps:
                _fsync_file(tmp)
        for tmp, path in temps:
            os.replace(tmp, path)
            renamed += 1
    except BaseException:
        for tmp, _path in temps[renamed:]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise


def _fsync_file(name: str) -> None:
    fd = os.open(name, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _syncfs() -> Callable[[str], bool] | None:
    """A function syncing the file system a file is on (whether it did), on Linux;
    None elsewhere. ``ctypes`` is imported only here: a large write's cost only."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        call = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None

    def sync(name: str) -> bool:
        fd = os.open(name, os.O_RDONLY)
        try:
            return bool(call(fd) == 0)
        finally:
            os.close(fd)

    return sync


def fsync_dir(folder: Path) -> None:
    """Make the names in ``folder`` durable (a rename into it, say)."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def is_temp_name(name: str) -> bool:
    """A name atomic_write_bytes gives its temporary files (``.<name>.<random>.tmp``)."""
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX) and name.count(".") >= 3


#: a folder's (mtime, inode) when it was last searched for temporary files, and its
#: subfolders then: see :func:`remove_orphan_temps`
TempStamps = dict[str, tuple[tuple[int, int], list[str]]]


def remove_orphan_temps(
    root: Path, folders: tuple[str, ...], seen: TempStamps | None = None
) -> list[str]:
    """Delete temporary files a killed writer left (the caller holds the store lock, so
    no live writer owns one). Walks the given folders without following links.

    ``seen`` (kept by the caller between calls) skips the listing of a folder whose
    stat data is what it was when it was last searched: creating a temporary file
    changes its folder's mtime, so such a folder holds none that was not there, and
    none was left. Its subfolders are still stat-ed, each. A write then costs a stat
    a folder, not a listing of every daily log and decision."""
    removed: list[str] = []
    stack = [(str(root), False), *((f"{root}/{f}", True) for f in folders)]  # (folder, recurse)
    while stack:
        folder, recurse = stack.pop()
        try:
            st = os.lstat(folder)
        except OSError:
            continue
        stamp = (st.st_mtime_ns, st.st_ino)
        known = seen.get(folder) if seen is not None else None
        if known is not None and known[0] == stamp:
            stack += [(sub, True) for sub in known[1]]
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        subfolders = []
        for entry in entries:
            if entry.is_symlink():
                continue
            if recurse and entry.is_dir(follow_symlinks=False):
                subfolders.append(entry.path)
            elif is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(os.path.relpath(entry.path, root))
        stack += [(sub, True) for sub in subfolders]
        if seen is not None:
            with contextlib.suppress(OSError):  # as it is now, the temporary files gone
                after = os.lstat(folder)
                seen[folder] = ((after.st_mtime_ns, after.st_ino), subfolders)
    return removed


# ------------------------------------------------------------------------ locking
_held_guard = threading.Lock()
_held: dict[str, tuple[threading.RLock, list[int]]] = {}  # path -> (lock, [fd, depth])


@contextlib.contextmanager
def file_lock(path: Path, *, timeout: float = 30.0) -> Iterator[None]:
    """An exclusive advisory lock (flock) so two processes never interleave writes.

    Re-entrant within a process: a decision that locks two stores in a fixed order
    can run each store's own transaction inside, which takes the same lock again.
    Threads of one process exclude each other too.
    """
    key = str(path)
    with _held_guard:
        local, state = _held.setdefault(key, (threading.RLock(), [-1, 0]))
    deadline = time.monotonic() + timeout
    if not local.acquire(timeout=timeout):
        raise StoreError(f"{path}: another thread holds the store lock (waited {timeout:g}s)")
    try:
        if state[1] == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise StoreError(
                                f"{path}: another memgov process holds the store lock "
                                f"(waited {timeout:g}s); try again when it finishes"
                            ) from None
                        time.sleep(0.02)
            except BaseException:
                os.close(fd)
                raise
            state[0] = fd
        state[1] += 1
        try:
            yield
        finally:
            state[1] -= 1
            if state[1] == 0:
                os.close(state[0])
                state[0] = -1
    finally:
        local.release()


def holds_lock(path: Path) -> bool:
    """Whether this process holds ``path``'s lock (in any thread)."""
    entry = _held.get(str(path))
    return entry is not None and entry[1][1] > 0
