"""Crash-safe file writes: a file holds either its old content or all of the new.

The file is written to a temporary name in the same folder (``.NAME.PID.tmp``), flushed
and fsynced, renamed over its final name, and the folder is fsynced, so that the rename
survives a power loss too. Run folders (``widderkopf_env.train.run_folder``) and the
browser table's match record use it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["fsync_dir", "is_temporary", "temporary_path", "write_atomic"]

_TEMPORARY = re.compile(r"^\..+\.\d+\.tmp$")


def temporary_path(path: Path) -> Path:
    """The temporary name :func:`write_atomic` writes ``path`` under first."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def is_temporary(name: str) -> bool:
    """Whether ``name`` is a temporary file of :func:`write_atomic` (or of older versions,
    ``*.tmp.npz``)."""
    return bool(_TEMPORARY.match(name)) or name.endswith(".tmp.npz")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` holds either its old content or all of
    ``data``, also after a crash or power loss: temporary file in the same folder, flush,
    fsync, rename, fsync of the folder. An ``OSError`` names ``path``."""
    path = Path(path)
    tmp = temporary_path(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        if err.filename is None:
            raise OSError(err.errno, err.strerror or str(err), str(path)) from err
        raise
    except BaseException:
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
