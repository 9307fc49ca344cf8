"""A run folder and the one class that owns it, :class:`RunFolder`.

Every command that writes a run folder (``widderkopf-train``, its ``--recipe``, the demo,
``widderkopf-exploit --out``, the data commands of ``widderkopf-distill`` and
``widderkopf-values``, ``widderkopf-train-rllib``) goes through a :class:`RunFolder`:

- **the lock**, :class:`RunLock`: an OS lock on ``<out>/.widderkopf-train.lock``
  (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows; elsewhere an exclusively
  created file), held for the whole run and dropped on any exit. The lock file is created
  with ``O_EXCL`` and opened with ``O_NOFOLLOW``: a lock path that is a symbolic link, or
  a file with other names (a hard link), is refused, and nothing but a lock file this
  module made is ever truncated. It names its holder (pid, host, start time); a second
  process gets :class:`FolderInUse` saying so.
- **the manifest**, ``.widderkopf-run.json``: the kind of run, the top-level entries it
  writes (names or ``*`` patterns) and the files it writes at any depth (``"files"``,
  :data:`~widderkopf_env.train.run_files.RUN_FILES`). A delete (``--force-restart``)
  touches only those files (and the run's folders they leave empty), and is refused,
  naming them, while the folder holds anything else, in a subfolder too. A manifest
  without ``"files"`` is read with its kind's files in its entries; a folder written
  before the manifest existed, with its kind's. Entries that are symbolic links are
  refused.
- **atomic writes**, :func:`write_atomic`: a temporary ``.NAME.PID-RANDOM.tmp`` in the same
  folder (the one temporary-file convention), flushed and fsynced, renamed over ``NAME``,
  then the folder fsynced. :meth:`RunFolder.remove_stale_temporaries` deletes those a
  killed process left, under the lock.
- **one error**, :class:`RunFolderError`: a :class:`~widderkopf_env.cli.UsageError`, so
  every command reports it the same way (one line, exit status 2, the folder as it was).
"""

from __future__ import annotations

import contextlib
import datetime
import fnmatch
import json
import os
import socket
import stat
from pathlib import Path

from widderkopf_env.atomic import is_temporary, write_atomic
from widderkopf_env.cli import UsageError
from widderkopf_env.train.run_files import LOCK_NAME, MANIFEST, RUN_FILES, survey, top_level

#: The top-level entries each kind of run writes (names, or patterns with ``*``).
KINDS = {kind: top_level(files) for kind, files in RUN_FILES.items()}


class RunFolderError(UsageError):
    """The run folder cannot be used as asked (one line without the usage; the command
    exits 2)."""

    show_usage = False


class FolderInUse(RunFolderError):
    """Another process holds the run folder's lock."""


# --- atomic writes (widderkopf_env.atomic) ------------------------------------------------

def save_png(fig, path: Path) -> None:
    """Write the matplotlib figure ``fig`` as a PNG with :func:`write_atomic`, and close it."""
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    write_atomic(Path(path), buf.getvalue())


# --- the run folder ------------------------------------------------------------------------------

