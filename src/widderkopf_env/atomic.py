"""Crash-safe file writes: a file holds either its old content or all of the new.

The file is written to a temporary name of its own in the same folder
(``.NAME.PID-RANDOM.tmp``, unique per write, so that two writers of one process never
share one), flushed and fsynced, renamed over its final name, and the folder is fsynced,
so that the rename survives a power loss too. Run folders
(``widderkopf_env.train.run_folder``) and the browser table's match record use it.

:class:`FileLock` is the lock of a file that several processes and threads write: an OS
lock (``fcntl.flock``) on a lock file beside it, which a writer holds while it writes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from pathlib import Path

__all__ = ["FileLock", "fsync_dir", "is_temporary", "open_temporary", "write_atomic"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_TEMPORARY = re.compile(r"^\..+\.\d+(-[A-Za-z0-9_]+)?\.tmp$")


def open_temporary(path: Path) -> tuple[Path, int]:
    """A new temporary file for a write of ``path``, in ``path``'s folder: its name, unique
    to this call (created with ``O_EXCL``), and a descriptor open for writing."""
    path = Path(path)
    while True:
        tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
                                | _CLOEXEC, 0o666)
        except FileExistsError:
            continue  # taken (by chance, or by a temporary file a crash left): another


def is_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary file of :func:`write_atomic` (or of older versions,
    ``.NAME.PID.tmp`` and ``*.tmp.npz``)."""
    return bool(_TEMPORARY.match(name)) or name.endswith(".tmp.npz")


def _named(err: OSError, path: Path) -> OSError:
    """``err`` naming ``path`` (the file the caller asked for, never a temporary one)."""
    return OSError(err.errno, err.strerror or str(err), str(path))


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` holds either its old content or all of
    ``data``, also after a crash or power loss: temporary file in the same folder, flush,
    fsync, rename, fsync of the folder. An ``OSError`` names ``path``."""
    path = Path(path)
    tmp = None
    try:
        tmp, fd = open_temporary(path)
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise _named(err, path) from err
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX; a no-op where folders cannot be
    opened, as on Windows)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- the lock of a shared file ----------------------------------------------------------------

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows: an exclusively created file)
    fcntl = None

class FileLock:
    """The lock ``path`` (a file created for it, beside the file it guards); a context
    manager that waits for it, at most ``timeout`` seconds if given (then
    ``BlockingIOError`` naming it). One holder at a time across threads and processes:
    each :meth:`acquire` opens the file anew (its own ``flock``); the holder removes the
    file on release, and a waiter that then gets the lock of a removed file tries again.
    A lock path that is a symbolic link or not a regular file is refused (``OSError``
    naming it), never followed or truncated."""

    def __init__(self, path: Path, timeout: float | None = None):
        self.path, self.timeout = Path(path), timeout
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            fd = self._open()
            try:
                if fcntl is not None:
                    self._flock(fd, deadline)
                    st = os.stat(self.path, follow_symlinks=False)
                    if st.st_ino != os.fstat(fd).st_ino:
                        raise FileNotFoundError  # removed by the holder before us
                self._fd = fd
                return
            except FileNotFoundError:
                os.close(fd)
            except BaseException:
                os.close(fd)
                raise

    def _flock(self, fd: int, deadline: float | None) -> None:
        if deadline is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise BlockingIOError(errno.EAGAIN, "held by another writer for over "
                                          f"{self.timeout:g} s", str(self.path)) from None
                time.sleep(pause)
                pause = min(2 * pause, 0.05)

    def _open(self) -> int:
        while True:
            try:
                if fcntl is None:  # pragma: no cover (no OS lock: the file is the lock)
                    return self._create_exclusively()
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
            except FileNotFoundError:
                continue
            except OSError as err:
                raise _named(err, self.path) from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise OSError(f"{self.path} is not a regular file, not a lock file of this "
                              "program: move it away")
            return fd

    def _create_exclusively(self) -> int:  # pragma: no cover (platforms without flock)
        while True:
            try:
                return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
            except FileExistsError:
                time.sleep(0.01)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()  # while locked: a waiter sees the inode change
        os.close(self._fd)
        self._fd = None
