"""A training run's folder: owned by one process at a time, checked before it is written.

- :class:`RunLock`: an OS lock on ``<out>/.widderkopf-train.lock`` (``fcntl.flock`` on
  POSIX, ``msvcrt.locking`` on Windows; elsewhere an exclusively created file), held for
  the whole run and released on any exit, Ctrl-C and exceptions included (the OS drops
  it when the process dies). The file names its holder (pid, host, start time); a second
  process gets :class:`FolderInUse` saying so. The lock file is removed on release, and
  a folder the lock created is removed again when nothing else was written into it.
- :func:`artefacts`: what of a run a folder holds; :func:`check_fresh` refuses to start a
  run over any of it (unless ``--force-restart``), :func:`check_resume` checks the shape
  of a folder to resume; :func:`clear` and :func:`remove_stale_temporaries` are the
  writes that follow those checks, under the lock.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import socket
from pathlib import Path

LOCK_NAME = ".widderkopf-train.lock"
#: Files and folders a run writes (besides temporary ``.*.tmp`` files and the lock).
OUTPUTS = ("config.json", "checkpoints", "best_model.zip", "best_model.json",
           "final_model.zip", "final_policy.npz", "eval_history.json", "learning_curve.png",
           "summary.json", "tb")


class RunFolderError(Exception):
    """The run folder cannot be used as asked (one line; ``widderkopf-train`` exits 2)."""


class FolderInUse(RunFolderError):
    """Another process holds the run folder's lock."""


def artefacts(out: Path) -> list[str]:
    """The run artefacts in ``out``: its outputs, ``best_model.*``/``final_model.*`` files
    and temporary files of interrupted writes (here and in ``checkpoints/``)."""
    out = Path(out)
    if not out.is_dir():
        return []
    found = {name for name in OUTPUTS if (out / name).exists()}
    found |= {p.name for p in out.iterdir()
              if p.name.startswith(("best_model.", "final_model.")) or p.name.endswith(".tmp")}
    if (out / "checkpoints").is_dir():
        found |= {f"checkpoints/{p.name}" for p in (out / "checkpoints").glob("*.tmp")}
    return sorted(found)


def check_fresh(out: Path, force: bool) -> None:
    """A new run may start in ``out``: it holds no run artefact, or ``force`` (they will be
    deleted by :func:`clear`)."""
    found = artefacts(out)
    if found and not force:
        what = ("already holds a run" if "config.json" in found
                else "holds files of a run without its config.json")
        shown = found[:4] + ([f"{len(found) - 4} more"] if len(found) > 4 else [])
        raise RunFolderError(
            f"{out} {what} ({', '.join(shown)}): pass --resume to continue it, "
            "--force-restart to delete them and start afresh, or choose another --out")


def check_resume(out: Path) -> None:
    """The folder of a run to resume has the shape a run leaves (its folders are folders,
    ``best_model.json`` is whole); :class:`RunFolderError` otherwise."""
    for name in ("checkpoints", "tb"):
        if (out / name).exists() and not (out / name).is_dir():
            raise RunFolderError(f"--resume: {out / name} is a file, not the run's {name} "
                                 "folder; move it away")
    best = out / "best_model.json"
    if best.exists():
        try:
            data = json.loads(best.read_text())
            ok = (isinstance(data, dict) and type(data.get("steps")) is int
                  and isinstance(data.get("mean"), (int, float)))
        except (OSError, ValueError):
            ok = False
        if not ok:
            raise RunFolderError(f"--resume: {best} is damaged (not the JSON a run writes); "
                                 "delete it and best_model.zip to resume without the best "
                                 "model so far")


def clear(out: Path) -> None:
    """Delete the run artefacts in ``out`` (``--force-restart``), nothing else."""
    for name in artefacts(out):
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def remove_stale_temporaries(out: Path) -> None:
    """Delete the temporary files of writes a crash interrupted (``.*.tmp`` in ``out``
    and its ``checkpoints/``); safe only while holding the folder's lock."""
    for folder in (out, out / "checkpoints"):
        remove_temporaries_in(folder)


def remove_temporaries_in(folder: Path) -> None:
    """Delete the ``.*.tmp`` files of atomic writes in ``folder`` (if it is one)."""
    if Path(folder).is_dir():
        for p in Path(folder).glob(".*.tmp"):
            with contextlib.suppress(OSError):
                p.unlink()


class RunLock:
    """The lock of a run folder (see the module documentation); a context manager."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.path = self.out / LOCK_NAME
        self._fd: int | None = None
        self._made: list[Path] = []  # folders made to hold the lock, innermost last

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        missing = []
        folder = self.out
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        self.out.mkdir(parents=True, exist_ok=True)
        self._made = missing[::-1]
        try:
            self._fd = _lock(self.path)
        except BaseException:
            self._remove_made()
            raise
        holder = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": datetime.datetime.now(datetime.timezone.utc)
                  .isoformat(timespec="seconds")}
        os.ftruncate(self._fd, 0)
        os.write(self._fd, (json.dumps(holder) + "\n").encode())

    def release(self) -> None:
        if self._fd is None:
            return
        if _KIND != "msvcrt":  # unlinked while locked: a waiter re-checks the inode
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(self._fd)
        self._fd = None
        self._remove_made()

    def _remove_made(self) -> None:
        for folder in reversed(self._made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty: nothing of a run was written
        self._made = []


try:
    import fcntl

    _KIND = "fcntl"
except ImportError:  # pragma: no cover (Windows)
    try:
        import msvcrt

        _KIND = "msvcrt"
    except ImportError:
        _KIND = "exclusive-file"


def _holder(path: Path) -> str:
    try:
        h = json.loads(path.read_text())
        return f"pid {h['pid']} on {h['host']}, started {h['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not yet written its name"


def _in_use(path: Path) -> FolderInUse:
    extra = "" if _KIND != "exclusive-file" else (
        f"; if that process is gone, delete {path}")
    return FolderInUse(f"{path.parent} is in use by another widderkopf-train "
                       f"({_holder(path)}){extra}; wait for it to end or choose another --out")


def _lock(path: Path) -> int:
    """Open and lock ``path``; the descriptor, or :class:`FolderInUse`."""
    if _KIND == "exclusive-file":  # pragma: no cover (no OS lock here)
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            raise _in_use(path) from None
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if _KIND == "fcntl":
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:  # pragma: no cover (Windows): lock a byte past the holder's line
                os.lseek(fd, 1 << 20, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                os.lseek(fd, 0, os.SEEK_SET)
        except OSError:
            os.close(fd)
            raise _in_use(path) from None
        # the holder before us may have removed the file after we opened it
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same or _KIND != "fcntl":
            return fd
        os.close(fd)