class RunFolder:
    """The folder ``out`` of a run of ``kind`` (a key of :data:`KINDS`): its lock, its
    manifest, its checks and its deletes (see the module documentation). A context
    manager holding the lock; ``command`` names the command writing it (see
    :class:`RunLock`)."""

    def __init__(self, out, kind: str, command: str = "widderkopf-train"):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        self.out, self.kind = Path(out), kind
        self.lock = RunLock(self.out, command)

    def __enter__(self) -> RunFolder:
        self.lock.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()

    # -- what the folder holds --------------------------------------------------------------

    def entries(self) -> list[str]:
        """Every top-level entry but the lock and the manifest."""
        if not self.out.is_dir():
            return []
        return sorted(p.name for p in self.out.iterdir()
                      if p.name not in (LOCK_NAME, MANIFEST))

    def files(self) -> tuple:
        """The files a run wrote here, at any depth (patterns): the manifest's (only those
        its kind writes: an edited manifest claims nothing more; one without ``"files"``,
        its kind's files in its entries), else those of this kind."""
        try:
            data = json.loads((self.out / MANIFEST).read_text())
            known = RUN_FILES[data["kind"]]
            if "files" in data:
                return tuple(x for x in data["files"] if x in known)
            entries = [x for x in data["entries"] if x in KINDS[data["kind"]]]
            return tuple(x for x in known if x.split("/")[0] in entries)
        except (OSError, ValueError, KeyError, TypeError):
            return RUN_FILES[self.kind]

    def patterns(self) -> tuple:
        """The top-level entries a run wrote here (those of :meth:`files`)."""
        return top_level(self.files())

    def is_runs(self, name: str) -> bool:
        return is_temporary(name) or any(fnmatch.fnmatchcase(name, p)
                                         for p in self.patterns())

    def owned(self) -> list[str]:
        """The run's entries in the folder (temporary files of its writes included)."""
        return [name for name in self.entries() if self.is_runs(name)]

    def foreign(self) -> list[str]:
        """What no run wrote, at any depth (paths relative to the folder; a folder no run
        writes is named once)."""
        return survey(self.out, self.files()).other

    def check_links(self) -> None:
        """:class:`RunFolderError` if an entry of the run is a symbolic link."""
        links = [name for name in self.owned() if (self.out / name).is_symlink()]
        if links:
            raise RunFolderError(
                f"{self.out} holds {_listed(links)}, a symbolic link where a run writes its "
                "own files; a run never follows such links: move it away")

    def check_fresh(self, force: bool) -> None:
        """A new run may start: the folder holds no run's entries, or ``force`` and
        nothing but a run's entries (they are deleted by :meth:`clear`)."""
        self.check_links()
        found = self.owned()
        if found and not force:
            what = ("already holds a run" if "config.json" in found
                    or "recipe.json" in found else "holds files of a run without its config")
            raise RunFolderError(
                f"{self.out} {what} ({_listed(found)}): pass --resume to continue it, "
                "--force-restart to delete them and start afresh, or choose another --out")
        if found:
            self.check_clear()

    def check_clear(self) -> None:
        """:class:`RunFolderError`, naming them, if the folder holds anything no run
        wrote, at any depth: ``--force-restart`` deletes a run, never anything else."""
        self._cleared_survey()

    def _cleared_survey(self):
        self.check_links()
        found = survey(self.out, self.files())
        if found.other:
            raise RunFolderError(
                f"{self.out} holds files that are not a run's ({_listed(found.other)}); "
                "--force-restart deletes only what a run wrote: move them away, or give a "
                "new or an empty folder")
        return found

    # -- writes (under the lock) ------------------------------------------------------------

    def commit(self) -> None:
        """Record the run's entries in the manifest (before its first output)."""
        self.out.mkdir(parents=True, exist_ok=True)
        data = {"kind": self.kind, "entries": list(KINDS[self.kind]),
                "files": list(RUN_FILES[self.kind])}
        old = None
        with contextlib.suppress(OSError, ValueError):
            old = json.loads((self.out / MANIFEST).read_text())
        if old == data:
            return
        kind = old.get("kind") if isinstance(old, dict) else self.kind
        if kind != self.kind:
            raise RunFolderError(f"{self.out} holds a run of another kind ({kind!r}, not "
                                 f"{self.kind!r}): choose another folder")
        write_atomic(self.out / MANIFEST, (json.dumps(data) + "\n").encode())

    def start(self) -> None:
        """The first writes of a run that writes beside what it wrote before (no resume
        and no fresh start to choose): links refused, stale temporaries removed, the
        manifest written."""
        self.check_links()
        self.remove_stale_temporaries()
        self.commit()

    def clear(self) -> None:
        """Delete the files the run wrote, at any depth, and its folders they leave empty
        (``--force-restart``); refused, nothing deleted, while the folder holds anything
        else (:meth:`check_clear`)."""
        found = self._cleared_survey()
        for path in found.files:
            path.unlink(missing_ok=True)
        for folder in found.folders:  # deepest first
            with contextlib.suppress(OSError):
                folder.rmdir()
        (self.out / MANIFEST).unlink(missing_ok=True)

    def write(self, name: str, data: bytes) -> Path:
        """Write ``data`` as the run's file ``name`` (a path inside the folder), atomically."""
        path = self.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
        return path

    def remove_stale_temporaries(self) -> None:
        """Delete the temporary files of writes a killed process left, anywhere in the
        run's entries."""
        for name in self.owned():
            path = self.out / name
            if is_temporary(name):
                with contextlib.suppress(OSError):
                    path.unlink()
            elif path.is_dir() and not path.is_symlink():
                remove_temporaries_in(path, recursive=True)


def remove_temporaries_in(folder: Path, recursive: bool = False) -> None:
    """Delete the temporary files of atomic writes in ``folder`` (if it is one)."""
    folder = Path(folder)
    if folder.is_dir():
        for p in (folder.rglob("*") if recursive else folder.iterdir()):
            if is_temporary(p.name) and p.is_file():
                with contextlib.suppress(OSError):
                    p.unlink()


def _listed(names: list[str]) -> str:
    shown = names[:6] + ([f"{len(names) - 6} more"] if len(names) > 6 else [])
    return ", ".join(shown)


