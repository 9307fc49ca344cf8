"""``widderkopf_env.atomic``: with ``write_atomic`` a file holds its old content or all
the new, no temporary file stays behind, each write has a temporary name of its own, an
error names the file, and the file and its folder are fsynced; ``FileLock`` lets one
holder in at a time, across threads and processes, and never follows a link."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from widderkopf_env import atomic


def test_write_replaces_the_whole_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "matches.json"
    atomic.write_atomic(path, b"old")
    atomic.write_atomic(path, b"new content")
    assert path.read_bytes() == b"new content"
    assert [p.name for p in tmp_path.iterdir()] == ["matches.json"]


def test_a_failed_write_keeps_the_old_content(tmp_path, monkeypatch):
    path = tmp_path / "matches.json"
    atomic.write_atomic(path, b"old")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        atomic.write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["matches.json"]


def test_the_file_and_the_folder_are_fsynced(tmp_path, monkeypatch):
    if not os.path.exists("/proc/self/fd"):
        pytest.skip("needs /proc to name the synced files")
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")),
                                                 real(fd)))
    atomic.write_atomic(tmp_path / "f.json", b"x")
    assert synced[-1] == str(tmp_path) and synced[0].endswith(".tmp")


def test_each_write_has_its_own_temporary(tmp_path, monkeypatch):
    """A write started while another of the same process is between its temporary file and
    the rename (another session's thread) takes another name: both succeed."""
    path = tmp_path / "matches.json"
    real = os.replace
    seen = []

    def replace(src, dst):
        seen.append(os.path.basename(src))
        if len(seen) == 1:
            atomic.write_atomic(path, b"second")  # in the middle of the first write
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    atomic.write_atomic(path, b"first")
    assert len(set(seen)) == 2 and all(atomic.is_temporary(name) for name in seen)
    assert path.read_bytes() == b"first"
    assert [p.name for p in tmp_path.iterdir()] == ["matches.json"]


def test_an_error_names_the_file_not_its_temporary(tmp_path, monkeypatch):
    path = tmp_path / "matches.json"
    real_open, real_os_open = open, os.open

    def refuse(name, *args, **kwargs):
        if str(name).endswith(".tmp"):
            raise PermissionError(13, "Permission denied", str(name))
        return (real_os_open if args and isinstance(args[0], int) else real_open)(name, *args,
                                                                                **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    monkeypatch.setattr("builtins.open", refuse)
    with pytest.raises(PermissionError) as err:
        atomic.write_atomic(path, b"x")
    assert err.value.filename == str(path) and ".tmp" not in str(err.value)


def test_the_lock_lets_one_holder_in_at_a_time(tmp_path):
    lock_path, inside, most = tmp_path / ".f.lock", [0], [0]
    barrier = threading.Barrier(6, timeout=60)

    def hold():
        barrier.wait()
        for _ in range(20):
            with atomic.FileLock(lock_path):
                inside[0] += 1
                most[0] = max(most[0], inside[0])
                time.sleep(0)  # let another thread try to come in
                inside[0] -= 1

    threads = [threading.Thread(target=hold) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert most[0] == 1 and not lock_path.exists()  # removed by its last holder


COUNTER = """
import sys
from pathlib import Path
from widderkopf_env.atomic import FileLock
path = Path(sys.argv[1])
for _ in range(50):
    with FileLock(path.with_name(".count.lock")):
        n = int(path.read_text())
        path.write_text(str(n + 1))
"""


def test_the_lock_lets_one_process_in_at_a_time(tmp_path):
    count = tmp_path / "count"
    count.write_text("0")
    procs = [subprocess.Popen([sys.executable, "-c", COUNTER, str(count)]) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert count.read_text() == "150"  # no read-modify-write lost


def test_a_lock_path_that_is_a_link_or_a_folder_is_refused(tmp_path):
    target = tmp_path / "precious"
    target.write_text("keep")
    (tmp_path / ".link.lock").symlink_to(target)
    (tmp_path / ".dir.lock").mkdir()
    for name in (".link.lock", ".dir.lock"):
        with pytest.raises(OSError, match=name), atomic.FileLock(tmp_path / name):
            pass
    assert target.read_text() == "keep"
