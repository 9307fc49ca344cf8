"""Crash-safe file writes: a file holds either its old content or all of the new.

The file is written to a temporary name in the same folder (``.NAME.PID.tmp``), flushed
and fsynced, renamed over its final name, and the folder is fsynced, so that the rename
survives a power loss too. Training runs (checkpoints, summaries) and the browser table's
match record use it.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that ``path`` holds either its old content or all of
    ``data``, also after a crash or power loss: temporary file in the same folder, flush,
    fsync, rename, fsync of the folder."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
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