#: The files a PPO run writes again when it goes on.
_PPO_FILES = ("config.json", "best_model.zip", "best_model.json", "final_model.zip",
              "final_policy.npz", "eval_history.json", "learning_curve.png", "summary.json")


def check_resume(out: Path) -> None:
    """The folder of a PPO run to resume has the shape a run leaves (its folders are
    folders, ``best_model.json`` is whole); :class:`RunFolderError` otherwise."""
    RunFolder(out, "ppo").check_links()
    for name in ("checkpoints", "tb"):
        if (out / name).exists() and not (out / name).is_dir():
            raise RunFolderError(f"--resume: {out / name} is a file, not the run's {name} "
                                 "folder; move it away")
    files = [out / name for name in _PPO_FILES]
    if (out / "checkpoints").is_dir():
        files += [p for p in (out / "checkpoints").iterdir() if p.name.startswith("step_")]
    for path in files:
        if path.is_dir():
            raise RunFolderError(f"--resume: {path} is a folder, not the run's file (the run "
                                 "writes it again); move it away")
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


# --- the lock ------------------------------------------------------------------------------------

class RunLock:
    """The lock of a run folder (see the module documentation); a context manager. A
    folder made to hold the lock is removed again on release when nothing else was
    written into it. ``command``: the command that runs, named when another one holds
    the lock."""

    def __init__(self, out: Path, command: str = "widderkopf-train"):
        self.out, self.command = Path(out), command
        self.path = self.out / LOCK_NAME
        self._fd: int | None = None
        self._made: list[Path] = []  # folders made to hold the lock, innermost last

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()

    def acquire(self) -> None:
        if self.out.exists() and not self.out.is_dir():
            raise RunFolderError(f"{self.out} is a file, not a folder: give a new or an "
                                 "empty folder for the run")
        missing = []
        folder = self.out
        while not folder.exists() and not folder.is_symlink():
            missing.append(folder)
            folder = folder.parent
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise RunFolderError(f"cannot create the run folder {self.out}: "
                                 f"{err.strerror or err}") from None
        self._made = missing[::-1]
        try:
            self._fd = _lock(self.path, self.command)
        except BaseException:
            self._remove_made()
            raise
        holder = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": datetime.datetime.now(datetime.timezone.utc)
                  .isoformat(timespec="seconds")}
        os.ftruncate(self._fd, 0)  # _lock checked: a lock file, no other name
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

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _holder(path: Path) -> str:
    try:
        h = json.loads(path.read_text())
        return f"pid {h['pid']} on {h['host']}, started {h['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not yet written its name"


def _in_use(path: Path, command: str) -> FolderInUse:
    extra = "" if _KIND != "exclusive-file" else (
        f"; if that process is gone, delete {path}")
    return FolderInUse(f"{path.parent} is in use by another {command} "
                       f"({_holder(path)}){extra}; wait for it to end or choose another --out")


def _not_a_lock(path: Path, what: str) -> RunFolderError:
    return RunFolderError(f"{path} is {what}, not a lock file of this program; it is left "
                          "as it is: move it away")


def _open(path: Path) -> int:
    """The descriptor of the lock file ``path``: created with ``O_EXCL``, or an existing
    one (a killed run's) opened without following a link; refused unless it is a regular
    file with one name."""
    if path.is_symlink():  # also where the OS has no O_NOFOLLOW
        raise _not_a_lock(path, "a symbolic link")
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644)
            break
        except FileExistsError:
            pass
        try:
            fd = os.open(path, os.O_RDWR | _NOFOLLOW | _CLOEXEC)
            break
        except FileNotFoundError:
            continue  # removed in between: create it
        except OSError as err:
            if path.is_symlink():
                raise _not_a_lock(path, "a symbolic link") from None
            raise RunFolderError(f"cannot open the lock file {path}: {err.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        raise _not_a_lock(path, "a file with another name (a hard link)"
                          if stat.S_ISREG(st.st_mode) else "not a regular file")
    return fd


def _lock(path: Path, command: str) -> int:
    """Open and lock ``path``; the descriptor, or :class:`FolderInUse` naming
    ``command``."""
    if _KIND == "exclusive-file":  # pragma: no cover (no OS lock here)
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
        except FileExistsError:
            raise _in_use(path, command) from None
    while True:
        fd = _open(path)
        try:
            if _KIND == "fcntl":
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            else:  # pragma: no cover (Windows): lock a byte past the holder's line
                os.lseek(fd, 1 << 20, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                os.lseek(fd, 0, os.SEEK_SET)
        except OSError:
            os.close(fd)
            raise _in_use(path, command) from None
        # the holder before us may have removed the file after we opened it
        try:
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same or _KIND != "fcntl":
            return fd
        os.close(fd)
